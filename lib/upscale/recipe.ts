// Upscale recipes: the series master recipe (`upscale.master`), its section for a target (exact id, else the longest
// glob), a shot's own recipe from overrides.json merged over it (finish < section < shot), delivery sizes and
// their crop/pad fit, the settings a version is made with normalised and hashed (`recipe_hash`), and a recipe
// in words. Pure: callers hand in the parsed series config and overrides.
import { checkSection } from "../compile/master-check.ts";
import { isNumber, isObject, type JsonObject } from "../store/json-guards.ts";
import { type Encoder, parseQuality, type Quality, SECTION_KEYS } from "./settings.ts";

export type Fit = "crop" | "pad";

export const DELIVERS = [
  { id: "1080p", width: 1920, height: 1080 },
  { id: "1440p", width: 2560, height: 1440 },
  { id: "4k", width: 3840, height: 2160 },
] as const;
export const FITS: readonly Fit[] = ["crop", "pad"];
export const PRECISIONS = ["fp16", "fp32"] as const;
export const MAX_SCALE = 4;

/** A shot's own recipe may also say its quality (the contract's list for PUT /studio/upscale/recipe). */
export const SHOT_KEYS: readonly string[] = [...SECTION_KEYS, "quality"];

export type RecipeFields = JsonObject;

// The `then` key written through a name: a plain `.then` property reads to linters as a thenable.
const THEN = "then";

export interface Size {
  width: number;
  height: number;
}

// ------------------------------------------------------------------------------------------- delivery

/** `1080p`, `1440p`, `4k` or `WxH` (both even, 64 to 8192) as a size; a sentence saying what is wrong otherwise. */
export function parseDeliver(v: unknown): Size | string {
  if (typeof v !== "string") return "deliver must be 1080p, 1440p, 4k or WxH";
  const named = DELIVERS.find((d) => d.id === v.trim().toLowerCase());
  if (named) return { width: named.width, height: named.height };
  const m = /^(\d+)x(\d+)$/i.exec(v.trim());
  if (!m) return `deliver "${v}" is not 1080p, 1440p, 4k or WxH`;
  const width = Number(m[1]);
  const height = Number(m[2]);
  if (![width, height].every((n) => n % 2 === 0 && n >= 64 && n <= 8192)) {
    return `deliver ${v}: both sides must be even, from 64 to 8192`;
  }
  return { width, height };
}

const evenCeil = (x: number) => Math.ceil(x / 2 - 1e-9) * 2;
const evenFloor = (x: number) => Math.floor(x / 2 + 1e-9) * 2;

/**
 * The size a `w`×`h` picture is scaled to before it is cropped or padded to `to`: `crop` covers (the larger
 * ratio, even sides rounded up), `pad` fits inside (the smaller ratio, rounded down). 1344×768 → 4K: crop
 * 3840×2196, pad 3780×2160.
 */
export function fitSize(w: number, h: number, to: Size, fit: Fit): Size {
  const s = fit === "crop" ? Math.max(to.width / w, to.height / h) : Math.min(to.width / w, to.height / h);
  const round = fit === "crop" ? evenCeil : evenFloor;
  return { width: Math.max(2, round(w * s)), height: Math.max(2, round(h * s)) };
}

/** The size `w`×`h` at `scale`, which must land on the `align` grid (else a sentence saying so). */
export function scaledSize(w: number, h: number, scale: number, align: number): Size | string {
  const sw = w * scale;
  const sh = h * scale;
  const on = (x: number) => Math.abs(x - Math.round(x)) < 1e-6 && Math.round(x) % align === 0;
  if (!on(sw) || !on(sh)) {
    return `${w}x${h} at ${scale}x is ${fmt(sw)}x${fmt(sh)}, not a multiple of ${align}`;
  }
  return { width: Math.round(sw), height: Math.round(sh) };
}

/**
 * `scale: "auto"`: the smallest k/8 (k from 9 to 32) whose size lands on the grid and covers the fitted delivery
 * size (960×544 → 1080p: 2; 1344×768 → 1080p: 1.5); 2 without a delivery size or when none does.
 */
export function autoScale(w: number, h: number, deliver: Size | null, fit: Fit, align: number): number {
  if (!deliver) return 2;
  const need = fitSize(w, h, deliver, fit);
  for (let k = 9; k <= 32; k++) {
    const s = k / 8;
    const size = scaledSize(w, h, s, align);
    if (typeof size !== "string" && size.width >= need.width && size.height >= need.height) return s;
  }
  return 2;
}

/** Python's round(): halves to even, so start steps match the original's. */
export function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  if (Math.abs(d - 0.5) < 1e-9) return f % 2 === 0 ? f : f + 1;
  return Math.round(x);
}

