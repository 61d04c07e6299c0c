// What a reference would be made with now: the default targets (editor, series config, built-in), the effective
// settings of a ref or one of its views (request > view override > ref override > target preset), and whether it
// can be generated here. Pure over their inputs; `readRefSettings` is the thin edge that reads them.
import path from "node:path";
import type { Services } from "../context.ts";
import { type EpisodeTargets, readOverrides } from "../episode/overrides-file.ts";
import { folderFence, readShowJson } from "../paths/guarded.ts";
import { parseLoras } from "../series/load.ts";
import { isObject, num, trimmed } from "../store/json-guards.ts";
import { defaultTargets, isBuiltinTarget } from "../targets/listing.ts";
import { type TargetRegistryView, type TargetSpec, takesNegative } from "../targets/registry.ts";
import { settingsTargetsRoot, targetsForShow } from "../targets/target-tree.ts";
import { sha256 } from "../text/digest.ts";
import type { CharacterView } from "./ids.ts";
import type { RefOverride, RefOverrideFields } from "./overrides.ts";
import type { RefsPlace } from "./place.ts";

// ------------------------------------------------------------------------------------------------ the defaults

export type DefaultSource = "editor" | "series" | "default";

export interface RefDefaults {
  target: string;
  target_source: DefaultSource;
  keyframe_target: string;
  keyframe_target_source: DefaultSource;
  voice_target: string;
  voice_target_source: DefaultSource;
}

/** The episode block's three keys as `PUT /refs/defaults` stores them in overrides.json. */
export const DEFAULT_KEYS = {
  target: "refs_target",
  keyframe_target: "keyframe_target",
  voice_target: "voice_target",
} as const;
export type DefaultKey = keyof typeof DEFAULT_KEYS;

export interface DefaultsInput {
  /** overrides.json `episode` (an object when the editor set something, else the plain name or absent). */
  episode: EpisodeTargets | string | null | undefined;
  /** The series config's `refs` block as written. */
  seriesRefs: unknown;
  /** The machine's default image and audio targets (settings' choice, else detected, else the built-in ones). */
  machine: { image: string; audio: string };
  registry: TargetRegistryView;
}

/** The image target keyframes default to where a real image engine is set up (it reads reference pictures). */
export const KEYFRAME_DEFAULT = "flux2_klein_edit";
/** The series config's built-in reference target, used when a show registers it. */
export const REFS_DEFAULT = "krea2";

/**
 * Which targets make reference pictures, keyframes and voices, strongest first: the editor's choice
 * (overrides.json `episode`), the series config's `refs` block, then the built-in default: `krea2` where the
 * machine renders real images, else the machine's image target (`card` on a machine with no image model);
 * keyframes `flux2_klein_edit` where the machine renders real images, else the references' target; voices the
 * machine's audio target.
 */
export function refDefaults(input: DefaultsInput): RefDefaults {
  const editor: Record<string, unknown> = isObject(input.episode) ? input.episode : {};
  const series = isObject(input.seriesRefs) ? input.seriesRefs : {};
  const pick = (key: DefaultKey, builtin: () => string): [string, DefaultSource] => {
    const fromEditor = trimmed(editor[DEFAULT_KEYS[key]]);
    if (fromEditor) return [fromEditor, "editor"];
    const fromSeries = trimmed(series[key]);
    if (fromSeries) return [fromSeries, "series"];
    return [builtin(), "default"];
  };
  const has = (id: string) => input.registry.get(id) !== undefined;
  // krea2 ships with the code, so "registered" alone would pick it on a machine that cannot render it: it is the
  // default only where the machine renders real images.
  const machineSpec = input.registry.get(input.machine.image);
  const realImages = machineSpec !== undefined && !isBuiltinTarget(machineSpec);
  const [target, target_source] = pick("target", () =>
    realImages && has(REFS_DEFAULT) ? REFS_DEFAULT : input.machine.image,
  );
  const [keyframe_target, keyframe_target_source] = pick("keyframe_target", () =>
    realImages && has(KEYFRAME_DEFAULT) ? KEYFRAME_DEFAULT : target,
  );
  const [voice_target, voice_target_source] = pick("voice_target", () => input.machine.audio);
  return {
    target,
    target_source,
    keyframe_target,
    keyframe_target_source,
    voice_target,
    voice_target_source,
  };
}

