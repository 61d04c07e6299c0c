// GET /studio/models: the local engine's files for one model param of a target, its family's files first.
import { z } from "zod";
import { resolveEpisode } from "../../lib/paths/index.ts";
import { ep, targetId } from "../../lib/schema/fields.ts";
import { modelsPicker, showDirOf } from "../../lib/targets/listing.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/models",
  summary:
    "Installed model files for a target's model param, grouped: the target's family, then unverified files",
  input: z.object({
    target: targetId.describe("The target whose model files are listed"),
    param: z.string().optional().describe("The target's model param; left out: model"),
    ep: ep.optional().describe("An episode, so a show's own targets are found too"),
  }),
  async handler(input, ctx) {
    const showDir = input.ep ? await showDirOf(ctx, await resolveEpisode(input.ep, ctx)) : null;
    return modelsPicker(ctx, { target: input.target, param: input.param || "model", showDir });
  },
});
