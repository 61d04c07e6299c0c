// PUT /studio/cut: replace one pass's cut list (normalised, duplicates and unknown fields refused).
import { z } from "zod";
import { replaceCut } from "../../lib/episode/cut-edit.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep, pass } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "PUT",
  path: "/cut",
  summary: "Replace a pass's cut list (order, picks, trims, locks, notes, out, flag, audio)",
  input: z.object({
    ep,
    pass,
    // Entries are checked one by one by the handler, so a refusal names the shot and the field.
    entries: z
      .array(z.unknown())
      .describe("The cut in play order: one entry per shot (shot, take, trims, flags, note)"),
  }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const cut = await replaceCut(ctx, ep, input.pass, input.entries, ctx.now());
    ctx.events.emit("studio.episode", { ep });
    return { cut };
  },
});
