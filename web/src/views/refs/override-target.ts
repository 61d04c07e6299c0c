// What a reference's override form offers on the target the reference is made on: a negative prompt only where
// the target takes one, and the sampling params (sampler, scheduler, denoise, shift, guidance) its workflow binds;
// the params' text and the one `params` object PUT /studio/refs/override replaces whole. No DOM here.
import type { TargetInfo } from "../../types.ts";

export const PARAM_NAMES = ["sampler", "scheduler", "denoise", "shift", "guidance"] as const;
export type ParamName = (typeof PARAM_NAMES)[number];
export type ParamsText = Record<ParamName, string>;

/** The params that are numbers, with the range the service accepts. */
export const PARAM_RANGES: Partial<Record<ParamName, readonly [number, number]>> = {
  denoise: [0, 1],
  shift: [0, 100],
  guidance: [0, 100],
};

export type TargetFacts = Pick<TargetInfo, "id" | "widgets" | "capabilities">;

export interface TargetOffers {
  negative: boolean;
  params: ParamName[];
}

/**
 * What the target takes, as the service judges it: a negative prompt when its capabilities say so (else when its
 * workflow binds `negative`), and each param its workflow binds. Null for a target the page does not know.
 */
export function targetOffers(target: TargetFacts | undefined): TargetOffers | null {
  if (!target) return null;
  const bound = target.widgets ?? {};
  const declared = target.capabilities?.negative_prompt;
  return {
    negative: typeof declared === "boolean" ? declared : "negative" in bound,
    params: PARAM_NAMES.filter((p) => p in bound),
  };
}

/**
 * The target the form's values would be made on: the one typed in the form, else (when the form does not clear a
 * target override) the effective one. Null when clearing falls back to a default the form cannot see.
 */
export function formTarget(typed: string, before: string, effective: unknown): string | null {
  if (typed.trim()) return typed.trim();
  if (before.trim()) return null;
  return typeof effective === "string" && effective ? effective : null;
}

/** A params override as the form's text (blank for a param not set). */
export function paramsText(values: unknown): ParamsText {
  const v = values && typeof values === "object" ? (values as Record<string, unknown>) : {};
  const text = {} as ParamsText;
  for (const p of PARAM_NAMES) text[p] = v[p] === null || v[p] === undefined ? "" : String(v[p]);
  return text;
}

/**
 * The params the form shows: those the target binds, and any set now (so it can be cleared even on a target
 * without it). For a target the page does not know, only those set now.
 */
export function shownParams(offers: TargetOffers | null, now: ParamsText): ParamName[] {
  return PARAM_NAMES.filter((p) => offers?.params.includes(p) || now[p] !== "");
}

/**
 * PUT /studio/refs/override's `params` when any param changed: the whole object (the service replaces it), numbers
 * for denoise, shift and guidance (text that is not a number goes as typed, so the refusal names it), null when
 * every param is blank. Empty when nothing changed.
 */
export function paramsChange(
  before: ParamsText,
  after: ParamsText,
): { params?: Record<string, unknown> | null } {
  if (PARAM_NAMES.every((p) => before[p].trim() === after[p].trim())) return {};
  const params: Record<string, unknown> = {};
  for (const p of PARAM_NAMES) {
    const v = after[p].trim();
    if (!v) continue;
    params[p] = PARAM_RANGES[p] && Number.isFinite(Number(v)) ? Number(v) : v;
  }
  return { params: Object.keys(params).length ? params : null };
}

/** The negative prompt field shows on a target that takes one, on one the page does not know, or when it is set. */
export function offersNegative(offers: TargetOffers | null, setNow: string): boolean {
  return !offers || offers.negative || setNow !== "";
}
