// Post-process settings: the enhance step (a tier, a method or an object of fields), the motion blur amount, the
// series `post.master` recipe with a shot's own `overrides.json` `post` entry merged over it, the normalised recipe
// a post record keeps and its hash, and the recipe in words. Pure: no files, no engines.
import { isNumber, isObject } from "../store/json-guards.ts";
import { parseEncoder, parseQuality } from "../upscale/settings.ts";

export const ENHANCE_METHODS = ["pixel", "seedvr2", "supir"] as const;
export type EnhanceMethod = (typeof ENHANCE_METHODS)[number];
export const TIER_IDS = ["draft", "production", "cinematic"] as const;
export type TierId = (typeof TIER_IDS)[number];

/** The enhance step as a post runs it: the method and its fields (tier expanded, defaults filled). */
export interface Enhance {
  method: EnhanceMethod;
  pixel_model?: string;
  seedvr2_model?: string;
  /** SeedVR2 frames per chunk: 0 (auto), "fit" (sized from the picture) or 4n+1 ≥ 5. */
  chunk?: number | "fit";
  overlap?: number;
  strength?: number;
  supir_model?: string;
  checkpoint?: string;
  steps?: number;
  cfg?: number;
  prompt?: string;
  batch?: number;
  restore_cfg?: number;
  frequency_split?: boolean;
  keep_soft?: number;
  grain?: number;
}

/** What each tier stands for. */
export const TIERS: Record<TierId, Enhance> = {
  draft: { method: "pixel" },
  production: { method: "seedvr2", seedvr2_model: "7b", chunk: "fit", overlap: 6 },
  cinematic: { method: "supir", strength: 0.2 },
};

const TIER_WORDS: Record<TierId, string> = {
  draft: "a pixel model at 1×",
  production: "SeedVR2 7B restoration",
  cinematic: "SUPIR at strength 0.2",
};

/** The fields an enhance object may carry besides `tier` and `method`. */
const ENHANCE_FIELDS = [
  "pixel_model",
  "seedvr2_model",
  "chunk",
  "overlap",
  "strength",
  "supir_model",
  "checkpoint",
  "steps",
  "cfg",
  "prompt",
  "batch",
  "restore_cfg",
  "frequency_split",
  "keep_soft",
  "grain",
] as const;

export const SUPIR_DEFAULTS = {
  supir_model: "SUPIR-v0F_fp16.safetensors",
  checkpoint: "sd_xl_base_1.0_0.9vae.safetensors",
  steps: 10,
  cfg: 4,
  batch: 2,
  restore_cfg: 4,
  strength: 0.2,
} as const;
export const SEEDVR2_DEFAULTS = { seedvr2_model: "7b", chunk: 0, overlap: 2 } as const;
/** The pixel model a post runs when none is named (the upscale options' default). */
export const PIXEL_DEFAULTS = { pixel_model: "RealESRGAN_x2.pth" } as const;

export const BLUR = { min: 0, max: 1, default: 0.3 } as const;
export const STRENGTH = { min: 0.05, max: 0.5, default: 0.2 } as const;

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

const show = (v: unknown) => JSON.stringify(v) ?? String(v);
const isWholeIn = (v: unknown, lo: number, hi: number): v is number =>
  isNumber(v) && Number.isInteger(v) && v >= lo && v <= hi;
const isIn = (v: unknown, lo: number, hi: number): v is number => isNumber(v) && v >= lo && v <= hi;

/** The problem with one enhance field's value, or null when it is fine. */
function fieldProblem(key: (typeof ENHANCE_FIELDS)[number], v: unknown): string | null {
  switch (key) {
    case "chunk":
      return v === 0 || v === "fit" || (isWholeIn(v, 5, 100_000) && (v - 1) % 4 === 0)
        ? null
        : `enhance chunk must be 0 (auto), "fit" or 4n+1 frames (5 or more), not ${show(v)}`;
    case "overlap":
      return isWholeIn(v, 0, 16)
        ? null
        : `enhance overlap must be a whole number from 0 to 16, not ${show(v)}`;
    case "strength":
      return isIn(v, STRENGTH.min, STRENGTH.max)
        ? null
        : `enhance strength must be from 0.05 to 0.5, not ${show(v)}`;
    case "steps":
    case "batch":
      return isWholeIn(v, 1, 1000)
        ? null
        : `enhance ${key} must be a whole number of 1 or more, not ${show(v)}`;
    case "cfg":
    case "restore_cfg":
      return isIn(v, 0, 100) ? null : `enhance ${key} must be a number from 0 to 100, not ${show(v)}`;
    case "keep_soft":
      return isIn(v, 0, 1) ? null : `enhance keep_soft must be from 0 to 1, not ${show(v)}`;
    case "grain":
      return isIn(v, 0, 0.2) ? null : `enhance grain must be from 0 to 0.2, not ${show(v)}`;
    case "frequency_split":
      return typeof v === "boolean" ? null : `enhance frequency_split must be true or false, not ${show(v)}`;
    default:
      return typeof v === "string" && v.trim() !== ""
        ? null
        : `enhance ${key} must be ${key === "prompt" ? "text" : "a file name"}, not ${show(v)}`;
  }
}

