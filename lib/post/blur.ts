// The built-in motion blur (no GPU, no optical flow): each frame mixed with the one before it (a copy of the picture
// delayed by one frame, the first frame standing in for its own predecessor, blended over it), weighted so the mix is what a shutter open for `amount` of the frame interval would see if the picture moved
// in a straight line between the two frames. Frame count, size and timing stay the upscale's; its audio stream is
// copied as it is. Argument builders are pure; `runBlur` is the one I/O step.
import { type RunOptions, runFfmpeg } from "../media/ffmpeg.ts";

/** How the record names the method, so nobody takes it for the optical-flow blur of a ComfyUI post. */
export const BLUR_METHOD =
  "frame blending (ffmpeg: each frame mixed with the previous one by the shutter fraction), not optical flow";

/** The encoder this path always uses (no hardware encoder is assumed). */
export const BLUR_ENCODER = "libx264";

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

/** x264 settings by quality: review is quick, master keeps detail (8-bit H.264 either way). */
export function encodeArgs(quality: "review" | "master"): string[] {
  return quality === "master"
    ? ["-c:v", BLUR_ENCODER, "-preset", "slow", "-crf", "14", "-pix_fmt", "yuv420p"]
    : ["-c:v", BLUR_ENCODER, "-preset", "fast", "-crf", "20", "-pix_fmt", "yuv420p"];
}

export interface BlurJob {
  input: string;
  output: string;
  amount: number;
  quality: "review" | "master";
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
    ...encodeArgs(j.quality),
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