// ------------------------------------------------------------------------------------------- what a ref is

/** What effective settings need of a reference (a listed reference has these fields). */
export interface RefFacts {
  id: string;
  /** `character`, `prop`, `vehicle`, `location`, `voice`, `keyframe` (a group is a subject without views). */
  kind: string;
  /** The prompt the reference is built with (the sheet's, object's, plate's, voice's or keyframe's). */
  built_prompt: string | null;
  /** A character's four views with their own built prompts; `[]` for every other reference. */
  views: readonly { view: string; built_prompt: string | null }[];
}

/** The facts of a reference as the catalog words it (`prompt` per ref and per view). */
export function factsOf(ref: {
  ref: { id: string };
  kind: string;
  prompt: string | null;
  views: readonly { view: string; prompt: string | null }[];
}): RefFacts {
  return {
    id: ref.ref.id,
    kind: ref.kind,
    built_prompt: ref.prompt,
    views: ref.views.map((v) => ({ view: v.view, built_prompt: v.prompt })),
  };
}

export const isKeyframe = (ref: Pick<RefFacts, "id">) => ref.id.startsWith("shot:");
export const isVoice = (ref: Pick<RefFacts, "id">) => ref.id.startsWith("voice:");
export const isLocation = (ref: Pick<RefFacts, "id">) => ref.id.startsWith("location:");
/** A character with four views: its prompt overrides belong to a view. */
export const hasViews = (ref: Pick<RefFacts, "views">) => ref.views.length > 0;

/** The default key a reference's target comes from. */
export function defaultKeyOf(ref: Pick<RefFacts, "id">): DefaultKey {
  if (isKeyframe(ref)) return "keyframe_target";
  if (isVoice(ref)) return "voice_target";
  return "target";
}

/** The kind of target a reference is made on: voices on audio targets, everything else on image targets. */
export const targetKindOf = (ref: Pick<RefFacts, "id">): "image" | "audio" =>
  isVoice(ref) ? "audio" : "image";

/** The built prompt of the ref, or of one of its views. */
export function builtPromptOf(ref: RefFacts, view: string | null): string | null {
  if (view === null) return ref.built_prompt;
  return ref.views.find((v) => v.view === view)?.built_prompt ?? null;
}

// ------------------------------------------------------------------------------------- effective settings

export const PARAM_NAMES = ["sampler", "scheduler", "denoise", "shift", "guidance"] as const;
export type ParamName = (typeof PARAM_NAMES)[number];
export type RefParams = Partial<Record<ParamName, string | number>>;

export interface Lora {
  name: string;
  strength: number;
}

/** Values a generate request gives (already checked); each beats the override. */
export interface RefRequest {
  prompt?: string | null;
  seed?: bigint | null;
  model?: string | null;
  loras?: Lora[] | null;
  steps?: number | null;
  cfg?: number | null;
  size?: string | null;
  params?: RefParams | null;
  negative?: string | null;
  target?: string | null;
}

export interface EffectiveRef {
  prompt: string | null;
  seed: string;
  seed_source: "typed" | "override" | "stable";
  model: string | null;
  loras: Lora[];
  steps: number | null;
  width: number | null;
  height: number | null;
  cfg: number | null;
  params: RefParams;
  /** Null where the target takes no negative prompt. */
  negative: string | null;
  target: string;
}

export interface EffectiveInput {
  ref: RefFacts;
  view: CharacterView | null;
  /** The ref's entry of `_overrides.json`. */
  override: RefOverride | undefined;
  defaults: RefDefaults;
  registry: TargetRegistryView;
  request?: RefRequest;
  /** A keyframe's shot size for its pass (scaled up to the target's grid and least pixel count). */
  shotSize?: { width: number; height: number } | null;
}

/** The seed a reference keeps until someone types or draws another: from its id, so every episode agrees. */
export function stableRefSeed(id: string): bigint {
  const digest = sha256(`ref::${id}`);
  return new DataView(digest.buffer).getBigUint64(0) & ((1n << 63n) - 1n);
}

/** The override layers that apply, strongest first: the view's block, then the ref's. */
export function overrideLayers(override: RefOverride | undefined, view: string | null): RefOverrideFields[] {
  if (!override) return [];
  const own = view ? override.views?.[view] : undefined;
  return own ? [own, override] : [override];
}

