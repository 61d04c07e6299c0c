// GET /studio/workflows: the workflows saved in the engine, and which copy of each target's workflow renders use.
import { z } from "zod";
import { listWorkflows } from "../../lib/workflows/install.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/workflows",
  summary:
    "The engine's saved workflows (`target`: a shipped target renders with that name) and, per target, the copy in force",
  input: z.object({}),
  handler: (_input, ctx) => listWorkflows(ctx),
});
