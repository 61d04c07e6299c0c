// GET /studio/upscale/options: the upscale methods with their readiness, each video target's latent mode, the fixed
// choices, and the episode's master recipe.
import { z } from "zod";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep } from "../../lib/schema/fields.ts";
import { upscaleOptions } from "../../lib/upscale/options.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/upscale/options",
  summary:
    "Upscale options: `pixel` and `seedvr2` {status ready|not_ready|unknown, missing (sentences naming the node, " +
    "pack or model file), models, default}, `latent` per video target (null: no latent upscale; else {status, " +
    "missing, mode, align, fixed_scale}), `details`, `recipe` (with ep: the series upscale.master per target and " +
    "each shot's own recipe in words, or null), `max_scale`, `encoders`, `precisions`, `delivers`, `fits`. " +
    "Readiness is the local ComfyUI's: `unknown` when it does not answer, never an error",
  input: z.object({ ep: ep.optional() }),
  async handler(input, ctx) {
    const epReal = input.ep ? await resolveEpisode(input.ep, ctx) : null;
    return upscaleOptions(ctx, epReal);
  },
});