function firstSet<T>(values: readonly (T | null | undefined)[]): T | undefined {
  for (const v of values) if (v !== undefined && v !== null) return v;
  return undefined;
}

/** `WxH` as numbers, or null. */
export function readSize(v: unknown): { width: number; height: number } | null {
  const m = typeof v === "string" ? /^\s*(\d+)\s*[xX]\s*(\d+)\s*$/.exec(v) : null;
  return m ? { width: Number(m[1]), height: Number(m[2]) } : null;
}

function presetOf(spec: TargetSpec | undefined): Record<string, unknown> {
  return { ...(spec?.presets.final ?? spec?.presets.proxy ?? {}) };
}

function presetLoras(preset: Record<string, unknown>): Lora[] {
  if (Array.isArray(preset.loras)) {
    return preset.loras
      .filter(isObject)
      .map((l) => ({ name: String(l.name), strength: num(l.strength) ?? 1 }));
  }
  const name = trimmed(preset.lora);
  if (!name) return [];
  try {
    return parseLoras(name).map((l) => ({
      name: l.name,
      strength: num(preset.lora_strength) ?? l.strength,
    }));
  } catch {
    return [];
  }
}

/** The params the target's binding takes (sampler, scheduler, ...). */
export function boundParams(spec: TargetSpec | undefined): Set<ParamName> {
  const params = spec && isObject(spec.binding.params) ? spec.binding.params : {};
  return new Set(PARAM_NAMES.filter((p) => p in params));
}

/** Whether the target takes a negative prompt (its capabilities say, else its binding has one). */
export const takesNegativePrompt = (spec: TargetSpec | undefined) => (spec ? takesNegative(spec) : false);

/** A picture size from the target's template (`view_size`, `plate_size`, `object_size`), else the built-in one. */
function shapeSize(ref: RefFacts, view: string | null, spec: TargetSpec | undefined) {
  const template = spec?.template ?? {};
  const [key, fallback] = isLocation(ref)
    ? (["plate_size", [1344, 768]] as const)
    : hasViews(ref) || view !== null
      ? (["view_size", [1024, 1024]] as const)
      : (["object_size", [1024, 1024]] as const);
  const declared = template[key];
  const pair =
    Array.isArray(declared) && declared.length === 2 && declared.every((n) => num(n) !== null)
      ? (declared as number[])
      : fallback;
  return { width: pair[0], height: pair[1] };
}

/**
 * A keyframe's size: the shot's size with the same aspect, scaled up (never down) until it has the target's
 * `min_pixels`, each side a multiple of the target's `size_multiple` (16 when it names none).
 */
export function keyframeSize(
  shot: { width: number; height: number },
  spec: TargetSpec | undefined,
): { width: number; height: number } {
  const grid = num(spec?.template.size_multiple) ?? 16;
  const least = num(spec?.template.min_pixels) ?? 0;
  const pixels = shot.width * shot.height;
  const scale = pixels > 0 && pixels < least ? Math.sqrt(least / pixels) : 1;
  const up = (n: number) => Math.max(grid, Math.ceil((n * scale) / grid) * grid);
  return { width: up(shot.width), height: up(shot.height) };
}

