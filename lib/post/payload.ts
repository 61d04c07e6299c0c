// The post job's payload: everything fixed when the post was queued (the settings, the size, the hash its record
// carries), so the worker reads nothing but the files it works on.
import { z } from "zod";

const enhance = z.looseObject({ method: z.enum(["pixel", "seedvr2", "supir"]) });

export const postPayload = z.object({
  ep: z.string(),
  pass: z.enum(["final", "proxy"]),
  shot: z.string(),
  take: z.number().int().min(1),
  stem: z.string(),
  settings: z.object({ enhance: enhance.nullable(), motion_blur: z.number().min(0).max(1) }),
  quality: z.enum(["review", "master"]),
  encoder_asked: z.string(),
  recipe_hash: z.string(),
  width: z.number().int(),
  height: z.number().int(),
  /** The take's seed as digits (the derived seeds of SeedVR2 and SUPIR come from it). */
  seed: z.string().nullable(),
});

export type PostPayload = z.infer<typeof postPayload>;
