// POST /studio/build: compile final then proxy and write shotlist/ and refs_todo*; a failed compile is 200 ok: false.
import { z } from "zod";
import { buildFolder } from "../../lib/episode/run-build.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/build",
  summary:
    "Build the episode: final then proxy shot lists, shots.json and the reference work order. Extra field " +
    "`diagnostics`: [{severity (error|warning), file (script|series), line (1-based or null), col?, message}], " +
    "every error of both passes (not only the first) and every warning, each at the line that is wrong",
  input: z.object({ ep }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    return buildFolder(ctx, ep);
  },
});
