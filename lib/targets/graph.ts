// Patching a target's API-format ComfyUI graph for one job (targets 3.12): widgets, LoRAs, saver, keyframes,
// reference chains, pruning; plus a JSON writer that keeps 64-bit seeds exact.

import { z } from "zod";
import { isObject } from "../store/json-guards.ts";
import { declaredInputs, hasDeclaredInputs } from "./patches/declared-inputs.ts";
import { h3Fl2vaInputs, shotListLoader } from "./patches/h3.ts";
import { h3CoreVariant } from "./patches/h3-core.ts";
import { ltx2IngredientsPatch, ltx2Patch } from "./patches/ltx2.ts";
import type { KeyframeEnd, LoraItem, TargetSpec } from "./registry.ts";

/** A link to another node's output: `[node id, output index]`. */
export type Link = [string, number];

export interface ApiNode {
  class_type: string;
  inputs: Record<string, unknown>;
  _meta?: { title?: string; [extra: string]: unknown };
}

/** API ("prompt") format: node id → node (engines A.3). */
export type ApiGraph = Record<string, ApiNode>;

/**
 * Job values a graph is patched with. `seed` may be a bigint: ComfyUI seeds go up to 2^64, past what a JS number
 * holds exactly, so a bigint is written into the graph as is and `graphJson` serialises it as a bare JSON number.
 */
export interface PatchValues {
  prompt?: string | string[];
  negative?: string | null;
  seed?: bigint | number;
  steps?: number;
  width?: number;
  height?: number;
  length?: number;
  fps?: number;
  model?: string | null;
  /** `null` leaves the graph's loaders alone; `[]` means no LoRA (loader strength 0, or removed under `base`). */
  loras?: LoraItem[] | null;
  cfg?: number;
  sampler?: string;
  /** The take's output name stem for the core saver (`filename_prefix`). */
  prefix?: string;
  /** The accelerator fallback (`base` preset) is in force: LoRA loaders with nothing to load are removed. */
  base?: boolean;
  [param: string]: unknown;
}

/** Uploaded file names (as ComfyUI's `LoadImage` reads them) for queue-time inputs. */
export interface PatchInputs {
  first?: string | null;
  last?: string | null;
  references?: string[];
  /** The composed reference sheet (ltx2, ltx2_ingredients). */
  sheet?: string | null;
  /** Panel pictures of the shot on disk: a target whose sheet is required refuses a job with panels but no sheet. */
  panels?: number;
  /** A dub's dialogue slice (an uploaded audio file) that a target anchors the take's sound to. */
  audio?: string | null;
  /** A shot-list target's core path: its reference pictures (subjects, then the plate) and voices, in slot order. */
  pictures?: string[];
  voices?: string[];
}

export interface PatchOptions {
  /**
   * `core` (default): the project's saver nodes are not installed, so the workflow's own core output node
   * (`binding.saver.core`, e.g. `SaveVideo`) stays and the engine reads outputs from `/history`. `pack`: the saver
   * named by `binding.saver` replaces the workflow's output node as node `h3_saver`.
   */
  saver?: "core" | "pack";
  /**
   * Pack saver inputs by job value name (`project_root`, `subfolder`, `take`, `sidecar`, …); `save_latent: true`
   * wires the sampler named by `binding.saver.latent` into the saver's `latent` input.
   */
  saverValues?: Record<string, unknown>;
  /** Node classes the engine knows (its `/object_info`), when known: optional features whose nodes are missing stay off. */
  known?: ReadonlySet<string> | null;
  /**
   * Keep the workflow's review nodes (`binding.review_nodes`: review_copy is on, so the backend also writes a second
   * copy). Off (default): they are deleted with what consumes them, never the saver or what feeds it.
   */
  review?: boolean;
  /**
   * A shot-list loader target's graph: `pack` (default) reads the frozen shot list through the pack's loader and
   * saver; `core` builds it from core nodes for an engine without the pack (lib/targets/patches/h3-core.ts).
   */
  variant?: "pack" | "core";
}

export interface PatchResult {
  graph: ApiGraph;
  /** Id of the output node the job's result comes from (the saver). */
  saver: string;
  /** Things a person should know about this patch (unused values, removed features). */
  notes: string[];
  /** `predicted`: every length widget reads the duration head's frame count (targets 3.12.4). */
  length_source?: "predicted";
}

// The binding's specs as target.json writes them; a spec that does not fit its shape is refused by name.
const txt = z.string();
const inputNames = z.record(z.string(), txt);

const widgetSpec = z.looseObject({
  class_type: txt,
  field: txt,
  title: txt.optional(),
  feeds: z.tuple([txt, txt]).optional(),
  all: z.boolean().optional(),
  scale: z.number().optional(),
});
type WidgetSpec = z.output<typeof widgetSpec>;

const loraSpec = z.looseObject({
  class_type: txt,
  name: txt,
  strength: txt,
  strength_clip: txt.optional(),
  input: txt.optional(),
  chain: z.boolean().optional(),
  title: txt.optional(),
  stage: txt.optional(),
  insert_after: z.looseObject({ class_type: txt, title: txt.optional(), output: z.number() }).optional(),
});
type LoraSpec = z.output<typeof loraSpec>;

