// Planning one take's upscale (pure): method, latent mode and route, scale, start step, the `then` step, the
// delivered size and fit, every per-take refusal of the upscale rules, and the settings recorded as `recipe` with
// their hash. A take rendered on the built-in engine is upscaled by a plain ffmpeg lanczos resample and planned
// as exactly that, so what a recipe asks of it is what it gets, and says so.
import { isNumber, isObject, type JsonObject, num } from "../store/json-guards.ts";
import {
  autoScale,
  type Fit,
  fitSize,
  type MasterRecipe,
  normaliseRecipe,
  parseDeliver,
  recipeHash,
  type Size,
  scaledSize,
  startStep,
  takeRecipe,
} from "./recipe.ts";
import type { Encoder, Quality } from "./settings.ts";

export type UpscaleMethod = "latent" | "pixel" | "seedvr2";

/** What a request (or a recipe) asks of every take it names. */
export interface UpscaleAsk {
  method?: UpscaleMethod | null;
  scale?: number | "auto" | null;
  start_step?: number | null;
  detail?: number | null;
  vae?: boolean;
  pixel_model?: string | null;
  then_pixel_model?: string | null;
  then_scale?: number | null;
  then_method?: "pixel" | "seedvr2" | null;
  seedvr2_model?: string | null;
  deliver?: string | null;
  fit?: Fit;
  from_upscale?: boolean;
  encoder?: Encoder;
  precision?: "fp16" | "fp32";
  quality?: Quality;
  frequency_split?: boolean;
  keep_soft?: number;
  grain?: number;
  window?: number | null;
}

/** The take as planning sees it. */
export interface TakeFacts {
  shot: string;
  take: number;
  /** `ok` with its mp4 present, else why not. */
  usable: boolean;
  status: string;
  target: string | null;
  width: number | null;
  height: number | null;
  steps: number | null;
  seed: bigint | number | string | null;
  /** The take's kept latent exists. */
  latent: boolean;
  /** The take renders on the built-in engine. */
  builtin: boolean;
  /** The target's `upscale` block, or null. */
  upscaleSpec: Record<string, unknown> | null;
  /** The take's fresh upscale (for `from_upscale`), or null. */
  freshUpscale: { width: number; height: number; summary: JsonObject } | null;
}

/** One planned upscale: what the job does and what the record says. */
export interface PlannedUpscale {
  shot: string;
  take: number;
  target: string | null;
  route: "latent" | "vae" | "pixel" | "seedvr2" | "resample";
  method: UpscaleMethod | "resample";
  mode: "resample" | "second_stage" | "pixel_refine" | "pixel" | "seedvr2" | "lanczos";
  scale: number;
  start_step: number | null;
  steps: number | null;
  seed: string | null;
  upscaler: string;
  pixel_model: string | null;
  seedvr2_model: string | null;
  then_pixel: { model: string; scale: number; from: [number, number]; method?: "seedvr2" } | null;
  /** The size the frames come from (the take's, or the upscale's with `from_upscale`). */
  from: [number, number];
  width: number;
  height: number;
  deliver: { width: number; height: number; fit: Fit; made: [number, number] } | null;
  fit: Fit;
  precision: "fp16" | "fp32";
  finish: { frequency_split: boolean; keep_soft: number; grain: number } | null;
  /** The built-in resample's light unsharp (off when `keep_soft` is 1). */
  sharpen: boolean;
  quality: Quality;
  encoder_asked: Encoder;
  on_upscale: JsonObject | null;
  window: number | null;
  recipe: JsonObject;
  recipe_hash: string;
}

export const DEFAULT_PIXEL_MODEL = "RealESRGAN_x2.pth";
export const DEFAULT_SEEDVR2_MODEL = "7b";
const DEFAULT_STEPS = 8;
const DEFAULT_START = 0.875;
// The `then` key written through a name: a plain `then` property reads to linters as a thenable.
const THEN = "then";

const even = (x: number) => Math.max(2, Math.round(x / 2) * 2);

