// Shot length: seconds from the timing, frames on the target's grid, latent holds (script format 4.6, 4.12).
import { speechSeconds } from "../script/pacing.ts";
import { roundHalfEven, roundHalfEvenTo } from "../script/rounding.ts";
import { continues } from "../script/story.ts";
import { num } from "../store/json-guards.ts";
import { DEFAULT_GRID, type FrameGrid, FramesOverMax, snapChecked, snapFrames } from "../targets/grid.ts";
import type { TargetSpec } from "../targets/registry.ts";
import { type BuildCtx, shotPace } from "./context.ts";
import { passPreset } from "./settings.ts";
import { type ShotCtx, shotError } from "./types.ts";

/** The target's own default hold when nothing names one (H3's continuous.latent.overlap). */
export const DEFAULT_HOLD = 39;
/** Holds shorter than this did not carry motion across the cut in the prototype (open point 9). */
const SHORT_HOLD = 22;

export interface ShotLength {
  /** Frames asked for (seconds × fps, rounded half to even, at least 1). */
  requested: number;
  /** Frames rendered and kept (on the grid; minus the hold for a latent continuation). */
  length: number;
  hold: number | undefined;
  seconds: number;
  /** Entry fields for the timing: `audio_in`/`audio_out` or `duration`, `length_estimated`, `duration_predict`. */
  fields: Record<string, unknown>;
  /** `dur: <n>` as written (the only timing the padding warning looks at). */
  explicit: boolean;
  window: boolean;
  warnings: string[];
}

export function gridOf(spec: TargetSpec): FrameGrid {
  return spec.template.frames ?? DEFAULT_GRID;
}

const secs = (frames: number, fps: number) => (frames / fps).toFixed(2);

/** The `dur: model` estimate, clamped; `predict` targets also get the range the predictor may use. */
function estimate(
  ctx: BuildCtx,
  sc: ShotCtx,
  spec: TargetSpec,
  fps: number,
  clamp: { min?: number; max?: number },
): { seconds: number; predict?: { min_seconds: number; max_seconds: number }; warning?: string } {
  const preset = passPreset(spec, ctx.pass);
  const finalPreset = spec.presets.final ?? preset;
  const spoken = sc.shot.dialogue.length ? speechSeconds(sc.shot.dialogue, shotPace(ctx, sc.shot)) : 0;
  let est = spoken > 0 ? spoken : (num(preset.default_seconds) ?? num(finalPreset.default_seconds) ?? 5.0);
  if (spec.capabilities.duration === "predict") {
    let lo = clamp.min ?? num(preset.min_seconds) ?? num(finalPreset.min_seconds) ?? 1;
    let hi = clamp.max ?? num(preset.max_seconds) ?? num(finalPreset.max_seconds) ?? 20;
    hi = Math.min(hi, roundHalfEvenTo(gridOf(spec).max / fps, 2));
    lo = Math.max(lo, 0.5);
    est = Math.min(Math.max(est, lo), hi);
    return { seconds: est, predict: { min_seconds: lo, max_seconds: hi } };
  }
  if (clamp.min !== undefined) est = Math.max(est, clamp.min);
  if (clamp.max !== undefined) est = Math.min(est, clamp.max);
  return {
    seconds: est,
    warning: `${sc.shot.id}: ${spec.short} cannot predict a length (dur: model): it renders the estimate, ${roundHalfEvenTo(est, 3)} s`,
  };
}

