// Running ffmpeg and ffprobe (through the media tools' helper process): the tools in force, a run with progress and
// cancellation, and what a file holds (asked of ffprobe once per file version: each run costs a process start).
import { rm, stat } from "node:fs/promises";
import { StudioError } from "../errors.ts";
import type { MediaTools } from "./tools.ts";

export type Env = Record<string, string | undefined>;

/** The ffmpeg and ffprobe paths, or a 500 saying what to install. */
export async function mediaTools(media: MediaTools): Promise<{ ffmpeg: string; ffprobe: string }> {
  const [ffmpeg, ffprobe] = await Promise.all([media.find("ffmpeg"), media.find("ffprobe")]);
  if (ffmpeg.path === null) throw new StudioError(500, `no media tools: ${ffmpeg.error}`);
  if (ffprobe.path === null) throw new StudioError(500, `no media tools: ${ffprobe.error}`);
  return { ffmpeg: ffmpeg.path, ffprobe: ffprobe.path };
}

export interface RunOptions {
  media: MediaTools;
  signal?: AbortSignal;
  /** Called with the seconds of output written so far (from `-progress`). */
  onProgress?: (seconds: number) => void;
}

export interface FfmpegReport {
  /**
   * Video frames of the first video output as ffmpeg's last progress report gives them; null when no progress
   * was asked for (no `onProgress`) or the run wrote no video.
   */
  frames: number | null;
  /** The end of ffmpeg's log (what filters such as `loudnorm` print there). */
  log: string;
}

/** Run ffmpeg with `args` (input/output arguments only); rejects with the tail of its log on failure. */
export async function runFfmpeg(args: readonly string[], opts: RunOptions): Promise<FfmpegReport> {
  const { onProgress } = opts;
  // Progress is asked of ffmpeg only when someone listens: otherwise its standard output stays empty.
  const progress = onProgress ? ["-progress", "pipe:1"] : [];
  let frames: number | null = null;
  const { stderr } = await opts.media.run(
    "ffmpeg",
    ["-hide_banner", "-nostdin", "-y", ...progress, "-nostats", ...args],
    {
      signal: opts.signal,
      onStdoutLine: onProgress
        ? (line) => {
            const f = /^frame=\s*(\d+)/.exec(line);
            if (f) frames = Number(f[1]);
            const m = /^out_time_(?:us|ms)=(\d+)/.exec(line);
            if (m) onProgress(Number(m[1]) / 1e6);
          }
        : undefined,
    },
  );
  return { frames, log: stderr };
}

export interface FileRunOptions {
  media: MediaTools;
  signal?: AbortSignal;
  /** The output's expected length: progress is the fraction of it written (0 when unknown). */
  seconds: number;
  /** Fraction written (0..1); 1 once the run has ended well. */
  progress?(fraction: number): void;
}

/**
 * Run ffmpeg writing the one file `output` (named last in `args`). A failed or canceled run leaves no output behind.
 * Answers ffmpeg's report and the milliseconds the run took.
 */
export async function runFfmpegInto(
  output: string,
  args: readonly string[],
  opts: FileRunOptions,
): Promise<FfmpegReport & { ms: number }> {
  const { seconds, progress } = opts;
  const started = Date.now();
  try {
    const report = await runFfmpeg(args, {
      media: opts.media,
      signal: opts.signal,
      onProgress: (s) => progress?.(seconds > 0 ? Math.min(1, s / seconds) : 0),
    });
    progress?.(1);
    return { ...report, ms: Date.now() - started };
  } catch (err) {
    await rm(output, { force: true });
    throw err;
  }
}

/** The file's version as `remember` keys it: size, modification time and inode (a rename over it changes that). */
async function stampOf(file: string): Promise<string> {
  const st = await stat(file, { bigint: true });
  return `${st.size}:${st.mtimeNs}:${st.ino}`;
}

/** `make` run once per version of `file` for the media tools (a new file at the same path is asked again). */
async function oncePerVersion<T>(
  what: string,
  file: string,
  media: MediaTools,
  make: () => Promise<T>,
): Promise<T> {
  // A path that cannot be stat'ed is left to the tool, which says why in its own words.
  const stamp = await stampOf(file).catch(() => null);
  return stamp === null ? make() : media.remember(`${what}\0${file}`, stamp, make);
}

export interface ProbeInfo {
  duration: number | null;
  video: { codec: string; width: number; height: number; fps: number | null; pixFmt: string | null } | null;
  audio: { codec: string; sampleRate: number | null; channels: number | null } | null;
}

/** What a media file holds (container duration, first video and audio stream); asked once per file version. */
export function probe(file: string, media: MediaTools): Promise<ProbeInfo> {
  return oncePerVersion("probe", file, media, () => probeNow(file, media));
}

async function probeNow(file: string, media: MediaTools): Promise<ProbeInfo> {
  const { stdout } = await media.run("ffprobe", [
    "-v",
    "error",
    "-show_entries",
    "format=duration:stream=codec_type,codec_name,width,height,avg_frame_rate,r_frame_rate,pix_fmt,sample_rate,channels",
    "-of",
    "json",
    file,
  ]);
  const data = JSON.parse(stdout) as {
    format?: { duration?: string };
    streams?: Record<string, string | number | undefined>[];
  };
  const streams = data.streams ?? [];
  const v = streams.find((s) => s.codec_type === "video");
  const a = streams.find((s) => s.codec_type === "audio");
  const num = (x: unknown) => (x === undefined || x === "N/A" ? null : Number(x));
  return {
    duration: num(data.format?.duration),
    video: v
      ? {
          codec: String(v.codec_name),
          width: Number(v.width),
          height: Number(v.height),
          fps: rate(String(v.avg_frame_rate ?? "")) ?? rate(String(v.r_frame_rate ?? "")),
          pixFmt: v.pix_fmt ? String(v.pix_fmt) : null,
        }
      : null,
    audio: a
      ? { codec: String(a.codec_name), sampleRate: num(a.sample_rate), channels: num(a.channels) }
      : null,
  };
}

function rate(text: string): number | null {
  const [n, d] = text.split("/").map(Number);
  if (!n || !d) return null;
  return n / d;
}

/** The exact number of video frames (packets counted, not estimated from the duration); once per file version. */
export function countFrames(file: string, media: MediaTools): Promise<number> {
  return oncePerVersion("frames", file, media, () => countNow(file, media));
}

async function countNow(file: string, media: MediaTools): Promise<number> {
  const { stdout } = await media.run("ffprobe", [
    "-v",
    "error",
    "-select_streams",
    "v:0",
    "-count_packets",
    "-show_entries",
    "stream=nb_read_packets",
    "-of",
    "csv=p=0",
    file,
  ]);
  const n = Number.parseInt(stdout.trim(), 10);
  if (!Number.isFinite(n)) throw new Error(`ffprobe could not count the frames of ${file}`);
  return n;
}
