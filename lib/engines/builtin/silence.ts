// The built-in audio target `silence`: a 48 kHz mono wav of the voice's length, a placeholder until a voice exists.
import path from "node:path";
import { runFfmpeg } from "../../media/ffmpeg.ts";
import { mkdirShow } from "../../paths/guarded.ts";
import type { EngineJob, EngineOutputs } from "../types.ts";
import { commit, discard, secs, tempBeside, throwIfCanceled, type WorkContext } from "./work.ts";

export const SILENCE_RATE = 48_000;
/** Length when the job gives no frames. */
export const DEFAULT_SILENCE_SECONDS = 3;

export function silenceSeconds(job: Pick<EngineJob, "frames" | "fps">): number {
  return job.frames > 0 && job.fps > 0 ? job.frames / job.fps : DEFAULT_SILENCE_SECONDS;
}

/** Render `<workDir>/<stem>.wav`. */
export async function renderSilence(job: EngineJob, ctx: WorkContext): Promise<EngineOutputs> {
  throwIfCanceled(ctx.signal);
  const seconds = silenceSeconds(job);
  // Cut on a sample count, not a time, so the length is exact to the sample.
  const samples = Math.max(1, Math.round(seconds * SILENCE_RATE));
  await mkdirShow(ctx.fence, job.workDir);
  const out = path.join(job.workDir, `${job.stem}.wav`);
  const tmp = tempBeside(out);
  try {
    await runFfmpeg(
      [
        "-filter_complex",
        `anullsrc=r=${SILENCE_RATE}:cl=mono,atrim=end_sample=${samples}[a]`,
        "-map",
        "[a]",
        "-c:a",
        "pcm_s16le",
        "-f",
        "wav",
        tmp,
      ],
      {
        media: ctx.media,
        signal: ctx.signal,
        onProgress: (s) => ctx.report(s / seconds),
      },
    );
    await commit(ctx.fence, [[tmp, out]]);
  } catch (err) {
    await discard(ctx.fence, [tmp]);
    throw err;
  }
  ctx.notes.push(`silence: ${secs(seconds)} s`);
  return { audio: out, notes: [...ctx.notes] };
}
