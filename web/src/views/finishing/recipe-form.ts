// A shot's own upscale recipe as form fields and back: the fields are strings as typed (empty = the series
// recipe decides); what is sent holds only the fields set, numbers as numbers, and a value that is not a number
// as typed, so the service's own check says what is wrong with it.
export const METHODS = ["latent", "pixel", "seedvr2"] as const;

export interface RecipeForm {
  method: string;
  scale: string;
  detail: string;
  start_step: string;
  pixel_model: string;
  seedvr2_model: string;
  /** A follow-up step after a latent re-sample: an upscale-model file, or `seedvr2`. */
  follow: string;
  then_scale: string;
  precision: string;
  keep_soft: string;
  grain: string;
  window: string;
}

export const EMPTY_FORM: RecipeForm = {
  method: "",
  scale: "",
  detail: "",
  start_step: "",
  pixel_model: "",
  seedvr2_model: "",
  follow: "",
  then_scale: "",
  precision: "",
  keep_soft: "",
  grain: "",
  window: "",
};

const NUMERIC = ["detail", "start_step", "then_scale", "keep_soft", "grain", "window"] as const;
const TEXT = ["method", "pixel_model", "seedvr2_model", "precision"] as const;

const shown = (v: unknown): string =>
  v === null || v === undefined ? "" : typeof v === "string" ? v : typeof v === "number" ? String(v) : "";

/** The form for a stored recipe (`fields` of the options' `recipe.shots[shot]`), or an empty one. */
export function formFromRecipe(fields: Record<string, unknown> | null | undefined): RecipeForm {
  if (!fields) return { ...EMPTY_FORM };
  const form = { ...EMPTY_FORM };
  for (const k of [...TEXT, ...NUMERIC, "scale"] as const) form[k] = shown(fields[k]);
  const then = fields.then ?? fields.then_pixel_model ?? fields.then_method;
  form.follow = typeof then === "string" ? then : "";
  return form;
}

function value(text: string): number | string {
  const t = text.trim();
  const n = Number(t);
  return t !== "" && Number.isFinite(n) ? n : t;
}

/** The body's `recipe` for a form: null when nothing is set (which clears the shot's recipe). */
export function recipeFromForm(form: RecipeForm): Record<string, unknown> | null {
  const out: Record<string, unknown> = {};
  for (const k of TEXT) if (form[k].trim()) out[k] = form[k].trim();
  const scale = form.scale.trim();
  if (scale) out.scale = scale === "auto" ? "auto" : value(scale);
  for (const k of NUMERIC) if (form[k].trim()) out[k] = value(form[k]);
  const then = form.follow.trim();
  if (then === "seedvr2") out.then_method = "seedvr2";
  else if (then) out.then_pixel_model = then;
  return Object.keys(out).length ? out : null;
}

/** True when the form says something other than the stored recipe does. */
export function formChanged(form: RecipeForm, fields: Record<string, unknown> | null | undefined): boolean {
  const was = formFromRecipe(fields);
  return (Object.keys(EMPTY_FORM) as (keyof RecipeForm)[]).some((k) => form[k].trim() !== was[k].trim());
}
