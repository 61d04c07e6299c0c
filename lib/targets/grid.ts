// Frame and size grids of a target template: pure arithmetic (targets 1.2; script format 4.4, 4.6).
import { roundHalfEven } from "../script/rounding.ts";

export interface FrameGrid {
  step: number;
  base: number;
  max: number;
}

export interface SizeTemplate {
  size_multiple?: number;
  max_size?: { long_side?: number; pixels?: number };
}

export interface FpsTemplate {
  fps?: number | "series";
  default_fps?: number;
}

export const DEFAULT_GRID: FrameGrid = { step: 1, base: 1, max: 2 ** 30 };

/** A length that does not fit the target: the caller names the shot. */
export class FramesOverMax extends Error {
  readonly frames: number;
  readonly max: number;

  constructor(frames: number, max: number) {
    super(`${frames} frames is over the maximum of ${max}`);
    this.name = "FramesOverMax";
    this.frames = frames;
    this.max = max;
  }
}

/** The shortest legal frame count >= `frames` (lengths always round up onto the grid); no maximum check. */
export function snapFrames(frames: number, grid: FrameGrid): number {
  const step = Math.max(1, grid.step);
  if (frames <= grid.base) return grid.base;
  return step * Math.ceil((frames - grid.base) / step) + grid.base;
}

/** `snapFrames`, failing with FramesOverMax when the result is above the grid's maximum. */
export function snapChecked(frames: number, grid: FrameGrid): number {
  const length = snapFrames(frames, grid);
  if (length > grid.max) throw new FramesOverMax(length, grid.max);
  return length;
}

/** Seconds to frames: Python's round (ties to even), at least 1, then up onto the grid. */
export function framesFor(
  seconds: number,
  fps: number,
  grid: FrameGrid,
): { requested: number; length: number } {
  const requested = Math.max(1, roundHalfEven(seconds * fps));
  return { requested, length: snapChecked(requested, grid) };
}

/** The frame rate a target renders at: its own, or the series' when the template says "series". */
export function targetFps(template: FpsTemplate, seriesFps: unknown): number {
  const fallback =
    typeof template.default_fps === "number" && template.default_fps > 0 ? template.default_fps : 24;
  if (template.fps === "series" || template.fps === undefined) {
    if (template.fps === undefined) return fallback;
    const n = typeof seriesFps === "string" ? Number(seriesFps) : seriesFps;
    return typeof n === "number" && Number.isFinite(n) && n > 0 ? n : fallback;
  }
  return template.fps > 0 ? template.fps : fallback;
}

/**
 * "Snap" (`fit_size`): shrink by one factor until the long side and the area fit, then floor each side onto
 * the multiple (never below one multiple).
 */
export function fitSize(
  w: number,
  h: number,
  template: SizeTemplate,
): { width: number; height: number; changed: boolean } {
  const m = Math.max(1, template.size_multiple ?? 1);
  const long = template.max_size?.long_side;
  const pixels = template.max_size?.pixels;
  let k = 1;
  if (long && Math.max(w, h) > long) k = Math.min(k, long / Math.max(w, h));
  if (pixels && w * h * k * k > pixels) k = Math.min(k, Math.sqrt(pixels / (w * h)));
  const width = Math.max(m, Math.floor(Math.floor(w * k) / m) * m);
  const height = Math.max(m, Math.floor(Math.floor(h * k) / m) * m);
  return { width, height, changed: width !== w || height !== h };
}

/** Why a size is illegal on a strict grid (`size_fit: "error"`), naming the axis and the two nearest legal values; null when legal. */
export function checkStrictSize(
  w: number,
  h: number,
  multiple: number,
  template: SizeTemplate = {},
): string | null {
  const m = Math.max(1, multiple);
  const problems: string[] = [];
  for (const [axis, v] of [
    ["width", w],
    ["height", h],
  ] as const) {
    if (!Number.isInteger(v) || v <= 0) {
      problems.push(`${axis}=${v} is not a positive whole number`);
    } else if (v % m !== 0) {
      const lower = Math.floor(v / m) * m;
      problems.push(
        `${axis}=${v} is not a multiple of ${m} (nearest legal values: ${lower} and ${lower + m})`,
      );
    }
  }
  const long = template.max_size?.long_side;
  if (long && Math.max(w, h) > long) problems.push(`the long side ${Math.max(w, h)} is over ${long}`);
  const pixels = template.max_size?.pixels;
  if (pixels && w * h > pixels) problems.push(`${w}x${h} is over ${pixels} pixels`);
  return problems.length ? problems.join("; ") : null;
}
