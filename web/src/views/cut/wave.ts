// The recording's waveform maths, free of the DOM: which stretch of the track a scrolled strip shows and how
// many peaks to ask for it (one per drawn pixel), pixels to seconds and back at the cut's zoom, and the peaks of
// an answer as the bar heights drawn. Only the visible stretch is asked for, so a 30-minute track at a close
// zoom never asks for more bins than the strip has pixels.

/** `GET /studio/peaks` accepts 1 to 100 000 bins. */
export const MAX_BINS = 100_000;

/** A drawn width as the bins to ask for: one per whole pixel, within the service's limits. */
export function binsFor(widthPx: number): number {
  if (!Number.isFinite(widthPx) || widthPx < 1) return 1;
  return Math.min(MAX_BINS, Math.max(1, Math.round(widthPx)));
}

/** Seconds at a horizontal position of the strip (0 at the track's start), never before 0. */
export const timeAtX = (x: number, pxPerSecond: number) => Math.max(0, x / pxPerSecond);

/** Where a time of the track is drawn, in pixels from the strip's left edge. */
export const xAtTime = (t: number, pxPerSecond: number) => t * pxPerSecond;

export interface Span {
  start: number;
  end: number;
  /** Pixels the span covers: the bins asked for it. */
  bins: number;
}

/**
 * The stretch of the track under a viewport scrolled to `scrollLeft` and `width` pixels wide, clipped to the
 * track (`duration` null while unknown: the stretch is asked as it is and the answer clamps it). Null when nothing
 * of the track is in view.
 */
export function visibleSpan(
  scrollLeft: number,
  width: number,
  pxPerSecond: number,
  duration: number | null,
): Span | null {
  if (!(pxPerSecond > 0) || !(width > 0)) return null;
  const start = round3(Math.max(0, scrollLeft / pxPerSecond));
  let end = round3((Math.max(0, scrollLeft) + width) / pxPerSecond);
  if (duration !== null) end = Math.min(end, duration);
  if (end <= start) return null;
  return { start, end, bins: binsFor((end - start) * pxPerSecond) };
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

/** The peaks of an answer as bytes 0–255 (the service answers a list of numbers; its cache keeps hex). */
export function peakBytes(peaks: readonly number[] | string): Uint8Array {
  if (typeof peaks === "string") {
    const out = new Uint8Array(Math.floor(peaks.length / 2));
    for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(peaks.slice(i * 2, i * 2 + 2), 16) || 0;
    return out;
  }
  return Uint8Array.from(peaks, (v) => Math.max(0, Math.min(255, Math.round(v) || 0)));
}

export interface Bar {
  /** Left edge in pixels from the drawn span's start. */
  x: number;
  width: number;
  /** Half the bar's height: it is drawn mirrored about the middle line. */
  half: number;
}

/**
 * The bars that draw `peaks` over a span `width` pixels wide and `height` tall: one per peak, spread evenly;
 * a quiet peak still shows a one-pixel line so silence reads as silence rather than as nothing loaded.
 */
export function bars(peaks: Uint8Array, width: number, height: number): Bar[] {
  const n = peaks.length;
  if (!n || !(width > 0) || !(height > 0)) return [];
  const w = width / n;
  const out: Bar[] = [];
  for (let i = 0; i < n; i++) {
    out.push({ x: i * w, width: w, half: Math.max(0.5, (peaks[i] / 255) * (height / 2)) });
  }
  return out;
}
