// What the finishing recipes of series.json may say and the values they allow: the keys of an upscale recipe
// section, and the delivery settings both `upscale.master` and `post.master` carry (quality, encoder), each read
// with the sentence a bad value gets. Pure, and imported by the build's recipe checks as by the recipes.
import type { Parsed } from "../post/recipe.ts";

export type Quality = "review" | "master";
export type Encoder = "auto" | "nvenc" | "x264";

export const QUALITIES: readonly Quality[] = ["review", "master"];
export const ENCODERS: readonly Encoder[] = ["auto", "nvenc", "x264"];

/** The keys of an upscale recipe section (script format 3.12). */
export const SECTION_KEYS = [
  "method",
  "scale",
  "detail",
  "start_step",
  "vae",
  "pixel_model",
  "seedvr2_model",
  "then",
  "then_scale",
  "precision",
  "frequency_split",
  "keep_soft",
  "grain",
  "window",
] as const;

const show = (v: unknown) => JSON.stringify(v) ?? String(v);

/** A recipe's `quality`: review or master; null or absent: not set. */
export function parseQuality(v: unknown): Parsed<Quality | null> {
  if (v === undefined || v === null) return { ok: true, value: null };
  return (QUALITIES as readonly unknown[]).includes(v)
    ? { ok: true, value: v as Quality }
    : { ok: false, error: `quality must be review or master, not ${show(v)}` };
}

/** A recipe's `encoder`: auto, nvenc or x264; null or absent: not set. */
export function parseEncoder(v: unknown): Parsed<Encoder | null> {
  if (v === undefined || v === null) return { ok: true, value: null };
  return (ENCODERS as readonly unknown[]).includes(v)
    ? { ok: true, value: v as Encoder }
    : { ok: false, error: `encoder must be auto, nvenc or x264, not ${show(v)}` };
}
