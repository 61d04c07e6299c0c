// POST /studio/workflow/install: save a target's shipped workflow in the engine's saved workflows, so renders use
// the engine's copy (which the user may then edit there); a `name` saves a scratch copy that does not render.
import { z } from "zod";
import { savedWorkflowName, targetId } from "../../lib/schema/fields.ts";
import { installWorkflow } from "../../lib/workflows/install.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/workflow/install",
  summary:
    "Save the target's shipped workflow byte for byte in the engine's saved workflows; 409 when one is saved there already",
  input: z.object({
    target: targetId,
    name: savedWorkflowName
      .optional()
      .describe("Save a scratch copy under this name (ends in .json) instead of the name renders look up"),
    overwrite: z.boolean().optional().describe("Replace a workflow already saved under that name"),
  }),
  handler: (input, ctx) => installWorkflow(ctx, input),
});
