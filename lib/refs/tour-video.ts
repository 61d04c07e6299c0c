// The built-in engine's camera tour: a location's plate turned into a video by a slow pan or zoom (ffmpeg's
// zoompan) that pauses at the start, part-way and at the end, so the tour has held moments to extract; frames blend
// with their neighbours (tmix) so moving frames blur as a real camera's would and held ones stay sharp.
import { z } from "zod";
import { runFfmpeg } from "../media/ffmpeg.ts";
import type { MediaTools } from "../media/tools.ts";

export const TOUR_MOVES = [
  "push_in",
  "pull_out",
  "pan_left",
  "pan_right",
  "tilt_up",
  "tilt_down",
  "orbit",
] as const;
export type TourMove = (typeof TOUR_MOVES)[number];

export const tourMove = z
  .enum(TOUR_MOVES)
  .describe(
    "The camera move: push_in, pull_out, pan_left, pan_right, tilt_up, tilt_down or orbit (a pan along an arc)",
  );

/** How the move reads in a prompt. */
export const MOVE_WORDS: Record<TourMove, string> = {
  push_in: "a slow push in",
  pull_out: "a slow pull out",
  pan_left: "a slow pan to the left",
  pan_right: "a slow pan to the right",
  tilt_up: "a slow tilt up",
  tilt_down: "a slow tilt down",
  orbit: "a slow orbit",
};

export interface TourVideoSpec {
  move: TourMove;
  /** Frames to make (seconds × fps). */
  frames: number;
  fps: number;
  width: number;
  height: number;
  /** Varies where the middle pause falls and how far the camera travels. */
  seed: bigint;
}

/** The largest even size of the plate's shape within 1344×768 (or the plate's own size when smaller). */
export function tourSize(plateWidth: number, plateHeight: number): { width: number; height: number } {
  const scale = Math.min(1, 1344 / plateWidth, 768 / plateHeight);
  const even = (v: number) => Math.max(2, Math.round((v * scale) / 2) * 2);
  return { width: even(plateWidth), height: even(plateHeight) };
}

/** A smooth 0→1 over `t` in 0..1 (smoothstep), as an ffmpeg expression. */
const ease = (t: string) => `((${t})*(${t})*(3-2*(${t})))`;

/**
 * The progress of the move at output frame `on`, 0 to 1: held, eased to half-way, held, eased to the end, held.
 * Pauses take about an eighth of the tour each.
 */
export function progressExpr(frames: number, seed: bigint): string {
  const mid = 0.45 + Number(seed % 11n) / 100; // 0.45–0.55
  const at = (f: number) => Math.round(frames * f);
  const [a, b, c, d] = [at(0.12), at(mid - 0.06), at(mid + 0.06), at(0.88)];
  const half = mid.toFixed(2);
  const rest = (1 - mid).toFixed(2);
  return (
    `if(lt(on,${a}),0,if(lt(on,${b}),${half}*${ease(`(on-${a})/${Math.max(1, b - a)}`)},` +
    `if(lt(on,${c}),${half},if(lt(on,${d}),${half}+${rest}*${ease(`(on-${c})/${Math.max(1, d - c)}`)},1))))`
  );
}

/** zoompan's zoom, x and y for a move, given the progress expression. */
export function moveExprs(move: TourMove, p: string, seed: bigint): { z: string; x: string; y: string } {
  const travel = (0.35 + Number((seed / 11n) % 16n) / 100).toFixed(2); // how much further a push or pull goes
  const cx = "iw/2-iw/zoom/2";
  const cy = "ih/2-ih/zoom/2";
  switch (move) {
    case "push_in":
      return { z: `1+${travel}*(${p})`, x: cx, y: cy };
    case "pull_out":
      return { z: `1+${travel}-${travel}*(${p})`, x: cx, y: cy };
    case "pan_left":
      return { z: "1.3", x: `(iw-iw/zoom)*(1-(${p}))`, y: cy };
    case "pan_right":
      return { z: "1.3", x: `(iw-iw/zoom)*(${p})`, y: cy };
    case "tilt_up":
      return { z: "1.3", x: cx, y: `(ih-ih/zoom)*(1-(${p}))` };
    case "tilt_down":
      return { z: "1.3", x: cx, y: `(ih-ih/zoom)*(${p})` };
    case "orbit":
      return {
        z: `1.3+0.15*sin(PI*(${p}))`,
        x: `(iw-iw/zoom)*(${p})`,
        y: `(ih-ih/zoom)*(0.5-0.3*sin(PI*(${p})))`,
      };
  }
}

/** Frames blended into each one (a moving camera's blur). */
const TMIX_FRAMES = 3;

/** The ffmpeg arguments that make the tour of `plate` as the mp4 `out`. */
export function tourVideoArgs(plate: string, spec: TourVideoSpec, out: string): string[] {
  const p = progressExpr(spec.frames, spec.seed);
  const m = moveExprs(spec.move, p, spec.seed);
  // zoompan moves in whole pixels of its input: a doubled input makes the motion smooth at the output size. It
  // makes a few frames more than asked, since some ffmpeg builds' tmix drops its first ones; -frames:v cuts the rest.
  const filter = [
    `scale=${spec.width * 2}:${spec.height * 2}:flags=lanczos`,
    `zoompan=z='${m.z}':x='${m.x}':y='${m.y}':d=${spec.frames + TMIX_FRAMES}:s=${spec.width}x${spec.height}:fps=${spec.fps}`,
    `tmix=frames=${TMIX_FRAMES}`,
    "format=yuv420p",
  ].join(",");
  return [
    "-i",
    plate,
    "-vf",
    filter,
    "-frames:v",
    String(spec.frames),
    "-c:v",
    "libx264",
    "-preset",
    "veryfast",
    "-crf",
    "18",
    "-movflags",
    "+faststart",
    "-f",
    "mp4",
    out,
  ];
}

export async function makeTourVideo(
  media: MediaTools,
  plate: string,
  spec: TourVideoSpec,
  out: string,
  opts: { signal?: AbortSignal; onProgress?: (share: number) => void } = {},
): Promise<void> {
  const seconds = spec.frames / spec.fps;
  await runFfmpeg(tourVideoArgs(plate, spec, out), {
    media,
    signal: opts.signal,
    onProgress: opts.onProgress ? (s) => opts.onProgress?.(Math.min(1, s / seconds)) : undefined,
  });
}
