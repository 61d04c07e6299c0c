// ProRes 422 HQ from a finished mp4, the mezzanine an editor or a broadcaster takes in: ffmpeg's prores_ks at
// profile 3 (HQ, `apch`), 10-bit 4:2:2, the sound as 24-bit PCM at 48 kHz, in a QuickTime .mov.

import { probeClip } from "./clip-probe.ts";
import { AUDIO_RATE, BT709_TAGS } from "./encode-args.ts";
import { runFfmpegInto } from "./ffmpeg.ts";
import type { MediaTools } from "./tools.ts";

/** ffmpeg's arguments: the first picture and (when `sound`) first sound stream of `input` into `output`. */
export function proresArgs(input: string, output: string, sound: boolean): string[] {
  return [
    "-i",
    input,
    "-map",
    "0:v:0",
    ...(sound ? ["-map", "0:a:0", "-c:a", "pcm_s24le", "-ar", String(AUDIO_RATE)] : ["-an"]),
    "-sn",
    "-dn",
    "-c:v",
    "prores_ks",
    "-profile:v",
    "3",
    // Apple's own tag: some players and editors look for it before they trust a ProRes file.
    "-vendor",
    "apl0",
    "-pix_fmt",
    "yuv422p10le",
    ...BT709_TAGS,
    "-f",
    "mov",
    output,
  ];
}

export interface ProresHooks {
  signal?: AbortSignal;
  /** Fraction written (0..1). */
  progress?(fraction: number): void;
}

export interface Prores {
  frames: number | null;
  width: number;
  height: number;
  sound: "pcm" | "none";
  ms: number;
}

/**
 * Write `output` (.mov) as ProRes 422 HQ of `input`. Rejects with ffprobe's or ffmpeg's words; a failed or canceled
 * run leaves no output behind.
 */
export async function makeProres(
  services: { readonly media: MediaTools },
  input: string,
  output: string,
  hooks: ProresHooks = {},
): Promise<Prores> {
  const info = await probeClip(services, input);
  if (!info.video) throw new Error(`prores: ${input} has no picture`);
  const seconds = info.duration ?? info.video.duration ?? 0;
  const run = await runFfmpegInto(output, proresArgs(input, output, info.audio !== null), {
    media: services.media,
    signal: hooks.signal,
    seconds,
    progress: (f) => hooks.progress?.(f),
  });
  return {
    frames: run.frames,
    width: info.video.width,
    height: info.video.height,
    sound: info.audio ? "pcm" : "none",
    ms: run.ms,
  };
}
