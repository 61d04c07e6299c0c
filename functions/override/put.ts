// PUT /studio/override: change a shot's render overrides (rules 8 and 9); only the fields sent change.
import { z } from "zod";
import { checkOverrideFields, putOverride } from "../../lib/episode/override-edit.ts";
import { defineFunction } from "../../lib/fn.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { shotId } from "../../lib/schema/fields.ts";

export default defineFunction({
  method: "PUT",
  path: "/override",
  summary: "Set or clear a shot's overrides (per-pass fields, shared seed and note, the retarget)",
  input: z.object({
    ep: z.string(),
    pass: z.enum(["final", "proxy"]).or(z.literal("")).nullish(),
    shot: shotId,
    both: z.boolean().nullish(),
    // Checked by the handler, so an unknown field gets the refusal that lists the known ones.
    fields: z.record(z.string(), z.unknown()),
  }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const change = checkOverrideFields(input.fields);
    const answer = await putOverride(ctx, ep, {
      pass: input.pass || "proxy",
      shot: input.shot,
      both: input.both ?? false,
      change,
    });
    ctx.events.emit("studio.episode", { ep });
    return answer;
  },
});
