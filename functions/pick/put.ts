// PUT /studio/pick: set the take a pass's cut plays for a shot (rule 6: lock and usability refusals, force).
import { z } from "zod";
import { pickTake } from "../../lib/episode/cut-edit.ts";
import { defineFunction } from "../../lib/fn.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { shotId } from "../../lib/schema/fields.ts";

const pass = z.enum(["final", "proxy"]);

export default defineFunction({
  method: "PUT",
  path: "/pick",
  summary: "Pick the take a pass's cut plays for a shot (null: back to the latest usable take)",
  input: z.object({
    ep: z.string(),
    pass: pass.or(z.literal("")).nullish(),
    shot: shotId,
    take: z.number().int().min(1).nullable(),
    from_pass: pass.or(z.literal("")).nullish(),
    force: z.boolean().nullish(),
  }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const cut = await pickTake(
      ep,
      {
        pass: input.pass || "proxy",
        shot: input.shot,
        take: input.take,
        fromPass: input.from_pass || null,
        force: input.force ?? false,
      },
      ctx.now(),
    );
    ctx.events.emit("studio.episode", { ep });
    return { cut };
  },
});
