// POST /studio/cut/reset: put a pass's script order back and/or clear trims or audio (api extras 1.10).
import { z } from "zod";
import { CUT_WHAT, resetCut } from "../../lib/episode/cut-edit.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep, pass } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/cut/reset",
  summary: "Reset a pass's cut: script order, no trims, the clips' own audio, or all three",
  input: z.object({
    ep,
    pass,
    what: z.enum(CUT_WHAT).describe("What to reset: the order, the trims, the audio or all"),
  }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const cut = await resetCut(ctx, ep, input.pass, input.what, ctx.now());
    ctx.events.emit("studio.episode", { ep });
    return { cut };
  },
});
