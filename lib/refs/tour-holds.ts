// Held moments of a camera tour, from per-frame figures: runs of frames whose motion stays under half the median
// (the sharpest frame of each run stands for it), the opening frame first, plus turning points where the motion
// dips under 0.35 times the largest motion within half a second around it. Pure: the figures come from a decode.

/** Per-frame figures of one video: `motion[i]` is how much frame i differs from frame i-1 (`motion[0]` unused). */
export interface TourFigures {
  motion: readonly number[];
  sharpness: readonly number[];
  fps: number;
}

export interface TourHold {
  /** The frame that stands for the moment (0-based decode index). */
  frame: number;
  /** First and last frame of the moment, inclusive. */
  start: number;
  end: number;
  /** `opening` (frame 0), `still` (a run of low motion) or `turn` (a dip in motion). */
  kind: "opening" | "still" | "turn";
}

/** Share of the median below which a frame counts as still. */
export const STILL_SHARE = 0.5;
/** Share of the surrounding maximum below which a dip is a turning point. */
export const TURN_SHARE = 0.35;
/** Half the window (seconds) a turning point is judged in, and the least distance between two holds. */
export const TURN_WINDOW_S = 0.5;
/** The shortest run of still frames that counts as a held moment (seconds); shorter ones can still be turns. */
export const MIN_RUN_S = 0.2;

export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The index of the largest value in `values[from..to]` (inclusive), the earliest of equals. */
function sharpestIn(sharpness: readonly number[], from: number, to: number): number {
  let best = from;
  for (let i = from + 1; i <= to; i++) if (sharpness[i] > sharpness[best]) best = i;
  return best;
}

/** The held moments of a tour, in time order, the opening frame first. */
export function findHolds(figures: TourFigures): TourHold[] {
  const n = Math.min(figures.motion.length, figures.sharpness.length);
  if (n === 0) return [];
  const fps = figures.fps > 0 ? figures.fps : 24;
  // Frame 0 has nothing before it: it moves as much as the frame after it.
  const motion = Array.from({ length: n }, (_, i) =>
    i === 0 ? (figures.motion[1] ?? 0) : figures.motion[i],
  );
  const sharp = figures.sharpness;
  const threshold = median(motion.slice(1)) * STILL_SHARE;
  // A frame identical to the one before is still even when most of the video does not move (median 0).
  const still = motion.map((m) => m < threshold || m <= 1e-9);

  const holds: TourHold[] = [];
  const minRun = Math.max(2, Math.round(MIN_RUN_S * fps));
  let i = 0;
  while (i < n) {
    if (!still[i]) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < n && still[j + 1]) j++;
    if (i === 0) holds.push({ frame: 0, start: 0, end: j, kind: "opening" });
    else if (j - i + 1 >= minRun)
      holds.push({ frame: sharpestIn(sharp, i, j), start: i, end: j, kind: "still" });
    i = j + 1;
  }
  if (holds[0]?.frame !== 0) holds.unshift({ frame: 0, start: 0, end: 0, kind: "opening" });

  const half = Math.max(1, Math.round(TURN_WINDOW_S * fps));
  const near = (f: number) => holds.some((h) => f >= h.start - half && f <= h.end + half);
  // Still frames too short to make a run of their own may still be the bottom of a turn.
  for (let f = 1; f < n; f++) {
    const from = Math.max(1, f - half);
    const to = Math.min(n - 1, f + half);
    let peak = 0;
    for (let k = from; k <= to; k++) peak = Math.max(peak, motion[k]);
    const m = motion[f];
    const localMin = m <= motion[f - 1] && (f + 1 >= n || m <= motion[f + 1]);
    if (!localMin || !(m < TURN_SHARE * peak) || near(f)) continue;
    // The dip's extent: the frames around it that stay under the same bar.
    let start = f;
    let end = f;
    while (start - 1 >= 1 && motion[start - 1] < TURN_SHARE * peak) start--;
    while (end + 1 < n && motion[end + 1] < TURN_SHARE * peak) end++;
    holds.push({ frame: sharpestIn(sharp, start, end), start, end, kind: "turn" });
  }
  return holds.sort((a, b) => a.start - b.start);
}

/** The seconds a frame index starts at. */
export const frameSeconds = (frame: number, fps: number) => Math.round((frame / fps) * 1000) / 1000;
