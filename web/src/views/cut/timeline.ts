// The cut's timeline maths, free of the DOM: where each clip sits and how long it plays, which clip is under a
// time, trims in frames to seconds and back, pixels to frames at a zoom, and new orders from a drop or a move.
// Trims count frames at the episode's rate; a take's own length is its frame count at its own rate, so a 30 fps
// take in a 24 fps cut lasts frames / 30 seconds and loses trim / 24 seconds to each trim.

/** What the timeline needs to know of one cut entry. */
export interface ClipInput {
  shot: string;
  /** Left out of the cut: shown in place, skipped when played. */
  out: boolean;
  /** The entry plays a take; false: nothing to play yet (a gap of its planned length). */
  usable: boolean;
  /** The take's frame count at its own rate (null when unknown or not usable). */
  frames: number | null;
  /** The take's own frame rate. */
  fps: number;
  /** Frames cut off the head and the tail, at the episode's rate. */
  trimIn: number;
  trimOut: number;
  /** The shot's planned length in seconds (the build's), for gaps; null when unknown. */
  planned: number | null;
}

export type ClipKind = "clip" | "gap";

/** A clip placed on the timeline. Times are seconds from the timeline's start. */
export interface Placed extends ClipInput {
  index: number;
  kind: ClipKind;
  start: number;
  duration: number;
  /** Where the played part starts and ends inside the take's file (seconds; both 0 for gaps). */
  sourceIn: number;
  sourceOut: number;
  /** The take's whole length in episode frames (fractional when the rates differ); null for gaps. */
  lengthFrames: number | null;
}

export interface Layout {
  clips: Placed[];
  /** Length of the timeline, out clips included (they keep their place). */
  total: number;
  /** Length of what plays: out clips skipped. */
  played: number;
  fps: number;
}

/** The take's length in seconds at its own rate, or null. */
export function takeSeconds(c: Pick<ClipInput, "frames" | "fps">): number | null {
  return c.frames !== null && c.frames > 0 && c.fps > 0 ? c.frames / c.fps : null;
}

/** The take's length counted in the episode's frames (what trims are measured against), or null. */
export function takeFramesAt(c: Pick<ClipInput, "frames" | "fps">, fps: number): number | null {
  const s = takeSeconds(c);
  return s === null ? null : s * fps;
}

/** A frame count at the episode's rate as seconds. */
export const framesToSeconds = (frames: number, fps: number) => frames / fps;

/** Seconds as the nearest whole frame at the episode's rate. */
export const secondsToFrames = (s: number, fps: number) => Math.round(s * fps);

/** Lay the clips out in cut order. */
export function layout(inputs: readonly ClipInput[], fps: number): Layout {
  let t = 0;
  let played = 0;
  const clips = inputs.map((c, index): Placed => {
    const whole = c.usable ? takeSeconds(c) : null;
    let placed: Placed;
    if (whole === null) {
      placed = {
        ...c,
        index,
        kind: "gap",
        start: t,
        duration: Math.max(0, c.planned ?? 0),
        sourceIn: 0,
        sourceOut: 0,
        lengthFrames: null,
      };
    } else {
      const sourceIn = Math.min(whole, framesToSeconds(c.trimIn, fps));
      const sourceOut = Math.max(sourceIn, whole - framesToSeconds(c.trimOut, fps));
      placed = {
        ...c,
        index,
        kind: "clip",
        start: t,
        duration: sourceOut - sourceIn,
        sourceIn,
        sourceOut,
        lengthFrames: whole * fps,
      };
    }
    t += placed.duration;
    if (!c.out) played += placed.duration;
    return placed;
  });
  return { clips, total: t, played, fps };
}

/**
 * The clip under a time: the one whose span holds it, the last one at or past the end, the first one before
 * the start; zero-length clips are never under a time. -1 when nothing has length.
 */
export function clipAt(l: Layout, t: number): number {
  let last = -1;
  for (const c of l.clips) {
    if (c.duration <= 0) continue;
    if (t < c.start + c.duration) return c.index;
    last = c.index;
  }
  return last;
}

/** The clips Play all goes through from a time: the one under it (unless out) and every later one not out. */
export function playFrom(l: Layout, t: number): Placed[] {
  const at = clipAt(l, t);
  if (at < 0) return [];
  return l.clips.slice(at).filter((c) => !c.out && c.duration > 0);
}

/** Where in the take's file a timeline time falls, for the clip at `index` (clamped to its played part). */
export function sourceTime(c: Placed, t: number): number {
  return c.sourceIn + Math.min(Math.max(0, t - c.start), c.duration);
}

