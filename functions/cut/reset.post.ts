// POST /studio/cut/reset: put a pass's script order back and/or clear trims or audio (api-extras §1.10).
import { z } from "zod";
import { CUT_WHAT, resetCut } from "../../lib/episode/cut-edit.ts";
import { defineFunction } from "../../lib/fn.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";

export default defineFunction({
  method: "POST",
  path: "/cut/reset",
  summary: "Reset a pass's cut: script order, no trims, the clips' own audio, or all three",
  input: z.object({
    ep: z.string(),
    pass: z.enum(["final", "proxy"]).or(z.literal("")).nullish(),
    what: z.enum(CUT_WHAT),
  }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const cut = await resetCut(ep, input.pass || "proxy", input.what, ctx.now());
    ctx.events.emit("studio.episode", { ep });
    return { cut };
  },
});
