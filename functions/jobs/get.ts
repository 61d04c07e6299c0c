// GET /studio/jobs: every queued or running job, then the last 200 finished; lane states; the paid counter; the live
// workers and the lanes each one reaches.

import { jobsAnswer } from "../../lib/jobs/view.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/jobs",
  queue: true,
  summary:
    "The job queue: queued and running jobs, then the last 200 finished; lanes; paid runs; and the extra field `workers`: every live worker ({owner, host, pid, kinds, lanes, down, seen}: the lanes whose engine it reaches, those it cannot and why, when it last said so)",
  async handler(_input, ctx) {
    return jobsAnswer(await ctx.jobs(), ctx);
  },
});
