// The series master recipe the master tests use, and the settings hash a built-in take's upscale gets from it (as
// upscale planning computes it), so a test can write an upscale "made by the recipe".
import { askFromRecipe, planUpscaleTake } from "../../lib/upscale/plan.ts";

/** `upscale.master`: every target by the pixel method, delivered 896x512 cropped (twice the test takes' size). */
export const MASTER_RECIPE = { deliver: "896x512", fit: "crop", targets: { "*": { method: "pixel" } } };

/** The recipe hash of MASTER_RECIPE for a finished 448x256 take rendered on the built-in engine. */
export function builtinRecipeHash(): string {
  const plan = planUpscaleTake(
    {
      ...{ shot: "sh010", take: 1, usable: true, status: "ok", target: "animatic", width: 448, height: 256 },
      ...{ steps: null, seed: null, latent: false, builtin: true, upscaleSpec: null, freshUpscale: null },
    },
    askFromRecipe(MASTER_RECIPE.targets["*"], {
      deliver: MASTER_RECIPE.deliver,
      fit: "crop",
      quality: "review",
      encoder: "auto",
    }),
  );
  if (!("ok" in plan)) throw new Error(plan.error);
  return plan.ok.recipe_hash;
}
