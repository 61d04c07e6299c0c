// The built-in upscale (no GPU): the take's picture scaled by ffmpeg's lanczos to the made size, cropped or padded to
// a delivery size, optionally lightly sharpened, encoded H.264 8-bit; the take's sound stream copied as it is (the
// upscale must sound exactly like the take). Pure arguments, then one ffmpeg run with progress and cancellation.
import { h264Args } from "./encode-args.ts";
import { runFfmpegInto } from "./ffmpeg.ts";
import { type ProbeServices, probeClipCached } from "./probe-cache.ts";

export type ResampleQuality = "review" | "master";

export interface ResampleSpec {
  /** The size lanczos scales the picture to (the delivery's cover or contain size, or the output size). */
  made: readonly [number, number];
  /** The output size: `made` itself, or the delivery size it is cropped (`crop`) or padded (`pad`) to. */
  width: number;
  height: number;
  fit: "crop" | "pad" | null;
  /** A light unsharp after the scale (a resample softens edges). */
  sharpen: boolean;
  /** `review`: fast, CRF 20; `master`: slow, CRF 14 (still 8-bit 4:2:0, so every player and the join take it). */
  quality: ResampleQuality;
}

/** Why a spec cannot be made, or null: sizes even and positive, the fit able to reach the output from `made`. */
export function resampleProblem(s: ResampleSpec): string | null {
  const sizes = [s.made[0], s.made[1], s.width, s.height];
  if (!sizes.every((n) => Number.isInteger(n) && n >= 2 && n % 2 === 0))
    return `sizes must be even whole numbers of at least 2 (made ${s.made.join("x")}, out ${s.width}x${s.height})`;
  const [mw, mh] = s.made;
  if (s.fit === null && (mw !== s.width || mh !== s.height))
    return `without a fit the made size ${mw}x${mh} must be the output size ${s.width}x${s.height}`;
  if (s.fit === "crop" && (mw < s.width || mh < s.height))
    return `cannot crop ${mw}x${mh} to the larger ${s.width}x${s.height}`;
  if (s.fit === "pad" && (mw > s.width || mh > s.height))
    return `cannot pad ${mw}x${mh} to the smaller ${s.width}x${s.height}`;
  return null;
}

/** The picture's filter chain: lanczos, the centred crop or pad, the unsharp, square pixels, 8-bit 4:2:0. */
export function resampleFilter(s: ResampleSpec): string {
  const [mw, mh] = s.made;
  const steps = [`scale=${mw}:${mh}:flags=lanczos`];
  if (s.fit === "crop" && (mw !== s.width || mh !== s.height))
    steps.push(`crop=${s.width}:${s.height}:${(mw - s.width) / 2}:${(mh - s.height) / 2}`);
  if (s.fit === "pad" && (mw !== s.width || mh !== s.height))
    steps.push(`pad=${s.width}:${s.height}:${(s.width - mw) / 2}:${(s.height - mh) / 2}:black`);
  // Luma only, small radius: crisper edges without the halos a stronger amount leaves on flat colour.
  if (s.sharpen) steps.push("unsharp=5:5:0.4:5:5:0");
  steps.push("setsar=1", "format=yuv420p");
  return steps.join(",");
}

/** The encoder's settings for a quality. */
export function resampleCodecArgs(quality: ResampleQuality): string[] {
  return h264Args(quality === "master" ? { preset: "slow", crf: 14 } : { preset: "fast", crf: 20 });
}

/** ffmpeg's arguments: the first video stream resampled, the first sound stream (when `audio`) copied untouched. */
export function resampleArgs(input: string, output: string, s: ResampleSpec, audio: boolean): string[] {
  return [
    "-i",
    input,
    "-map",
    "0:v:0",
    ...(audio ? ["-map", "0:a:0", "-c:a", "copy"] : ["-an"]),
    "-sn",
    "-dn",
    "-vf",
    resampleFilter(s),
    ...resampleCodecArgs(s.quality),
    "-movflags",
    "+faststart",
    "-f",
    "mp4",
    output,
  ];
}

export interface ResampleHooks {
  signal?: AbortSignal;
  /** Fraction of the picture written (0..1). */
  progress?(fraction: number): void;
}

export interface Resampled {
  /** Frames written (ffmpeg's count). */
  frames: number | null;
  width: number;
  height: number;
  /** The input's sound stream copied, or `none` when it has none. */
  audio: "copied" | "none";
  encoder: "libx264";
  /** Milliseconds the ffmpeg run took. */
  ms: number;
}

/**
 * Resample `input` into `output` (an mp4; the caller picks a temporary name and renames it into place). A bad spec
 * rejects before ffmpeg starts; a failed or canceled run leaves no output behind.
 */
export async function resampleVideo(
  services: ProbeServices,
  input: string,
  output: string,
  spec: ResampleSpec,
  hooks: ResampleHooks = {},
): Promise<Resampled> {
  const problem = resampleProblem(spec);
  if (problem) throw new Error(`resample: ${problem}`);
  const info = await probeClipCached(services, input);
  if (!info.video) throw new Error(`resample: ${input} has no picture`);
  const seconds = info.duration ?? info.video.duration ?? 0;
  const audio = info.audio !== null;
  const run = await runFfmpegInto(output, resampleArgs(input, output, spec, audio), {
    media: services.media,
    signal: hooks.signal,
    seconds,
    progress: (f) => hooks.progress?.(f),
  });
  return {
    frames: run.frames,
    width: spec.width,
    height: spec.height,
    audio: audio ? "copied" : "none",
    encoder: "libx264",
    ms: run.ms,
  };
}
