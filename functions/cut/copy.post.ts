// POST /studio/cut/copy: one pass's cut order, trims and/or audio onto the other pass (api extras 1.10).
import { z } from "zod";
import { CUT_WHAT, copyCut } from "../../lib/episode/cut-edit.ts";
import { badRequest } from "../../lib/errors.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep, passName } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/cut/copy",
  summary: "Copy one pass's cut order, trims, audio or all of them onto the other pass",
  input: z.object({
    ep,
    from: passName.describe("The pass whose cut is copied"),
    to: passName.describe("The pass whose cut receives it"),
    what: z.enum(CUT_WHAT).describe("What to copy: the order, the trims, the audio or all"),
  }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    if (input.from === input.to) throw badRequest("from and to must be different passes");
    const cut = await copyCut(ctx, ep, input.from, input.to, input.what, ctx.now());
    ctx.events.emit("studio.episode", { ep });
    return { cut };
  },
});
