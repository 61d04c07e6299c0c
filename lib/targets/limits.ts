// A target's limits in one read-only view: the file format spreads them over template, capabilities and recipe;
// settings' `target_limits` replace any of them per target.
import { isObject } from "../store/json-guards.ts";
import type { TargetSpec } from "./registry.ts";

export interface TargetLimits {
  max_frames: number | null;
  /** `max_frames / fps`, or the target's own `max_seconds`; null when the fps follows the series. */
  max_seconds: number | null;
  size_multiple: number | null;
  max_long_side: number | null;
  max_pixels: number | null;
  min_pixels: number | null;
  max_refs: number | null;
  /** The subject slots of a slot-based prompt; null when the target has none. */
  max_subjects: number | null;
  /** A soft limit: longer clips render but drift from what the model was trained on. */
  trained_frames: number | null;
  [override: string]: unknown;
}

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** The target's own limits with `overrides` (settings `target_limits[id]`) over them. */
export function targetLimits(spec: TargetSpec, overrides: Record<string, unknown> = {}): TargetLimits {
  const t = spec.template;
  const caps = spec.capabilities;
  const maxFrames = num(t.frames?.max);
  const fps = num(t.fps);
  const maxSize = isObject(t.max_size) ? t.max_size : {};
  const own: TargetLimits = {
    max_frames: maxFrames,
    max_seconds:
      num(caps.max_seconds) ??
      num(t.max_seconds) ??
      (maxFrames !== null && fps !== null && fps > 0 ? maxFrames / fps : null),
    size_multiple: num(t.size_multiple),
    max_long_side: num(maxSize.long_side),
    max_pixels: num(maxSize.pixels),
    min_pixels: num(t.min_pixels),
    max_refs: num(caps.max_refs),
    max_subjects: spec.recipe.subject_slots ? spec.recipe.subject_slots.length : null,
    trained_frames: num(t.trained_frames) ?? num(spec.recipe.trained_frames),
  };
  return { ...own, ...overrides };
}
