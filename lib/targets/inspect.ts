// A user's own ComfyUI workflow read as a target: its output node, its prompts, the widgets a render sets (seed,
// steps, size, length...), its model files, and what stays unbound, proposed as a draft target.json whose binding
// uses the widget-spec grammar; every problem that would stop it from rendering is listed.

import { comboOptions } from "../engines/comfyui/readiness.ts";
import { isObject } from "../store/json-guards.ts";
import { LOADER_FOLDERS } from "./folders.ts";
import { type ApiGraph, GraphError, isLink, jobClasses } from "./graph.ts";
import { globMatch } from "./modelid.ts";
import { parseTarget, TargetError, type TargetRegistryView, type TargetSpec } from "./registry.ts";

export interface InspectInput {
  /** The workflow as ComfyUI's /prompt takes it (a canvas converted already). */
  graph: ApiGraph;
  /** The canvas document when the workflow was one (its `properties.models` name download addresses). */
  canvas?: Record<string, unknown> | null;
  /** The engine's node catalogue (`/object_info`). */
  objectInfo: Record<string, unknown>;
  /** The shipped targets (a custom id may not take one of theirs; their model patterns name families). */
  shipped: TargetRegistryView;
  id?: string;
  label?: string;
  /** The saved workflow's name, when it was read from the engine: the binding looks it up there. */
  workflowName?: string;
}

interface Candidate {
  node: string;
  class_type: string;
  field: string;
  value: unknown;
  title: string;
}

export interface Inspection {
  proposal: Record<string, unknown>;
  /** Render parameter → the widget spec(s) bound. */
  matched: Record<string, unknown>;
  /** Parameters several widgets could take, none chosen. */
  ambiguous: { param: string; candidates: string[] }[];
  warnings: string[];
  models: {
    param: string;
    class_type: string;
    field: string;
    file: string;
    folder: string | null;
    family: string;
  }[];
  /** Classes not from ComfyUI's core (a node pack must be installed for them). */
  nodes: string[];
  unbound: string[];
  problems: string[];
  can_save: boolean;
}

/** Output nodes a target's saver takes over, by kind, with the saver block proposed for each. */
const SAVERS = {
  CreateVideo: {
    kind: "video",
    saver: {
      class_type: "H3SaveShot",
      inputs: { root: "project_root", subfolder: "subfolder", take: "take", sidecar: "sidecar" },
      replace: { class_type: "CreateVideo", inputs: { images: "images", audio: "audio" } },
      drop: ["SaveVideo", "PreviewAny"],
      set: { save_frames: false },
      core: { class_type: "SaveVideo", inputs: { filename_prefix: "prefix" } },
    },
  },
  SaveVideo: {
    kind: "video",
    saver: {
      class_type: "SaveVideo",
      core: { class_type: "SaveVideo", inputs: { filename_prefix: "prefix" } },
    },
  },
  SaveImage: {
    kind: "image",
    saver: {
      class_type: "H3SaveRefTake",
      inputs: { root: "project_root", subfolder: "subfolder", take: "take", sidecar: "sidecar" },
      replace: { class_type: "SaveImage", inputs: { images: "images" } },
      drop: ["PreviewImage"],
      core: { class_type: "SaveImage", inputs: { filename_prefix: "prefix" } },
    },
  },
  SaveAudio: {
    kind: "audio",
    saver: {
      class_type: "H3SaveRefAudio",
      inputs: { root: "project_root", subfolder: "subfolder", take: "take", sidecar: "sidecar" },
      replace: { class_type: "SaveAudio", inputs: { audio: "audio" } },
      core: { class_type: "SaveAudio", inputs: { filename_prefix: "prefix" } },
    },
  },
} as const;

/** Widget name → render parameter. */
const WIDGET_PARAMS: Record<string, string> = {
  seed: "seed",
  noise_seed: "seed",
  steps: "steps",
  cfg: "cfg",
  sampler_name: "sampler",
  scheduler: "scheduler",
  shift: "shift",
  denoise: "denoise",
  width: "width",
  height: "height",
  length: "length",
  fps: "fps",
  frame_rate: "fps",
};

