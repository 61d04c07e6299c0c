// GET /studio/shot: one shot's built entry, override, effective settings, refs and takes with full sidecars;
// `target` answers for a one-off render on another target, writing nothing.
import { z } from "zod";
import { shotDetail } from "../../lib/episode/shot-detail.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep, pass, shotId, targetIdOrBlank } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/shot",
  summary: "One shot: built entry, override, effective settings, refs used and every take's sidecar",
  input: z.object({
    ep,
    pass,
    shot: shotId,
    target: targetIdOrBlank
      .nullish()
      .describe("Answer as for a one-off render on this target; nothing is written"),
  }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    return shotDetail(
      ctx,
      { ep, pass: input.pass, shot: input.shot, target: input.target || null },
      ctx.now(),
    );
  },
});
