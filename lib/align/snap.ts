// Moving a window's edges outward into the silence around the words, from a peak envelope (one byte a bin,
// 0–255). Recognisers put word edges inside the sound's onset and decay; the picture wants the whole breath.
// Node-free.

export interface Envelope {
  /** Bins per second. */
  rate: number;
  /** One value per bin: the loudest sample of the bin, 0–255. */
  peaks: Uint8Array;
}

/** How far an edge may move, in seconds. */
export const SNAP_REACH = 0.3;

/**
 * The level under which a bin counts as silence: a tenth of the loud speech level (the 95th percentile of the
 * bins), at least 3. Relative, so a quiet recording and a hot one snap alike.
 */
export function silenceThreshold(env: Envelope): number {
  const counts = new Array<number>(256).fill(0);
  for (const v of env.peaks) counts[v]++;
  let seen = 0;
  let p95 = 0;
  for (let v = 0; v < 256; v++) {
    seen += counts[v];
    if (seen >= env.peaks.length * 0.95) {
      p95 = v;
      break;
    }
  }
  return Math.max(3, Math.round(p95 / 10));
}

/**
 * A window's start moved earlier to where the sound before it begins (the first silent bin's end), at most
 * SNAP_REACH and never before `limit` (the end of the words before). Unchanged when it already sits in silence
 * or no silence is within reach.
 */
export function snapStart(t: number, limit: number, env: Envelope, threshold: number): number {
  const b = Math.floor(t * env.rate);
  if (b >= env.peaks.length || env.peaks[b] < threshold) return t;
  const stop = Math.max(0, Math.ceil(Math.max(limit, t - SNAP_REACH) * env.rate));
  for (let k = b - 1; k >= stop; k--) {
    if (env.peaks[k] < threshold) return Math.min(t, (k + 1) / env.rate);
  }
  return t;
}

/**
 * A window's end moved later to where the sound after it fades (the first silent bin's start), at most
 * SNAP_REACH and never past `limit` (the start of the words after). Unchanged when it already sits in silence
 * or no silence is within reach.
 */
export function snapEnd(t: number, limit: number, env: Envelope, threshold: number): number {
  const b = Math.min(Math.ceil(t * env.rate) - 1, env.peaks.length - 1);
  if (b < 0 || env.peaks[b] < threshold) return t;
  const stop = Math.min(env.peaks.length, Math.floor(Math.min(limit, t + SNAP_REACH) * env.rate));
  for (let k = b + 1; k < stop; k++) {
    if (env.peaks[k] < threshold) return Math.max(t, k / env.rate);
  }
  return t;
}
