// POST /studio/refs/relight: relit copies of a sequence's plates or of named locations, as new locations
// `<id>_<suffix>` in the series config (and the sequence repointed to them when asked), each plate's edit queued on
// an edit target.
import { z } from "zod";
import { rebuildEpisode } from "../../lib/episode/source-file.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { readRefSettings } from "../../lib/refs/effective.ts";
import { refsPlace } from "../../lib/refs/place.ts";
import {
  editTarget,
  queueRelitPlates,
  RELIGHT_PRESETS,
  relightLocations,
  SUFFIX_RULE,
} from "../../lib/refs/relight.ts";
import { ep, targetIdOrBlank } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

const PRESETS = Object.keys(RELIGHT_PRESETS).join(", ");

export default defineFunction({
  method: "POST",
  path: "/refs/relight",
  summary: `Relight a sequence's plates or named locations: each gets a new location <id>_<suffix> in the series config (of, relight, the description plus the new light, a plate path), the script repointed when asked; answers {locations: [{source, id, exists, entry}], queued (one edit per plate and count: the source's live plate changed into a candidate of the relit location), errors (a plate not queued, naming why), repointed}. Presets: ${PRESETS}. 400 both or neither of sequence and locations, a location with no plate, an unknown sequence or location, a bad suffix, an id taken, a non-edit target`,
  input: z.object({
    ep,
    relight: z.string().max(1000).describe(`A preset (${PRESETS}) or an instruction for the edit model`),
    sequence: z
      .string()
      .max(64)
      .nullish()
      .describe("A sequence of the script: its header's location and its shots' plate: angles are relit"),
    locations: z
      .array(z.string().max(128))
      .max(50)
      .nullish()
      .describe("Location ids to relight (instead of a sequence)"),
    suffix: z
      .string()
      .max(60)
      .nullish()
      .describe(`The new ids' suffix; default the preset id, else relit (${SUFFIX_RULE})`),
    target: targetIdOrBlank.nullish().describe("The edit target the plates are changed on"),
    count: z.int().min(1).max(4).nullish().describe("Edits per plate, 1 to 4 (default 1)"),
    repoint: z
      .boolean()
      .nullish()
      .describe(
        "With a sequence: rewrite its header and shots' plate: lines to the relit locations and rebuild",
      ),
    dry_run: z.boolean().nullish().describe("Answer the plan, writing and queueing nothing"),
    backend: z.string().max(128).nullish().describe("The backend the edits run on"),
  }),
  async handler(input, ctx) {
    const epReal = await resolveEpisode(input.ep, ctx);
    const place = await refsPlace(ctx, epReal);
    const settings = await readRefSettings(ctx, place);
    const target = editTarget(input.target || null, settings.defaults, settings.registry);
    const done = await relightLocations(ctx, epReal, {
      relight: input.relight,
      sequence: input.sequence ?? null,
      locations: input.locations ?? null,
      suffix: input.suffix ?? null,
      repoint: input.repoint ?? null,
      dry_run: input.dry_run ?? null,
    });
    const { plan } = done;
    let build = null;
    if (done.wrote && !input.dry_run) {
      const rebuilt = await rebuildEpisode(ctx, epReal);
      if (!rebuilt.emitted) ctx.events.emit("studio.episode", { ep: epReal });
      build = rebuilt.build;
    }
    const edits = input.dry_run
      ? { queued: [], errors: [] }
      : await queueRelitPlates(
          ctx,
          epReal,
          plan,
          { target, count: input.count ?? null, backend: input.backend?.trim() || null },
          { store: await ctx.jobs(), wake: ctx.jobSignals.jobAdded },
        );
    return {
      locations: plan.locations,
      queued: edits.queued,
      errors: edits.errors,
      repointed: done.repointed,
      relight: { preset: plan.preset, instruction: plan.instruction, target },
      build,
    };
  },
});
