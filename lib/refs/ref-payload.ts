// What a ref job carries from the request that queued it to the worker that runs it: the reserved candidate (ref,
// view, take) and every value it is made with, fixed at queue time so a retry makes the same picture again.
// Parsed when a worker claims the job.
import { z } from "zod";
import { drawFields } from "../render/draw-values.ts";
import { PSEUDO_VIEWS, VIEWS } from "./ids.ts";

export const refPayload = z.object({
  /** The episode whose request queued it (real path); the candidate lives under its ref home. */
  ep: z.string().min(1),
  ref: z.string().min(1),
  view: z.enum([...VIEWS, ...PSEUDO_VIEWS]).nullable(),
  take: z.number().int().min(1),
  stem: z.string().min(1),
  target: z.string().min(1),
  backend: z.string().min(1),
  kind: z.enum(["image", "audio"]),
  ...drawFields,
  params: z.record(z.string(), z.union([z.string(), z.number()])),
  negative: z.string().nullable(),
  /** A keyframe's shot size in the pass it was drawn for, before scaling up to the target. */
  shot_size: z.object({ width: z.number(), height: z.number() }).nullable(),
  /** Pictures the target reads, in order (absolute paths): an edit's, a keyframe's references, a panorama's canvas. */
  references: z.array(z.string().min(1)).optional(),
  /** Notes fixed at queue time that the finished candidate carries (an edit's turn without an angle LoRA). */
  save_notes: z.array(z.string()).optional(),
  /** A panorama sampled from an empty latent instead of its encoded canvas. */
  latent: z.enum(["empty"]).nullable().optional(),
});

export type RefPayload = z.infer<typeof refPayload>;