/** The latent hold of a `continuous: latent` shot on a target that declares one; undefined otherwise. */
export function holdFor(
  ctx: BuildCtx,
  sc: ShotCtx,
  spec: TargetSpec,
): { hold: number; warnings: string[] } | undefined {
  const latent = spec.continuous?.latent;
  if (!latent || continues(sc.shot, sc.sequence, sc.index) !== "latent") return undefined;
  const named = sc.shot.overlap ?? sc.sequence.overlap ?? ctx.overlap;
  const overlap = named ?? (typeof latent.overlap === "number" ? latent.overlap : DEFAULT_HOLD);
  const hold = snapFrames(overlap, gridOf(spec));
  const warnings: string[] = [];
  if (named !== undefined && hold !== overlap) {
    warnings.push(`${sc.shot.id}: overlap ${overlap} holds ${hold} frames (the ${spec.short} grid)`);
  }
  if (hold < SHORT_HOLD) {
    warnings.push(
      `${sc.shot.id}: a hold of ${hold} frames is short: ${SHORT_HOLD} or more carries the motion across the cut`,
    );
  }
  return { hold, warnings };
}

export function shotLength(ctx: BuildCtx, sc: ShotCtx, spec: TargetSpec, fps: number): ShotLength {
  const { shot } = sc;
  const id = shot.id;
  const timing = shot.timing;
  const fields: Record<string, unknown> = {};
  const warnings: string[] = [];
  let seconds: number;
  let explicit = false;
  let window = false;
  let key = "dur";
  if (timing && "audio_in" in timing) {
    window = true;
    key = "audio";
    seconds = timing.audio_out - timing.audio_in;
    // Only a target that cuts the recording into its own slots insists on the track at build time.
    if (spec.recipe.subject_slots && ctx.audio.track === "") {
      throw shotError(
        id,
        `the audio: window ${timing.audio_in}-${timing.audio_out} needs series.json audio.track (the recording it cuts from)`,
        "audio",
      );
    }
    fields.audio_in = timing.audio_in;
    fields.audio_out = timing.audio_out;
  } else if (timing && "model" in timing) {
    const est = estimate(ctx, sc, spec, fps, { min: timing.min, max: timing.max });
    seconds = est.seconds;
    fields.duration = roundHalfEvenTo(seconds, 3);
    fields.length_estimated = true;
    if (est.predict) fields.duration_predict = est.predict;
    if (est.warning) warnings.push(est.warning);
  } else if (timing && "auto" in timing) {
    seconds = speechSeconds(shot.dialogue, shotPace(ctx, shot));
    if (shot.dialogue.length === 0 || seconds <= 0) {
      throw shotError(
        id,
        "`dur: auto` times the dialogue, but the shot has none: write `dur: <seconds>`",
        "dur",
      );
    }
    fields.duration = roundHalfEvenTo(seconds, 3);
  } else if (timing && "seconds" in timing) {
    seconds = timing.seconds;
    explicit = true;
    fields.duration = timing.seconds;
  } else {
    throw shotError(id, "needs an `audio:` window, a `dur: <seconds>` or `dur: auto` line", "dur");
  }

  const grid = gridOf(spec);
  const requested = Math.max(1, roundHalfEven(seconds * fps));
  const held = holdFor(ctx, sc, spec);
  let length: number;
  try {
    length = held ? snapChecked(requested + held.hold, grid) - held.hold : snapChecked(requested, grid);
  } catch (err) {
    if (!(err instanceof FramesOverMax)) throw err;
    throw shotError(
      id,
      `${roundHalfEvenTo(seconds, 3)} s is ${requested} frames, over ${spec.short}'s maximum of ${grid.max} frames ` +
        `(${secs(grid.max, fps)} s at ${fps} fps): split the shot or use another target`,
      key,
    );
  }
  if (held) warnings.push(...held.warnings);
  return { requested, length, hold: held?.hold, seconds, fields, explicit, window, warnings };
}

/** The padding warning of H3 Ref2VA: only for `dur: <n>`, when over 15 % of the render is grid pad. */
export function paddingWarning(id: string, len: ShotLength, fps: number, short: string): string | null {
  if (!len.explicit) return null;
  const pad = len.length - len.requested;
  if (pad / len.length <= 0.15) return null;
  return (
    `${id}: dur: ${len.seconds} asks for ${len.requested} frames but ${short} renders ${len.length} ` +
    `(${pad} wasted): write dur: ${secs(len.length, fps)}`
  );
}