/** The default start step of a re-sample: round(steps × start) kept inside the schedule, `detail` steps earlier. */
export function startStep(steps: number, start: number, detail = 0): number {
  const base = Math.min(steps - 1, Math.max(0, roundHalfEven(steps * start)));
  return Math.max(0, base - detail);
}

// ------------------------------------------------------------------------------------------- the master recipe

export interface MasterRecipe {
  /** The delivery size, or null when missing or unparsable (`deliverProblem` says which). */
  deliver: Size | null;
  deliverText: string | null;
  deliverProblem: string | null;
  fit: Fit;
  quality: Quality;
  encoder: Encoder;
  finish: RecipeFields;
  targets: Record<string, RecipeFields>;
  /** The build warnings of the recipe, as sentences. */
  problems: string[];
}

/** `upscale.master` of a parsed series config, or null when there is none. */
export function masterRecipe(seriesRaw: Record<string, unknown> | null | undefined): MasterRecipe | null {
  const up = seriesRaw?.upscale;
  const master = isObject(up) ? up.master : undefined;
  if (!isObject(master)) return null;
  const deliverText = typeof master.deliver === "string" ? master.deliver : null;
  let deliver: Size | null = null;
  let deliverProblem: string | null = null;
  if (master.deliver === undefined || master.deliver === null)
    deliverProblem = "upscale.master has no deliver";
  else {
    const d = parseDeliver(master.deliver);
    if (typeof d === "string") deliverProblem = `upscale.master.${d}`;
    else deliver = d;
  }
  const targets: Record<string, RecipeFields> = {};
  if (isObject(master.targets)) {
    for (const [k, v] of Object.entries(master.targets))
      if (!k.startsWith("_") && isObject(v)) targets[k] = v;
  }
  const problems: string[] = [];
  const where = "series.json upscale.master";
  if (isObject(master.finish)) checkSection(`${where}.finish`, master.finish, problems);
  for (const [k, v] of Object.entries(targets)) checkSection(`${where}.targets.${k}`, v, problems);
  if (Object.keys(targets).length === 0) problems.push(`${where}.targets is required`);
  if (deliverProblem && master.deliver !== undefined) problems.push(`series.json ${deliverProblem}`);
  return {
    deliver,
    deliverText,
    deliverProblem,
    fit: master.fit === "pad" ? "pad" : "crop",
    quality: master.quality === "master" ? "master" : "review",
    encoder: master.encoder === "nvenc" || master.encoder === "x264" ? master.encoder : "auto",
    finish: isObject(master.finish) ? master.finish : {},
    targets,
    problems,
  };
}

const nonStar = (glob: string) => glob.replaceAll("*", "").length;

