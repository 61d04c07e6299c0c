// PUT /studio/pick: set the take a pass's cut plays for a shot (lock and usability are separate refusals; force lifts both).
import { z } from "zod";
import { pickTake } from "../../lib/episode/cut-edit.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep, pass, passFilter, shotId, take } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "PUT",
  path: "/pick",
  summary: "Pick the take a pass's cut plays for a shot (null: back to the latest usable take)",
  input: z.object({
    ep,
    pass,
    shot: shotId,
    take: take.nullable().describe("The take the cut plays; null: back to the latest usable take"),
    from_pass: passFilter.describe("Play a take of this other pass; left out: the pass's own"),
    force: z.boolean().nullish().describe("Pick even when the shot is locked or the take is not usable"),
  }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const cut = await pickTake(
      ctx,
      ep,
      {
        pass: input.pass,
        shot: input.shot,
        take: input.take,
        fromPass: input.from_pass,
        force: input.force ?? false,
      },
      ctx.now(),
    );
    ctx.events.emit("studio.episode", { ep });
    return { cut };
  },
});
