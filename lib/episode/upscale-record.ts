// The upscale record `<stem>.up.json`: one schema for every field the queuer and the saver write, read
// leniently like the take sidecar (unknown fields kept in order, a wrong-typed field read as null). The fields
// every finished version of a take shares (a post's record has them too) are kept here once.
import { z } from "zod";
import { type Lenient, recordKind } from "../store/record.ts";

const txt = z.string();
const amount = z.number();
const size = z.tuple([amount, amount]);
const loose = z.looseObject({});
const stampNumber = z.union([z.number(), z.bigint(), z.string()]);

/**
 * The fields of every version made of a take (an upscale, a post): the queuer's (which take, the job, the recipe
 * and its hash, the source's stamp that freshness compares) and the saver's (the file written and how).
 */
export const VERSION_FIELDS = {
  shot: txt,
  take: z.number().int(),
  status: z.enum(["queued", "ok", "failed"]),
  queued: txt,
  comfy_prompt_id: txt,
  backend_prompt_id: txt,
  recipe: loose,
  recipe_hash: txt,
  encoder_asked: txt,
  quality: z.enum(["review", "master"]),
  width: amount,
  height: amount,
  source_size: stampNumber,
  source_mtime_ns: stampNumber,
  source_sha1: txt,
  finished: txt,
  frames: amount,
  mp4: txt,
  audio: z.enum(["copied", "none"]),
  encoder: txt,
  save_ms: z.record(z.string(), amount),
  save_notes: txt,
};

export const UPSCALE_SHAPE = {
  ...VERSION_FIELDS,
  target: txt,
  route: z.enum(["latent", "vae", "pixel", "seedvr2", "resample"]),
  // `resample`: the built-in engine's plain ffmpeg scale (mode `lanczos`), recorded as what it is.
  method: z.enum(["latent", "pixel", "seedvr2", "resample"]),
  mode: z.enum(["resample", "second_stage", "pixel_refine", "pixel", "seedvr2", "lanczos"]),
  scale: amount,
  start_step: amount,
  steps: amount,
  seed: z.union([z.bigint(), z.number(), z.string()]),
  upscaler: txt,
  pixel_model: txt,
  precision: txt,
  seedvr2_model: txt,
  color_correction: txt,
  finish: loose,
  then_pixel: z.looseObject({ model: txt, scale: amount, from: size }),
  deliver: z.looseObject({ width: amount, height: amount, fit: txt, made: size }),
  on_upscale: loose,
  chain_hold: loose,
  keep: z.boolean(),
};

export type UpscaleRecord = Lenient<typeof UPSCALE_SHAPE>;

export const upscaleRecord = recordKind(UPSCALE_SHAPE);
