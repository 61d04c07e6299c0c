// POST /studio/align: queue an `align` job on the built-in lane and answer when it ends: the recording transcribed
// (or its cached words), the dialogue lines matched, each shot's `audio:` window written back into the script
// (a dry run writes nothing), align_report.md, a rebuild. Refusals it can tell before running are answered at once.
import { stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { type AlignPayload, takeAlignAnswer } from "../../lib/align/payload.ts";
import { alignReadiness } from "../../lib/align/ready.ts";
import type { AlignAnswer, alignFailure } from "../../lib/align/run.ts";
import { readWordsCache } from "../../lib/align/words-cache.ts";
import { checkRecordingName } from "../../lib/audio/recording.ts";
import { trackFacts } from "../../lib/audio/track.ts";
import { badRequest, conflict, StudioError, shown } from "../../lib/errors.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { resolveEpisodePath } from "../../lib/paths/relative.ts";
import { ep, pass } from "../../lib/schema/fields.ts";
import { isObject } from "../../lib/store/json-guards.ts";
import { defineFunction } from "../fn.ts";

/** The recogniser may run an hour; the route waits a little longer, then says the job goes on. */
const WAIT_MS = 65 * 60_000;

type Refusal = { ok: false } & ReturnType<typeof alignFailure>;

export default defineFunction({
  method: "POST",
  path: "/align",
  summary:
    "Align the episode's recording to the script's dialogue: transcribe it (words cached beside it), match the lines, write each shot's audio: window into the script, align_report.md, rebuild; answers when done",
  input: z.object({
    ep,
    pass,
    track: z
      .string()
      .nullish()
      .describe(
        "The recording, relative to the episode (file-route rules); left out: the series config's audio.track. A recording other than the config's becomes the series track on a real run",
      ),
    model: z
      .string()
      .min(1, "model: must be a non-empty string")
      .optional()
      .describe("The whisper model (e.g. medium.en); PocketSphinx always uses its en-us model"),
    snap: z
      .boolean()
      .optional()
      .describe("Move window edges outward into the silence around the words (default true)"),
    dry_run: z
      .boolean()
      .optional()
      .describe("Compute the windows and the report, write nothing, emit only the progress events"),
  }),
  async handler(input, ctx) {
    const epReal = await resolveEpisode(input.ep, ctx);
    const { pass } = input;
    const configTrack = await trackFacts(ctx, epReal, pass);
    const asked = input.track ?? null;
    if (asked === null && configTrack === null)
      throw badRequest(
        "track: the episode has no recording (series audio.track); give track or set one with POST /studio/track",
      );
    const rel = asked ?? configTrack?.path ?? "";
    const { path: recording } = await resolveEpisodePath(ctx, epReal, rel, {
      field: "track",
      linkEscapeStatus: 400,
    });
    if (asked !== null) checkRecordingName(asked, "track");
    if (!(await stat(recording)).isFile()) throw badRequest(`track: ${shown(rel)} is not a file`);
    let setTrack = false;
    if (asked !== null) {
      const current = configTrack?.exists
        ? await resolveEpisodePath(ctx, epReal, configTrack.path, { field: "track" }).catch(() => null)
        : null;
      setTrack = current?.path !== recording;
    }

    const [{ answer: ready, program }, cache] = await Promise.all([
      alignReadiness(ctx),
      readWordsCache(recording),
    ]);
    if (ready.ffmpeg === null || (program === null && cache === null)) {
      const needs = ready.ffmpeg === null ? "ffmpeg" : "a whisper (or PocketSphinx)";
      throw conflict(`alignment needs ${needs}: missing ${ready.missing.join(", ")}`, {
        missing: ready.missing,
        install: ready.install,
        python: ready.python,
        ffmpeg: ready.ffmpeg,
        words: cache ? cache.words.length : null,
      });
    }

    const store = await ctx.jobs();
    if ((await store.list()).lanes.builtin?.paused)
      throw conflict("the builtin lane is paused: resume it (POST /studio/jobs/pause) to align");
    const recordingRel = path.relative(epReal, recording).split(path.sep).join("/");
    const payload: AlignPayload = {
      ep: epReal,
      pass,
      recording,
      recording_rel: recordingRel,
      model: input.model ?? null,
      snap: input.snap !== false,
      dry_run: input.dry_run === true,
      set_track: setTrack,
    };
    const job = await store.add({
      kind: "align",
      lane: "builtin",
      title: `align ${recordingRel} to the script${payload.dry_run ? " (dry run)" : ""}`,
      info: { ep: epReal, pass },
      payload,
    });
    ctx.jobSignals.jobAdded();
    const ended = await store.waitFor(job.id, AbortSignal.any([ctx.signal, AbortSignal.timeout(WAIT_MS)]));
    if (!ended)
      throw new StudioError(
        500,
        `the alignment (job ${job.id}) has not finished after ${WAIT_MS / 60_000} minutes; it goes on in the queue`,
      );
    const answer = await takeAlignAnswer(epReal, job.id);
    if (isObject(answer) && answer.ok === true) return answer as unknown as AlignAnswer;
    if (isObject(answer) && answer.ok === false) {
      const r = answer as unknown as Refusal;
      throw new StudioError(r.status, r.error, { ...(r.extra ?? {}), log: r.log });
    }
    const why =
      ended.status === "canceled"
        ? "the alignment was canceled"
        : `the alignment failed: ${ended.error ?? `job ${job.id} ended ${ended.status}`}`;
    throw new StudioError(500, why, { log: "" });
  },
});
