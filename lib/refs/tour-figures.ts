// Per-frame motion and sharpness of a video from one decode: ffmpeg writes small grey frames to a raw file, which is
// read back a frame at a time (each read gives the event loop its turn) to measure how much each frame differs from
// the one before (mean absolute difference) and how sharp it is (variance of the Laplacian).
import { open, rm } from "node:fs/promises";
import { runFfmpeg } from "../media/ffmpeg.ts";
import type { MediaTools } from "../media/tools.ts";
import { tempPath } from "../store/temp-names.ts";
import type { TourFigures } from "./tour-holds.ts";

/** Width the figures are measured at: enough detail for sharpness, small enough to read fast. */
const MEASURE_WIDTH = 320;

/** Mean absolute difference of two grey frames, 0–255. */
export function frameMotion(a: Uint8Array, b: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i] - b[i]);
  return a.length ? sum / a.length : 0;
}

/** Variance of the 4-neighbour Laplacian over the frame's inner pixels. */
export function frameSharpness(f: Uint8Array, width: number, height: number): number {
  let sum = 0;
  let sq = 0;
  let n = 0;
  for (let y = 1; y < height - 1; y++) {
    const row = y * width;
    for (let x = 1; x < width - 1; x++) {
      const i = row + x;
      const lap = f[i - 1] + f[i + 1] + f[i - width] + f[i + width] - 4 * f[i];
      sum += lap;
      sq += lap * lap;
      n++;
    }
  }
  if (n === 0) return 0;
  const mean = sum / n;
  return sq / n - mean * mean;
}

/** The figures of `video` (its size `width`×`height`, `fps`), from one decode in `workDir`. */
export async function measureTour(
  media: MediaTools,
  video: string,
  size: { width: number; height: number; fps: number },
  signal?: AbortSignal,
): Promise<TourFigures> {
  const w = Math.min(MEASURE_WIDTH, size.width);
  const h = Math.max(3, Math.round((size.height * w) / size.width));
  const raw = tempPath(video, ".gray");
  try {
    await runFfmpeg(
      ["-i", video, "-map", "0:v:0", "-vf", `scale=${w}:${h}:flags=area,format=gray`, "-f", "rawvideo", raw],
      { media, signal },
    );
    const frameSize = w * h;
    const handle = await open(raw, "r");
    const motion: number[] = [];
    const sharpness: number[] = [];
    try {
      let prev: Uint8Array | null = null;
      for (;;) {
        const buf: Uint8Array = new Uint8Array(frameSize);
        const { bytesRead } = await handle.read(buf, 0, frameSize, null);
        if (bytesRead < frameSize) break;
        motion.push(prev ? frameMotion(prev, buf) : 0);
        sharpness.push(frameSharpness(buf, w, h));
        prev = buf;
        if (signal?.aborted) throw signal.reason ?? new Error("canceled");
      }
    } finally {
      await handle.close();
    }
    return { motion, sharpness, fps: size.fps };
  } finally {
    await rm(raw, { force: true });
  }
}
