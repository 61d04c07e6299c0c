// GET /studio/file: streams one file of an episode (or what its series config opens above it) with Range support.
import { z } from "zod";
import { servedFile } from "../../lib/episode/served-file.ts";
import { ep } from "../../lib/schema/fields.ts";
import { defineFunction, FileReply } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/file",
  summary: "Stream a file of the episode (Range, ETag, HEAD); content type from the extension",
  input: z.object({ ep, path: z.string().describe("The file: a path relative to the episode folder") }),
  async handler(input, ctx) {
    return new FileReply(await servedFile(ctx, input.ep, input.path));
  },
});