/** A recipe's fields as an ask (the series' globals under them). */
export function askFromRecipe(
  fields: JsonObject,
  globals: { deliver: string | null; fit: Fit; quality: Quality; encoder: Encoder },
): UpscaleAsk {
  const then = typeof fields.then === "string" ? fields.then : null;
  return {
    method: fields.method === "pixel" || fields.method === "seedvr2" ? fields.method : "latent",
    scale: fields.scale === "auto" ? "auto" : (num(fields.scale) ?? null),
    start_step: num(fields.start_step),
    detail: num(fields.detail),
    vae: fields.vae === true,
    pixel_model: typeof fields.pixel_model === "string" ? fields.pixel_model : null,
    seedvr2_model: typeof fields.seedvr2_model === "string" ? fields.seedvr2_model : null,
    then_method: then === "seedvr2" ? "seedvr2" : then ? "pixel" : null,
    then_pixel_model: then && then !== "seedvr2" ? then : null,
    then_scale: num(fields.then_scale),
    precision: fields.precision === "fp32" ? "fp32" : "fp16",
    frequency_split: fields.frequency_split !== false,
    keep_soft: num(fields.keep_soft) ?? 0,
    grain: num(fields.grain) ?? 0,
    window: num(fields.window),
    quality: fields.quality === "master" || fields.quality === "review" ? fields.quality : globals.quality,
    deliver: globals.deliver,
    fit: globals.fit,
    encoder: globals.encoder,
  };
}

/** What the series master recipe asks of a take of `target` (the shot's own recipe over it), or why it cannot. */
export function recipeAsk(
  master: MasterRecipe,
  target: string | null,
  own: JsonObject | null,
): { ask: UpscaleAsk } | { error: string } {
  const tr = target ? takeRecipe(master, target, own) : null;
  if (!tr) return { error: `upscale.master has no section for ${target ?? "its target"}` };
  if (!master.deliver && master.deliverProblem && master.deliverText !== null) {
    return { error: master.deliverProblem };
  }
  return {
    ask: askFromRecipe(tr.fields, {
      deliver: master.deliver ? master.deliverText : null,
      fit: master.fit,
      quality: master.quality,
      encoder: master.encoder,
    }),
  };
}

type Plan = { ok: PlannedUpscale } | { error: string };

