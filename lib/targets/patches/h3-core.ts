// MiniMax H3 Ref2VA on a stock ComfyUI: when the engine lacks the project's h3pipe pack (H3ShotListLoader,
// H3SaveShot), the take's graph is built from core nodes only: the loader's outputs become the take's own values and
// LoadImage/LoadAudio nodes of its uploaded references, and the workflow's CreateVideo -> SaveVideo saves the take.
import { isObject } from "../../store/json-guards.ts";
import {
  type ApiGraph,
  addNode,
  consumers,
  GraphError,
  nodesOf,
  type PatchInputs,
  type PatchValues,
} from "../graph.ts";
import type { TargetSpec } from "../registry.ts";

const LOADER = "H3ShotListLoader";
const SAVER = "H3SaveShot";
const REF = "MiniMaxH3ReferenceToVideo";

/** H3ShotListLoader's outputs that carry one of the take's values, by output slot (the rest are files or read-outs). */
const VALUE_SLOTS: Record<number, string> = {
  0: "shot_id",
  1: "prompt",
  9: "width",
  10: "height",
  11: "length",
  12: "steps",
  13: "seed",
  14: "audio_policy",
};
/** Slots of the loader's pictures (3 subjects, then the plate) and voices. */
const PICTURE_SLOTS = [2, 3, 4, 5];
const VOICE_SLOTS = [6, 7, 8];

/** The job-input roles the core path uploads, in slot order (the engine swaps each path for its upload name). */
export const pictureRole = (i: number) => `ref_image_${i}`;
export const voiceRole = (i: number) => `ref_audio_${i}`;

export type LoaderVariant = "pack" | "core";

/** The pack classes a loader target's shot-list path needs (`binding.packs`, else the loader and saver classes). */
export function loaderPackClasses(spec: TargetSpec): string[] {
  const out = new Set<string>();
  const packs = spec.binding.packs;
  if (isObject(packs))
    for (const p of Object.values(packs)) if (isObject(p) && typeof p.class === "string") out.add(p.class);
  if (isObject(spec.binding.loader) && typeof spec.binding.loader.class_type === "string")
    out.add(spec.binding.loader.class_type);
  return [...out].sort();
}

/**
 * Which graph a loader target sends to an engine whose node classes are `known`: the pack's shot-list path when
 * the engine has every pack class (or its catalogue is not known), else the core path. `undefined` for a target
 * without a shot-list loader, or one whose loader has no core path.
 */
export function loaderVariant(
  spec: TargetSpec,
  known: ReadonlySet<string> | null | undefined,
): LoaderVariant | undefined {
  const loader = spec.binding.loader;
  if (!isObject(loader) || loader.class_type !== LOADER) return undefined;
  if (!known) return "pack";
  return loaderPackClasses(spec).every((cls) => known.has(cls)) ? "pack" : "core";
}

/** What the take's notes say about the variant it was rendered with. */
export function variantNote(spec: TargetSpec, variant: LoaderVariant): string {
  const classes = loaderPackClasses(spec).join(", ");
  return variant === "pack"
    ? `rendered through the h3pipe node pack (${classes}) reading the frozen shot list`
    : `rendered on core ComfyUI nodes: the engine lacks the h3pipe node pack (${classes}), so the take's values, uploaded reference pictures and voices went into ${REF} directly and SaveVideo saved it`;
}

/** The core path's uploads among a job's inputs: pictures and voices in slot order. */
export function coreUploads(
  inputs: Readonly<Record<string, string>>,
): Pick<PatchInputs, "pictures" | "voices"> {
  const list = (role: (i: number) => string) => {
    const out: string[] = [];
    for (let i = 0; inputs[role(i)] !== undefined; i++) out.push(inputs[role(i)]);
    return out;
  };
  return { pictures: list(pictureRole), voices: list(voiceRole) };
}

/**
 * Ref2VA's workflow and binding without the pack: the loader's value outputs replaced by the take's values (the
 * prompt sections joined as the core node reads one text), its pictures and voices by LoadImage/LoadAudio nodes of
 * `inputs.pictures`/`inputs.voices` wired in order into `ref_images.ref_image_i`/`ref_audios.ref_audio_i` (empty
 * slots are left out), the pack saver deleted and the workflow's SaveVideo bound as the core saver.
 */
export function h3CoreVariant(
  spec: TargetSpec,
  graph: ApiGraph,
  values: PatchValues,
  inputs: PatchInputs,
): { spec: TargetSpec; graph: ApiGraph; notes: string[] } {
  const g = structuredClone(graph);
  const notes: string[] = [];
  const loaders = nodesOf(g, LOADER);
  const refs = nodesOf(g, REF);
  if (loaders.length !== 1 || refs.length !== 1) {
    throw new GraphError(
      spec.id,
      `core path: ${LOADER} matched ${loaders.length} and ${REF} ${refs.length} nodes, expected exactly one each`,
    );
  }
  const [loader] = loaders;
  const ref = g[refs[0]];
  for (const c of consumers(g, loader)) {
    const slot = (g[c.node].inputs[c.input] as [string, number])[1];
    delete g[c.node].inputs[c.input];
    const name = VALUE_SLOTS[slot];
    if (name === undefined) continue;
    let v = values[name];
    if (name === "prompt" && Array.isArray(v)) v = v.join("\n\n");
    if (v !== undefined && v !== null) g[c.node].inputs[c.input] = v;
  }
  delete g[loader];
  for (const id of nodesOf(g, SAVER)) delete g[id];

  const wire = (
    files: readonly string[],
    cls: string,
    key: (i: number) => string,
    max: number,
    what: string,
  ) => {
    files.slice(0, max).forEach((file, i) => {
      const id = addNode(
        g,
        `h3_${key(i).split(".")[1]}`,
        cls,
        { [cls === "LoadImage" ? "image" : "audio"]: file },
        `${what} ${i + 1} (core)`,
      );
      ref.inputs[key(i)] = [id, 0];
    });
    if (files.length > max)
      notes.push(`${spec.short} reads ${max} ${what}s; ${files.length - max} more left out`);
  };
  wire(
    inputs.pictures ?? [],
    "LoadImage",
    (i) => `ref_images.ref_image_${i}`,
    PICTURE_SLOTS.length,
    "reference picture",
  );
  wire(
    inputs.voices ?? [],
    "LoadAudio",
    (i) => `ref_audios.ref_audio_${i}`,
    VOICE_SLOTS.length,
    "voice sample",
  );

  const params = isObject(spec.binding.params) ? { ...spec.binding.params } : {};
  params.fps = { class_type: "CreateVideo", field: "fps" };
  const { loader: _loader, packs: _packs, ...binding } = spec.binding;
  const core: TargetSpec = {
    ...spec,
    binding: {
      ...binding,
      saver: { class_type: SAVER, core: { class_type: "SaveVideo", inputs: { filename_prefix: "prefix" } } },
      params,
    },
  };
  return { spec: core, graph: g, notes };
}
