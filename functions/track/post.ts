// POST /studio/track: set or replace the episode's recorded dialogue track (a path as JSON, or an uploaded file as
// multipart), or clear it (`track: null`); the series config is changed through the save path and the episode
// rebuilt; answers the track's facts.
import { z } from "zod";
import { pathSource, placeRecording, type RecordingSource, uploadSource } from "../../lib/audio/recording.ts";
import { checkSeriesConfig, setSeriesTrack, trackFacts } from "../../lib/audio/track.ts";
import type { Services } from "../../lib/context.ts";
import { rebuildEpisode } from "../../lib/episode/source-file.ts";
import { badRequest } from "../../lib/errors.ts";
import { jsonFileField, refuseJsonFile, sourcePathField, withUploadForm } from "../../lib/http/file-body.ts";
import { formFile } from "../../lib/http/multipart.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep, type PassName, pass } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

const formFields = z.object({ ep, pass });

const RULE = "send {ep, source_path} or {ep, track: null} as JSON, or ep and file as multipart/form-data";

export default defineFunction({
  method: "POST",
  path: "/track",
  summary:
    "Set the episode's recorded dialogue track from a path (JSON source_path) or an uploaded file (multipart/form-data `file`, at most 64 MB; .wav .mp3 .flac .ogg .m4a .aac .opus), kept in <ep>/audio/ (same bytes reused, other bytes numbered, a file inside the episode used in place), " +
    'or clear it with track: null. The series config gets audio.track and audio.mode "source_track" through the save path (history copy, BOM and line endings kept; `reformatted` when it was rewritten in the 2-space layout); ' +
    "the mode before is remembered in overrides.json and restored on clear. Rebuilds (a failing build still answers 200) and emits studio.episode",
  rawBody: true,
  form: formFields.extend({
    file: z.string().describe("The recording, a file part with its filename: its extension decides the type"),
  }),
  input: z
    .object({
      ep,
      pass,
      source_path: sourcePathField("The recording"),
      track: z.null().optional().describe("null clears the episode's track (the recording file is kept)"),
      file: jsonFileField,
    })
    .optional(),
  async handler(input, ctx) {
    if (input) {
      refuseJsonFile(input);
      const epReal = await resolveEpisode(input.ep, ctx);
      if (input.source_path != null && input.source_path !== "") {
        if (input.track === null) throw badRequest("send either source_path or track: null, not both");
        const source = await pathSource(ctx, epReal, input.source_path);
        return setTrack(ctx, epReal, input.pass, source);
      }
      if (input.track === null) return clearTrack(ctx, epReal, input.pass);
      throw badRequest(`source_path is required: ${RULE}`);
    }
    return withUploadForm(ctx, formFields, async (fields, form) => {
      const source = uploadSource(formFile(form));
      const epReal = await resolveEpisode(fields.ep, ctx);
      return setTrack(ctx, epReal, fields.pass, source);
    });
  },
});

async function setTrack(ctx: Services, epReal: string, pass: PassName, source: RecordingSource) {
  await checkSeriesConfig(epReal);
  const placed = await placeRecording(ctx, epReal, source);
  const edit = await setSeriesTrack(ctx, epReal, placed.path);
  const build = await rebuilt(ctx, epReal);
  return {
    track: await trackFacts(ctx, epReal, pass),
    hash: edit.hash,
    build,
    path: placed.path,
    copied: placed.copied,
    reformatted: edit.reformatted,
  };
}

async function clearTrack(ctx: Services, epReal: string, pass: PassName) {
  const edit = await setSeriesTrack(ctx, epReal, null);
  const build = await rebuilt(ctx, epReal);
  return {
    track: await trackFacts(ctx, epReal, pass),
    hash: edit.hash,
    build,
    path: null,
    copied: false,
    reformatted: edit.reformatted,
  };
}

/** Rebuild both passes and tell the pages once (the build tells them itself unless the files failed to load). */
async function rebuilt(ctx: Services, epReal: string) {
  const { build, emitted } = await rebuildEpisode(ctx, epReal);
  if (!emitted) ctx.events.emit("studio.episode", { ep: epReal });
  return build;
}
