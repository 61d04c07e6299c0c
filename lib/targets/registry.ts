// The target registry: target.json checked into a TargetSpec, read-only views over specs, and the view of the
// shipped targets (bundled with the code). Reading a show's own targets from disk is target-tree.ts's.
import { z } from "zod";
import { studioErrorMap } from "../schema/messages.ts";
import { isObject, type JsonObject } from "../store/json-guards.ts";
import { describeIssues } from "../validate.ts";
import type { FrameGrid } from "./grid.ts";
import { SHIPPED_TARGET_FILES } from "./shipped.ts";

export type TargetKind = "video" | "image" | "audio";
export type Policy = "generate" | "dub" | "dub_keep_foley" | "clone" | "silent";
export type KeyframeEnd = "first" | "last";

export const TARGET_KINDS: readonly TargetKind[] = ["video", "image", "audio"];
export const DEFAULT_TARGETS: Readonly<Record<TargetKind, string>> = {
  video: "minimax_h3_ref2va",
  image: "krea2",
  audio: "ltx2_voice",
};

export interface LoraItem {
  name: string;
  strength: number;
  stage?: string;
}

export interface Preset {
  model?: string | null;
  lora?: string | null;
  loras?: LoraItem[];
  steps?: number;
  width?: number;
  height?: number;
  base?: Record<string, unknown>;
  [extra: string]: unknown;
}

export interface Template {
  fps?: number | "series";
  default_fps?: number;
  frames?: FrameGrid;
  size_multiple?: number;
  max_size?: { long_side?: number; pixels?: number };
  size_fit?: "error" | "snap";
  /**
   * Which size a pass renders at (not in the reference's files, where each compile module hard-codes it):
   * `pass` the series pass block, else the preset; `series_target` the pass block only when this is the
   * series target; `preset` always the preset.
   */
  size_from?: "pass" | "series_target" | "preset";
  trained_frames?: number;
  [extra: string]: unknown;
}

export interface PanelLayout {
  sheet_panels?: number;
  views?: { body?: number; face?: number };
  face_sizes?: string[];
  plate?: boolean;
  required?: boolean;
  optional?: boolean;
  [extra: string]: unknown;
}

export interface RefKindSpec {
  kind: string;
  shape: "sheet" | "object" | "plate" | "voice";
  views?: string[];
}

export interface Recipe {
  policies?: Policy[];
  policy_fallback?: { to: Policy; why?: string };
  keyframes?: KeyframeEnd[];
  keyframe_required?: Partial<Record<KeyframeEnd, string>>;
  keyframe_path?: string;
  subject_slots?: string[];
  plate_slot?: string;
  /** The target draws the shot's location plate when there is one (an optional slot; a missing plate never blocks). */
  plate_drawn?: boolean;
  voice_slots?: string[];
  sheet_panels?: number;
  panels?: number;
  face_sizes?: string[];
  retention?: {
    values?: string[];
    default?: Record<string, string>;
    from_preserve?: Record<string, string>;
  };
  refs?: Partial<Record<"character" | "object" | "location" | "voice", RefKindSpec>>;
  size_hints?: Record<string, string>;
  reference_sheet?: PanelLayout;
  reference_image?: PanelLayout;
  ic_lora?: string;
  trained_frames?: number;
  /** The binding has no steps param (a fixed distilled schedule): a steps change is only recorded. */
  fixed_steps?: boolean;
  prompt?: string;
  [extra: string]: unknown;
}

export interface ContinuousSpec {
  modes?: string[];
  first?: string;
  latent?: { overlap?: number; hold_audio?: boolean; [extra: string]: unknown };
}

export interface TargetSpec {
  id: string;
  kind: TargetKind;
  label: string;
  short: string;
  code?: string;
  capabilities: Record<string, unknown>;
  template: Template;
  recipe: Recipe;
  binding: Record<string, unknown>;
  models?: Record<string, Record<string, unknown>>;
  nodes?: unknown;
  presets: { final?: Preset; proxy?: Preset };
  upscale?: Record<string, unknown>;
  continuous?: ContinuousSpec;
  draft?: boolean;
  /** True for a show's own target (`<show>/targets/<id>`) or one of the settings (`<settings dir>/targets/<id>`). */
  custom?: boolean;
  /** A custom target's place: the show's own, or the settings' (every show's); set by the loader, never the file. */
  scope?: "show" | "settings";
  /** A custom target's folder (its workflow.json beside its target.json); set by the loader. */
  dir?: string;
  [extra: string]: unknown;
}

/** What the compiler needs from a registry: synchronous look-ups over targets loaded beforehand. */
export interface TargetRegistryView {
  get(id: string): TargetSpec | undefined;
  /** Sorted ids, of one kind or of all. */
  ids(kind?: TargetKind): string[];
}

