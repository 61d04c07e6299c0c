// `recipe_match` of a take's upscale summary: whether the finished upscale was made with the settings the series
// master recipe (with the shot's own recipe over it) gives that take now, by comparing the recorded `recipe_hash`
// with the hash of the take planned by the recipe: null without a recipe (or a section for the take's target) or
// when the upscale is not ok, `unknown` when the record predates recorded settings, else `same` or `different`.
import type { FileProbe } from "../episode/staleness.ts";
import type { TakeRecord } from "../episode/takes.ts";
import type { ViewInputs } from "../episode/view-inputs.ts";
import { takeFacts } from "./facts.ts";
import type { UpscaleState } from "./fresh.ts";
import { planUpscaleTake, recipeAsk } from "./plan.ts";
import { masterRecipe, type RecipeMatch, recipeMatch, shotOwnRecipe, takeRecipe } from "./recipe.ts";

export type RecipeInputs = Pick<ViewInputs, "ep" | "pass" | "env" | "seriesRaw" | "overrides">;

export async function upscaleRecipeMatch(
  vi: RecipeInputs,
  shot: string,
  t: TakeRecord,
  up: UpscaleState,
  probe: FileProbe,
): Promise<RecipeMatch> {
  const master = masterRecipe(vi.seriesRaw);
  if (!master || up.status !== "ok" || !up.record) return null;
  const facts = await takeFacts(vi, shot, t, up, probe);
  const own = shotOwnRecipe(vi.overrides, shot);
  if (!facts.target || !takeRecipe(master, facts.target, own)) return null;
  const asked = recipeAsk(master, facts.target, own);
  const plan = "ask" in asked ? planUpscaleTake(facts, asked.ask) : null;
  // A recipe that cannot plan the take now did not make this upscale either.
  return recipeMatch(up.record, plan && "ok" in plan ? plan.ok.recipe_hash : "");
}
