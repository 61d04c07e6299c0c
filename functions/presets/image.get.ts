// GET /studio/presets/image: an own preset's sample picture (PNG), served with the file routes' validators.
import { z } from "zod";
import { notFound, shown } from "../../lib/errors.ts";
import { ownPresetOf, presetIdText } from "../../lib/presets/edit.ts";
import { picturePath, readOwnPresets } from "../../lib/presets/store.ts";
import { defineFunction, FileReply } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/presets/image",
  summary:
    "An own preset's sample picture (image/png, at most 1024 px a side; ETag and conditional GET). 400 a shipped " +
    "or malformed id, 404 no such preset or no picture yet",
  input: z.object({
    id: presetIdText,
    v: z
      .string()
      .max(32)
      .optional()
      .describe("Ignored: the listing changes it with the picture so a browser fetches the new one"),
  }),
  async handler(input, ctx) {
    const preset = ownPresetOf(await readOwnPresets(ctx), input.id);
    if (preset.picture === null) throw notFound(`${shown(preset.id)} has no picture yet`);
    return new FileReply(picturePath(ctx.home, preset.id), "image/png");
  },
});