/** Model params by loader field, in the order files are met (a second diffusion model is the low-noise expert). */
const MODEL_PARAMS: Record<string, string[]> = {
  diffusion_models: ["model", "model_low"],
  checkpoints: ["model", "model_low"],
  text_encoders: ["text_encoder", "text_encoder_2", "text_encoder_3"],
  vae: ["vae", "video_vae", "audio_vae"],
  clip_vision: ["clip_vision"],
  upscale_models: ["upscaler"],
  latent_upscale_models: ["latent_upscaler"],
};

const MODEL_FILE = /\.(safetensors|ckpt|pt|pth|bin|gguf|sft)$/i;
const CORE_MODULES = /^(nodes|comfy_extras(\.|$)|comfy_api_nodes(\.|$)|comfy(\.|$))/;

const titleOf = (g: ApiGraph, id: string) => g[id]._meta?.title ?? g[id].class_type;

function inputSpec(info: Record<string, unknown>, cls: string, field: string): unknown {
  const node = info[cls];
  if (!isObject(node) || !isObject(node.input)) return undefined;
  for (const section of ["required", "optional"]) {
    const s = node.input[section];
    if (isObject(s) && field in s) return s[field];
  }
  return undefined;
}

function isOptionalInput(info: Record<string, unknown>, cls: string, field: string): boolean {
  const node = info[cls];
  return (
    isObject(node) && isObject(node.input) && isObject(node.input.optional) && field in node.input.optional
  );
}

function numberOption(spec: unknown, key: string): number | undefined {
  if (!Array.isArray(spec) || !isObject(spec[1])) return undefined;
  const v = spec[1][key];
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/** The widget specs selecting exactly `ids` among nodes of `cls`: the class alone, `all`, titles, else null. */
function specFor(
  g: ApiGraph,
  cls: string,
  field: string,
  ids: string[],
  values: unknown[],
): Record<string, unknown>[] | null {
  const ofClass = Object.keys(g).filter((id) => g[id].class_type === cls);
  if (ofClass.length === 1) return [{ class_type: cls, field }];
  const same = values.every((v) => JSON.stringify(v) === JSON.stringify(values[0]));
  if (ids.length === ofClass.length && same) return [{ class_type: cls, field, all: true }];
  const titles = ids.map((id) => titleOf(g, id));
  const unique = titles.every((t) => ofClass.filter((o) => titleOf(g, o) === t).length === 1);
  if (ids.length === 1 && unique) return [{ class_type: cls, field, title: titles[0] }];
  return null;
}

/** The one spec selecting text node `id`: its class alone, its title, else the input of the node it feeds. */
function promptSpec(g: ApiGraph, id: string, input: string): Record<string, unknown> | null {
  const cls = g[id].class_type;
  const byClass = specFor(g, cls, "text", [id], [g[id].inputs.text]);
  if (byClass) return byClass[0];
  const readers = Object.values(g).filter((n) => {
    const v = n.inputs[input];
    return isLink(v) && v[0] === id;
  });
  for (const r of readers) {
    const fed = new Set(
      Object.values(g)
        .filter((n) => n.class_type === r.class_type && isLink(n.inputs[input]))
        .map((n) => String((n.inputs[input] as unknown[])[0])),
    );
    const same = [...fed].filter((f) => g[f]?.class_type === cls);
    if (same.length === 1) return { class_type: cls, field: "text", feeds: [r.class_type, input] };
  }
  return null;
}

/** Text nodes reached going up from a conditioning input (through conditioning nodes), nearest first. */
function textSources(g: ApiGraph, from: unknown): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const queue: unknown[] = [from];
  while (queue.length && seen.size < 200) {
    const link = queue.shift();
    if (!isLink(link) || seen.has(link[0]) || !g[link[0]]) continue;
    seen.add(link[0]);
    const node = g[link[0]];
    if (typeof node.inputs.text === "string") {
      out.push(link[0]);
      continue;
    }
    for (const [k, v] of Object.entries(node.inputs))
      if (k !== "clip" && k !== "vae" && isLink(v)) queue.push(v);
  }
  return out;
}

