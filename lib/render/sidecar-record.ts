// The take sidecar record: one schema for every field a sidecar may hold, read leniently (older sidecars,
// hand edits and unknown fields survive a read and a write-back unchanged).
import { z } from "zod";
import { type Lenient, recordKind } from "../store/record.ts";

const txt = z.string();
const count = z.number().int();
const amount = z.number();
const flag = z.boolean();
const fields = z.record(z.string(), z.unknown());
const loose = z.looseObject({});
const takeAt = z.looseObject({
  shot: z.string(),
  take: count.optional(),
  pass: z.enum(["final", "proxy"]).optional(),
});

/**
 * Every field of a take sidecar (the original's complete list, plus the fields the seeds and this
 * service add: queue, backend, job, backend_prompt_id, draft, from_draft, prompt, error, base_values,
 * save_frames, unreadable). Fields written later (the saver, a sweep, pruning) are in the same list.
 */
export const SIDECAR_SHAPE = {
  version: count,
  shot: txt,
  take: count,
  pass: z.enum(["final", "proxy"]),
  queue: txt,
  backend: txt,
  job: txt,
  target: txt,
  status: z.enum(["queued", "ok", "failed"]),
  queued: txt,
  comfy_prompt_id: txt,
  backend_prompt_id: txt,
  seed: z.union([z.bigint(), z.number(), z.string()]),
  seed_source: txt,
  model: txt,
  loras: z.array(z.looseObject({ name: txt, strength: amount })),
  steps: amount,
  width: amount,
  height: amount,
  length: amount,
  fps: amount,
  length_source: txt,
  shot_hash: txt,
  preset_hash: txt,
  overrides: z.array(txt),
  override_stale: flag,
  parent_take: count,
  note: txt,
  refs: z.array(loose),
  missing_refs: z.array(z.unknown()),
  missing_mode: txt,
  missing_note: txt,
  built_target: txt,
  inputs: fields,
  continuity_after: loose,
  hold: amount,
  notes: z.array(txt),
  negative_source: txt,
  resolved: fields,
  base: flag,
  base_values: fields,
  save_latent: flag,
  save_frames: flag,
  draft: loose,
  from_draft: z.unknown(),
  prompt: txt,
  finished: txt,
  frames: amount,
  mp4: txt,
  thumb: txt,
  strip: txt,
  save_notes: txt,
  save_ms: z.record(z.string(), amount),
  latent: txt,
  latent_pruned: txt,
  continued_from: loose,
  continuity: takeAt,
  error: txt,
  unreadable: flag,
};

/**
 * A take sidecar as read: every known field typed, absent in older sidecars (read as null: staleness then says
 * `unknown`) or null when the file holds a value of the wrong type; fields this service does not know are kept
 * in their order and written back.
 */
export type Sidecar = Lenient<typeof SIDECAR_SHAPE>;

export const sidecarKind = recordKind(SIDECAR_SHAPE);

/** An unparsable sidecar reads as queued, so it is never taken for finished. */
export const UNREADABLE_SIDECAR: Sidecar = { status: "queued", unreadable: true };

/** The sidecar a parsed JSON value holds; an unreadable one when it is not an object. */
export const parseSidecar = (raw: unknown): Sidecar => sidecarKind.parse(raw) ?? UNREADABLE_SIDECAR;
