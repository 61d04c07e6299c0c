// GET /studio/backends: each configured backend, whether it answers now, and whether an API key is set.
import { listBackends } from "../../lib/backends/list.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/backends",
  queue: true,
  summary: "The backends (local, cloud, deployments, router, builtin), each asked whether it answers",
  handler(_input, ctx) {
    return listBackends(ctx, { signal: ctx.signal });
  },
});
