// Each shot's `audio: in-out` window on the recording, free of the DOM: the windows of the episode's shot rows,
// the lanes they are drawn in when they overlap, and what a drag or a key does to one (an edge or the whole
// window moved, snapped to 0.01 s as the script writes it, kept inside the track and at least MIN_WINDOW long).

export interface AudioWindow {
  shot: string;
  audio_in: number;
  audio_out: number;
}

/** The shortest window a drag leaves (the script refuses `out <= in`). */
export const MIN_WINDOW = 0.1;

export type WindowPart = "in" | "out" | "body";

/** A time as the script writes it: hundredths of a second. */
export const snap = (t: number) => Math.round(t * 100) / 100;

/** The windows of the shots that have one, in the order given. */
export function windowsOf(
  shots: readonly { shot: string; audio_in?: number | null; audio_out?: number | null }[],
): AudioWindow[] {
  const out: AudioWindow[] = [];
  for (const s of shots) {
    if (typeof s.audio_in === "number" && typeof s.audio_out === "number" && s.audio_out > s.audio_in) {
      out.push({ shot: s.shot, audio_in: s.audio_in, audio_out: s.audio_out });
    }
  }
  return out;
}

/**
 * The window after moving one part by `dt` seconds: an edge moves alone (never past the other edge less
 * MIN_WINDOW), the body moves both and keeps the length; all of it stays within [0, duration] (duration null:
 * no upper bound known) and lands on hundredths.
 */
export function moveWindow(
  w: AudioWindow,
  part: WindowPart,
  dt: number,
  duration: number | null,
): AudioWindow {
  const top = duration ?? Number.POSITIVE_INFINITY;
  if (part === "body") {
    const len = snap(w.audio_out - w.audio_in);
    const start = snap(Math.min(Math.max(0, w.audio_in + dt), Math.max(0, top - len)));
    return { ...w, audio_in: start, audio_out: snap(start + len) };
  }
  if (part === "in") {
    const v = snap(Math.min(Math.max(0, w.audio_in + dt), w.audio_out - MIN_WINDOW));
    return { ...w, audio_in: Math.max(0, v) };
  }
  const v = snap(Math.max(Math.min(top, w.audio_out + dt), w.audio_in + MIN_WINDOW));
  return { ...w, audio_out: v };
}

/** The seconds a key moves a window part by: a hundredth, a tenth with Shift; null for other keys. */
export function keyStep(key: string, shift: boolean): number | null {
  const by = shift ? 0.1 : 0.01;
  if (key === "ArrowRight" || key === "ArrowUp") return by;
  if (key === "ArrowLeft" || key === "ArrowDown") return -by;
  return null;
}

/** True when a moved window differs from the one the script has (at the script's precision). */
export const windowChanged = (a: AudioWindow, b: AudioWindow) =>
  snap(a.audio_in) !== snap(b.audio_in) || snap(a.audio_out) !== snap(b.audio_out);

/**
 * The lane each window is drawn in, in the order given: the first lane whose last window ends at or before
 * this one's start, so windows that overlap sit one under the other.
 */
export function lanes(windows: readonly AudioWindow[]): number[] {
  const order = windows.map((w, i) => ({ w, i })).sort((a, b) => a.w.audio_in - b.w.audio_in || a.i - b.i);
  const ends: number[] = [];
  const lane = new Array<number>(windows.length).fill(0);
  for (const { w, i } of order) {
    let k = ends.findIndex((e) => e <= w.audio_in + 1e-9);
    if (k < 0) {
      k = ends.length;
      ends.push(w.audio_out);
    } else ends[k] = w.audio_out;
    lane[i] = k;
  }
  return lane;
}

/** A window as the script's key line reads: `1.00-3.10`. */
export const windowText = (w: Pick<AudioWindow, "audio_in" | "audio_out">) =>
  `${w.audio_in.toFixed(2)}-${w.audio_out.toFixed(2)}`;
