// POST /studio/refs/generate: queue candidates of a reference (a character's four views sharing one seed, `count`
// of them, keyframes as stills at their shot's size) as `ref` jobs and answer at once with what was queued and,
// per candidate, what could not be.
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { generateBody, generateRefs } from "../../lib/refs/generate.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/refs/generate",
  summary:
    "Queue candidates of a reference; answers {queued, errors} without waiting. One candidate's problem (a target " +
    "not installed, a backend not set up, missing model files with `missing_files`) is an `errors` entry",
  input: generateBody,
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const store = await ctx.jobs();
    return generateRefs(ctx, ep, input, { store, wake: ctx.jobSignals.jobAdded });
  },
});
