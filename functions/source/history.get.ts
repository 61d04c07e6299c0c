// GET /studio/source/history (an extra route): the kept copies of the script or series config, newest first.
import { z } from "zod";
import { listHistory } from "../../lib/episode/history-read.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep, sourceFile } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/source/history",
  summary:
    "Extra: the saved versions of the script or series config kept in _history/ (newest first): id, when, size",
  input: z.object({ ep, file: sourceFile }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    return { file: input.file, versions: await listHistory(ep, input.file) };
  },
});
