// GET /studio/jobs: every queued or running job, then the last 200 finished; lane states; the paid counter.

import { jobsAnswer } from "../../lib/jobs/view.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/jobs",
  queue: true,
  summary: "The job queue: queued and running jobs, then the last 200 finished; lanes; paid runs",
  async handler(_input, ctx) {
    return jobsAnswer(await ctx.jobs(), ctx);
  },
});
