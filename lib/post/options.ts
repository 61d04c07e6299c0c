import type { Services } from "../context.ts";
import { readOverrides } from "../episode/overrides-file.ts";
import { isObject } from "../store/json-guards.ts";
import { BUILTIN_LANE } from "../upscale/finish-run.ts";
import type { SourceVideo } from "../upscale/graphs/types.ts";
import { seriesRaw } from "../upscale/options.ts";
import { localMissing } from "../upscale/readiness.ts";
import { BLUR_METHOD } from "./blur.ts";
import type { PlannedPost } from "./plan.ts";
import { postNeeds } from "./readiness.ts";
import {
  BLUR,
  ENHANCE_METHODS,
  type Enhance,
  mergedRecipe,
  type PostSettings,
  parseEnhance,
  recipeSettings,
  recipeText,
  STRENGTH,
  seriesPostRecipe,
  TIER_IDS,
} from "./recipe.ts";

export interface Readiness {
  status: "ready" | "not_ready" | "unknown";
  missing: string[];
}

// Node classes and model files do not depend on the picture: a 1080p stand-in names them.
const STAND_IN: SourceVideo = { file: "upscale.mp4", width: 1920, height: 1080, fps: 24, frames: 121 };

async function readinessOf(services: Services, settings: PostSettings): Promise<Readiness> {
  const plan: PlannedPost = {
    shot: "",
    take: 1,
    lane: "local",
    settings,
    recipe: {},
    recipe_hash: "",
    quality: "review",
    encoder_asked: "auto",
    width: STAND_IN.width,
    height: STAND_IN.height,
    what: "",
  };
  try {
    const missing = await localMissing(services, [
      postNeeds({ plan, source: STAND_IN, seed: null, stem: "options" }),
    ]);
    return { status: missing.length ? "not_ready" : "ready", missing };
  } catch {
    return { status: "unknown", missing: [] };
  }
}

const only = (enhance: Enhance | null, motion_blur: number): PostSettings => ({
  enhance,
  motion_blur,
  quality: null,
  encoder: null,
});

/** The series recipe and each shot's own entry, in fields and words; null without an episode or a recipe. */
async function recipeOptions(services: Services, ep: string) {
  const master = seriesPostRecipe(await seriesRaw(services, ep));
  if (!master) return null;
  const problems: string[] = [];
  const own = recipeSettings(master);
  if (!own.ok) problems.push(`post.master: ${own.error}`);
  const overrides = await readOverrides(services, ep);
  const shots: Record<string, { fields: Record<string, unknown>; text: string }> = {};
  for (const [shot, entry] of Object.entries(isObject(overrides.post) ? overrides.post : {})) {
    if (!isObject(entry)) continue;
    const merged = recipeSettings(mergedRecipe(master, entry));
    if (!merged.ok) problems.push(`${shot}: ${merged.error}`);
    shots[shot] = { fields: entry, text: merged.ok ? recipeText(merged.value) : merged.error };
  }
  return { fields: master, text: own.ok ? recipeText(own.value) : own.error, shots, problems };
}

export async function postOptions(services: Services, ep: string | null) {
  const tiers = [];
  for (const id of TIER_IDS) {
    const parsed = parseEnhance(id);
    const enhance = parsed.ok ? parsed.value : null;
    const settings = only(enhance, 0);
    tiers.push({ id, enhance, text: recipeText(settings), readiness: await readinessOf(services, settings) });
  }
  return {
    tiers,
    methods: [...ENHANCE_METHODS],
    blur: {
      ...BLUR,
      readiness: await readinessOf(services, only(null, BLUR.default)),
      // What a take rendered on the built-in engine gets instead of the optical-flow blur.
      builtin: { lane: BUILTIN_LANE, method: BLUR_METHOD },
    },
    strength: { ...STRENGTH },
    recipe: ep ? await recipeOptions(services, ep) : null,
  };
}
