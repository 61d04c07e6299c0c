// PUT /studio/override: change a shot's render overrides; only the fields sent change (`""` and null differ
// per field; retarget clearing is asymmetric).
import { z } from "zod";
import { checkOverrideFields, putOverride } from "../../lib/episode/override-edit.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep, pass, shotId } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "PUT",
  path: "/override",
  summary: "Set or clear a shot's overrides (per-pass fields, shared seed and note, the retarget)",
  input: z.object({
    ep,
    pass,
    shot: shotId,
    both: z.boolean().nullish().describe("Set the per-pass fields on both passes"),
    // Checked by the handler, so an unknown field gets the refusal that lists the known ones.
    fields: z.record(z.string(), z.unknown()).describe("The override fields to set; null clears one"),
  }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const change = checkOverrideFields(input.fields);
    const answer = await putOverride(ctx, ep, {
      pass: input.pass,
      shot: input.shot,
      both: input.both ?? false,
      change,
    });
    ctx.events.emit("studio.episode", { ep });
    return answer;
  },
});
