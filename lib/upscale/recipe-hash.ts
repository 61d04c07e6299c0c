// The settings an upscale or a post is made with, normalised as its record keeps them, and their hash
// (`recipe_hash`): the SHA-1 of the key-sorted JSON, digested in plain JavaScript as story hashes are, so the
// recipe modules stay free of Node-only code (the build's recipe checks also run in a per-function bundle).
import { pyJson } from "../script/canonical.ts";
import type { JsonObject } from "../store/json-guards.ts";
import { isObject } from "../store/json-guards.ts";
import { sha1Hex } from "../text/digest.ts";

/**
 * The settings a version is made with, as recorded in `recipe`: only what decides the pixels (method, scale,
 * mode and start step, models, the `then` step, precision, finish, a previous upscale, size, fit, quality when
 * not review, window), never the route or the encoder. Null and absent values are left out.
 */
export function normaliseRecipe(settings: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const k of Object.keys(settings).sort()) {
    const v = settings[k];
    if (v === null || v === undefined) continue;
    if (k === "quality" && v === "review") continue;
    out[k] = isObject(v) ? normaliseRecipe(v) : v;
  }
  return out;
}

/** The first 12 hex characters of the SHA-1 of the sorted settings. */
export function recipeHash(recipe: JsonObject): string {
  const text = pyJson(normaliseRecipe(recipe), { sortKeys: true, floatKeys: new Set() });
  return sha1Hex(text).slice(0, 12);
}
