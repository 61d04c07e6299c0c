// DELETE /studio/workflow/install: remove the engine's saved copy of a target's workflow (renders fall back to the
// next copy in order); a workflow file named by an environment variable is never touched.
import { z } from "zod";
import { savedWorkflowName, targetId } from "../../lib/schema/fields.ts";
import { uninstallWorkflow } from "../../lib/workflows/install.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "DELETE",
  path: "/workflow/install",
  summary: "Remove the engine's saved copy of the target's workflow (or the scratch copy `name`)",
  input: z.object({
    target: targetId,
    name: savedWorkflowName.optional().describe("The scratch copy to remove instead of the one renders use"),
  }),
  handler: (input, ctx) => uninstallWorkflow(ctx, input),
});