const saverSpecSchema = z.looseObject({
  class_type: txt,
  inputs: inputNames.optional(),
  replace: z.looseObject({ class_type: txt, inputs: inputNames }).optional(),
  replaces: txt.optional(),
  drop: z.array(txt).optional(),
  set: z.record(z.string(), z.unknown()).optional(),
  core: z
    .looseObject({
      class_type: txt,
      inputs: inputNames.optional(),
      set: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
  latent: z.looseObject({ class_type: txt, output: z.number(), upstream_of: txt.optional() }).optional(),
});
type SaverSpec = z.output<typeof saverSpecSchema>;

/** A graph or binding problem, worded for the person who owns the workflow. */
export class GraphError extends Error {
  readonly target: string;
  constructor(target: string, message: string) {
    super(`${target}: ${message}`);
    this.name = "GraphError";
    this.target = target;
  }
}

export const isLink = (v: unknown): v is Link =>
  Array.isArray(v) && v.length === 2 && typeof v[0] === "string" && typeof v[1] === "number";

const titleOf = (n: ApiNode) => (typeof n._meta?.title === "string" ? n._meta.title : "");

// structuredClone, not a JSON round trip: a bigint seed from an earlier patch must survive the copy.
const copyGraph = (g: ApiGraph): ApiGraph => structuredClone(g);

// ─── small graph operations ──────────────────────────────────────────────────────────────────────────────────

/** Ids of nodes of `classType`, in graph order. */
export function nodesOf(g: ApiGraph, classType: string): string[] {
  return Object.keys(g).filter((id) => g[id].class_type === classType);
}

/** Every `[node, input]` that reads output `slot` of `id` (any output when `slot` is omitted). */
export function consumers(g: ApiGraph, id: string, slot?: number): { node: string; input: string }[] {
  const out: { node: string; input: string }[] = [];
  for (const [nid, n] of Object.entries(g)) {
    for (const [name, v] of Object.entries(n.inputs)) {
      if (isLink(v) && v[0] === id && (slot === undefined || v[1] === slot))
        out.push({ node: nid, input: name });
    }
  }
  return out;
}

/** Point every reader of `from` (node, output) at `to`, except readers in `except`. */
export function repoint(g: ApiGraph, from: Link, to: Link, except: ReadonlySet<string> = new Set()): void {
  for (const c of consumers(g, from[0], from[1])) {
    if (!except.has(c.node)) g[c.node].inputs[c.input] = [to[0], to[1]];
  }
}

/** Delete `id` and, recursively, every node that reads it (a consumer without its input cannot run). */
export function deleteWithConsumers(g: ApiGraph, id: string): void {
  if (!g[id]) return;
  const readers = [...new Set(consumers(g, id).map((c) => c.node))];
  delete g[id];
  for (const r of readers) deleteWithConsumers(g, r);
}

/** Remove `id`, giving each reader of its output the source of `input` instead (a pass-through splice). */
export function spliceOut(g: ApiGraph, id: string, input: string): void {
  const src = g[id]?.inputs[input];
  if (!isLink(src)) {
    deleteWithConsumers(g, id);
    return;
  }
  for (const c of consumers(g, id)) g[c.node].inputs[c.input] = [src[0], src[1]];
  delete g[id];
}

/** A new id: `stem` plus the smallest unused positive integer (targets 3.12.5). */
export function freshId(g: ApiGraph, stem: string): string {
  for (let i = 1; ; i++) if (!(`${stem}${i}` in g)) return `${stem}${i}`;
}

/** The next free numeric id (LoRA loaders and chain copies use numeric ids like the rest of the graph). */
function nextNumericId(g: ApiGraph): string {
  let max = 0;
  for (const id of Object.keys(g)) if (/^\d+$/.test(id)) max = Math.max(max, Number(id));
  return String(max + 1);
}

export function addNode(
  g: ApiGraph,
  id: string,
  classType: string,
  inputs: Record<string, unknown>,
  title: string,
) {
  g[id] = { class_type: classType, inputs, _meta: { title } };
  return id;
}

/** The saver and every node it depends on. */
function ancestors(g: ApiGraph, root: string): Set<string> {
  const keep = new Set<string>();
  const stack = [root];
  while (stack.length) {
    const id = stack.pop()!;
    if (keep.has(id) || !g[id]) continue;
    keep.add(id);
    for (const v of Object.values(g[id].inputs)) if (isLink(v)) stack.push(v[0]);
  }
  return keep;
}

// ─── widget specs ────────────────────────────────────────────────────────────────────────────────────────────

function describe(spec: WidgetSpec): string {
  const parts = [spec.class_type];
  if (spec.title !== undefined) parts.push(`titled "${spec.title}"`);
  if (spec.feeds) parts.push(`feeding ${spec.feeds[0]}.${spec.feeds[1]}`);
  return parts.join(" ");
}

/**
 * The nodes a widget spec selects: all of its class, narrowed by title and feeds (targets 1.5); throws naming
 * class, filter and count.
 */
export function selectNodes(g: ApiGraph, spec: WidgetSpec, target: string, param: string): string[] {
  let ids = nodesOf(g, spec.class_type);
  if (spec.title !== undefined) ids = ids.filter((id) => titleOf(g[id]) === spec.title);
  if (spec.feeds) {
    const [cls, input] = spec.feeds;
    const fed = new Set<string>();
    for (const n of Object.values(g)) {
      const v = n.inputs[input];
      if (n.class_type === cls && isLink(v)) fed.add(v[0]);
    }
    ids = ids.filter((id) => fed.has(id));
  }
  const ok = spec.all ? ids.length >= 1 : ids.length === 1;
  if (!ok) {
    const want = spec.all ? "at least one" : "exactly one";
    throw new GraphError(
      target,
      `param '${param}': ${describe(spec)} matched ${ids.length} node${ids.length === 1 ? "" : "s"}` +
        `${ids.length ? ` (${ids.join(", ")})` : ""}, expected ${want}; fix the workflow or the binding`,
    );
  }
  return ids;
}

function scaled(value: unknown, scale: number | undefined): unknown {
  if (scale === undefined || typeof value !== "number") return value;
  const v = value * scale;
  return Number.isInteger(value) ? Math.round(v) : v;
}

function asSpecs(raw: unknown): Record<string, unknown>[] {
  if (Array.isArray(raw)) return raw.filter(isObject);
  return isObject(raw) ? [raw] : [];
}

// ─── the patch ───────────────────────────────────────────────────────────────────────────────────────────────

/** One patch in progress: the graph being changed and what the target patches report back. */
export interface Ctx {
  spec: TargetSpec;
  g: ApiGraph;
  notes: string[];
  /** Classes whose specs are skipped: they only exist with the other saver. */
  skipClasses: Set<string>;
  /** Classes the engine knows, when known (a feature whose nodes are missing is left out). */
  known?: ReadonlySet<string> | null;
  lengthSource?: "predicted";
}

export function setParam(ctx: Ctx, param: string, value: unknown): void {
  for (const s of asSpecs(params(ctx.spec)[param])) {
    if (s.via === "loader") continue;
    const parsed = widgetSpec.safeParse(s);
    if (!parsed.success) continue;
    const ws = parsed.data;
    if (ctx.skipClasses.has(ws.class_type)) continue;
    for (const id of selectNodes(ctx.g, ws, ctx.spec.id, param)) {
      ctx.g[id].inputs[ws.field] = scaled(value, ws.scale);
    }
  }
}

function params(spec: TargetSpec): Record<string, unknown> {
  return isObject(spec.binding.params) ? spec.binding.params : {};
}

function saverSpec(spec: TargetSpec): SaverSpec | null {
  const s = spec.binding.saver;
  if (!isObject(s) || typeof s.class_type !== "string") return null;
  return specOf(saverSpecSchema, s, spec.id, "binding.saver");
}

/** A binding spec in its shape, else a GraphError naming the field that does not fit. */
function specOf<T>(schema: z.ZodType<T>, raw: unknown, target: string, where: string): T {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = [where, ...(issue?.path ?? []).map(String)].join(".");
  throw new GraphError(target, `${field}: ${issue?.message ?? "does not fit its shape"}`);
}

/** The pack saver: it takes the replaced node's inputs; returns the saver id (targets 3.12.1 step 2). */
function placePackSaver(ctx: Ctx, saver: SaverSpec): string {
  const { g } = ctx;
  const existing = nodesOf(g, saver.class_type);
  if (existing.length) return existing[0];
  const replace = saver.replace ?? (saver.replaces ? { class_type: saver.replaces, inputs: {} } : undefined);
  const inputs: Record<string, unknown> = {};
  if (replace) {
    const found = nodesOf(g, replace.class_type);
    if (found.length !== 1) {
      throw new GraphError(
        ctx.spec.id,
        `saver: ${replace.class_type} matched ${found.length} nodes, expected exactly one to replace with ${saver.class_type}`,
      );
    }
    const old = g[found[0]];
    for (const [to, from] of Object.entries(replace.inputs)) {
      if (old.inputs[from] !== undefined) inputs[to] = structuredClone(old.inputs[from]);
    }
    deleteWithConsumers(g, found[0]);
  }
  Object.assign(inputs, saver.set ?? {});
  for (const cls of saver.drop ?? []) for (const id of nodesOf(g, cls)) deleteWithConsumers(g, id);
  return addNode(g, "h3_saver", saver.class_type, inputs, `${saver.class_type} (h3pipe)`);
}

/**
 * The sampler whose latent the pack saver keeps (targets 3.12.1 step 8). `upstream_of` picks the nearest node of
 * the class above that saver input (the last stage of a two-stage graph), else the class must be unique.
 */
function wireLatent(ctx: Ctx, saverId: string, latent: NonNullable<SaverSpec["latent"]>): void {
  const { g } = ctx;
  let found: string | null = null;
  if (latent.upstream_of) {
    const start = g[saverId].inputs[latent.upstream_of];
    const queue = isLink(start) ? [start[0]] : [];
    const seen = new Set<string>();
    while (queue.length && !found) {
      const id = queue.shift()!;
      if (seen.has(id) || !g[id]) continue;
      seen.add(id);
      if (g[id].class_type === latent.class_type) found = id;
      for (const v of Object.values(g[id].inputs)) if (isLink(v)) queue.push(v[0]);
    }
  } else {
    const all = nodesOf(g, latent.class_type);
    found = all.length === 1 ? all[0] : null;
  }
  if (!found) {
    throw new GraphError(ctx.spec.id, `saver.latent: no single ${latent.class_type} to keep the latent of`);
  }
  g[saverId].inputs.latent = [found, latent.output];
}

/** Core form: the workflow's own output node stays (the saver pack is not installed). */
function findCoreSaver(ctx: Ctx, saver: SaverSpec | null): string {
  const { g } = ctx;
  const cls = saver?.core?.class_type;
  if (!cls) throw new GraphError(ctx.spec.id, "binding.saver.core names no output node class");
  for (const d of saver?.drop ?? []) {
    if (d !== cls) for (const id of nodesOf(g, d)) deleteWithConsumers(g, id);
  }
  const found = nodesOf(g, cls);
  if (found.length !== 1) {
    throw new GraphError(
      ctx.spec.id,
      `saver: ${cls} matched ${found.length} nodes, expected exactly one output node in the workflow`,
    );
  }
  return found[0];
}

// LoRAs (targets 3.12.2) ──────────────────────────────────────────────────────────────────────────────────────

function loraStage(item: LoraItem): string | null {
  if (item.stage) return item.stage;
  const n = item.name.toLowerCase();
  if (/high[_-]?noise/.test(n)) return "high";
  if (/low[_-]?noise/.test(n)) return "low";
  return null;
}

function applyLoras(ctx: Ctx, ls: LoraSpec, items: LoraItem[], base: boolean): void {
  const { g, spec } = ctx;
  const mine = items.filter((l) => {
    const st = loraStage(l);
    return !ls.stage || st === null || st === ls.stage;
  });
  const input = ls.input ?? "model";
  const isClipLoader = ls.class_type === "LoraLoader";
  let loaders = nodesOf(g, ls.class_type);
  if (ls.title !== undefined) loaders = loaders.filter((id) => titleOf(g[id]) === ls.title);

  if (mine.length === 0) {
    if (base) {
      // Strength 0 would still make ComfyUI load a file the accelerator fallback knows is missing.
      for (const id of loaders) {
        if (isClipLoader) for (const c of consumers(g, id, 1)) g[c.node].inputs[c.input] = g[id].inputs.clip;
        spliceOut(g, id, input);
      }
      if (loaders.length)
        ctx.notes.push(`removed ${loaders.length} LoRA loader(s): the base preset has no LoRA`);
    } else if (loaders.length) {
      g[loaders[0]].inputs[ls.strength] = 0;
      if (ls.strength_clip) g[loaders[0]].inputs[ls.strength_clip] = 0;
    }
    return;
  }
  if (mine.length > 1 && !ls.chain) {
    throw new GraphError(
      spec.id,
      `param 'loras': ${mine.length} LoRAs but the ${ls.class_type} binding does not chain`,
    );
  }
  const fill = (id: string, l: LoraItem) => {
    g[id].inputs[ls.name] = l.name;
    g[id].inputs[ls.strength] = l.strength;
    if (ls.strength_clip) g[id].inputs[ls.strength_clip] = l.strength;
  };

  let first: string;
  if (loaders.length) {
    first = loaders[0];
  } else if (ls.insert_after) {
    const ia = ls.insert_after;
    const anchor = selectNodes(
      g,
      { class_type: ia.class_type, field: "", title: ia.title },
      spec.id,
      "loras (insert_after)",
    )[0];
    first = nextNumericId(g);
    const inputs: Record<string, unknown> = { [input]: [anchor, ia.output] };
    // A clip-and-model loader after a checkpoint also takes over the checkpoint's CLIP output (slot 1).
    if (isClipLoader) inputs.clip = [anchor, 1];
    addNode(g, first, ls.class_type, inputs, ls.title ?? "LoRA 1 (h3jobs)");
    repoint(g, [anchor, ia.output], [first, 0], new Set([first]));
    if (isClipLoader) repoint(g, [anchor, 1], [first, 1], new Set([first]));
  } else {
    throw new GraphError(
      spec.id,
      `param 'loras': no ${ls.class_type} node${ls.title ? ` titled "${ls.title}"` : ""} to load ${mine[0].name} and no insert_after`,
    );
  }
  fill(first, mine[0]);
  let last = first;
  const chain = new Set([first]);
  for (let i = 1; i < mine.length; i++) {
    const id = nextNumericId(g);
    const inputs: Record<string, unknown> = { ...g[first].inputs, [input]: [last, 0] };
    if (isClipLoader) inputs.clip = [last, 1];
    addNode(g, id, ls.class_type, inputs, `LoRA ${i + 1} (h3jobs)`);
    fill(id, mine[i]);
    chain.add(id);
    last = id;
  }
  if (last !== first) {
    repoint(g, [first, 0], [last, 0], chain);
    if (isClipLoader) repoint(g, [first, 1], [last, 1], chain);
  }
}

// Wan 2.2 keyframes and expert stages (targets 3.12.3) ─────────────────────────────────────────────────────

/** The single `LoadImage` feeding `input` of the one `cls` node; `null` when that input is not wired to one. */
function loadFeeding(ctx: Ctx, cls: string, input: string): { node: string; load: string | null } {
  const { g, spec } = ctx;
  const ids = nodesOf(g, cls);
  if (ids.length !== 1) {
    throw new GraphError(spec.id, `keyframes: ${cls} matched ${ids.length} nodes, expected exactly one`);
  }
  const src = g[ids[0]].inputs[input];
  const load = isLink(src) && g[src[0]]?.class_type === "LoadImage" ? src[0] : null;
  return { node: ids[0], load };
}

function requiredReason(spec: TargetSpec, end: KeyframeEnd): string | null {
  const why = spec.recipe.keyframe_required?.[end];
  return typeof why === "string" ? why : null;
}

/**
 * The first frame into the `LoadImage` feeding `start_image` of the one `cls` node, whose id it returns; without a
 * frame the input is removed, so the prune drops the loader and the node starts from noise.
 */
function wanStartImage(ctx: Ctx, cls: string, first: string | null | undefined): string {
  const { g, spec } = ctx;
  const { node, load } = loadFeeding(ctx, cls, "start_image");
  if (!first) {
    delete g[node].inputs.start_image;
    return node;
  }
  if (!load) throw new GraphError(spec.id, `first frame: ${cls}.start_image reads no LoadImage`);
  g[load].inputs.image = first;
  return node;
}

function wanI2vKeyframes(ctx: Ctx, inputs: PatchInputs): void {
  const { g, spec } = ctx;
  if (!inputs.first) {
    throw new GraphError(spec.id, `no first frame: ${requiredReason(spec, "first") ?? "the shot needs one"}`);
  }
  const node = wanStartImage(ctx, "WanImageToVideo", inputs.first);
  if (!inputs.last) return;
  // The first/last node takes the same conditioning, VAE and size; its CLIP vision input has another name.
  const old = g[node].inputs;
  const next: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(old)) {
    if (k === "clip_vision_output") next.clip_vision_start_image = v;
    else if (k !== "ref_pad_image") next[k] = v;
  }
  const lastLoad = addNode(
    g,
    freshId(g, "h3_last_frame_"),
    "LoadImage",
    { image: inputs.last },
    "last frame (h3pipe)",
  );
  next.end_image = [lastLoad, 0];
  g[node] = {
    class_type: "WanFirstLastFrameToVideo",
    inputs: next,
    _meta: { ...g[node]._meta, title: "Wan first/last frame to video (h3pipe)" },
  };
}

/** A colour of the VACE control video: the recipe's `control` value, else the usual one. */
function controlColour(spec: TargetSpec, key: "grey" | "keep" | "generate", fallback: number): number {
  const control = (spec.recipe as Record<string, unknown>).control;
  const v = isObject(control) ? control[key] : undefined;
  return typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= 0xffffff ? v : fallback;
}

/**
 * Wan VACE: the composed reference picture into the `LoadImage` feeding `reference_image` (none: the input is
 * removed and the prompt alone leads), and the keyframes as a control video. The video is each keyframe scaled to
 * the render size with mid-grey frames between them; its mask keeps the keyframes (black) and generates the grey
 * frames (white), read from the red channel.
 */
function wanVaceInputs(ctx: Ctx, inputs: PatchInputs): void {
  const { g, spec } = ctx;
  const refs = inputs.references ?? [];
  const { node: vace, load } = loadFeeding(ctx, "WanVaceToVideo", "reference_image");
  if (refs.length === 0) delete g[vace].inputs.reference_image;
  else {
    if (!load) throw new GraphError(spec.id, "reference: WanVaceToVideo.reference_image reads no LoadImage");
    g[load].inputs.image = refs[0];
    if (refs.length > 1)
      ctx.notes.push(`${spec.short} reads one composed reference picture; ${refs.length - 1} more unused`);
  }
  const keys = [inputs.first, inputs.last];
  const count = keys.filter(Boolean).length;
  if (count === 0) return;
  const { width: w, height: h, length: n } = g[vace].inputs;
  if (typeof w !== "number" || typeof h !== "number" || typeof n !== "number") {
    throw new GraphError(spec.id, "control video: WanVaceToVideo's width, height and length must be numbers");
  }
  const middle = n - count;
  if (middle < 1) {
    throw new GraphError(spec.id, `control video: ${n} frames leave no frame between ${count} keyframes`);
  }
  const add = (cls: string, inputs: Record<string, unknown>, title: string) =>
    addNode(g, freshId(g, "h3_vace_key_"), cls, inputs, `${title} (h3pipe)`);
  const plain = (frames: number, colour: number, title: string) =>
    add("EmptyImage", { width: w, height: h, batch_size: frames, color: colour }, title);
  const video: string[] = [];
  const masks: string[] = [];
  const keep = controlColour(spec, "keep", 0);
  const key = (file: string, end: string) => {
    const loaded = add("LoadImage", { image: file }, `${end} frame`);
    video.push(
      add(
        "ImageScale",
        { image: [loaded, 0], upscale_method: "lanczos", width: w, height: h, crop: "center" },
        `${end} frame scaled`,
      ),
    );
    masks.push(plain(1, keep, `${end} frame kept`));
  };
  if (inputs.first) key(inputs.first, "first");
  video.push(plain(middle, controlColour(spec, "grey", 0x7f7f7f), "frames to generate"));
  masks.push(plain(middle, controlColour(spec, "generate", 0xffffff), "frames to generate, mask"));
  if (inputs.last) key(inputs.last, "last");
  const batch = (ids: string[], title: string) =>
    ids.slice(1).reduce((acc, id) => add("ImageBatch", { image1: [acc, 0], image2: [id, 0] }, title), ids[0]);
  g[vace].inputs.control_video = [batch(video, "control video"), 0];
  const mask = add(
    "ImageToMask",
    { image: [batch(masks, "control mask"), 0], channel: "red" },
    "control mask",
  );
  g[vace].inputs.control_masks = [mask, 0];
}

/**
 * The two-expert split: the high noise sampler runs steps 0..split, the low noise one split..end, with
 * `split = round(steps * frac)` kept inside 1..steps-1 (frac: the job's `split`, else 0.5); a single step all goes
 * to the high noise expert.
 */
function wanStageSplit(ctx: Ctx, values: PatchValues): void {
  const { g, spec } = ctx;
  const stages = isObject(spec.binding.stages) ? spec.binding.stages : {};
  const samplerOf = (stage: string): string => {
    const st = stages[stage];
    const title = isObject(st) && typeof st.sampler === "string" ? st.sampler : null;
    if (!title) throw new GraphError(spec.id, `binding.stages.${stage}.sampler names no sampler title`);
    const ids = Object.keys(g).filter((id) => titleOf(g[id]) === title);
    if (ids.length !== 1) {
      throw new GraphError(
        spec.id,
        `stages: a node titled "${title}" matched ${ids.length} nodes, expected exactly one`,
      );
    }
    return ids[0];
  };
  const high = samplerOf("high");
  const low = samplerOf("low");
  const raw = values.steps ?? g[high].inputs.steps;
  const steps = typeof raw === "number" && raw >= 1 ? Math.round(raw) : 1;
  const frac = typeof values.split === "number" && values.split > 0 && values.split < 1 ? values.split : 0.5;
  const split = Math.max(1, Math.min(steps - 1, Math.round(steps * frac)));
  Object.assign(g[high].inputs, { start_at_step: 0, end_at_step: split });
  Object.assign(g[low].inputs, { start_at_step: split, end_at_step: 10000 });
}

// Reference chains for edit targets (targets 3.12.3) ──────────────────────────────────────────────────────

function referenceChains(ctx: Ctx, names: string[]): void {
  const { g, spec } = ctx;
  const refs = isObject(spec.binding.references) ? spec.binding.references : {};
  const links = specOf(inputNames, refs.links ?? {}, spec.id, "binding.references.links");
  const max = typeof spec.capabilities.max_refs === "number" ? spec.capabilities.max_refs : Infinity;
  if (names.length > max) {
    throw new GraphError(spec.id, `${names.length} reference images, but ${spec.short} reads at most ${max}`);
  }
  const head = Object.keys(g).filter((id) => titleOf(g[id]) === "Reference 1");
  if (head.length !== 1) {
    throw new GraphError(
      spec.id,
      `references: a node titled "Reference 1" matched ${head.length} nodes, expected exactly one`,
    );
  }
  const chain = Object.keys(g).filter((id) => {
    const t = titleOf(g[id]);
    return t === "Reference 1" || t.startsWith("Reference 1 ");
  });
  const roleOf = (id: string) => titleOf(g[id]).slice("Reference 1".length).trim();
  const roleNodes: Record<string, string> = {};
  for (const id of chain) {
    const role = roleOf(id);
    if (role in links) roleNodes[role] = id;
  }
  for (const role of Object.keys(links)) {
    if (!roleNodes[role]) throw new GraphError(spec.id, `references: no node titled "Reference 1 ${role}"`);
  }
  const inChain = new Set(chain);

  if (names.length === 0) {
    for (const [role, id] of Object.entries(roleNodes)) {
      const src = g[id].inputs[links[role]];
      for (const c of consumers(g, id, 0)) {
        if (!inChain.has(c.node)) g[c.node].inputs[c.input] = src;
      }
    }
    for (const id of chain) delete g[id];
    return;
  }

  g[head[0]].inputs.image = names[0];
  // Readers of chain 1's role outputs outside the chain, re-pointed to the last chain once it exists.
  const outside: Record<string, { node: string; input: string }[]> = {};
  for (const [role, id] of Object.entries(roleNodes)) {
    outside[role] = consumers(g, id, 0).filter((c) => !inChain.has(c.node));
  }
  let prevRoles = { ...roleNodes };
  for (let i = 2; i <= names.length; i++) {
    const idMap: Record<string, string> = {};
    for (const id of chain) {
      const role = roleOf(id);
      idMap[id] = role ? `h3ref${i}_${role.replace(/\s+/g, "_")}` : `h3ref${i}`;
    }
    const roles: Record<string, string> = {};
    for (const id of chain) {
      const role = roleOf(id);
      const copy = structuredClone(g[id]);
      for (const [k, v] of Object.entries(copy.inputs)) {
        if (isLink(v) && idMap[v[0]]) copy.inputs[k] = [idMap[v[0]], v[1]];
      }
      if (role in links) {
        copy.inputs[links[role]] = [prevRoles[role], 0];
        roles[role] = idMap[id];
      }
      if (id === head[0]) copy.inputs.image = names[i - 1];
      copy._meta = { ...copy._meta, title: role ? `Reference ${i} ${role}` : `Reference ${i}` };
      g[idMap[id]] = copy;
    }
    prevRoles = roles;
  }
  for (const [role, readers] of Object.entries(outside)) {
    for (const c of readers) g[c.node].inputs[c.input] = [prevRoles[role], 0];
  }
}

// Fan-in references (the qwen edit targets): one text encoder node reads every picture on its own numbered
// inputs, so each picture gets a new LoadImage ("Reference i") instead of a copy of a chain.

const fanInSpec = z.looseObject({
  inputs: z.array(z.looseObject({ class_type: txt, input: txt })).min(1),
  with: z.array(z.looseObject({ class_type: txt, field: txt, value: z.unknown() })).optional(),
  without: z.array(z.looseObject({ class_type: txt, field: txt, value: z.unknown() })).optional(),
});

const escapeRe = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function fanInReferences(ctx: Ctx, names: string[]): void {
  const { g, spec } = ctx;
  const fan = specOf(fanInSpec, spec.binding.references, spec.id, "binding.references");
  const max = typeof spec.capabilities.max_refs === "number" ? spec.capabilities.max_refs : Infinity;
  if (names.length > max) {
    throw new GraphError(spec.id, `${names.length} reference images, but ${spec.short} reads at most ${max}`);
  }
  // `{i}` in an input name is the picture's 1-based number; a copy of the graph that already reads pictures there
  // starts from none.
  const targets = fan.inputs.map((t) => {
    const ids = nodesOf(g, t.class_type);
    if (ids.length === 0)
      throw new GraphError(spec.id, `references: no ${t.class_type} node to read the pictures`);
    const [head, tail = ""] = t.input.split("{i}");
    const numbered = new RegExp(`^${escapeRe(head)}\\d+${escapeRe(tail)}$`);
    for (const id of ids)
      for (const k of Object.keys(g[id].inputs)) if (numbered.test(k)) delete g[id].inputs[k];
    return { ids, input: t.input };
  });
  names.forEach((name, n) => {
    const i = n + 1;
    const load = freshId(g, "h3ref");
    addNode(g, load, "LoadImage", { image: name }, `Reference ${i}`);
    for (const t of targets)
      for (const id of t.ids) g[id].inputs[t.input.replace("{i}", String(i))] = [load, 0];
  });
  for (const w of (names.length ? fan.with : fan.without) ?? []) {
    for (const id of nodesOf(g, w.class_type)) g[id].inputs[w.field] = w.value;
  }
}

function targetPatch(ctx: Ctx, inputs: PatchInputs, values: PatchValues): void {
  const { spec } = ctx;
  // Keyed on the binding, not the id: a show's own copy of the ltx2 target keeps its keyframe wiring.
  const ltx =
    spec.binding.keyframe_patch === "ltx2"
      ? ltx2Patch
      : spec.binding.keyframe_patch === "ltx2_ingredients"
        ? ltx2IngredientsPatch
        : null;
  if (ltx) {
    ltx(ctx, inputs, values);
    return;
  }
  if (spec.binding.keyframe_patch === "wan22_i2v") {
    wanI2vKeyframes(ctx, inputs);
    wanStageSplit(ctx, values);
    return;
  }
  if (spec.binding.keyframe_patch === "wan22_vace") {
    wanVaceInputs(ctx, inputs);
    wanStageSplit(ctx, values);
    return;
  }
  if (spec.binding.keyframe_patch === "minimax_h3_fl2va") {
    h3Fl2vaInputs(ctx.g, spec, inputs);
    return;
  }
  if (spec.binding.keyframe_patch === "wan22_ti2v") {
    // One model, one sampler: the first frame is optional and a last frame has no input to go to.
    wanStartImage(ctx, "Wan22ImageToVideoLatent", inputs.first);
    if (inputs.last) ctx.notes.push(`${spec.short} takes no last frame; the shot renders without it`);
    return;
  }
  if (hasDeclaredInputs(spec)) {
    declaredInputs(ctx.g, spec, inputs, ctx.notes);
    return;
  }
  if (isObject(spec.binding.references)) {
    if (spec.binding.references.inputs !== undefined) fanInReferences(ctx, inputs.references ?? []);
    else referenceChains(ctx, inputs.references ?? []);
    return;
  }
  if (inputs.first || inputs.last || inputs.references?.length) {
    ctx.notes.push(
      `${spec.short} reads no keyframes or reference images here; the uploaded inputs are unused`,
    );
  }
}

const HANDLED = new Set(["model", "loras", "steps", "seed"]);

/**
 * Patch `graph` (API format) for one job on `spec` (targets 3.12.1 steps 1–10 and 13). The input graph is not
 * changed. Throws `GraphError` for a binding that does not fit the graph.
 */
export function patchGraph(
  spec: TargetSpec,
  graph: ApiGraph,
  values: PatchValues,
  inputs: PatchInputs = {},
  options: PatchOptions = {},
): PatchResult {
  if (options.variant === "core" && isObject(spec.binding.loader)) {
    const core = h3CoreVariant(spec, graph, values, inputs);
    const r = patchGraph(core.spec, core.graph, values, inputs, { ...options, variant: undefined });
    return { ...r, notes: [...core.notes, ...r.notes] };
  }
  const g = copyGraph(graph);
  const saver = saverSpec(spec);
  // A loader target reads the shot list through the pack, whose saver it then needs as well.
  const mode = isObject(spec.binding.loader) ? "pack" : (options.saver ?? "core");
  const skip = new Set<string>();
  if (mode === "core" && saver) skip.add(saver.class_type);
  if (mode === "pack" && saver) {
    const replaced = saver.replace?.class_type ?? saver.replaces;
    if (replaced) skip.add(replaced);
    for (const d of saver.drop ?? []) skip.add(d);
  }
  const ctx: Ctx = { spec, g, notes: [], skipClasses: skip, known: options.known ?? null };
  const p = params(spec);

  const saverId = mode === "pack" && saver ? placePackSaver(ctx, saver) : findCoreSaver(ctx, saver);
  shotListLoader(g, spec, saverId, options.saverValues ?? {});

  if (values.model) setParam(ctx, "model", values.model);
  if (values.loras !== undefined && values.loras !== null) {
    for (const s of asSpecs(p.loras))
      applyLoras(
        ctx,
        specOf(loraSpec, s, spec.id, "binding.params.loras"),
        values.loras,
        values.base === true,
      );
  }
  if (values.steps !== undefined) {
    if ("steps" in p) setParam(ctx, "steps", values.steps);
    else ctx.notes.push(`steps ${values.steps} is recorded but unused: ${spec.short} has a fixed schedule`);
  }
  if (values.seed !== undefined) setParam(ctx, "seed", values.seed);
  for (const param of Object.keys(p)) {
    if (HANDLED.has(param)) continue;
    let v = values[param];
    if (v === undefined || v === null) continue;
    if (param === "prompt" && Array.isArray(v)) v = v.join("\n\n");
    setParam(ctx, param, v);
  }

  if (mode === "pack" && saver) {
    const sv = options.saverValues ?? {};
    for (const [input, name] of Object.entries(saver.inputs ?? {})) {
      if (sv[name] !== undefined) g[saverId].inputs[input] = sv[name];
    }
    if (sv.save_latent === true && saver.latent) wireLatent(ctx, saverId, saver.latent);
  } else if (saver?.core) {
    for (const [input, name] of Object.entries(saver.core.inputs ?? {})) {
      if (values[name] !== undefined && values[name] !== null) g[saverId].inputs[input] = values[name];
    }
    Object.assign(g[saverId].inputs, saver.core.set ?? {});
  }

  const review = Array.isArray(spec.binding.review_nodes)
    ? spec.binding.review_nodes.filter((c): c is string => typeof c === "string")
    : [];
  if (options.review !== true) {
    const feeds = ancestors(g, saverId);
    for (const cls of review)
      for (const id of nodesOf(g, cls)) if (g[id] && !feeds.has(id)) deleteWithConsumers(g, id);
  }

  targetPatch(ctx, inputs, values);

  if (spec.binding.prune === true) {
    const keep = ancestors(g, saverId);
    // Kept review nodes stay with what they read.
    if (options.review === true)
      for (const cls of review)
        for (const id of nodesOf(g, cls)) for (const a of ancestors(g, id)) keep.add(a);
    for (const id of Object.keys(g)) if (!keep.has(id)) delete g[id];
  }
  for (const [id, n] of Object.entries(g)) {
    for (const [k, v] of Object.entries(n.inputs)) {
      if (isLink(v) && !g[v[0]]) {
        throw new GraphError(spec.id, `node ${id} (${n.class_type}).${k} reads node ${v[0]}, which is gone`);
      }
    }
  }
  return {
    graph: g,
    saver: saverId,
    notes: ctx.notes,
    ...(ctx.lengthSource ? { length_source: ctx.lengthSource } : {}),
  };
}

/** What shapes a job's graph beyond widget values: its LoRAs, the accelerator fallback and the pictures it reads. */
export interface JobShape {
  /** `null` or absent leaves the graph's own loaders alone. */
  loras?: LoraItem[] | null;
  base?: boolean;
  first?: boolean;
  last?: boolean;
  references?: number;
  /** A reference sheet with its IC-LoRA installed. */
  sheet?: boolean;
  /** A dialogue slice to anchor the sound to (a dub). */
  audio?: boolean;
}

/**
 * Node classes one job of `shape` sends. Every bound param gets a value, so each binding selects its nodes as in a
 * job that sets them all: one that selects none or several throws the GraphError that job would meet.
 */
export function jobClasses(
  spec: TargetSpec,
  graph: ApiGraph,
  options: PatchOptions = {},
  shape: JobShape = {},
): string[] {
  const values: PatchValues = { loras: shape.loras ?? null, base: shape.base === true };
  // The value is irrelevant: only which nodes each binding selects matters here, though a length must leave room
  // for keyframes in a control video.
  for (const param of Object.keys(params(spec)))
    if (param !== "loras") values[param] = param === "length" ? 81 : 1;
  // A target that needs a first frame for every shot never sends a job without one.
  const first = shape.first === true || requiredReason(spec, "first") !== null;
  const inputs: PatchInputs = {
    first: first ? "first.png" : null,
    last: shape.last ? "last.png" : null,
    references: Array.from({ length: shape.references ?? 0 }, (_, i) => `reference_${i + 1}.png`),
    sheet: shape.sheet ? "sheet.png" : null,
    audio: shape.audio ? "dialogue.wav" : null,
  };
  // A sheet shape is one whose IC-LoRA is installed (else the sheet is off and adds nothing).
  if (shape.sheet) values.reference_lora = "reference_lora.safetensors";
  const { graph: g } = patchGraph(spec, graph, values, inputs, options);
  return [...new Set(Object.values(g).map((n) => n.class_type))].sort();
}

/** The keyframe inputs each keyframe patch can wire, as the job shapes that add their nodes. */
const KEYFRAME_SHAPES: Record<string, JobShape[]> = {
  ltx2: [{ first: true }, { last: true }, { sheet: true }],
  ltx2_ingredients: [{ sheet: true }],
  wan22_i2v: [{ first: true, last: true }],
  wan22_ti2v: [{ first: true }],
  wan22_vace: [{ first: true, last: true, references: 1 }],
  minimax_h3_fl2va: [{ first: true, last: true, audio: true }],
};

/**
 * Every node class jobs on this target can send: a plain job's, plus what each optional input adds (first and last
 * keyframes, reference pictures, a LoRA chain), since a class missing there fails only the jobs that read it.
 */
export function targetClasses(spec: TargetSpec, graph: ApiGraph, options: PatchOptions = {}): string[] {
  const shapes: JobShape[] = [{}, ...(KEYFRAME_SHAPES[String(spec.binding.keyframe_patch)] ?? [])];
  const max = typeof spec.capabilities.max_refs === "number" ? spec.capabilities.max_refs : Infinity;
  if (isObject(spec.binding.references) && max >= 1) shapes.push({ references: Math.min(max, 2) });
  const loraSpecs = asSpecs(params(spec).loras);
  if (loraSpecs.length) {
    const count = loraSpecs.every((s) => s.chain === true) ? 2 : 1;
    const loras = Array.from({ length: count }, (_, i) => ({
      name: `lora_${i + 1}.safetensors`,
      strength: 1,
    }));
    shapes.push({ loras });
  }
  const out = new Set<string>();
  for (const shape of shapes) for (const cls of jobClasses(spec, graph, options, shape)) out.add(cls);
  return [...out].sort();
}

/**
 * JSON text of a graph (or any payload holding one) with bigints written as bare numbers, so a 64-bit seed reaches
 * ComfyUI exactly (`JSON.stringify` throws on bigint, and a number would round above 2^53).
 */
export function graphJson(value: unknown): string {
  const write = (v: unknown): string => {
    if (typeof v === "bigint") return v.toString();
    if (v === null || typeof v !== "object") {
      const s = JSON.stringify(v);
      return s === undefined ? "null" : s;
    }
    if (Array.isArray(v)) return `[${v.map((x) => (x === undefined ? "null" : write(x))).join(",")}]`;
    const parts: string[] = [];
    for (const [k, x] of Object.entries(v))
      if (x !== undefined) parts.push(`${JSON.stringify(k)}:${write(x)}`);
    return `{${parts.join(",")}}`;
  };
  return write(value);
}
