// POST /studio/audio/import: bring a recording into the episode's audio/ folder (a path as JSON, or an uploaded
// file as multipart) for a cut entry's sound to name; nothing else changes (no rebuild, no event, no config edit).
import { z } from "zod";
import { pathSource, placeRecording, uploadSource } from "../../lib/audio/recording.ts";
import { jsonFileField, jsonSourcePath, sourcePathField, withUploadForm } from "../../lib/http/file-body.ts";
import { formFile } from "../../lib/http/multipart.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

const formFields = z.object({ ep });

export default defineFunction({
  method: "POST",
  path: "/audio/import",
  summary:
    "Import a recording (.wav .mp3 .flac .ogg .m4a .aac .opus) into <ep>/audio/ from a path (JSON source_path) or an uploaded file (multipart/form-data `file`, at most 64 MB): " +
    "the same bytes under its name are reused, other bytes get <stem>-2, -3, …, a file already inside the episode is used in place (copied false). " +
    "Answers {path (episode-relative, for a cut entry's audio.path), copied}; no rebuild, no event, no series config change",
  rawBody: true,
  form: formFields.extend({
    file: z.string().describe("The recording, a file part with its filename: its extension decides the type"),
  }),
  input: z
    .object({
      ep,
      source_path: sourcePathField("The recording"),
      file: jsonFileField,
    })
    .optional(),
  async handler(input, ctx) {
    if (input) {
      const sourcePath = jsonSourcePath(input);
      const epReal = await resolveEpisode(input.ep, ctx);
      const placed = await placeRecording(ctx, epReal, await pathSource(ctx, epReal, sourcePath));
      return { path: placed.path, copied: placed.copied };
    }
    return withUploadForm(ctx, formFields, async (fields, form) => {
      const source = uploadSource(formFile(form));
      const epReal = await resolveEpisode(fields.ep, ctx);
      const placed = await placeRecording(ctx, epReal, source);
      return { path: placed.path, copied: placed.copied };
    });
  },
});
