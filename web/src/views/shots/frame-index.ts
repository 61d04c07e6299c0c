// Frame maths for cutting an exact frame from a playing video: the decode index under the playhead, the time a
// frame starts at, stepping by one frame, and the shot after this one in the cut (whose first frame a frame of
// this shot can become). No DOM here.
import type { ShotEntry } from "../../types.ts";

/**
 * The 0-based frame index at `time` seconds of a video at `fps`: round(time × fps), kept inside the video when its
 * frame count is known. Null when the rate is unknown.
 */
export function frameAt(time: number, fps: number | null | undefined, frames?: number | null): number | null {
  if (!fps || !(fps > 0) || !Number.isFinite(time)) return null;
  const index = Math.max(0, Math.round(time * fps));
  return frames && frames > 0 ? Math.min(index, frames - 1) : index;
}

/**
 * The time to seek to so a video shows frame `index`: half a frame in, so the decoder lands on it whichever way
 * it rounds, and round(time × fps) gives the index back.
 */
export function timeOfFrame(index: number, fps: number): number {
  return (Math.max(0, index) + 0.25) / fps;
}

/** The frame `step` frames away from the one at `time`, kept inside the video. */
export function stepFrame(time: number, fps: number, step: number, frames?: number | null): number {
  const at = frameAt(time, fps, frames) ?? 0;
  const last = frames && frames > 0 ? frames - 1 : Number.POSITIVE_INFINITY;
  return Math.max(0, Math.min(last, at + step));
}

/** A frame's time as the page writes it: `1.54 s`. */
export function frameTime(index: number, fps: number): string {
  return `${(index / fps).toFixed(2)} s`;
}

type CutShot = Pick<ShotEntry, "shot" | "orphan"> & { cut: Pick<ShotEntry["cut"], "order" | "out"> };

/** The shot after `shot` in the pass's cut (left-out and orphan entries skipped), as the keyframe route finds it. */
export function nextInCut(shots: readonly CutShot[], shot: string): string | null {
  const order = [...shots].sort((a, b) => a.cut.order - b.cut.order);
  const at = order.findIndex((s) => s.shot === shot);
  if (at < 0) return null;
  for (let i = at + 1; i < order.length; i++) if (!order[i].cut.out && !order[i].orphan) return order[i].shot;
  return null;
}

export type KeyframeUse = "next-first" | "this-last";

/** POST /studio/refs/keyframe's body: the frame of this shot's take becomes the next shot's first or its own last. */
export function keyframeCutBody(
  ep: string,
  pass: "final" | "proxy",
  shot: string,
  take: number,
  frame: number,
  use: KeyframeUse,
  next: string | null,
  pick: boolean,
): Record<string, unknown> | null {
  const target = use === "next-first" ? next : shot;
  if (!target) return null;
  return {
    ep,
    pass,
    shot: target,
    which: use === "next-first" ? "first" : "last",
    source_shot: shot,
    source_take: take,
    frame,
    pick,
  };
}
