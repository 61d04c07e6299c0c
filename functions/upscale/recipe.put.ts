// PUT /studio/upscale/recipe: one shot's own upscale recipe in overrides.json (merged over the series master
// recipe's section for its target); null or {} clears it.
import { z } from "zod";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep, shotId } from "../../lib/schema/fields.ts";
import { setShotRecipe } from "../../lib/upscale/edit.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "PUT",
  path: "/upscale/recipe",
  summary: "Store or clear a shot's upscale recipe; 400 on a field a recipe does not take or a bad value",
  input: z.object({
    ep,
    shot: shotId,
    recipe: z.record(z.string(), z.unknown()).nullable().describe("Recipe fields, or null to clear"),
  }),
  async handler(input, ctx) {
    const epReal = await resolveEpisode(input.ep, ctx);
    return setShotRecipe(ctx, epReal, input.shot, input.recipe);
  },
});
