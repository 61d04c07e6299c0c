// PUT /studio/refs/override: set or clear a reference's overrides, on the reference or one of a character's views;
// only the fields sent change (null, "" or {} clears one).
import { z } from "zod";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { catalogRef, readCatalog } from "../../lib/refs/catalog.ts";
import { factsOf } from "../../lib/refs/effective.ts";
import { parseRefId, refField } from "../../lib/refs/ids.ts";
import { putRefOverride } from "../../lib/refs/override-edit.ts";
import { overrideViewField } from "../../lib/refs/overrides.ts";
import { refsPlace } from "../../lib/refs/place.ts";
import { ep } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "PUT",
  path: "/refs/override",
  summary:
    "Set or clear a reference's overrides (prompt, seed, model, loras, steps, note, target, size, cfg, negative, params)",
  input: z.object({
    ep,
    ref: refField,
    view: overrideViewField,
    // Checked by the handler, so an unknown field gets the refusal that lists the known ones.
    fields: z
      .record(z.string(), z.unknown())
      .describe(
        'The fields to set: prompt, seed (digits), model, loras, steps, note, target, size (WxH, 256 to 4096 a side), cfg (0 to 30), negative, params {sampler, scheduler, denoise, shift, guidance}; null, "" or {} clears one',
      ),
  }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const ref = parseRefId(input.ref);
    const place = await refsPlace(ctx, ep);
    const facts = factsOf(catalogRef(await readCatalog(ctx, place), ref.id));
    const answer = await putRefOverride(ctx, place, ref, facts, input.view ?? null, input.fields);
    ctx.events.emit("studio.episode", { ep });
    return answer;
  },
});
