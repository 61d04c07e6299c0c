// GET /studio/upscale/options: what the local ComfyUI can upscale with (pixel models, SeedVR2, each video target's
// latent mode), the fixed choices (details, encoders, precisions, delivery sizes, fits), and with an episode its
// series master recipe per target and each shot's own recipe in words. Never an error because ComfyUI is down:
// every readiness is then `unknown`. Missing pieces are worded by the finishing graphs' own sentences.
import path from "node:path";
import type { Services } from "../context.ts";
import { inputChoices } from "../engines/comfyui/readiness.ts";
import { compileEnv } from "../episode/compile-env.ts";
import { readOverrides } from "../episode/overrides-file.ts";
import { folderFence, readShowJson } from "../paths/guarded.ts";
import { seriesHome } from "../paths/series-home.ts";
import { isObject, num } from "../store/json-guards.ts";
import type { TargetRegistryView } from "../targets/registry.ts";
import { type GraphNeeds, missingSentences, upscaleGraph } from "./graphs/index.ts";
import { latentModeNeeds } from "./graphs/latent.ts";
import { UPSCALE_MODELS_FOLDER } from "./graphs/pixel.ts";
import { SEEDVR2_FOLDER } from "./graphs/seedvr2.ts";
import { DEFAULT_PIXEL_MODEL, DEFAULT_SEEDVR2_MODEL } from "./plan.ts";
import { type Catalogue, localCatalogue } from "./readiness.ts";
import {
  DELIVERS,
  FITS,
  MAX_SCALE,
  masterRecipe,
  PRECISIONS,
  recipeText,
  shotOwnRecipe,
  takeRecipe,
} from "./recipe.ts";
import { ENCODERS } from "./settings.ts";

export type Status = "ready" | "not_ready" | "unknown";

export interface MethodOption {
  status: Status;
  missing: string[];
  models: string[];
  default: string;
}

export interface LatentOption {
  status: Status;
  missing: string[];
  mode: "resample" | "second_stage" | "pixel_refine";
  align: number;
  fixed_scale: number | null;
}

/** The sentence for a pixel method with no upscale model at all (a named file's own sentence says which). */
export const NO_PIXEL_MODEL = `an upscale model in models/${UPSCALE_MODELS_FOLDER}/`;

// Node classes and model files do not depend on the picture: a stand-in take names them.
const STAND_IN = { file: "take.mp4", width: 960, height: 544, fps: 24, frames: 121 };
const STAND_OUT = { width: 1920, height: 1088 };

/** RealESRGAN_x2.pth when installed, else the first ×2 model, else the first model. */
export function defaultPixelModel(models: readonly string[]): string {
  if (models.includes(DEFAULT_PIXEL_MODEL)) return DEFAULT_PIXEL_MODEL;
  const x2 = models.find((m) => m.toLowerCase().includes("x2") || m.toLowerCase().startsWith("2x"));
  return x2 ?? models[0] ?? DEFAULT_PIXEL_MODEL;
}

/** What the local ComfyUI offers for upscales, or null when it did not answer. */
const catalogue = (services: Services): Promise<Catalogue | null> =>
  localCatalogue(services, [UPSCALE_MODELS_FOLDER, SEEDVR2_FOLDER]).catch(() => null);

const judged = (missing: string[]): Status => (missing.length ? "not_ready" : "ready");

function missingOf(cat: Catalogue, needs: GraphNeeds): string[] {
  return missingSentences(needs, cat.info, cat.folders);
}

function pixelOption(cat: Catalogue | null): MethodOption {
  if (!cat) return { status: "unknown", missing: [], models: [], default: DEFAULT_PIXEL_MODEL };
  const models =
    cat.folders[UPSCALE_MODELS_FOLDER] ??
    inputChoices(cat.info.UpscaleModelLoader ?? null, "model_name") ??
    [];
  const model = defaultPixelModel(models);
  const needs = upscaleGraph({ method: "pixel", model, source: STAND_IN, out: STAND_OUT, prefix: "x" }).needs;
  // With no model at all the graph's own file sentence would name a file nobody asked for.
  const missing = models.length
    ? missingOf(cat, needs)
    : [...missingOf(cat, { nodes: needs.nodes, models: [] }), NO_PIXEL_MODEL];
  return { status: judged(missing), missing, models: [...models], default: model };
}

