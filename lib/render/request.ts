// POST /studio/render's body (contract "Rendering"): the zod schema the route validates with, and the checks zod
// cannot phrase for a person (typed seeds per rule 1, LoRA strings, sizes, drafts), giving one normalised request.
import { z } from "zod";
import type { Pass } from "../build/types.ts";
import { badRequest, shown } from "../errors.ts";
import { shotId, targetIdOrBlank } from "../schema/fields.ts";
import { type Lora, parseLoras } from "../series/load.ts";

export type SeedMode = "auto" | "new" | "same";

const pass = z.enum(["final", "proxy"]).or(z.literal(""));

/** The body as the route validates it; `seed`, `loras`, `size` and `from_draft` are checked by renderRequest. */
export const renderBody = z.object({
  ep: z.string(),
  pass: pass.nullish(),
  shots: z.array(shotId).nullish(),
  redo: z.boolean().nullish(),
  seed_mode: z.enum(["auto", "new", "same"]).or(z.literal("")).nullish(),
  seed: z.unknown().optional(),
  model: z.string().nullish(),
  loras: z.unknown().optional(),
  steps: z.number().int().min(1).nullish(),
  prompt: z.string().nullish(),
  negative: z.string().nullish(),
  parent_take: z.number().int().min(1).nullish(),
  note: z.string().nullish(),
  size: z.unknown().optional(),
  target: targetIdOrBlank.nullish(),
  allow_missing_refs: z.boolean().nullish(),
  allow_model_mismatch: z.boolean().nullish(),
  save_frames: z.boolean().nullish(),
  save_latent: z.boolean().nullish(),
  backend: z.string().nullish(),
  from_draft: z.unknown().optional(),
});

export type RenderBody = z.output<typeof renderBody>;

/** What a render asks for, every "not set" as null (built values and overrides then apply). */
export interface RenderRequest {
  pass: Pass;
  /** Null: every shot of the pass, in cut order. */
  shots: string[] | null;
  redo: boolean;
  seedMode: SeedMode;
  seed: bigint | null;
  model: string | null;
  loras: Lora[] | null;
  steps: number | null;
  prompt: string | null;
  /** `""` is an explicit empty negative. */
  negative: string | null;
  parentTake: number | null;
  note: string | null;
  size: { width: number; height: number } | null;
  target: string | null;
  allowMissingRefs: boolean;
  allowModelMismatch: boolean;
  saveFrames: boolean;
  saveLatent: boolean | null;
  backend: string | null;
}

const MAX_TYPED_SEED = (1n << 64n) - 1n;

/** A typed seed (rule 1): digit text (spaces trimmed) or a safe whole number, 0 to 2^64-1; null when not set. */
export function typedSeed(v: unknown): bigint | null {
  if (v === undefined || v === null) return null;
  if (typeof v === "number") {
    if (Number.isSafeInteger(v) && v >= 0) return BigInt(v);
    throw badRequest(
      `seed must be a string of digits (got ${v}; a seed past 2^53 loses digits as a number: send it as text)`,
    );
  }
  if (typeof v !== "string") throw badRequest("seed must be a string of digits");
  const t = v.trim();
  if (t === "") return null;
  if (!/^\d+$/.test(t)) throw badRequest(`seed must be a string of digits (got ${shown(v)})`);
  const n = BigInt(t);
  if (n > MAX_TYPED_SEED) throw badRequest(`seed must be between 0 and 2^64-1 (got ${t})`);
  return n;
}

function lorasOf(v: unknown): Lora[] | null {
  if (v === undefined || v === null || v === "") return null;
  try {
    return parseLoras(v);
  } catch (err) {
    throw badRequest(`loras: ${(err as Error).message}`);
  }
}

function sizeOf(v: unknown): { width: number; height: number } | null {
  if (v === undefined || v === null || v === "") return null;
  let w: unknown;
  let h: unknown;
  if (Array.isArray(v) && v.length === 2) [w, h] = v;
  else if (typeof v === "string") {
    const m = /^\s*(\d+)\s*[xX]\s*(\d+)\s*$/.exec(v);
    if (m) [w, h] = [Number(m[1]), Number(m[2])];
  }
  const ok = (n: unknown): n is number =>
    typeof n === "number" && Number.isInteger(n) && n >= 1 && n <= 16384;
  if (!ok(w) || !ok(h)) {
    throw badRequest(`size must be WxH (e.g. 1344x768) or [width, height], or null; got ${shown(v)}`);
  }
  return { width: w, height: h };
}

const blankToNull = (v: string | null | undefined): string | null =>
  v === undefined || v === null || v.trim() === "" ? null : v;

/** The normalised request; 400 naming the field for anything the contract refuses. */
export function renderRequest(body: RenderBody): RenderRequest {
  const draft = body.from_draft;
  if (
    draft !== undefined &&
    draft !== null &&
    !(typeof draft === "object" && !Array.isArray(draft) && Object.keys(draft).length === 0)
  ) {
    throw badRequest(
      "from_draft: a final made from a draft needs a draft-capable backend, and none is available in this service yet",
    );
  }
  return {
    pass: body.pass || "proxy",
    shots: body.shots ? [...new Set(body.shots)] : null,
    redo: body.redo ?? false,
    seedMode: body.seed_mode || "auto",
    seed: typedSeed(body.seed),
    model: blankToNull(body.model),
    loras: lorasOf(body.loras),
    steps: body.steps ?? null,
    prompt: blankToNull(body.prompt),
    negative: body.negative ?? null,
    parentTake: body.parent_take ?? null,
    note: blankToNull(body.note),
    size: sizeOf(body.size),
    target: blankToNull(body.target),
    allowMissingRefs: body.allow_missing_refs ?? false,
    allowModelMismatch: body.allow_model_mismatch ?? false,
    saveFrames: body.save_frames ?? false,
    saveLatent: body.save_latent ?? null,
    backend: blankToNull(body.backend),
  };
}
