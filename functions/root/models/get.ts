// GET /models: the local engine's model folder names, passed through (503 when it does not answer).
import { passThrough } from "../../../lib/backends/passthrough.ts";
import { defineFunction, JsonText } from "../../fn.ts";

// `root: true`: the engine's route shape, for the server root and /api; a runtime that ignores it mounts /studio.
export default defineFunction({
  root: true,
  method: "GET",
  path: "/models",
  summary: "The local engine's model folders, as the engine answers them",
  async handler(_input, ctx) {
    // The engine's JSON goes out as it came, never parsed.
    return new JsonText(await passThrough(ctx, "/models", "model list", { signal: ctx.signal }));
  },
});