function seedvr2Option(cat: Catalogue | null): MethodOption {
  if (!cat) return { status: "unknown", missing: [], models: [], default: DEFAULT_SEEDVR2_MODEL };
  const listed = cat.folders[SEEDVR2_FOLDER] ?? [];
  const models = listed.filter((f) => f.toLowerCase().includes("seedvr2"));
  const needs = upscaleGraph({
    method: "seedvr2",
    model: DEFAULT_SEEDVR2_MODEL,
    seed: 0,
    source: STAND_IN,
    out: STAND_OUT,
    prefix: "x",
  }).needs;
  const missing = missingOf(cat, needs);
  return { status: judged(missing), missing, models, default: DEFAULT_SEEDVR2_MODEL };
}

/** Each video target's latent upscale (null: it has none), judged on the VAE route every take can take. */
function latentOptions(
  targets: TargetRegistryView,
  cat: Catalogue | null,
): Record<string, LatentOption | null> {
  const out: Record<string, LatentOption | null> = {};
  for (const id of targets.ids("video")) {
    const spec = targets.get(id);
    const up = spec?.backend === "builtin" ? null : spec?.upscale;
    if (!isObject(up)) {
      out[id] = null;
      continue;
    }
    const mode = up.mode === "second_stage" || up.mode === "pixel_refine" ? up.mode : "resample";
    const missing = cat ? missingOf(cat, latentModeNeeds(mode, "vae")) : [];
    out[id] = {
      status: cat ? judged(missing) : "unknown",
      missing,
      mode,
      align: num(up.align) ?? 32,
      fixed_scale: mode === "second_stage" ? (num(up.scale) ?? 2) : null,
    };
  }
  return out;
}

/** The episode's series.json as it is (null without one), for the finishing options' recipes. */
export async function seriesRaw(services: Services, ep: string): Promise<Record<string, unknown> | null> {
  const home = await seriesHome(services, ep);
  if (!home.config) return null;
  const raw = await readShowJson(
    services,
    folderFence(path.dirname(home.config), "its folder"),
    home.config,
    "series.json",
  );
  return isObject(raw) ? raw : null;
}

/** The episode's master recipe: its globals, each video target's section, each shot's own recipe; null without one. */
async function recipeOptions(services: Services, ep: string, targets: TargetRegistryView) {
  const master = masterRecipe(await seriesRaw(services, ep));
  if (!master) return null;
  const byTarget: Record<string, { key: string; fields: Record<string, unknown>; text: string } | null> = {};
  for (const id of targets.ids("video")) {
    const tr = takeRecipe(master, id, null);
    byTarget[id] = tr ? { key: tr.key, fields: tr.fields, text: recipeText(tr.fields) } : null;
  }
  const overrides = await readOverrides(services, ep);
  const shots: Record<string, { fields: Record<string, unknown>; text: string }> = {};
  for (const shot of Object.keys(isObject(overrides.upscale) ? overrides.upscale : {})) {
    const own = shotOwnRecipe(overrides, shot);
    if (own) shots[shot] = { fields: own, text: recipeText(own) };
  }
  return {
    deliver: master.deliverText,
    fit: master.fit,
    quality: master.quality,
    encoder: master.encoder,
    targets: byTarget,
    shots,
    problems: master.problems,
  };
}

/** The options answer; `ep` is the real episode folder or null. */
export async function upscaleOptions(services: Services, ep: string | null) {
  const home = ep ? await seriesHome(services, ep) : null;
  const targets = home?.config
    ? (await compileEnv(services, path.dirname(home.config))).targets
    : services.targets;
  const cat = await catalogue(services);
  return {
    pixel: pixelOption(cat),
    seedvr2: seedvr2Option(cat),
    latent: latentOptions(targets, cat),
    details: [0, 1, 2],
    recipe: ep ? await recipeOptions(services, ep, targets) : null,
    max_scale: MAX_SCALE,
    encoders: [...ENCODERS],
    precisions: [...PRECISIONS],
    delivers: DELIVERS.map((d) => ({ ...d })),
    fits: [...FITS],
  };
}