function familyOf(shipped: TargetRegistryView, file: string): string {
  const lower = file.toLowerCase().split("/").pop() ?? file;
  // The most specific pattern wins (`umt5_xxl*` over `*t5*xxl*`): the one with the most literal characters.
  let best: { family: string; weight: number } | null = null;
  for (const id of shipped.ids()) {
    for (const m of Object.values(shipped.get(id)?.models ?? {})) {
      if (typeof m.family !== "string" || !Array.isArray(m.patterns)) continue;
      for (const p of m.patterns) {
        if (typeof p !== "string" || !globMatch(p, lower)) continue;
        const weight = p.replace(/[*?]/g, "").length;
        if (!best || weight > best.weight) best = { family: m.family, weight };
      }
    }
  }
  return best?.family ?? lower.replace(MODEL_FILE, "");
}

const slug = (s: string) =>
  s
    .replace(/\.json$/i, "")
    .replace(/[^A-Za-z0-9_.-]+/g, "_")
    .replace(/^[^A-Za-z0-9]+/, "")
    .slice(0, 60) || "workflow";

/** The sizes of the proxy pass: half the final's long side, kept on the grid. */
function half(v: number, multiple: number): number {
  return Math.max(multiple, Math.round(v / 2 / multiple) * multiple);
}

/**
 * Inspect a workflow and propose a draft target (targets 6.4). Problems: no output node (thrown as an error by the
 * caller's 400), unknown classes, a proposal that does not validate or whose binding does not select its nodes.
 */