/** The settings a generation of the ref (or of one view) would use now, strongest layer winning. */
export function effectiveRef(input: EffectiveInput): EffectiveRef {
  const { ref, view, registry } = input;
  const req = input.request ?? {};
  const layers = overrideLayers(input.override, view);
  const from = <K extends keyof RefOverrideFields>(key: K) => layers.map((l) => l[key]);
  const target = firstSet([req.target, ...from("target")]) ?? input.defaults[defaultKeyOf(ref)];
  const spec = registry.get(target);
  const preset = presetOf(spec);

  const typedSeed = req.seed ?? null;
  const pinned = firstSet(from("seed"));
  const seed = typedSeed !== null ? typedSeed : pinned !== undefined ? BigInt(pinned) : stableRefSeed(ref.id);
  const seed_source = typedSeed !== null ? "typed" : pinned !== undefined ? "override" : "stable";

  const loras = firstSet<Lora[]>([req.loras, ...from("loras").map(loraList)]) ?? presetLoras(preset);
  const negativeOk = takesNegativePrompt(spec);
  const negative = negativeOk
    ? (firstSet([req.negative, ...from("negative")]) ??
      (typeof preset.negative === "string" ? preset.negative : null))
    : null;

  const bound = boundParams(spec);
  const params: RefParams = {};
  for (const p of PARAM_NAMES) {
    if (!bound.has(p)) continue;
    const value = firstSet([
      req.params?.[p],
      ...from("params").map((o) => paramOf(o, p)),
      paramOf(preset, p),
    ]);
    if (value !== undefined) params[p] = value;
  }

  let size = readSize(firstSet([req.size, ...from("size")]));
  if (isVoice(ref)) size = null;
  else if (isKeyframe(ref)) size = input.shotSize ? keyframeSize(input.shotSize, spec) : null;
  else size ??= shapeSize(ref, view, spec);

  return {
    prompt: firstSet([req.prompt, ...from("prompt")]) ?? builtPromptOf(ref, view),
    seed: String(seed),
    seed_source,
    model: firstSet([req.model, ...from("model")]) ?? trimmed(preset.model),
    loras,
    steps: firstSet([req.steps, ...from("steps")]) ?? num(preset.steps),
    width: size?.width ?? null,
    height: size?.height ?? null,
    cfg: firstSet([req.cfg, ...from("cfg")]) ?? num(preset.cfg),
    params,
    negative,
    target,
  };
}

function loraList(v: unknown): Lora[] | null {
  if (!Array.isArray(v)) return null;
  return v.filter(isObject).map((l) => ({ name: String(l.name), strength: num(l.strength) ?? 1 }));
}

function paramOf(block: unknown, p: ParamName): string | number | undefined {
  if (!isObject(block)) return undefined;
  const v = block[p];
  return typeof v === "string" || (typeof v === "number" && Number.isFinite(v)) ? v : undefined;
}

// ------------------------------------------------------------------------------------------ can it be made

export interface CanGenerate {
  can_generate: boolean;
  why_not: string | null;
}

/** Whether the ref can be generated on `target` here: voices are imported; the target must be an image target. */
export function canGenerate(
  ref: Pick<RefFacts, "id">,
  target: string,
  registry: TargetRegistryView,
): CanGenerate {
  if (isVoice(ref)) {
    return { can_generate: false, why_not: "voices are not generated: import a recording for this voice" };
  }
  const spec = registry.get(target);
  const known = () => registry.ids("image").join(", ") || "none";
  if (!spec) {
    return {
      can_generate: false,
      why_not: `the image target ${target} is not installed here (image targets: ${known()})`,
    };
  }
  if (spec.kind !== "image") {
    return {
      can_generate: false,
      why_not: `${target} is a ${spec.kind} target, not an image target (image targets: ${known()})`,
    };
  }
  return { can_generate: true, why_not: null };
}

// ------------------------------------------------------------------------------------------ the reading edge

export interface RefSettingsInputs {
  defaults: RefDefaults;
  /** The show's targets: the shipped ones and the show's own. */
  registry: TargetRegistryView;
}

/**
 * The defaults and the show's target registry for an episode: overrides.json's `episode` block, the series
 * config's `refs` block, the machine's default targets, and the targets of the show (its series home).
 */
export async function readRefSettings(
  services: Pick<Services, "home" | "env" | "caches" | "targets">,
  place: RefsPlace,
): Promise<RefSettingsInputs> {
  const [overrides, seriesRefs, machine, registry] = await Promise.all([
    readOverrides(services, place.ep),
    readSeriesRefs(services, place),
    defaultTargets(services),
    targetsForShow(services.targets, place.series.home, settingsTargetsRoot(services)),
  ]);
  return { defaults: refDefaults({ episode: overrides.episode, seriesRefs, machine, registry }), registry };
}

/** The series config's `refs` block; a config that does not read names nothing here (the build reports it). */
async function readSeriesRefs(services: Pick<Services, "caches">, place: RefsPlace): Promise<unknown> {
  const config = place.series.config;
  if (!config) return undefined;
  try {
    const raw = await readShowJson(
      services,
      folderFence(path.dirname(config), "the series home"),
      config,
      "series.json",
    );
    return isObject(raw) ? raw.refs : undefined;
  } catch {
    return undefined;
  }
}
