// DELETE /studio/targets/custom: remove a custom target (its folder under <show>/targets, or under the settings
// folder with scope settings); 404 when there is none of that id.
import { z } from "zod";
import { customScope, ep, targetId } from "../../lib/schema/fields.ts";
import { customPlace, deleteCustomTarget } from "../../lib/targets/custom.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "DELETE",
  path: "/targets/custom",
  summary: "Remove a custom target from the show or the settings; 404 when there is none of that id",
  input: z.object({
    ep: ep.optional().describe("The episode whose show keeps the target (scope show)"),
    scope: customScope,
    id: targetId.describe("The custom target to remove"),
  }),
  async handler(input, ctx) {
    const { place, epReal } = await customPlace(ctx, input.scope, input.ep);
    const answer = await deleteCustomTarget(ctx, place, input.id);
    if (epReal) ctx.events.emit("studio.episode", { ep: epReal });
    return answer;
  },
});
