// The built-in motion blur (no GPU, no optical flow): each frame mixed with the one before it (a copy of the picture
// delayed by one frame, the first frame standing in for its own predecessor, blended over it), weighted so the mix
// is what a shutter open for `amount` of the frame interval would see if the picture moved in a straight line
// between the two frames. Frame count, size and timing stay the upscale's; its audio stream is
// copied as it is. Argument builders are pure; `runBlur` is the one I/O step.
import { type RunOptions, runFfmpeg } from "../media/ffmpeg.ts";
import { type ResampleQuality, resampleCodecArgs } from "../media/resample.ts";

/** How the record names the method, so nobody takes it for the optical-flow blur of a ComfyUI post. */
export const BLUR_METHOD =
  "frame blending (ffmpeg: each frame mixed with the previous one by the shutter fraction), not optical flow";

/**
 * The two weights (previous frame, this frame): averaging the straight-line path between them over the last
 * `amount` of the interval gives the previous frame amount/2 of the mix.
 */
export function blurWeights(amount: number): [number, number] {
  const prev = Math.round((amount / 2) * 10_000) / 10_000;
  return [prev, Math.round((1 - prev) * 10_000) / 10_000];
}

/**
 * The filter graph from the first video stream to `[v]` for one amount in (0, 1]. A delayed copy blended over the
 * picture, not `tmix`: older ffmpeg builds' tmix drops the first frame, and the frame count must stay the upscale's.
 */
export function blurFilter(amount: number): string {
  if (!(amount > 0 && amount <= 1)) throw new Error(`motion blur must be in (0, 1], not ${amount}`);
  const [prev] = blurWeights(amount);
  return (
    "[0:v:0]split[cur][p];[p]tpad=start=1:start_mode=clone[prev];" +
    `[prev][cur]blend=all_mode=normal:all_opacity=${prev}:shortest=1[v]`
  );
}

/** The encoder the picture is made with (the record's `encoder`): the built-in resample's, whose settings it uses. */
export const blurEncoder = (quality: ResampleQuality) => {
  const args = resampleCodecArgs(quality);
  return args[args.indexOf("-c:v") + 1];
};

export interface BlurJob {
  input: string;
  output: string;
  amount: number;
  quality: ResampleQuality;
}

/** ffmpeg's arguments: the first video stream blurred and encoded, any audio stream copied bit for bit. */
export function blurArgs(j: BlurJob): string[] {
  return [
    "-i",
    j.input,
    "-filter_complex",
    blurFilter(j.amount),
    "-map",
    "[v]",
    "-map",
    "0:a?",
    // The built-in resample's encoder settings, so an upscale and its post are encoded alike.
    ...resampleCodecArgs(j.quality),
    "-c:a",
    "copy",
    "-movflags",
    "+faststart",
    "-f",
    "mp4",
    j.output,
  ];
}

/** Run the blur; answers the frames ffmpeg reported writing (null when it did not say). */
export async function runBlur(j: BlurJob, opts: RunOptions): Promise<number | null> {
  const report = await runFfmpeg(blurArgs(j), { ...opts, onProgress: opts.onProgress ?? (() => {}) });
  return report.frames;
}
