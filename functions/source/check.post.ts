// POST /studio/source/check: check a proposed script or series config against the other file on disk; writes nothing.
import { z } from "zod";
import { runCheck } from "../../lib/episode/compile-pool.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep, sourceFile } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/source/check",
  summary:
    "Check a script or series config text (parse, load, build the final pass in memory); nothing is written",
  input: z.object({ ep, file: sourceFile, text: z.string().describe("The proposed text of that file") }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    return runCheck(ctx, ep, input.file, input.text);
  },
});
