// GET /queue: the local engine's queue in its own shape, then the service's queued and running jobs.
import { queueAnswer } from "../../../lib/backends/queue.ts";
import { defineFunction } from "../../fn.ts";

export default defineFunction({
  root: true,
  method: "GET",
  path: "/queue",
  summary: "The local engine's queue_running and queue_pending followed by the service's jobs; studio_jobs",
  handler(_input, ctx) {
    return queueAnswer(ctx, { signal: ctx.signal });
  },
});
