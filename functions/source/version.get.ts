// GET /studio/source/version (an extra route): the text of one kept copy of the script or series config.
import { z } from "zod";
import { readHistoryVersion, VERSION_ID, VERSION_ID_RULE } from "../../lib/episode/history-read.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep, sourceFile } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/source/version",
  summary:
    "Extra: one saved version of the script or series config (text with LF endings, no BOM); 404 when not kept",
  input: z.object({
    ep,
    file: sourceFile,
    id: z
      .string()
      .regex(VERSION_ID, VERSION_ID_RULE)
      .describe("A version id from GET /studio/source/history, like 20240102-030405 or 20240102-030405-2"),
  }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    return readHistoryVersion(ep, input.file, input.id);
  },
});
