// GET /object_info/{node}: one node class of the local engine's catalogue, passed through (503 when it is silent).
import { z } from "zod";
import { passThrough } from "../../../lib/backends/passthrough.ts";
import { defineFunction, JsonText } from "../../fn.ts";

export default defineFunction({
  root: true,
  method: "GET",
  path: "/object_info/:node",
  summary:
    "One node class from the local engine's catalogue (an unknown class is {}), as the engine answers it",
  input: z.object({
    node: z.string().min(1, "must be a node class name").describe("The engine's node class, like KSampler"),
  }),
  async handler(input, ctx) {
    // The engine's JSON goes out as it came, never parsed.
    return new JsonText(
      await passThrough(
        ctx,
        `/object_info/${encodeURIComponent(input.node)}`,
        `node class ${JSON.stringify(input.node)}`,
        { signal: ctx.signal },
      ),
    );
  },
});
