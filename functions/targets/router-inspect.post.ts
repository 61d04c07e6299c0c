// POST /studio/targets/router-inspect: the video target a hosted model would make (inputs, limits, presets), to save
// as a custom target; nothing is written.
import { z } from "zod";
import { routerModel } from "../../lib/router/connect.ts";
import { proposeTarget } from "../../lib/router/target.ts";
import { targetLimits } from "../../lib/targets/limits.ts";
import { parseTarget } from "../../lib/targets/registry.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/targets/router-inspect",
  summary:
    "The proposed video target of one hosted model: `{model, target (a target.json with backend router and a " +
    "router block), limits, inputs, draft}`. 404 for a model the provider does not list; 503/502 as " +
    "GET /studio/router/models",
  input: z.object({
    model: z.string().trim().min(1).max(200).describe("A model id from GET /studio/router/models"),
  }),
  async handler(input, ctx) {
    const m = await routerModel(ctx, input.model);
    const target = proposeTarget(m);
    const spec = parseTarget(target, String(target.id), "video", true);
    return { model: m, target, limits: targetLimits(spec), inputs: m.inputs, draft: m.draft !== null };
  },
});
