// DELETE /studio/override: drop one pass's fields of a shot's override, or (without pass) all of it and the retarget.
import { z } from "zod";
import { deleteOverride } from "../../lib/episode/override-edit.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep, passFilter, shotId } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "DELETE",
  path: "/override",
  summary: "Clear a shot's overrides: one pass's fields, or everything for its target and the retarget",
  input: z.object({
    ep,
    shot: shotId,
    pass: passFilter.describe(
      "Clear only this pass's fields; left out or blank: everything and the retarget",
    ),
  }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const answer = await deleteOverride(ctx, ep, input.shot, input.pass);
    ctx.events.emit("studio.episode", { ep });
    return answer;
  },
});
