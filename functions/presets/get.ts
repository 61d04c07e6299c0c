// GET /studio/presets: the presets a user can apply, shipped (read off every target's final and proxy presets)
// and their own, each with the address of its sample picture or null.
import { z } from "zod";
import { listPresets, parsePresetKind } from "../../lib/presets/listing.ts";
import { presetTargets } from "../../lib/presets/registry.ts";
import { ep } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/presets",
  summary:
    "Presets: named render setups {id, label, kind, target, pass, model, loras, steps, size, note, own, picture}. " +
    "Shipped ones (own: false, ids <target>/final and <target>/proxy, read-only) come from every video and image " +
    "target's presets (a null model: the target's own); the user's own (own: true) are kept in the settings folder. " +
    "picture is the address of GET /studio/presets/image, or null",
  input: z.object({
    kind: z.string().optional().describe("Only presets of this kind: video or image"),
    ep: ep.optional().describe("An episode, so the presets of its show's own targets are listed too"),
  }),
  async handler(input, ctx) {
    const kind = parsePresetKind(input.kind);
    const { registry } = await presetTargets(ctx, input.ep);
    return { presets: await listPresets(ctx, registry, kind) };
  },
});
