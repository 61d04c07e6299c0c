// POST /studio/presets/own/picture: give an own preset a picture, from a path (JSON) or uploaded as a form's file;
// kept as a PNG of at most 1024 px a side. Answers the preset as listed.
import { z } from "zod";
import { jsonFileField, jsonSourcePath, withUploadForm } from "../../../lib/http/file-body.ts";
import { formFile } from "../../../lib/http/multipart.ts";
import { ownPresetOf, presetIdText } from "../../../lib/presets/edit.ts";
import { listedOwn } from "../../../lib/presets/listing.ts";
import { pictureBytes, setPicture } from "../../../lib/presets/picture.ts";
import { presetSourceFile } from "../../../lib/presets/source.ts";
import { presetEvent, readOwnPresets } from "../../../lib/presets/store.ts";
import { type Ctx, defineFunction } from "../../fn.ts";

const formFields = z.object({ id: presetIdText });

async function keep(ctx: Ctx, id: string, file: string, name: string) {
  ownPresetOf(await readOwnPresets(ctx), id);
  const png = await pictureBytes(file, name);
  const preset = await setPicture(ctx, id, png);
  ctx.events.emit("studio.presets", presetEvent(id, "picture"));
  return { preset: listedOwn(preset) };
}

export default defineFunction({
  method: "POST",
  path: "/presets/own/picture",
  summary:
    "Give an own preset its picture: {id, source_path} (an absolute path inside a root) or multipart/form-data with " +
    "id and file (at most 64 MB); any picture sharp reads, kept as a PNG of at most 1024 px a side. Answers " +
    "{preset}. 400 a shipped or malformed id, not a picture; 403 outside the roots; 404 no such preset or file",
  rawBody: true,
  form: formFields.extend({ file: z.string().describe("The picture, a file part with its filename") }),
  input: z
    .object({
      id: presetIdText,
      source_path: z.string().nullish().describe("The picture: an absolute path inside a root"),
      file: jsonFileField,
    })
    .optional(),
  async handler(input, ctx) {
    if (input) {
      const sourcePath = jsonSourcePath(input);
      const real = await presetSourceFile(ctx, sourcePath);
      return keep(ctx, input.id, real, sourcePath);
    }
    return withUploadForm(ctx, formFields, async (fields, form) => {
      const file = formFile(form);
      return keep(ctx, fields.id, file.path, file.name);
    });
  },
});
