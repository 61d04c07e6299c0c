// A dub's dialogue slice for a target that anchors a recording (`recipe.audio_anchor`, H3 FL2VA): the shot's window
// of the recorded dialogue track cut to a mono WAV in the job's folder, which the graph then loads as an audio guide.
import path from "node:path";
import type { Entry } from "../compile/types.ts";
import type { EngineJob } from "../engines/types.ts";
import { runFfmpegInto } from "../media/ffmpeg.ts";
import type { MediaTools } from "../media/tools.ts";
import { episodeFence, mkdirShow } from "../paths/guarded.ts";
import { isObject } from "../store/json-guards.ts";
import type { TargetSpec } from "../targets/registry.ts";

const DUB = new Set(["dub", "dub_keep_foley"]);

/**
 * The slice's path (`<stem><take_suffix>` in `workDir`), or null when the target anchors no recording, the shot is
 * not dubbed or has no window on the track.
 */
export async function dubSlice(
  media: MediaTools,
  spec: TargetSpec | undefined,
  entry: Entry,
  job: Pick<EngineJob, "ep" | "stem" | "audio" | "workDir">,
): Promise<string | null> {
  const anchor = spec?.recipe.audio_anchor;
  const window = job.audio;
  if (!isObject(anchor) || !DUB.has(String(entry.audio_policy)) || !window) return null;
  const seconds = window.end - window.start;
  if (!(seconds > 0)) return null;
  const suffix = typeof anchor.take_suffix === "string" ? anchor.take_suffix : "_dub.wav";
  await mkdirShow(episodeFence(job.ep), job.workDir);
  const out = path.join(job.workDir, `${job.stem}${suffix}`);
  await runFfmpegInto(
    out,
    [
      ...["-ss", window.start.toFixed(3), "-t", seconds.toFixed(3), "-i", window.path],
      ...["-vn", "-ac", "1", "-c:a", "pcm_s16le", "-f", "wav", out],
    ],
    { media, seconds },
  );
  return out;
}