/** The method's defaults under the fields given (SUPIR's model and sampling, SeedVR2's model, chunk and overlap). */
function withDefaults(e: Enhance): Enhance {
  if (e.method === "supir") return { ...e, ...pickMissing(e, SUPIR_DEFAULTS) };
  if (e.method === "seedvr2") return { ...e, ...pickMissing(e, SEEDVR2_DEFAULTS) };
  return { ...e, ...pickMissing(e, PIXEL_DEFAULTS) };
}

function pickMissing(e: Enhance, defaults: Record<string, unknown>): Partial<Enhance> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(defaults)) if (Reflect.get(e, k) === undefined) out[k] = v;
  return out as Partial<Enhance>;
}

/**
 * An `enhance` value as a request or a recipe gives it: a tier name, a method name, an object with `tier` or
 * `method` plus fields, or "none"/"off"/null/{} for no enhance step. Answers the step with the tier expanded and
 * the method's defaults filled, or null for none.
 */
export function parseEnhance(v: unknown): Parsed<Enhance | null> {
  if (v === undefined || v === null) return { ok: true, value: null };
  if (typeof v === "string") {
    const t = v.trim().toLowerCase();
    if (t === "none" || t === "off" || t === "") return { ok: true, value: null };
    if ((TIER_IDS as readonly string[]).includes(t))
      return { ok: true, value: withDefaults({ ...TIERS[t as TierId] }) };
    if ((ENHANCE_METHODS as readonly string[]).includes(t))
      return { ok: true, value: withDefaults({ method: t as EnhanceMethod }) };
    return {
      ok: false,
      error: `enhance ${show(v)} is not a tier (draft, production, cinematic), a method (pixel, seedvr2, supir) or none`,
    };
  }
  if (!isObject(v))
    return { ok: false, error: `enhance must be a tier, a method, an object or none, not ${show(v)}` };
  const keys = Object.keys(v);
  if (keys.length === 0) return { ok: true, value: null };
  const unknown = keys.filter(
    (k) => k !== "tier" && k !== "method" && !(ENHANCE_FIELDS as readonly string[]).includes(k),
  );
  if (unknown.length > 0) {
    return {
      ok: false,
      error: `enhance has unknown field(s) ${unknown.join(", ")}: one of tier, method, ${ENHANCE_FIELDS.join(", ")}`,
    };
  }
  let base: Enhance | null = null;
  if (v.tier !== undefined) {
    if (typeof v.tier !== "string" || !(TIER_IDS as readonly string[]).includes(v.tier))
      return { ok: false, error: `enhance tier must be draft, production or cinematic, not ${show(v.tier)}` };
    base = { ...TIERS[v.tier as TierId] };
  }
  if (v.method !== undefined) {
    if (typeof v.method !== "string" || !(ENHANCE_METHODS as readonly string[]).includes(v.method))
      return { ok: false, error: `enhance method must be pixel, seedvr2 or supir, not ${show(v.method)}` };
    // A method other than the tier's starts from that method alone: the tier's fields belong to its own method.
    if (!base || base.method !== v.method) base = { method: v.method as EnhanceMethod };
  }
  if (!base) return { ok: false, error: "enhance needs a tier or a method" };
  const out: Record<string, unknown> = { ...base };
  for (const k of ENHANCE_FIELDS) {
    const value = v[k];
    if (value === undefined || value === null) continue;
    const problem = fieldProblem(k, value);
    if (problem) return { ok: false, error: problem };
    out[k] = typeof value === "string" ? value.trim() : value;
  }
  return { ok: true, value: withDefaults(out as unknown as Enhance) };
}

/** A motion blur amount: a number from 0 to 1 of the frame interval (0.5 = a 180° shutter); null or absent = 0. */
export function parseBlur(v: unknown): Parsed<number> {
  if (v === undefined || v === null) return { ok: true, value: 0 };
  if (!isIn(v, BLUR.min, BLUR.max))
    return {
      ok: false,
      error: `motion blur must be a number from 0 to 1 (a fraction of the frame interval), not ${show(v)}`,
    };
  return { ok: true, value: v };
}

