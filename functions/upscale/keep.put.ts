// PUT /studio/upscale/keep: mark a finished upscale Keep (whole-cut upscales and the master leave it) or clear it.
import { z } from "zod";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep, passOr, shotId, takeOrDigits } from "../../lib/schema/fields.ts";
import { keepUpscale } from "../../lib/upscale/edit.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "PUT",
  path: "/upscale/keep",
  summary: "Set or clear Keep on a take's finished upscale; 409 when it has none",
  input: z.object({
    ep,
    pass: passOr("final"),
    shot: shotId,
    take: takeOrDigits,
    keep: z.boolean({ error: "keep must be true or false" }).describe("true marks Keep, false clears it"),
  }),
  async handler(input, ctx) {
    const epReal = await resolveEpisode(input.ep, ctx);
    return keepUpscale(ctx, epReal, input.pass, input.shot, input.take, input.keep);
  },
});
