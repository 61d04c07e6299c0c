// POST /studio/presets/own: create or replace one of the user's own presets; answers it and the whole list.
import { ownBody, saveOwnPreset } from "../../lib/presets/edit.ts";
import { presetTargets } from "../../lib/presets/registry.ts";
import { presetEvent } from "../../lib/presets/store.ts";
import { ep } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/presets/own",
  summary:
    "Create or replace an own preset {id?, label, kind, target, model?, loras?, steps?, size?, note?}: an id left " +
    "out is made from the label; an existing id is replaced (its picture kept). Answers {preset, presets}. 400 a " +
    "shipped id, an unknown target or one of another kind, bad loras, steps or size",
  input: ownBody.extend({
    ep: ep.optional().describe("An episode, so one of its show's own targets may be named"),
  }),
  async handler(input, ctx) {
    const { registry } = await presetTargets(ctx, input.ep);
    const saved = await saveOwnPreset(ctx, registry, input);
    ctx.events.emit("studio.presets", presetEvent(saved.preset.id, "saved"));
    return saved;
  },
});
