// PUT /studio/targets/custom: save a custom target (`{ep, target, graph?}` in the show, `{scope: "settings", target,
// graph?}` for every show; validated against its workflow, a draft until enabled) or flip an existing one's draft
// flag (`{ep | scope, id, draft}`).
import { z } from "zod";
import { badRequest } from "../../lib/errors.ts";
import { boundedJson, customScope, ep, targetId } from "../../lib/schema/fields.ts";
import { customPlace, saveCustomTarget, setCustomDraft } from "../../lib/targets/custom.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "PUT",
  path: "/targets/custom",
  summary:
    "Save a custom target in the show or the settings (400 with every problem when its binding does not fit its " +
    "workflow), or flip its draft flag",
  input: z.object({
    ep: ep.optional().describe("The episode whose show keeps the target (scope show)"),
    scope: customScope,
    target: boundedJson
      .optional()
      .describe("The target.json to save (as POST /studio/targets/inspect or router-inspect proposed it)"),
    graph: boundedJson
      .optional()
      .describe("The workflow itself (API or canvas), saved beside the target.json as its workflow.json"),
    id: targetId.optional().describe("With `draft`: the custom target whose draft flag is set"),
    draft: z
      .unknown()
      .optional()
      .describe("With `id`: true keeps the target out of pickers and renders, false enables it"),
  }),
  async handler(input, ctx) {
    const { place, epReal } = await customPlace(ctx, input.scope, input.ep);
    let answer: Record<string, unknown>;
    if (input.target !== undefined)
      answer = await saveCustomTarget(ctx, place, { target: input.target, graph: input.graph });
    else if (input.id !== undefined) answer = await setCustomDraft(ctx, place, input.id, input.draft);
    else
      throw badRequest("send `target` (a target.json to save) or `id` and `draft` (to flip its draft flag)");
    if (epReal) ctx.events.emit("studio.episode", { ep: epReal });
    return answer;
  },
});
