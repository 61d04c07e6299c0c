// The `overrides.json` record: the file, a shot's block, a target's block and a pass's block each have
// one lenient schema (unknown fields kept in their order, a wrong-typed field read as null); overrides-file.ts
// reads and writes the file.
import { z } from "zod";
import { isObject, type JsonObject } from "../store/json-guards.ts";
import { type Lenient, memoByIdentity, recordKind } from "../store/record.ts";

const txt = z.string();

/** A pass's fields, stamped with the story hash they were written against. */
export const PASS_OVERRIDE_SHAPE = {
  base_hash: txt,
  prompt: txt,
  model: txt,
  model_low: txt,
  loras: z.array(z.object({ name: txt, strength: z.number() })),
  steps: z.number().int(),
  negative: txt,
  size: txt,
};
export type PassOverride = Lenient<typeof PASS_OVERRIDE_SHAPE>;
const passOverride = recordKind(PASS_OVERRIDE_SHAPE);

/**
 * One target's block of a shot: shared `seed` (an integer in the file) and `note`, then per-pass fields. A pass
 * block that is not an object reads as an empty one (it says nothing, and the next write tidies it away).
 */
const TARGET_OVERRIDE_SHAPE = {
  seed: z.bigint(),
  note: txt,
  final: z.looseObject({}),
  proxy: z.looseObject({}),
};
export type TargetOverride = Lenient<Omit<typeof TARGET_OVERRIDE_SHAPE, "final" | "proxy">> & {
  final?: PassOverride;
  proxy?: PassOverride;
};
const targetOverride = recordKind(TARGET_OVERRIDE_SHAPE);

/** `target` (the retarget, shared by passes) beside one block per target id. */
export type ShotOverrides = { target?: string | null } & {
  [targetId: string]: TargetOverride | string | null | undefined;
};

/** The episode target block; a plain name string in its place means no episode target. */
const episodeTargets = z.looseObject({
  id: txt,
  target: txt.optional(),
  refs_target: txt.optional(),
  keyframe_target: txt.optional(),
  voice_target: txt.optional(),
});
export type EpisodeTargets = z.output<typeof episodeTargets>;

const OVERRIDES_SHAPE = {
  episode: z.union([txt, episodeTargets]),
  shots: z.record(z.string(), z.unknown()),
  upscale: z.record(z.string(), z.looseObject({})),
  post: z.record(z.string(), z.looseObject({})),
};
const overridesTop = recordKind(OVERRIDES_SHAPE);

export type OverridesFile = Lenient<Omit<typeof OVERRIDES_SHAPE, "shots">> & {
  shots?: Record<string, ShotOverrides | null> | null;
};

const readTarget = memoByIdentity((raw: JsonObject): TargetOverride => {
  const block = targetOverride.parse(raw) ?? {};
  const out: TargetOverride = {};
  for (const [key, value] of Object.entries(block)) {
    out[key] = key === "final" || key === "proxy" ? (passOverride.parse(value) ?? {}) : value;
  }
  return out;
});

/** A shot's block: the retarget a string (else null), each other key a target block (else null). */
const readShot = memoByIdentity((raw: JsonObject): ShotOverrides => {
  const out: ShotOverrides = {};
  for (const [key, value] of Object.entries(raw)) {
    out[key] = key === "target" ? (typeof value === "string" ? value : null) : readTarget(value);
  }
  return out;
});

/**
 * overrides.json as read, every level typed (shared with the file cache: copy before changing it); null when
 * the value is not a JSON object.
 */
export const parseOverrides = memoByIdentity((raw: JsonObject): OverridesFile => {
  const top = overridesTop.parse(raw) ?? {};
  const out: OverridesFile = {};
  for (const [key, value] of Object.entries(top)) {
    out[key] = key === "shots" && isObject(value) ? readShots(value) : value;
  }
  return out;
});

function readShots(raw: JsonObject): Record<string, ShotOverrides | null> {
  const out: Record<string, ShotOverrides | null> = {};
  for (const [shot, block] of Object.entries(raw)) out[shot] = readShot(block);
  return out;
}