/** Plan one take; `{error}` is that take's entry in `errors`. */
export function planUpscaleTake(t: TakeFacts, ask: UpscaleAsk): Plan {
  const label = `${t.shot} t${String(t.take).padStart(2, "0")}`;
  if (!t.usable) return { error: `${label} is not a finished take (${t.status})` };
  if (ask.from_upscale && ask.method === "latent") {
    return { error: "only the pixel and SeedVR2 methods run on top of an upscale" };
  }
  if (ask.from_upscale && !t.freshUpscale) return { error: `${label} has no fresh upscale to build on` };
  // Only `from_upscale` builds on the upscale; a redo starts again from the take.
  const from: [number, number] | null =
    ask.from_upscale && t.freshUpscale
      ? [t.freshUpscale.width, t.freshUpscale.height]
      : t.width && t.height
        ? [t.width, t.height]
        : null;
  if (!from) return { error: `${label}'s sidecar does not record its size` };
  const fit: Fit = ask.fit ?? "crop";
  let deliver: Size | null = null;
  if (ask.deliver) {
    const d = parseDeliver(ask.deliver);
    if (typeof d === "string") return { error: d };
    deliver = d;
  }
  const quality: Quality = ask.quality ?? "review";
  const precision = ask.precision ?? "fp16";
  const base = {
    shot: t.shot,
    take: t.take,
    target: t.target,
    from,
    fit,
    precision,
    quality,
    encoder_asked: ask.encoder ?? "auto",
    on_upscale: ask.from_upscale && t.freshUpscale ? t.freshUpscale.summary : null,
    window: null as number | null,
  };
  const deliverOf = (made: Size) =>
    deliver
      ? {
          width: deliver.width,
          height: deliver.height,
          fit,
          made: [made.width, made.height] as [number, number],
        }
      : null;

  if (t.builtin) {
    // The built-in engine has one way to make a picture larger: ffmpeg's lanczos scale (then crop or pad to a
    // delivery size). Whatever method the ask names, this is what runs, and the record says so.
    const scale = isNumber(ask.scale)
      ? ask.scale
      : deliver
        ? Math.max(deliver.width / from[0], deliver.height / from[1])
        : 2;
    const made = deliver
      ? fitSize(from[0], from[1], deliver, fit)
      : { width: even(from[0] * scale), height: even(from[1] * scale) };
    const out = deliver ?? made;
    if (out.width < from[0] || out.height < from[1]) {
      return {
        error: `${label}: delivering ${out.width}x${out.height} from ${from[0]}x${from[1]} would shrink it`,
      };
    }
    const sharpen = (ask.keep_soft ?? 0) < 1;
    const settings: JsonObject = {
      method: "resample",
      mode: "lanczos",
      scale: deliver ? null : scale,
      sharpen,
      on_upscale: base.on_upscale ? true : null,
      size: [out.width, out.height],
      fit: deliver ? fit : null,
      quality,
    };
    return {
      ok: {
        ...base,
        route: "resample",
        method: "resample",
        mode: "lanczos",
        scale: Math.round((out.width / from[0]) * 1000) / 1000,
        start_step: null,
        steps: null,
        seed: null,
        upscaler: "ffmpeg lanczos",
        pixel_model: null,
        seedvr2_model: null,
        then_pixel: null,
        width: out.width,
        height: out.height,
        deliver: deliverOf(made),
        finish: null,
        sharpen,
        recipe: normaliseRecipe(settings),
        recipe_hash: recipeHash(settings),
      },
    };
  }

  const spec = t.upscaleSpec;
  const method: UpscaleMethod = ask.method ?? (spec ? "latent" : "pixel");
  const finish = {
    frequency_split: ask.frequency_split ?? true,
    keep_soft: ask.keep_soft ?? 0,
    grain: ask.grain ?? 0,
  };
  const seed = t.seed === null ? null : String(t.seed);

  /** A pixel step from `size` to `scale`, or to the delivery size when there is one; never shrinking. */
  const pixelStep = (size: Size, scale: number): { made: Size; out: Size } | { error: string } => {
    const made = deliver
      ? fitSize(size.width, size.height, deliver, fit)
      : { width: even(size.width * scale), height: even(size.height * scale) };
    if (made.width < size.width || made.height < size.height) {
      return {
        error: `${label}: the pixel step would have to shrink ${size.width}x${size.height} to ${made.width}x${made.height}`,
      };
    }
    return { made, out: deliver ?? made };
  };

  if (method === "pixel" || method === "seedvr2") {
    const scale = isNumber(ask.scale) ? ask.scale : 2;
    const step = pixelStep({ width: from[0], height: from[1] }, scale);
    if ("error" in step) return step;
    const pixel_model = method === "pixel" ? (ask.pixel_model ?? DEFAULT_PIXEL_MODEL) : null;
    const seedvr2_model = method === "seedvr2" ? (ask.seedvr2_model ?? DEFAULT_SEEDVR2_MODEL) : null;
    const settings: JsonObject = {
      method,
      scale: deliver ? null : scale,
      mode: method,
      pixel_model,
      seedvr2_model,
      precision,
      finish: method === "pixel" ? finish : null,
      on_upscale: base.on_upscale ? true : null,
      size: [step.out.width, step.out.height],
      fit: deliver ? fit : null,
      quality,
    };
    return {
      ok: {
        ...base,
        route: method,
        method,
        mode: method,
        scale: Math.round((step.out.width / from[0]) * 1000) / 1000,
        start_step: null,
        steps: method === "seedvr2" ? 1 : null,
        seed: method === "seedvr2" ? seed : null,
        upscaler: pixel_model ?? `SeedVR2 ${seedvr2_model}`,
        pixel_model,
        seedvr2_model,
        then_pixel: null,
        width: step.out.width,
        height: step.out.height,
        deliver: deliverOf(step.made),
        finish: method === "pixel" ? finish : null,
        sharpen: false,
        recipe: normaliseRecipe(settings),
        recipe_hash: recipeHash(settings),
      },
    };
  }

  // The latent re-sample on the take's own target.
  if (!spec)
    return { error: `${label}: ${t.target ?? "its target"} has no latent upscale: use the pixel method` };
  const mode = spec.mode === "second_stage" || spec.mode === "pixel_refine" ? spec.mode : "resample";
  const align = num(spec.align) ?? 32;
  const route: "latent" | "vae" = t.latent && !ask.vae && mode !== "pixel_refine" ? "latent" : "vae";
  const fixed = mode === "second_stage" ? (num(spec.scale) ?? 2) : null;
  let scale: number;
  if (fixed !== null) {
    if (isNumber(ask.scale) && ask.scale !== fixed) {
      return { error: `${label}: ${t.target}'s upsampler makes ${fixed}x only, not ${ask.scale}x` };
    }
    scale = fixed;
  } else if (ask.scale === "auto") scale = autoScale(from[0], from[1], deliver, fit, align);
  else scale = isNumber(ask.scale) ? ask.scale : (num(spec.scale) ?? 2);
  const sized = scaledSize(from[0], from[1], scale, align);
  if (typeof sized === "string") return { error: `${label}: ${sized}` };
  const steps = mode === "second_stage" ? (num(spec.steps) ?? 3) : (t.steps ?? DEFAULT_STEPS);
  const start = num(spec.start) ?? DEFAULT_START;
  const start_step = ask.start_step ?? startStep(steps, start, ask.detail ?? 0);
  if (!Number.isInteger(start_step) || start_step < 0 || start_step > steps - 1) {
    return { error: `${label}: start step ${start_step} is outside the schedule (0 to ${steps - 1})` };
  }
  let out: Size = sized;
  let made: Size = sized;
  let then_pixel: PlannedUpscale["then_pixel"] = null;
  if (ask.then_method) {
    const thenScale = ask.then_scale ?? 2;
    const step = pixelStep(sized, thenScale);
    if ("error" in step) return step;
    out = step.out;
    made = step.made;
    then_pixel = {
      model:
        ask.then_method === "seedvr2"
          ? (ask.seedvr2_model ?? DEFAULT_SEEDVR2_MODEL)
          : (ask.then_pixel_model ?? DEFAULT_PIXEL_MODEL),
      scale: thenScale,
      from: [sized.width, sized.height],
      ...(ask.then_method === "seedvr2" ? { method: "seedvr2" as const } : {}),
    };
  } else if (deliver) {
    // The re-sample cannot make any size: its frames are fitted to the delivery size after it.
    made = fitSize(sized.width, sized.height, deliver, fit);
    out = deliver;
  }
  const window =
    mode === "resample" ? (ask.window ?? num(isObject(spec.windows) ? spec.windows.seconds : null)) : null;
  const upscaler =
    mode === "second_stage"
      ? `${isObject(spec.upsampler) ? String(spec.upsampler.class_type) : "the upsampler"} (the target's own second stage)`
      : mode === "pixel_refine"
        ? `${String(spec.pixel_model ?? DEFAULT_PIXEL_MODEL)}, then the target's own sampler`
        : isObject(spec.upscaler)
          ? String(
              (isObject(spec.upscaler.inputs) && spec.upscaler.inputs.model_name) || spec.upscaler.class_type,
            )
          : "the latent upscaler";
  const settings: JsonObject = {
    method: "latent",
    scale,
    mode: `${mode}@${start_step}`,
    start_step,
    pixel_model: mode === "pixel_refine" ? String(spec.pixel_model ?? DEFAULT_PIXEL_MODEL) : null,
    [THEN]: then_pixel
      ? { method: then_pixel.method ?? "pixel", model: then_pixel.model, scale: then_pixel.scale }
      : null,
    precision,
    finish: then_pixel || mode === "pixel_refine" ? finish : null,
    size: [out.width, out.height],
    fit: deliver ? fit : null,
    quality,
    window,
  };
  return {
    ok: {
      ...base,
      route,
      method: "latent",
      mode,
      scale,
      start_step,
      steps,
      seed,
      upscaler,
      pixel_model: mode === "pixel_refine" ? String(spec.pixel_model ?? DEFAULT_PIXEL_MODEL) : null,
      seedvr2_model: then_pixel?.method === "seedvr2" ? then_pixel.model : null,
      then_pixel,
      width: out.width,
      height: out.height,
      deliver: deliverOf(made),
      finish: then_pixel || mode === "pixel_refine" ? finish : null,
      sharpen: false,
      window,
      recipe: normaliseRecipe(settings),
      recipe_hash: recipeHash(settings),
    },
  };
}
