// What GET /studio/peaks answers from a file's envelope: the range asked (end clamped to the file, an empty range
// refused) and the envelope resampled to the bins asked, each the loudest cached peak it covers (the nearest one
// when a bin covers less than one). Node-free.
import { badRequest } from "../errors.ts";
import { PEAK_RATE } from "./peaks-scan.ts";

export interface Envelope {
  /** Seconds of the file. */
  duration: number;
  /** True when the file has no sound at all (no audio stream, or nothing above zero). */
  silent: boolean;
  /** One byte per 1/200 s. */
  peaks: Uint8Array;
}

export interface PeaksAsk {
  bins?: number;
  start?: number;
  end?: number;
}

export type PeaksAnswer =
  | { duration: number; bins: number; start: number; end: number; peaks: number[] }
  | { duration: number; bins: 0; peaks: []; silent: true; start: number; end: number };

/** The answer for `ask` (bins, start and end already checked as numbers: whole 1..100000, and ≥ 0). */
export function peaksAnswer(env: Envelope, ask: PeaksAsk): PeaksAnswer {
  const duration = env.duration;
  const start = Math.min(ask.start ?? 0, duration);
  const end = Math.min(ask.end ?? duration, duration);
  // A file with no length has no range to ask for; anything else must leave some time between start and end.
  if (duration > 0 && end <= start) {
    throw badRequest(
      `the range is empty: end (${end}${ask.end !== undefined && ask.end > duration ? ", clamped to the file's length" : ""}) must be after start (${ask.start ?? 0}); the file lasts ${duration} s`,
    );
  }
  if (env.silent) return { duration, bins: 0, peaks: [], silent: true, start, end };
  const bins = ask.bins ?? Math.max(1, Math.round((end - start) * PEAK_RATE));
  return { duration, bins, start, end, peaks: resamplePeaks(env.peaks, start, end, bins) };
}

// A bin edge a rounding error away from a whole cached bin must not reach into the next one.
const EDGE = 1e-9;

/** `bins` values over [start, end) seconds of `peaks` (at 200 per second). */
export function resamplePeaks(peaks: Uint8Array, start: number, end: number, bins: number): number[] {
  const out = new Array<number>(bins).fill(0);
  const last = peaks.length - 1;
  if (last < 0) return out;
  const from = start * PEAK_RATE;
  const width = ((end - start) * PEAK_RATE) / bins;
  for (let j = 0; j < bins; j++) {
    const lo = from + j * width;
    if (width < 1) {
      out[j] = peaks[Math.min(last, Math.floor(lo + width / 2))];
      continue;
    }
    const first = Math.min(last, Math.floor(lo + EDGE));
    const stop = Math.min(last + 1, Math.ceil(lo + width - EDGE));
    let max = peaks[first];
    for (let i = first + 1; i < stop; i++) if (peaks[i] > max) max = peaks[i];
    out[j] = max;
  }
  return out;
}