// ------------------------------------------------------------------------------------------- zoom

/** Pixels a second of the cut takes at a zoom. */
export const secondsToPx = (s: number, pxPerSecond: number) => s * pxPerSecond;
export const pxToSeconds = (px: number, pxPerSecond: number) => px / pxPerSecond;

/** A distance in pixels as whole frames at the episode's rate (what a drag of a trim handle moves). */
export const pxToFrames = (px: number, pxPerSecond: number, fps: number) =>
  Math.round((px / pxPerSecond) * fps);

/** Whole frames as pixels. */
export const framesToPx = (frames: number, pxPerSecond: number, fps: number) => (frames / fps) * pxPerSecond;

/** The zoom that fits `total` seconds into `width` pixels, kept within [min, max]. */
export function fitZoom(total: number, width: number, min: number, max: number): number {
  if (!(total > 0) || !(width > 0)) return max;
  return Math.min(max, Math.max(min, width / total));
}

// ------------------------------------------------------------------------------------------- trims

export interface Trims {
  trimIn: number;
  trimOut: number;
}

/** The most frames an edge can trim while at least one frame of the take stays (the service's rule). */
export function maxTrim(c: Pick<Placed, "lengthFrames">, other: number): number {
  if (c.lengthFrames === null) return Number.POSITIVE_INFINITY;
  return Math.max(0, Math.floor(c.lengthFrames - 1 - other + 1e-9));
}

/** Trims made whole, not negative, and leaving at least one frame (the other edge kept as it is). */
export function clampTrim(c: Pick<Placed, "lengthFrames">, edge: "in" | "out", trims: Trims): Trims {
  if (edge === "in") {
    const v = Math.round(trims.trimIn);
    return { trimIn: Math.min(Math.max(0, v), maxTrim(c, trims.trimOut)), trimOut: trims.trimOut };
  }
  const v = Math.round(trims.trimOut);
  return { trimIn: trims.trimIn, trimOut: Math.min(Math.max(0, v), maxTrim(c, trims.trimIn)) };
}

/**
 * The trims after dragging one edge by `dx` pixels: the head edge dragged right trims more, the tail edge
 * dragged left trims more; snapped to whole frames.
 */
export function dragTrim(c: Placed, edge: "in" | "out", dx: number, pxPerSecond: number, fps: number): Trims {
  const d = pxToFrames(dx, pxPerSecond, fps);
  const trims = { trimIn: c.trimIn, trimOut: c.trimOut };
  if (edge === "in") trims.trimIn += d;
  else trims.trimOut -= d;
  return clampTrim(c, edge, trims);
}

/**
 * The trims that make a clip start (`in`) or end (`out`) at a timeline time inside it: the `[` and `]` keys.
 * Null when the time is not inside a playable clip.
 */
export function trimAt(c: Placed, edge: "in" | "out", t: number, fps: number): Trims | null {
  if (c.kind !== "clip" || t < c.start || t > c.start + c.duration) return null;
  if (edge === "in") {
    return clampTrim(c, "in", { trimIn: c.trimIn + secondsToFrames(t - c.start, fps), trimOut: c.trimOut });
  }
  const end = c.start + c.duration;
  return clampTrim(c, "out", { trimIn: c.trimIn, trimOut: c.trimOut + secondsToFrames(end - t, fps) });
}

// ------------------------------------------------------------------------------------------- order

/** The list with the item at `from` moved to position `to` (clamped). */
export function move<T>(list: readonly T[], from: number, to: number): T[] {
  const out = list.slice();
  if (from < 0 || from >= out.length) return out;
  const [item] = out.splice(from, 1);
  out.splice(Math.max(0, Math.min(out.length, to)), 0, item);
  return out;
}

/**
 * Where a clip dragged from `from` lands when dropped at time `t`: before the first other clip whose middle
 * lies past `t`, as an index in the list once the clip is taken out.
 */
export function dropIndex(l: Layout, from: number, t: number): number {
  let at = 0;
  for (const c of l.clips) {
    if (c.index === from) continue;
    if (c.start + c.duration / 2 <= t) at++;
    else break;
  }
  return at;
}

/** A time as an editor reads it, minutes:seconds:frames at the episode's rate (`0:03:12`). */
export function timecode(s: number, fps: number): string {
  const total = Math.max(0, Math.round(s * fps));
  const perSecond = Math.max(1, Math.round(fps));
  const f = total % perSecond;
  const whole = Math.floor(total / perSecond);
  const m = Math.floor(whole / 60);
  return `${m}:${String(whole % 60).padStart(2, "0")}:${String(f).padStart(2, "0")}`;
}
