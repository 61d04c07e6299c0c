// Whether a shot fits its target's limits (the target's own, with settings `target_limits` over them), and the
// checked body of PUT /studio/targets/limits: what a render refuses before a take is reserved.
import { effectiveSettings } from "../config/settings-store.ts";
import type { Services } from "../context.ts";
import { badRequest, shown } from "../errors.ts";
import { type TargetLimits, targetLimits } from "./limits.ts";
import type { TargetSpec } from "./registry.ts";

/** The limits a person may set, each a positive number (null removes the override). */
export const LIMIT_FIELDS = [
  "max_frames",
  "max_seconds",
  "max_long_side",
  "max_pixels",
  "min_pixels",
  "max_refs",
  "max_subjects",
  "size_multiple",
  "trained_frames",
] as const;

export interface ShotShape {
  frames: number;
  fps: number;
  width: number;
  height: number;
}

/** Why the shot is beyond the limits (a sentence after the shot id), or null when it fits. */
export function overLimits(limits: TargetLimits, s: ShotShape, targetName: string): string | null {
  const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : null);
  const maxFrames = n(limits.max_frames);
  if (maxFrames !== null && s.frames > maxFrames)
    return `is ${s.frames} frames; ${targetName} renders at most ${maxFrames} (limits)`;
  const maxSeconds = n(limits.max_seconds);
  const seconds = s.fps > 0 ? s.frames / s.fps : 0;
  if (maxSeconds !== null && seconds > maxSeconds + 1e-6)
    return `is ${seconds.toFixed(2)} s; ${targetName} renders at most ${maxSeconds} s (limits)`;
  const longSide = n(limits.max_long_side);
  if (longSide !== null && Math.max(s.width, s.height) > longSide)
    return `is ${s.width}x${s.height}; ${targetName} renders a long side of at most ${longSide} (limits)`;
  const maxPixels = n(limits.max_pixels);
  if (maxPixels !== null && s.width * s.height > maxPixels)
    return `is ${s.width}x${s.height}; ${targetName} renders at most ${maxPixels} pixels (limits)`;
  const minPixels = n(limits.min_pixels);
  if (minPixels !== null && s.width * s.height < minPixels)
    return `is ${s.width}x${s.height}; ${targetName} renders at least ${minPixels} pixels (limits)`;
  return null;
}

/** The body's `limits` checked: known fields, positive numbers or null; 400 naming the first bad one. */
export function checkLimitsBody(limits: unknown): Record<string, number | null> {
  if (typeof limits !== "object" || limits === null || Array.isArray(limits))
    throw badRequest(`limits must be an object of ${LIMIT_FIELDS.join(", ")}; got ${shown(limits)}`);
  const out: Record<string, number | null> = {};
  for (const [k, v] of Object.entries(limits)) {
    if (!(LIMIT_FIELDS as readonly string[]).includes(k))
      throw badRequest(`limits.${k} is not a limit; the limits are ${LIMIT_FIELDS.join(", ")}`);
    if (v !== null && !(typeof v === "number" && Number.isFinite(v) && v > 0 && v <= 1e9))
      throw badRequest(
        `limits.${k} must be a positive number, or null to use the target's own; got ${shown(v)}`,
      );
    out[k] = v;
  }
  return out;
}

/** A planned shot held to its target's limits with the settings' overrides: why it is beyond them, or null. */
export async function shotOverLimits(
  services: Pick<Services, "home" | "caches"> & { env?: Services["env"] },
  spec: TargetSpec,
  shape: ShotShape,
): Promise<string | null> {
  const s = await effectiveSettings({
    home: services.home,
    env: services.env ?? {},
    caches: services.caches,
  });
  const set = s.target_limits[spec.id] ?? {};
  // A ComfyUI target's own caps are its grid's business (snapped or refused by the plan); the limits set in the
  // settings, and every limit of a hosted model (the provider refuses what is beyond them), are checked here.
  const limits = spec.backend === "router" ? targetLimits(spec, set) : (set as TargetLimits);
  return overLimits(limits, shape, spec.short);
}
