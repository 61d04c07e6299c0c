// GET /studio/master/job: the episode's master job (running, another process's run from its lock, or the last one
// that ended), or null.
import { z } from "zod";
import { currentMasterJob } from "../../lib/master/job-state.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/master/job",
  summary:
    "The episode's master job: {job: null | {ep, pass, state running|done|failed, elsewhere, by, started, finished, step, stage, done, total, text, output, mov, report, titles, error}}",
  input: z.object({ ep }),
  async handler(input, ctx) {
    const real = await resolveEpisode(input.ep, ctx);
    return { job: await currentMasterJob(await ctx.jobs(), real, ctx.now()) };
  },
});
