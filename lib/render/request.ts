// POST /studio/render's body (contract "Rendering"): the zod schema the route validates with, and the checks zod
// cannot phrase for a person (LoRA strings, sizes, drafts), giving one normalised request.
import { z } from "zod";
import type { Pass } from "../compile/types.ts";
import { badRequest, shown } from "../errors.ts";
import { ep, pass, seed, shotId, targetIdOrBlank } from "../schema/fields.ts";
import { type Lora, parseLoras } from "../series/load.ts";
import { errorMessage } from "../store/json-guards.ts";
import { type DraftSource, parseFromDraft } from "./drafts.ts";

export type SeedMode = "auto" | "new" | "same";

/** The body as the route validates it; `loras`, `size` and `from_draft` are checked by renderRequest. */
export const renderBody = z.object({
  ep,
  pass,
  shots: z
    .array(shotId)
    .nullish()
    .describe("The shots to render; left out: every shot of the pass, in cut order"),
  redo: z.boolean().nullish().describe("Render shots that already have a usable take too"),
  seed_mode: z
    .enum(["auto", "new", "same"])
    .or(z.literal(""))
    .nullish()
    .describe("auto (the built seed), new (a fresh one) or same (the last take's)"),
  seed,
  model: z.string().nullish().describe("A model file to use instead of the target's"),
  loras: z
    .unknown()
    .optional()
    .describe('LoRAs: "name" or "name:0.6", {name, strength}, or a list of them; "none" drops them'),
  steps: z.int().min(1).nullish().describe("Sampling steps instead of the preset's"),
  prompt: z.string().nullish().describe("A prompt instead of the built one"),
  negative: z.string().nullish().describe("A negative prompt instead of the built one; blank: none"),
  parent_take: z.int().min(1).nullish().describe("The take this one is a variation of"),
  note: z.string().nullish().describe("A note kept in the take's sidecar"),
  size: z.unknown().optional().describe("A size instead of the built one: WxH text or [width, height]"),
  target: targetIdOrBlank.nullish().describe("Render on this video target instead of the shot's own"),
  allow_missing_refs: z.boolean().nullish().describe("Render even when reference pictures are missing"),
  allow_model_mismatch: z
    .boolean()
    .nullish()
    .describe("Render even when a model file does not match the target"),
  save_frames: z.boolean().nullish().describe("Keep the take's frames as pictures beside the video"),
  save_latent: z.boolean().nullish().describe("Keep the take's latent for a continuation"),
  backend: z
    .string()
    .nullish()
    .describe("The backend to render on: local, cloud, deployment:<target> or router"),
  from_draft: z
    .unknown()
    .optional()
    .describe(
      "{shot: proxy draft take}: make those shots' finals from their drafts (final pass, router targets)",
    ),
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
  /** `from_draft` as sent ({shot: take}), or null. */
  fromDraftTakes?: Record<string, number> | null;
  /** The drafts the finals are made from, once checked (lib/render/drafts.ts withDrafts). */
  fromDraft?: Record<string, DraftSource> | null;
}

export function lorasOf(v: unknown): Lora[] | null {
  if (v === undefined || v === null || v === "") return null;
  try {
    return parseLoras(v);
  } catch (err) {
    throw badRequest(`loras: ${errorMessage(err)}`);
  }
}

export function sizeOf(v: unknown): { width: number; height: number } | null {
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
  return {
    pass: body.pass,
    shots: body.shots ? [...new Set(body.shots)] : null,
    redo: body.redo ?? false,
    seedMode: body.seed_mode || "auto",
    seed: body.seed,
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
    fromDraftTakes: parseFromDraft(body.from_draft),
  };
}