export class TargetError extends Error {
  readonly target: string | null;

  constructor(message: string, target: string | null = null) {
    super(message);
    this.name = "TargetError";
    this.target = target;
  }
}

// The typed blocks of a target.json, checked when it is read: known fields must have their type, others are kept.
const count = z.number().int().min(1);
const policy = z.enum(["generate", "dub", "dub_keep_foley", "clone", "silent"]);
const keyframeEnd = z.enum(["first", "last"]);
const stringMap = z.record(z.string(), z.string());

const loraItem: z.ZodType<LoraItem> = z.looseObject({
  name: z.string(),
  strength: z.number(),
  stage: z.string().optional(),
});

const presetSchema: z.ZodType<Preset> = z.looseObject({
  model: z.string().nullish(),
  lora: z.string().nullish(),
  loras: z.array(loraItem).optional(),
  steps: z.number().optional(),
  width: z.number().optional(),
  height: z.number().optional(),
  base: z.record(z.string(), z.unknown()).optional(),
});

const presetsSchema: z.ZodType<TargetSpec["presets"]> = z.looseObject({
  final: presetSchema.optional(),
  proxy: presetSchema.optional(),
});

const templateSchema: z.ZodType<Template> = z.looseObject({
  fps: z.union([z.number(), z.literal("series")]).optional(),
  default_fps: z.number().optional(),
  frames: z
    .object({ step: count, base: count, max: count }, "needs whole numbers step, base and max")
    .optional(),
  size_multiple: z.number().optional(),
  max_size: z.looseObject({ long_side: z.number().optional(), pixels: z.number().optional() }).optional(),
  size_fit: z.enum(["error", "snap"]).optional(),
  size_from: z.enum(["pass", "series_target", "preset"]).optional(),
  trained_frames: z.number().optional(),
});

const panelLayout: z.ZodType<PanelLayout> = z.looseObject({
  sheet_panels: z.number().optional(),
  views: z.looseObject({ body: z.number().optional(), face: z.number().optional() }).optional(),
  face_sizes: z.array(z.string()).optional(),
  plate: z.boolean().optional(),
  required: z.boolean().optional(),
  optional: z.boolean().optional(),
});

const refKindSpec: z.ZodType<RefKindSpec> = z.object({
  kind: z.string(),
  shape: z.enum(["sheet", "object", "plate", "voice"]),
  views: z.array(z.string()).optional(),
});

const recipeSchema: z.ZodType<Recipe> = z.looseObject({
  policies: z.array(policy).optional(),
  policy_fallback: z.object({ to: policy, why: z.string().optional() }).optional(),
  keyframes: z.array(keyframeEnd).optional(),
  keyframe_required: z.partialRecord(keyframeEnd, z.string()).optional(),
  keyframe_path: z.string().optional(),
  subject_slots: z.array(z.string()).optional(),
  plate_slot: z.string().optional(),
  plate_drawn: z.boolean().optional(),
  voice_slots: z.array(z.string()).optional(),
  sheet_panels: z.number().optional(),
  panels: z.number().optional(),
  face_sizes: z.array(z.string()).optional(),
  retention: z
    .object({
      values: z.array(z.string()).optional(),
      default: stringMap.optional(),
      from_preserve: stringMap.optional(),
    })
    .optional(),
  refs: z.partialRecord(z.enum(["character", "object", "location", "voice"]), refKindSpec).optional(),
  size_hints: stringMap.optional(),
  reference_sheet: panelLayout.optional(),
  reference_image: panelLayout.optional(),
  ic_lora: z.string().optional(),
  trained_frames: z.number().optional(),
  fixed_steps: z.boolean().optional(),
  prompt: z.string().optional(),
});

/** `value` as `schema` reads it, else a TargetError naming the block's field and what it expected. */
function checked<T>(schema: z.ZodType<T>, value: unknown, block: string, folderId: string): T {
  const result = schema.safeParse(value, { error: studioErrorMap });
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({ ...issue, path: [block, ...issue.path] }));
  throw new TargetError(`target ${folderId}: ${describeIssues(issues, block)}`, folderId);
}

/** A copy without comment keys (`_…`), at every level. */
export function stripComments(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripComments);
  if (value === null || typeof value !== "object") return value;
  return stripObjectComments(value);
}

/** An object without its `_` comment keys, at every level. */
function stripObjectComments(value: object): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) if (!k.startsWith("_")) out[k] = stripComments(v);
  return out;
}

/**
 * Validate one parsed `target.json`. `folderId` must equal the file's id; `kind`, when given (shipped folders),
 * must equal the file's kind.
 */
