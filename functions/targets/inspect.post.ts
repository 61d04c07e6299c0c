// POST /studio/targets/inspect: read a user's workflow (sent, or saved in the engine) as a target — its output, its
// prompts and the widgets a render sets, its model files — and propose a draft target.json binding them.
import { z } from "zod";
import { engineAddress } from "../../lib/backends/list.ts";
import { effectiveSettings } from "../../lib/config/settings-store.ts";
import { StudioError } from "../../lib/errors.ts";
import { resolveEpisode } from "../../lib/paths/index.ts";
import { boundedJson, ep, targetId } from "../../lib/schema/fields.ts";
import { errorMessage, isObject } from "../../lib/store/json-guards.ts";
import { InspectError, inspectGraph } from "../../lib/targets/inspect.ts";
import { graphFrom, WorkflowError } from "../../lib/targets/workflow.ts";
import { checkWorkflowName, readSavedWorkflow } from "../../lib/workflows/backend.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/targets/inspect",
  summary:
    "Inspect a workflow (API or canvas, sent as `graph` or saved in the engine as `workflow`) and propose a draft target for it",
  input: z.object({
    graph: boundedJson
      .optional()
      .describe("The workflow itself (API or canvas format); wins over `workflow`"),
    workflow: z
      .string()
      .max(200)
      .optional()
      .describe("The name of a workflow saved in the engine (ends in .json)"),
    ep: ep.optional().describe("The episode whose show the target is meant for"),
    id: targetId.optional().describe("The id to propose (default: custom_ and the workflow's name)"),
    label: z.string().max(100).optional().describe("The label to propose"),
  }),
  async handler(input, ctx) {
    if (input.ep) await resolveEpisode(input.ep, ctx);
    const address = engineAddress(await effectiveSettings(ctx));
    let data: unknown;
    let workflowName: string | undefined;
    if (isObject(input.graph) && Object.keys(input.graph).length > 0) {
      data = input.graph;
    } else if (input.workflow !== undefined && input.workflow !== "") {
      workflowName = checkWorkflowName(input.workflow, "workflow");
      const bytes = await readSavedWorkflow(address, workflowName);
      if (!bytes)
        throw new StudioError(404, `no workflow ${JSON.stringify(workflowName)} is saved in the backend`);
      try {
        data = JSON.parse(bytes.toString("utf8").replace(/^\uFEFF/, ""));
      } catch (err) {
        throw new StudioError(400, `workflows/${workflowName} is not valid JSON (${errorMessage(err)})`);
      }
    } else {
      throw new StudioError(
        400,
        "send a workflow: `graph` (the workflow itself) or `workflow` (a saved name)",
      );
    }
    let objectInfo: Record<string, unknown>;
    try {
      objectInfo = await ctx.engines.lookups.objectInfo(address, undefined, { timeoutMs: 30_000 });
    } catch (err) {
      throw new StudioError(502, `the backend's node list is unavailable: ${errorMessage(err)}`);
    }
    try {
      const { graph, format } = graphFrom(data, objectInfo);
      return inspectGraph({
        graph,
        canvas: format === "canvas" && isObject(data) ? data : null,
        objectInfo,
        shipped: ctx.targets,
        ...(input.id ? { id: input.id } : {}),
        ...(input.label ? { label: input.label } : {}),
        ...(workflowName ? { workflowName } : {}),
      });
    } catch (err) {
      if (err instanceof WorkflowError || err instanceof InspectError)
        throw new StudioError(400, err.message);
      throw err;
    }
  },
});