export function inspectGraph(input: InspectInput): Inspection {
  const g = input.graph;
  const info = input.objectInfo;
  const warnings: string[] = [];
  const problems: string[] = [];
  const ambiguous: Inspection["ambiguous"] = [];
  const params: Record<string, unknown> = {};
  const bound = new Set<string>();
  const bind = (param: string, specs: Record<string, unknown>[], nodes: string[], field: string) => {
    params[param] = specs.length === 1 ? specs[0] : specs;
    for (const n of nodes) bound.add(`${n}.${field}`);
  };

  // The output: the first class of the saver table the graph has (CreateVideo before SaveVideo: the pack saver
  // takes CreateVideo's inputs).
  const saverClass = (Object.keys(SAVERS) as (keyof typeof SAVERS)[]).find((c) =>
    Object.values(g).some((n) => n.class_type === c),
  );
  if (!saverClass)
    throw new InspectError(
      "the workflow has no output node (SaveVideo, CreateVideo, SaveImage or SaveAudio)",
    );
  const { kind, saver } = SAVERS[saverClass];
  const saverNodes = Object.keys(g).filter((id) => g[id].class_type === saverClass);
  if (saverNodes.length > 1)
    problems.push(`${saverNodes.length} ${saverClass} nodes: keep one output in the workflow`);
  const coreSavers = Object.keys(g).filter((id) => g[id].class_type === saver.core.class_type);
  if (coreSavers.length !== 1) {
    problems.push(
      `the workflow needs exactly one ${saver.core.class_type} node to save the take (found ${coreSavers.length})`,
    );
  }
  for (const id of coreSavers) bound.add(`${id}.filename_prefix`);

  // Unknown classes, and classes from packs.
  const nodes = new Set<string>();
  for (const n of Object.values(g)) {
    const ni = info[n.class_type];
    if (!isObject(ni)) problems.push(`node class ${n.class_type} is unknown to the backend`);
    else if (typeof ni.python_module === "string" && !CORE_MODULES.test(ni.python_module))
      nodes.add(n.class_type);
  }

  // Prompts: the text nodes feeding samplers' or guiders' positive and negative inputs.
  const pos = new Set<string>();
  const neg = new Set<string>();
  for (const n of Object.values(g)) {
    if (isLink(n.inputs.positive))
      for (const id of textSources(g, n.inputs.positive).slice(0, 1)) pos.add(id);
    if (isLink(n.inputs.negative))
      for (const id of textSources(g, n.inputs.negative).slice(0, 1)) neg.add(id);
  }
  for (const [param, set, other, input] of [
    ["prompt", pos, neg, "positive"],
    ["negative", neg, pos, "negative"],
  ] as const) {
    const ids = [...set].filter((id) => !other.has(id));
    if (ids.length === 0) continue;
    const spec = ids.length === 1 ? promptSpec(g, ids[0], input) : null;
    if (spec) bind(param, [spec], ids, "text");
    else
      ambiguous.push({ param, candidates: ids.map((id) => `${id} ${g[id].class_type} "${titleOf(g, id)}"`) });
  }

  // Widgets by name.
  const found = new Map<string, Candidate[]>();
  for (const [id, n] of Object.entries(g)) {
    for (const [field, value] of Object.entries(n.inputs)) {
      const param = WIDGET_PARAMS[field];
      if (!param || isLink(value) || value === null || typeof value === "object") continue;
      if (param === "fps" && n.class_type === saver.class_type) continue;
      const list = found.get(param) ?? [];
      list.push({ node: id, class_type: n.class_type, field, value, title: titleOf(g, id) });
      found.set(param, list);
    }
  }
  const values: Record<string, unknown> = {};
  for (const [param, cands] of found) {
    const classes = [...new Set(cands.map((c) => `${c.class_type}.${c.field}`))];
    const all: Record<string, unknown>[] = [];
    let ok = true;
    for (const key of classes) {
      const [cls, field] = key.split(".");
      const list = cands.filter((c) => c.class_type === cls && c.field === field);
      const s = specFor(
        g,
        cls,
        field,
        list.map((c) => c.node),
        list.map((c) => c.value),
      );
      if (s) all.push(...s);
      else ok = false;
    }
    // One value for the whole graph: every place that shows it takes it (fps on the video node and elsewhere);
    // several classes disagreeing on a size or a count is for the user to choose.
    const agree = cands.every((c) => JSON.stringify(c.value) === JSON.stringify(cands[0].value));
    if (ok && (classes.length === 1 || agree)) {
      bind(
        param,
        all,
        cands.map((c) => c.node),
        cands[0].field,
      );
      for (const c of cands) bound.add(`${c.node}.${c.field}`);
      values[param] = cands[0].value;
    } else {
      ambiguous.push({
        param,
        candidates: cands.map((c) => `${c.node} ${c.class_type}.${c.field} = ${JSON.stringify(c.value)}`),
      });
    }
  }

  // The pack saver writes the take at the graph's frame rate too (the video node it replaces is gone then).
  if (params.fps && saver.class_type === "H3SaveShot") {
    params.fps = [
      ...(Array.isArray(params.fps) ? params.fps : [params.fps]),
      { class_type: "H3SaveShot", field: "fps" },
    ];
  }

  // Model files: loader widgets whose value is a file of a models folder.
  const models: Inspection["models"] = [];
  const modelBlock: Record<string, Record<string, unknown>> = {};
  const presetFiles: Record<string, string> = {};
  const used = new Map<string, number>();
  let loraAnchor: string | null = null;
  let hasLoraLoader = false;
  for (const [id, n] of Object.entries(g)) {
    if (n.class_type.startsWith("LoraLoader")) hasLoraLoader = true;
    for (const [field, value] of Object.entries(n.inputs)) {
      if (typeof value !== "string" || !MODEL_FILE.test(value)) continue;
      const folder = LOADER_FOLDERS[`${n.class_type}.${field}`] ?? null;
      const choices = comboOptions(inputSpec(info, n.class_type, field));
      if (!folder && !choices) continue;
      bound.add(`${id}.${field}`);
      if (folder === "loras") continue;
      const names = MODEL_PARAMS[folder ?? ""] ?? [`model_${field}`];
      const k = used.get(folder ?? field) ?? 0;
      used.set(folder ?? field, k + 1);
      const param = names[k] ?? `${names[0]}_${k + 1}`;
      const family = familyOf(input.shipped, value);
      models.push({ param, class_type: n.class_type, field, file: value, folder, family });
      const specs = specFor(g, n.class_type, field, [id], [value]) ?? [
        { class_type: n.class_type, field, title: titleOf(g, id) },
      ];
      bind(param, specs, [id], field);
      modelBlock[param] = {
        family,
        patterns: [value.split("/").pop() ?? value],
        ...(folder ? { folder } : {}),
      };
      presetFiles[param] = value;
      if (choices && !choices.includes(value))
        warnings.push(
          `${value} (${n.class_type}.${field}) is not in the backend's ${folder ?? field} folder`,
        );
      if (param === "model" && (n.class_type === "UNETLoader" || n.class_type.startsWith("Checkpoint")))
        loraAnchor = n.class_type;
    }
  }
  if (loraAnchor && !hasLoraLoader && loraAnchor === "UNETLoader") {
    params.loras = {
      class_type: "LoraLoaderModelOnly",
      name: "lora_name",
      strength: "strength_model",
      input: "model",
      chain: true,
      insert_after: { class_type: "UNETLoader", output: 0 },
    };
  } else if (hasLoraLoader) {
    warnings.push("the workflow's own LoRA loaders are kept as they are; a shot's LoRAs are not applied");
  }

  // Pictures the workflow loads: one LoadImage is the shot's first frame; the readers that may go unfed are
  // disconnected for a shot without one, and a reader that must have it makes the first frame required.
  const loads = Object.keys(g).filter((id) => g[id].class_type === "LoadImage");
  const bindingInputs: Record<string, unknown> = {};
  const keyframeRecipe: Record<string, unknown> = {};
  if (loads.length === 1) {
    const readers = Object.values(g).flatMap((n) =>
      Object.entries(n.inputs)
        .filter(([, v]) => isLink(v) && v[0] === loads[0])
        .map(([k]) => ({ class_type: n.class_type, input: k })),
    );
    const required = readers.filter((r) => !isOptionalInput(info, r.class_type, r.input));
    bindingInputs.first = {
      class_type: "LoadImage",
      field: "image",
      disconnect: readers.filter((r) => !required.includes(r)),
    };
    keyframeRecipe.keyframes = ["first"];
    keyframeRecipe.keyframe_path = "refs/shots/{shot}/{end}.png";
    if (required.length) {
      keyframeRecipe.keyframe_required = {
        first: `the workflow loads a picture into ${required.map((r) => `${r.class_type}.${r.input}`).join(", ")}`,
      };
    }
    bound.add(`${loads[0]}.image`);
    for (const id of Object.keys(g)) if (g[id].class_type === "LoadImage") bound.add(`${id}.upload`);
  } else if (loads.length > 1) {
    warnings.push(
      `${loads.length} LoadImage nodes: none is taken as the first frame; each keeps its own picture`,
    );
  }

  // Unbound literal widgets (what the workflow fixes for every shot).
  const unbound: string[] = [];
  for (const [id, n] of Object.entries(g)) {
    for (const [field, value] of Object.entries(n.inputs)) {
      if (isLink(value) || bound.has(`${id}.${field}`)) continue;
      unbound.push(`${id} ${n.class_type}.${field}`);
    }
  }

  // Template from the widgets' own limits.
  const template: Record<string, unknown> = {};
  const spec1 = (p: string) => {
    const s = params[p];
    const first = Array.isArray(s) ? s[0] : s;
    return isObject(first) ? first : null;
  };
  const w = spec1("width");
  const sizeStep = w
    ? numberOption(inputSpec(info, String(w.class_type), String(w.field)), "step")
    : undefined;
  const multiple = sizeStep && sizeStep > 1 ? sizeStep : 8;
  template.size_multiple = multiple;
  template.size_fit = "snap";
  const l = spec1("length");
  if (kind === "video") {
    const ls = l ? inputSpec(info, String(l.class_type), String(l.field)) : undefined;
    const step = Math.max(1, Math.round(numberOption(ls, "step") ?? 1));
    const dflt = typeof values.length === "number" ? values.length : (numberOption(ls, "default") ?? 1);
    const max = Math.max(1, Math.min(Math.round(numberOption(ls, "max") ?? 1000), 10_000));
    template.frames = { step, base: ((Math.max(1, Math.round(dflt)) - 1) % step) + 1, max };
    template.fps = typeof values.fps === "number" && values.fps > 0 ? values.fps : 24;
    if (!l) warnings.push("no length widget found: every shot renders the workflow's own length");
  }

  // Audio: generated only when an AUDIO output reaches the video node.
  const saverNode = saverNodes[0] ? g[saverNodes[0]] : null;
  const audio =
    kind === "video" && saverNode !== null && isLink(saverNode.inputs.audio) ? "generate" : "none";

  const id = input.id ?? `custom_${slug(input.workflowName ?? "workflow")}`;
  const label = input.label ?? (input.workflowName ? input.workflowName.replace(/\.json$/i, "") : id);
  const final: Record<string, unknown> = { ...presetFiles, lora: null };
  for (const p of ["steps", "cfg", "sampler", "scheduler", "shift", "denoise"])
    if (values[p] !== undefined) final[p] = values[p];
  if (typeof values.width === "number" && typeof values.height === "number") {
    final.width = values.width;
    final.height = values.height;
  }
  const proxy: Record<string, unknown> = { ...final };
  if (typeof final.width === "number" && typeof final.height === "number") {
    proxy.width = half(final.width, multiple);
    proxy.height = half(final.height, multiple);
  }
  const downloads: Record<string, unknown> = {};
  for (const n of Array.isArray(input.canvas?.nodes) ? input.canvas.nodes : []) {
    const props = isObject(n) && isObject(n.properties) ? n.properties.models : undefined;
    if (!Array.isArray(props)) continue;
    for (const m of props) {
      if (isObject(m) && typeof m.name === "string" && typeof m.url === "string")
        downloads[m.name] = { folder: typeof m.directory === "string" ? m.directory : null, url: m.url };
    }
  }
  const binding: Record<string, unknown> = {
    ...(input.workflowName ? { workflow_name: input.workflowName } : { workflow: "workflow.json" }),
    env: `STUDIO_${id.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_WORKFLOW`,
    saver,
    params,
    ...(Object.keys(bindingInputs).length ? { inputs: bindingInputs } : {}),
    prune: true,
  };
  const proposal: Record<string, unknown> = {
    id,
    kind,
    label,
    short: label.slice(0, 24),
    draft: true,
    capabilities: { duration: "script", audio, negative_prompt: "negative" in params },
    template,
    recipe:
      kind === "video"
        ? {
            policies: [audio === "generate" ? "generate" : "silent"],
            prompt: audio === "generate" ? "prose" : "prose_silent",
            ...keyframeRecipe,
          }
        : {},
    binding,
    models: modelBlock,
    presets: { final, proxy },
    downloads,
    nodes: [...nodes].sort(),
  };

  problems.push(...validateProposal(proposal, g, input.shipped));
  return {
    proposal,
    matched: params,
    ambiguous,
    warnings,
    models,
    nodes: [...nodes].sort(),
    unbound,
    problems,
    can_save: problems.length === 0,
  };
}

