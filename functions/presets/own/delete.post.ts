// POST /studio/presets/own/delete: remove an own preset and its picture; answers the list left.
import { z } from "zod";
import { deleteOwnPreset, presetIdText } from "../../../lib/presets/edit.ts";
import { listPresets } from "../../../lib/presets/listing.ts";
import { presetEvent } from "../../../lib/presets/store.ts";
import { defineFunction } from "../../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/presets/own/delete",
  summary:
    "Delete an own preset and its picture; answers {presets}. 400 a shipped or malformed id, 404 no such preset",
  input: z.object({ id: presetIdText }),
  async handler(input, ctx) {
    await deleteOwnPreset(ctx, input.id);
    ctx.events.emit("studio.presets", presetEvent(input.id, "deleted"));
    return { presets: await listPresets(ctx, ctx.targets, undefined) };
  },
});
