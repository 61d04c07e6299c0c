// The target registry: shipped `lib/targets/<kind>/<id>/target.json` files (loaded once) plus a show's own targets.
import type { Dirent } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { StudioError } from "../errors.ts";
import { folderFence, readShowDirents, readShowText } from "../paths/guarded.ts";
import { errorCode, errorMessage, isObject, type JsonObject } from "../store/json-guards.ts";
import type { FrameGrid } from "./grid.ts";

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
  /** True for a show's own target (`<show>/targets/<id>`). */
  custom?: boolean;
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

const SHIPPED_ROOT = path.dirname(fileURLToPath(import.meta.url));

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
  const template = (obj.template ?? {}) as Template;
  const frames = template.frames;
  if (frames !== undefined) {
    const ok =
      isObject(frames) &&
      [frames.step, frames.base, frames.max].every(
        (n) => typeof n === "number" && Number.isInteger(n) && n >= 1,
      );
    if (!ok)
      throw new TargetError(`${where}: template.frames needs whole numbers step, base and max`, folderId);
  }
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
    recipe: (isObject(obj.recipe) ? obj.recipe : {}) as Recipe,
    binding: isObject(obj.binding) ? obj.binding : {},
    presets: obj.presets as TargetSpec["presets"],
  };
  if (custom) {
    spec.custom = true;
    if (spec.kind === "video" && spec.code === undefined) spec.code = "builtin:video_prose";
  }
  return spec;
}

// How a folder is listed and a file read: plainly for the shipped tree, through the guarded door for a show's own.
interface TreeReader {
  dirents(dir: string): Promise<Dirent[]>;
  text(file: string): Promise<string>;
}

const SHIPPED_READER: TreeReader = {
  dirents: (dir) => readdir(dir, { withFileTypes: true }),
  text: (file) => readFile(file, "utf8"),
};

async function listDirs(dir: string, reader: TreeReader): Promise<string[]> {
  try {
    const entries = await reader.dirents(dir);
    return entries
      .filter((e) => e.isDirectory() && !e.name.startsWith(".") && !e.name.startsWith("_"))
      .map((e) => e.name)
      .sort();
  } catch (err) {
    if (errorCode(err) === "ENOENT") return [];
    throw err;
  }
}

async function readTargetFile(
  file: string,
  folderId: string,
  reader: TreeReader,
): Promise<unknown | undefined> {
  let text: string;
  try {
    text = await reader.text(file);
  } catch (err) {
    if (errorCode(err) === "ENOENT") return undefined;
    throw err;
  }
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (err) {
    throw new TargetError(
      `target ${folderId}: target.json is not valid JSON (${errorMessage(err)})`,
      folderId,
    );
  }
}

/** Load every `<root>/<kind>/<id>/target.json`, kinds in the order video, image, audio, folders sorted by name. */
export async function loadTargetTree(root: string): Promise<TargetSpec[]> {
  const out: TargetSpec[] = [];
  for (const kind of TARGET_KINDS) {
    const dir = path.join(root, kind);
    const ids = await listDirs(dir, SHIPPED_READER);
    const specs = await Promise.all(
      ids.map(async (id) => {
        const raw = await readTargetFile(path.join(dir, id, "target.json"), id, SHIPPED_READER);
        return raw === undefined ? undefined : parseTarget(raw, id, kind);
      }),
    );
    for (const s of specs) if (s) out.push(s);
  }
  return out;
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

let shipped: Promise<TargetRegistryView> | undefined;

/** The shipped targets, read once per process. */
export function shippedTargets(): Promise<TargetRegistryView> {
  if (!shipped) {
    shipped = loadTargetTree(SHIPPED_ROOT).then(registryView);
    // A failed load must not be cached forever: the next call retries.
    shipped.catch(() => {
      shipped = undefined;
    });
  }
  return shipped;
}

export async function getTarget(id: string): Promise<TargetSpec | undefined> {
  return (await shippedTargets()).get(id);
}

export async function videoTargetIds(): Promise<string[]> {
  return (await shippedTargets()).ids("video");
}

/**
 * A show's own targets (`<show>/targets/<id>/target.json`, kind read from the file). An id equal to a shipped
 * id is ignored (no shadowing); a broken file is reported in `errors` and skipped so it cannot stop a build.
 * `showDir` is a checked real folder: a targets/ folder that leads out of it is refused (403), and a target.json
 * that does is reported and skipped, never read.
 */
export async function loadShowTargets(showDir: string): Promise<{ targets: TargetSpec[]; errors: string[] }> {
  const base = await shippedTargets();
  const fence = folderFence(showDir, "the show folder");
  const reader: TreeReader = {
    dirents: (d) => readShowDirents(fence, d),
    text: (f) => readShowText(fence, f),
  };
  const dir = path.join(showDir, "targets");
  const ids = await listDirs(dir, reader);
  const targets: TargetSpec[] = [];
  const errors: string[] = [];
  await Promise.all(
    ids.map(async (id) => {
      if (base.get(id)) return;
      try {
        const raw = await readTargetFile(path.join(dir, id, "target.json"), id, reader);
        if (raw !== undefined) targets.push(parseTarget(raw, id, undefined, true));
      } catch (err) {
        errors.push(errorMessage(err));
      }
    }),
  );
  targets.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  errors.sort();
  return { targets, errors };
}

/**
 * Shipped targets plus the show's own, as one view (what a build of an episode of that show uses). A show whose
 * targets/ leads out of its folder compiles with the shipped targets only: a compile thread cannot carry the
 * refusal's status, and the listing of the show's targets refuses it.
 */
export async function targetsForShow(showDir: string | null): Promise<TargetRegistryView> {
  const base = await shippedTargets();
  if (!showDir) return base;
  const { targets } = await loadShowTargets(showDir).catch((err: unknown) => {
    if (err instanceof StudioError && err.status === 403) return { targets: [] };
    throw err;
  });
  if (targets.length === 0) return base;
  const all: TargetSpec[] = [];
  for (const kind of TARGET_KINDS) for (const id of base.ids(kind)) all.push(base.get(id)!);
  return registryView([...all, ...targets]);
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