function globMatches(glob: string, id: string): boolean {
  const parts = glob.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${parts.join(".*")}$`).test(id);
}

/** The section key for a target: its exact id, else the glob with the most non-`*` characters (ties: longer). */
export function sectionKey(targets: Record<string, unknown>, target: string): string | null {
  if (Object.hasOwn(targets, target)) return target;
  let best: string | null = null;
  for (const key of Object.keys(targets)) {
    if (!key.includes("*") || !globMatches(key, target)) continue;
    if (
      best === null ||
      nonStar(key) > nonStar(best) ||
      (nonStar(key) === nonStar(best) && key.length > best.length)
    ) {
      best = key;
    }
  }
  return best;
}

/** Only the keys a recipe section takes, in section order (comments and unknown keys left out). */
export function sectionFields(v: unknown, keys: readonly string[] = SECTION_KEYS): RecipeFields {
  const out: RecipeFields = {};
  if (!isObject(v)) return out;
  for (const k of keys) if (v[k] !== undefined && v[k] !== null) out[k] = v[k];
  return out;
}

/** A shot's own recipe from overrides.json's top-level `upscale`, or null. */
export function shotOwnRecipe(
  overrides: { upscale?: unknown } | null | undefined,
  shot: string,
): RecipeFields | null {
  const map = overrides?.upscale;
  const own = isObject(map) ? map[shot] : undefined;
  if (!isObject(own)) return null;
  const fields = sectionFields(own, SHOT_KEYS);
  return Object.keys(fields).length ? fields : null;
}

/** The recipe one take gets: `finish` < its target's section < the shot's own recipe; null when no section. */
export interface TakeRecipe {
  key: string;
  fields: RecipeFields;
}

export function takeRecipe(
  master: MasterRecipe,
  target: string,
  own: RecipeFields | null,
): TakeRecipe | null {
  const key = sectionKey(master.targets, target);
  if (key === null) return null;
  return {
    key,
    fields: { ...sectionFields(master.finish), ...sectionFields(master.targets[key]), ...(own ?? {}) },
  };
}

// ------------------------------------------------------------------------------------------- a shot's recipe

/**
 * The body of PUT /studio/upscale/recipe reduced to a recipe: the contract's fields (`then_method: "seedvr2"`
 * and `then_pixel_model` read as `then`), checked. Answers the fields (empty = clear) or the problems.
 */
export function reduceShotRecipe(input: JsonObject): { fields: RecipeFields } | { problems: string[] } {
  const problems: string[] = [];
  const fields: RecipeFields = {};
  const aliases = new Set(["then_method", "then_pixel_model"]);
  const unknown = Object.keys(input).filter((k) => !SHOT_KEYS.includes(k) && !aliases.has(k));
  if (unknown.length) {
    problems.push(`unknown recipe field(s) ${unknown.join(", ")}: one of ${[...SHOT_KEYS].join(", ")}`);
  }
  for (const k of SHOT_KEYS) if (input[k] !== undefined && input[k] !== null) fields[k] = input[k];
  if (input.vae === false) delete fields.vae;
  if (input.then_method === "seedvr2") fields[THEN] = "seedvr2";
  else if (input.then_method !== undefined && input.then_method !== null && input.then_method !== "pixel") {
    problems.push("then_method must be pixel or seedvr2");
  } else if (typeof input.then_pixel_model === "string" && input.then === undefined) {
    fields[THEN] = input.then_pixel_model;
  }
  const checks: string[] = [];
  const { quality, ...section } = fields;
  checkSection("recipe", section, checks);
  const q = parseQuality(quality);
  if (!q.ok) checks.push(`recipe.${q.error}`);
  problems.push(...checks);
  return problems.length ? { problems } : { fields };
}

export { normaliseRecipe, recipeHash } from "./recipe-hash.ts";

export type RecipeMatch = "same" | "different" | "unknown" | null;

/**
 * How a finished version compares with what the recipe would make now: null without a recipe (or when the version
 * is not ok), `unknown` when it predates recorded settings, else `same` or `different`.
 */
export function recipeMatch(
  record: { status?: unknown; recipe_hash?: unknown } | null,
  expected: string | null,
): RecipeMatch {
  if (record?.status !== "ok" || expected === null) return null;
  if (typeof record.recipe_hash !== "string" || record.recipe_hash === "") return "unknown";
  return record.recipe_hash === expected ? "same" : "different";
}

// ------------------------------------------------------------------------------------------- in words

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Math.round(n * 1000) / 1000);
}

/** A recipe's fields in words, e.g. "latent re-sample at 2x, 1 step earlier, then RealESRGAN_x2.pth at 2x". */
export function recipeText(fields: RecipeFields): string {
  const parts: string[] = [];
  const method = typeof fields.method === "string" ? fields.method : "latent";
  const scale =
    fields.scale === "auto"
      ? "at the size the delivery needs"
      : isNumber(fields.scale)
        ? `at ${fmt(fields.scale)}x`
        : "";
  const head =
    method === "latent"
      ? "latent re-sample"
      : method === "pixel"
        ? `pixel upscale${typeof fields.pixel_model === "string" ? ` with ${fields.pixel_model}` : ""}`
        : method === "resample"
          ? "plain resample (ffmpeg lanczos)"
          : `SeedVR2${typeof fields.seedvr2_model === "string" ? ` ${fields.seedvr2_model}` : ""}`;
  parts.push(scale ? `${head} ${scale}` : head);
  if (isNumber(fields.detail) && fields.detail > 0) {
    parts.push(`${fields.detail} step${fields.detail === 1 ? "" : "s"} earlier`);
  }
  if (isNumber(fields.start_step)) parts.push(`from step ${fields.start_step}`);
  if (fields.vae === true) parts.push("through the VAE");
  if (typeof fields.then === "string") {
    const ts = isNumber(fields.then_scale) ? fields.then_scale : 2;
    parts.push(fields.then === "seedvr2" ? "then SeedVR2" : `then ${fields.then} at ${fmt(ts)}x`);
  }
  if (fields.precision === "fp32") parts.push("fp32");
  if (fields.frequency_split === false) parts.push("no frequency split");
  if (isNumber(fields.keep_soft) && fields.keep_soft > 0) parts.push(`keep soft ${fmt(fields.keep_soft)}`);
  if (isNumber(fields.grain) && fields.grain > 0) parts.push(`grain ${fmt(fields.grain)}`);
  if (fields.window === 0) parts.push("no windows");
  else if (isNumber(fields.window)) parts.push(`${fmt(fields.window)} s windows`);
  if (fields.quality === "master") parts.push("master quality");
  return parts.join(", ");
}