export function parseTarget(raw: unknown, folderId: string, kind?: TargetKind, custom = false): TargetSpec {
  const where = `target ${folderId}`;
  if (!isObject(raw)) throw new TargetError(`${where}: target.json must be a JSON object`, folderId);
  const obj = stripObjectComments(raw);
  if (typeof obj.id !== "string" || obj.id === "")
    throw new TargetError(`${where}: target.json needs an "id"`, folderId);
  if (obj.id !== folderId) {
    throw new TargetError(
      `${where}: the file's id '${obj.id}' must equal its folder name '${folderId}'`,
      folderId,
    );
  }
  const k = obj.kind;
  if (k !== "video" && k !== "image" && k !== "audio") {
    throw new TargetError(`${where}: "kind" must be video, image or audio`, folderId);
  }
  if (kind && k !== kind)
    throw new TargetError(`${where}: kind '${k}' but it lives in the ${kind} folder`, folderId);
  if ((k === "video" || k === "audio") && !isObject(obj.template)) {
    throw new TargetError(`${where}: a ${k} target needs a "template"`, folderId);
  }
  if (!isObject(obj.presets) || (!isObject(obj.presets.final) && !isObject(obj.presets.proxy))) {
    throw new TargetError(`${where}: "presets" needs a "final" or "proxy" preset`, folderId);
  }
  const template = checked(templateSchema, obj.template ?? {}, "template", folderId);
  const label = typeof obj.label === "string" && obj.label ? obj.label : obj.id;
  const short = typeof obj.short === "string" && obj.short ? obj.short : label;
  const spec: TargetSpec = {
    ...obj,
    id: obj.id,
    kind: k,
    label,
    short,
    capabilities: isObject(obj.capabilities) ? obj.capabilities : {},
    template,
    recipe: checked(recipeSchema, isObject(obj.recipe) ? obj.recipe : {}, "recipe", folderId),
    binding: isObject(obj.binding) ? obj.binding : {},
    presets: checked(presetsSchema, obj.presets, "presets", folderId),
  };
  if (custom) {
    spec.custom = true;
    if (spec.kind === "video" && spec.code === undefined) spec.code = "builtin:video_prose";
  }
  return spec;
}

/** A read-only view over target specs (first occurrence of an id wins). */
export function registryView(specs: Iterable<TargetSpec>): TargetRegistryView {
  const byId = new Map<string, TargetSpec>();
  for (const s of specs) if (!byId.has(s.id)) byId.set(s.id, s);
  const sortedIds = (kind?: TargetKind) =>
    [...byId.values()]
      .filter((s) => kind === undefined || s.kind === kind)
      .map((s) => s.id)
      .sort();
  const cache = new Map<string, string[]>();
  return {
    get: (id) => byId.get(id),
    ids: (kind) => {
      const key = kind ?? "";
      let ids = cache.get(key);
      if (!ids) {
        ids = sortedIds(kind);
        cache.set(key, ids);
      }
      return [...ids];
    },
  };
}

/**
 * The shipped targets as one view, checked from the files bundled with the code. Built by whoever holds the
 * process's services (once per process, once per compile thread), never kept here.
 */
export function shippedRegistry(): TargetRegistryView {
  return registryView(SHIPPED_TARGET_FILES.map((f) => parseTarget(f.raw, f.id, f.kind)));
}

/** The capabilities the targets listing reports (targets 1.3), derived from the file's other keys. */
export function videoCapabilities(spec: TargetSpec): Record<string, unknown> {
  const r = spec.recipe;
  return {
    policies: r.policies ?? ["generate"],
    duration: spec.capabilities.duration ?? "script",
    requires_first: Boolean(r.keyframe_required?.first),
    audio: spec.capabilities.audio ?? "generate",
    policy_fallback: r.policy_fallback?.to ?? null,
    voice_reference: r.voice_slots !== undefined,
    subject_refs:
      r.subject_slots !== undefined || r.reference_sheet !== undefined || r.reference_image !== undefined,
    reference_sheet: r.reference_sheet !== undefined,
    keyframes: r.keyframes ?? [],
    prompt: promptWriter(spec),
    negative_prompt: takesNegative(spec),
  };
}

/** The prompt writer a video target uses (`sections` when it has subject slots, else `prose`). */
export function promptWriter(spec: TargetSpec): string {
  const declared = spec.recipe.prompt ?? (spec.recipe.subject_slots ? "sections" : "prose");
  if (declared === "prose" && spec.capabilities.audio === "none") return "prose_silent";
  return declared;
}

export function takesNegative(spec: TargetSpec): boolean {
  const declared = spec.capabilities.negative_prompt;
  if (typeof declared === "boolean") return declared;
  return isObject(spec.binding.params) && "negative" in spec.binding.params;
}
