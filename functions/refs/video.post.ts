// POST /studio/refs/video: keeps a video in the show's refs/_videos/ (from a path, or uploaded as a form's file).
import { z } from "zod";
import { badRequest } from "../../lib/errors.ts";
import { formFile, moveUpload, readUploadForm, uploadsFolder } from "../../lib/http/multipart.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { folderFence } from "../../lib/paths/guarded.ts";
import { refsPlace } from "../../lib/refs/place.ts";
import { sourceFile } from "../../lib/refs/source-file.ts";
import { keepVideo } from "../../lib/refs/videos.ts";
import { ep } from "../../lib/schema/fields.ts";
import { parseInput } from "../../lib/validate.ts";
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
      source_path: z
        .string()
        .nullish()
        .describe("The video: an absolute path inside a root, or a path relative to the episode folder"),
      file: z.unknown().optional().describe("Not in JSON: a file is sent as multipart/form-data"),
    })
    .optional(),
  async handler(input, ctx) {
    if (input) {
      if (input.file !== undefined) throw badRequest("file must be sent as multipart/form-data");
      if (input.source_path == null || input.source_path === "") {
        throw badRequest("source_path is required (or send the video as a multipart/form-data file)");
      }
      const place = await refsPlace(ctx, await resolveEpisode(input.ep, ctx));
      const source = await sourceFile(place, input.source_path);
      return keepVideo(ctx, place, source);
    }
    const upload = await readUploadForm(ctx.request, ctx.home);
    try {
      const fields = parseInput(form.omit({ file: true }), { ...upload.fields }, "form");
      const file = formFile(upload);
      const place = await refsPlace(ctx, await resolveEpisode(fields.ep, ctx));
      return await keepVideo(ctx, place, {
        file: file.path,
        fence: folderFence(uploadsFolder(ctx.home), "the uploads folder"),
        name: file.name,
        fill: (tmp) => moveUpload(file, tmp),
      });
    } finally {
      await upload.discard();
    }
  },
});
