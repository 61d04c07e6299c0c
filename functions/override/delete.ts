// DELETE /studio/override: drop one pass's fields of a shot's override, or (without pass) all of it and the retarget.
import { z } from "zod";
import { deleteOverride } from "../../lib/episode/override-edit.ts";
import { defineFunction } from "../../lib/fn.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { shotId } from "../../lib/schema/fields.ts";

export default defineFunction({
  method: "DELETE",
  path: "/override",
  summary: "Clear a shot's overrides: one pass's fields, or everything for its target and the retarget",
  input: z.object({
    ep: z.string(),
    shot: shotId,
    pass: z.enum(["final", "proxy"]).or(z.literal("")).optional(),
  }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const answer = await deleteOverride(ctx, ep, input.shot, input.pass || null);
    ctx.events.emit("studio.episode", { ep });
    return answer;
  },
});
