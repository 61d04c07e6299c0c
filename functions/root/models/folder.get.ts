// GET /models/{folder}: the files of one model folder of the local engine, passed through (503 when it is silent).
import { z } from "zod";
import { passThrough } from "../../../lib/backends/passthrough.ts";
import { defineFunction, JsonText } from "../../fn.ts";

export default defineFunction({
  root: true,
  method: "GET",
  path: "/models/:folder",
  summary: "The files in one of the local engine's model folders, as the engine answers them",
  input: z.object({
    folder: z
      .string()
      .min(1, "must be a model folder name")
      .describe("The engine's model folder, like checkpoints"),
  }),
  async handler(input, ctx) {
    // The engine's JSON goes out as it came, never parsed.
    return new JsonText(
      await passThrough(
        ctx,
        `/models/${encodeURIComponent(input.folder)}`,
        `model folder ${JSON.stringify(input.folder)}`,
        { signal: ctx.signal },
      ),
    );
  },
});
