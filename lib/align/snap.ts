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

/** How an edge searches: how far it may move, and how long a silence must last to count as the edge. */
export interface Reach {
  /** Seconds the edge may move (SNAP_REACH for an edge whose words were all heard). */
  seconds: number;
  /** Shortest silence, seconds, that ends the search; shorter pauses count as inside speech. 0: any silent bin. */
  gap: number;
}

export const NEAR: Reach = { seconds: SNAP_REACH, gap: 0 };
/** Per script word the recogniser did not hear at a line's edge: about one spoken word. */
export const UNHEARD_WORD_SECONDS = 0.5;
/** A pause between words is shorter than this; a silence this long lies between phrases. */
export const PHRASE_GAP = 0.25;

/**
 * The reach of an edge next to `unheard` script words the recogniser missed (a line's first words lost to a
 * pause or a poor voice): far enough to take them in, and across the short pauses between them.
 */
export function reachOver(unheard: number): Reach {
  return unheard > 0 ? { seconds: SNAP_REACH + unheard * UNHEARD_WORD_SECONDS, gap: PHRASE_GAP } : NEAR;
}

/**
 * Walks bins from `from` by `step` (±1) up to `stop` (exclusive) and answers the bin where the sound begins seen
 * from `from`: the near side of the first silence at least `gapBins` long, else the farthest onset passed, else
 * null.
 */
function soundEdge(
  env: Envelope,
  threshold: number,
  from: number,
  stop: number,
  step: 1 | -1,
  gapBins: number,
): number | null {
  let run = 0;
  let farthest: number | null = null;
  for (let k = from; step < 0 ? k > stop : k < stop; k += step) {
    if (env.peaks[k] < threshold) {
      if (run === 0) farthest = k;
      run++;
      if (run >= Math.max(1, gapBins)) return k - step * (run - 1);
    } else run = 0;
  }
  return farthest;
}

/**
 * A window's start moved earlier to where the sound before it begins (the end of the first silence within
 * reach), never before `limit` (the end of the words before). Unchanged when it already sits in silence or no
 * silence is within reach.
 */
export function snapStart(t: number, limit: number, env: Envelope, threshold: number, reach = NEAR): number {
  const b = Math.floor(t * env.rate);
  if (b >= env.peaks.length || env.peaks[b] < threshold) return t;
  const stop = Math.max(0, Math.ceil(Math.max(limit, t - reach.seconds) * env.rate)) - 1;
  const k = soundEdge(env, threshold, b - 1, stop, -1, Math.round(reach.gap * env.rate));
  return k === null ? t : Math.min(t, (k + 1) / env.rate);
}

/**
 * A window's end moved later to where the sound after it fades (the start of the first silence within reach),
 * never past `limit` (the start of the words after). Unchanged when it already sits in silence or no silence is
 * within reach.
 */
export function snapEnd(t: number, limit: number, env: Envelope, threshold: number, reach = NEAR): number {
  const b = Math.min(Math.ceil(t * env.rate) - 1, env.peaks.length - 1);
  if (b < 0 || env.peaks[b] < threshold) return t;
  const stop = Math.min(env.peaks.length, Math.floor(Math.min(limit, t + reach.seconds) * env.rate));
  const k = soundEdge(env, threshold, b + 1, stop, 1, Math.round(reach.gap * env.rate));
  return k === null ? t : Math.max(t, k / env.rate);
}
