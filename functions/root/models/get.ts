// GET /models: the local engine's model folder names, passed through (503 when it does not answer).
import { passThrough } from "../../../lib/backends/passthrough.ts";
import { defineFunction } from "../../../lib/fn.ts";

// `root: true`: the engine's route shape, for the server root and /api; a runtime that ignores it mounts /studio.
export default defineFunction({
  root: true,
  method: "GET",
  path: "/models",
  summary: "The local engine's model folders, as the engine answers them",
  handler(_input, ctx) {
    return passThrough(ctx, "/models", "model list", { signal: ctx.signal });
  },
});
