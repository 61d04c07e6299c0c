// POST /studio/refs/import: a picture or a sound becomes a new take of a reference (`source: imported`), from a
// path or uploaded as a form's file, picked when asked; answers the reference as listed.
import { z } from "zod";
import { jsonFileField, jsonSourcePath, sourcePathField, withUploadForm } from "../../lib/http/file-body.ts";
import { formFile, moveUpload } from "../../lib/http/multipart.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { refField, viewField } from "../../lib/refs/ids.ts";
import { importRefTake, MAX_NOTE, PICK_RULE, readPickFlag } from "../../lib/refs/import.ts";
import { listedRef } from "../../lib/refs/listing.ts";
import { liveRefAt } from "../../lib/refs/live-ref.ts";
import { sourceFile } from "../../lib/refs/source-file.ts";
import { copyFrom } from "../../lib/refs/takes.ts";
import { ep } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

const pickText = z
  .string()
  .describe(`Pick the new take: 1/true/yes/on or 0/false/no/off/empty (${PICK_RULE})`);
const note = z
  .string()
  .max(MAX_NOTE)
  .nullish()
  .describe(`A note on the take, at most ${MAX_NOTE} characters`);

/** The form's text fields (the file part aside). */
const formFields = z.object({
  ep,
  ref: refField,
  view: viewField
    .or(z.literal(""))
    .describe("A character view or sheet; empty or left out for other references"),
  pick: pickText.optional(),
  note,
});

export default defineFunction({
  method: "POST",
  path: "/refs/import",
  summary:
    "Import a picture (png, jpg, jpeg, webp) or, for a voice, a sound (wav, mp3, flac, ogg, m4a) as a new reference take, from a path (JSON) or an uploaded file (multipart/form-data, at most 64 MB), picked when asked; answers the reference as listed. 400 imported but not picked: the take is kept",
  rawBody: true,
  form: formFields.extend({
    file: z
      .string()
      .describe("The picture or sound, a file part with its filename: its extension decides the type"),
  }),
  input: z
    .object({
      ep,
      ref: refField,
      view: viewField,
      source_path: sourcePathField("The file"),
      pick: z.union([z.boolean(), z.string()]).nullish().describe("Pick the new take (default false)"),
      note,
      file: jsonFileField,
    })
    .optional(),
  async handler(input, ctx) {
    if (input) {
      const sourcePath = jsonSourcePath(input);
      const pick = readPickFlag(input.pick);
      const epReal = await resolveEpisode(input.ep, ctx);
      const { place, live } = await liveRefAt(ctx, epReal, input.ref);
      const source = await sourceFile(place, sourcePath);
      await importRefTake(
        ctx,
        place,
        live,
        { name: source.name, file: source.file, fill: copyFrom(source.fence, source.file) },
        { view: input.view ?? null, pick, note: input.note },
      );
      return listedRef(ctx, epReal, input.ref);
    }
    return withUploadForm(ctx, formFields, async (fields, form) => {
      const pick = readPickFlag(fields.pick);
      const file = formFile(form);
      const epReal = await resolveEpisode(fields.ep, ctx);
      const { place, live } = await liveRefAt(ctx, epReal, fields.ref);
      await importRefTake(
        ctx,
        place,
        live,
        { name: file.name, file: file.path, fill: (tmp) => moveUpload(file, tmp), originalName: file.name },
        { view: fields.view || null, pick, note: fields.note },
      );
      return listedRef(ctx, epReal, fields.ref);
    });
  },
});
