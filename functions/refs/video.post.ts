// POST /studio/refs/video: keeps a video in the show's refs/_videos/ (from a path, or uploaded as a form's file).
import { z } from "zod";
import { jsonFileField, jsonSourcePath, sourcePathField, withUploadForm } from "../../lib/http/file-body.ts";
import { formFile, moveUpload, uploadsFolder } from "../../lib/http/multipart.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { folderFence } from "../../lib/paths/guarded.ts";
import { refsPlace } from "../../lib/refs/place.ts";
import { sourceFile } from "../../lib/refs/source-file.ts";
import { keepVideo } from "../../lib/refs/videos.ts";
import { ep } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

const form = z.object({
  ep,
  file: z.string().describe("The video file (a file part with its filename; at most 64 MB)"),
});

export default defineFunction({
  method: "POST",
  path: "/refs/video",
  summary:
    "Keep a video in the show's refs/_videos/ (same bytes under the same name are reused; another file under a taken name gets -2, -3…): {path, name, size, modified, copied, duration}; 400 for a file that is not a video; 413 for an upload over 64 MB",
  rawBody: true,
  form,
  input: z
    .object({
      ep,
      source_path: sourcePathField("The video"),
      file: jsonFileField,
    })
    .optional(),
  async handler(input, ctx) {
    if (input) {
      const sourcePath = jsonSourcePath(input, "send the video as a multipart/form-data file");
      const place = await refsPlace(ctx, await resolveEpisode(input.ep, ctx));
      const source = await sourceFile(place, sourcePath);
      return keepVideo(ctx, place, source);
    }
    return withUploadForm(ctx, form.omit({ file: true }), async (fields, upload) => {
      const file = formFile(upload);
      const place = await refsPlace(ctx, await resolveEpisode(fields.ep, ctx));
      return keepVideo(ctx, place, {
        file: file.path,
        fence: folderFence(uploadsFolder(ctx.home), "the uploads folder"),
        name: file.name,
        fill: (tmp) => moveUpload(file, tmp),
      });
    });
  },
});