/** What one post does: the enhance step, the blur, and the asked quality/encoder (null: the upscale's own). */
export interface PostSettings {
  enhance: Enhance | null;
  motion_blur: number;
  quality: "review" | "master" | null;
  encoder: string | null;
}

/** The series `post.master` object, or null when the config has none. */
export function seriesPostRecipe(seriesRaw: Record<string, unknown> | null): Record<string, unknown> | null {
  const post = seriesRaw?.post;
  const master = isObject(post) ? post.master : undefined;
  return isObject(master) ? master : null;
}

/** The shot's own `post` entry of overrides.json merged over the series recipe (its keys win). */
export function mergedRecipe(
  master: Record<string, unknown>,
  shotEntry: Record<string, unknown> | null | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(master)) if (!k.startsWith("_")) out[k] = v;
  for (const [k, v] of Object.entries(shotEntry ?? {})) if (!k.startsWith("_")) out[k] = v;
  return out;
}

/** A recipe object (series, merged) read as settings; its problems as one sentence. */
export function recipeSettings(recipe: Record<string, unknown>): Parsed<PostSettings> {
  const enhance = parseEnhance(recipe.enhance);
  if (!enhance.ok) return enhance;
  const blur = parseBlur(recipe.motion_blur ?? recipe.blur);
  if (!blur.ok) return blur;
  const quality = parseQuality(recipe.quality);
  if (!quality.ok) return quality;
  const encoder = parseEncoder(recipe.encoder);
  if (!encoder.ok) return encoder;
  return {
    ok: true,
    value: {
      enhance: enhance.value,
      motion_blur: blur.value,
      quality: quality.value,
      encoder: encoder.value,
    },
  };
}

/** Whether the settings do anything at all. */
export const doesSomething = (s: PostSettings) => s.enhance !== null || s.motion_blur > 0;

/** The normalised recipe a post record keeps: size, the enhance fields (no tier), the blur when > 0, quality when not review. */
export function postRecipe(
  s: PostSettings,
  size: [number, number],
  quality: "review" | "master",
): Record<string, unknown> {
  const out: Record<string, unknown> = { size };
  if (s.enhance) out.enhance = { ...s.enhance };
  if (s.motion_blur > 0) out.motion_blur = s.motion_blur;
  if (quality !== "review") out.quality = quality;
  return out;
}

function sortedJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sortedJson).join(",")}]`;
  if (isObject(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${sortedJson(v[k])}`)
      .join(",")}}`;
  return JSON.stringify(v) ?? "null";
}

function enhanceWords(e: Enhance): string {
  const tier = TIER_IDS.find((t) => sortedJson(withDefaults({ ...TIERS[t] })) === sortedJson(e));
  if (tier) return `${tier} (${TIER_WORDS[tier]})`;
  if (e.method === "pixel") return `pixel model ${e.pixel_model ?? PIXEL_DEFAULTS.pixel_model} at 1×`;
  if (e.method === "seedvr2") {
    const chunk =
      e.chunk === "fit" ? "chunks fit to the size" : e.chunk ? `${e.chunk}-frame chunks` : "auto chunks";
    return `SeedVR2 ${e.seedvr2_model ?? "7b"} (${chunk}, overlap ${e.overlap ?? 2})`;
  }
  return `SUPIR at strength ${e.strength ?? STRENGTH.default}`;
}

/** The settings in words: "enhance production (SeedVR2 7B restoration), motion blur 0.5 (180° shutter)". */
export function recipeText(s: PostSettings): string {
  const parts: string[] = [];
  if (s.enhance) parts.push(`enhance ${enhanceWords(s.enhance)}`);
  if (s.motion_blur > 0)
    parts.push(`motion blur ${s.motion_blur} (${Math.round(s.motion_blur * 360)}° shutter)`);
  if (parts.length === 0) parts.push("nothing (no enhance, no motion blur)");
  if (s.quality === "master") parts.push("master quality");
  return parts.join(", ");
}

/** SeedVR2 frames per chunk for "fit": 61 at 1920×1088 scaled by pixel count, rounded down to 4n+1, at least 5. */
export function fitChunk(width: number, height: number): number {
  return Math.max(5, Math.floor((Math.floor((61 * 1920 * 1088) / (width * height)) - 1) / 4) * 4 + 1);
}