/** A workflow that cannot become a target at all (no output node): the route answers 400. */
export class InspectError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InspectError";
  }
}

/**
 * Why a custom target.json cannot be used with `graph` (empty: it can): it must read as a target, not take a
 * shipped target's id, and every binding param must select its nodes in the graph as a job prepares it.
 */
export function validateProposal(
  raw: unknown,
  graph: ApiGraph | null,
  shipped: TargetRegistryView,
): string[] {
  const problems: string[] = [];
  const id = isObject(raw) && typeof raw.id === "string" ? raw.id : "";
  let spec: TargetSpec;
  try {
    spec = parseTarget(raw, id, undefined, true);
  } catch (err) {
    return [err instanceof TargetError ? err.message : String(err)];
  }
  if (shipped.get(spec.id)) problems.push(`id ${spec.id} is a built-in target's id: choose another`);
  if (!graph) {
    problems.push(`target ${spec.id}: no workflow to check the binding against`);
    return problems;
  }
  // A job sends the graph with the engine's own output node, or with the project's saver where it is installed.
  const saver = isObject(spec.binding.saver) ? spec.binding.saver : {};
  const modes: ("core" | "pack")[] = isObject(saver.replace) ? ["core", "pack"] : ["core"];
  for (const mode of modes) {
    try {
      jobClasses(spec, graph, { saver: mode });
    } catch (err) {
      const message = err instanceof GraphError ? err.message : String(err);
      if (!problems.includes(message)) problems.push(message);
    }
  }
  return problems;
}
