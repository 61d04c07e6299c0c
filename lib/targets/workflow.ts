// Which graph a target renders with (the first candidate that loads) and turning a saved canvas workflow into
// the API format ComfyUI's /prompt accepts (targets 6.1–6.3).
import { readFile as fsReadFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { folderFence, readShowText } from "../paths/guarded.ts";
import { errorCode, errorMessage, isObject, objectOr, strings } from "../store/json-guards.ts";
import type { ApiGraph, ApiNode } from "./graph.ts";
import type { TargetSpec } from "./registry.ts";

/** An API-format graph: node id → {class_type, inputs, _meta?}. */
const API_GRAPH = z.record(
  z.string(),
  z.looseObject({
    class_type: z.string(),
    inputs: z.record(z.string(), z.unknown()),
    _meta: z.looseObject({ title: z.string().optional() }).optional(),
  }),
);

export type WorkflowSource = "explicit" | "env" | "comfy" | "saved" | "repo";

/**
 * A `GET /object_info` answer: node class → its description. The converter reads only the widget order of old
 * canvas files from it, checking each part where it reads it (the answer is large and mostly not needed).
 */
export type ObjectInfo = Record<string, unknown>;

/** What a GET against the running ComfyUI answered (a `fetch` Response fits). */
export interface FetchAnswer {
  status: number;
  text(): Promise<string>;
}

export interface WorkflowDeps {
  /** Environment the target's `binding.env` variable and `COMFYUI_PATH` are read from. */
  env?: Record<string, string | undefined>;
  /** GET a path on the running ComfyUI (`/api/userdata/workflows%2F<name>`); absent → that step is skipped. */
  fetch?: (route: string) => Promise<FetchAnswer>;
  /** File reader (default: UTF-8 from disk); throws an ENOENT error for a missing file. */
  readFile?: (file: string) => Promise<string>;
  /**
   * Folder of the target's shipped files (default: the shipped tree's `<kind>/<id>`). A show's target passes its
   * real `<show>/targets/<id>`; its workflow is then read only from inside that show folder.
   */
  targetDir?: string;
  /** A workflow named by a request: when given it is the only candidate. */
  explicit?: string;
  /** Widget order for canvas nodes that do not list their widgets (older saves). */
  objectInfo?: ObjectInfo;
}

export type WorkflowResolution =
  | {
      ok: true;
      graph: ApiGraph;
      source: WorkflowSource;
      /** File path or ComfyUI route the graph came from. */
      where: string;
      name: string;
      format: "api" | "canvas";
      /** Candidates looked at before the one used, each with why it was passed over. */
      tried: string[];
    }
  | { ok: false; error: string; tried: string[] };

export class WorkflowError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WorkflowError";
  }
}

const SHIPPED_ROOT = path.dirname(fileURLToPath(import.meta.url));

const isMissing = (err: unknown) => {
  const code = errorCode(err);
  return code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR";
};

/** The name the workflow is saved under in ComfyUI (`binding.workflow_name`, else the shipped file's name). */
export function workflowName(spec: TargetSpec): string {
  const b = spec.binding;
  if (typeof b.workflow_name === "string" && b.workflow_name) return b.workflow_name;
  return typeof b.workflow === "string" && b.workflow ? path.basename(b.workflow) : `${spec.id}.json`;
}

/** The environment variable that names a file to render the target with (`binding.env`, else `H3_WORKFLOW`). */
export function workflowEnvName(spec: TargetSpec): string {
  return typeof spec.binding.env === "string" && spec.binding.env ? spec.binding.env : "H3_WORKFLOW";
}

/** The target's own copy of its workflow (in the shipped tree, or `targetDir` for a show's), or null when none. */
export function shippedWorkflowPath(spec: TargetSpec, targetDir?: string): string | null {
  const wf = spec.binding.workflow;
  if (typeof wf !== "string" || !wf) return null;
  return path.resolve(targetDir ?? path.join(SHIPPED_ROOT, spec.kind, spec.id), wf);
}

interface Candidate {
  source: WorkflowSource;
  where: string;
  label: string;
  load: () => Promise<string | null>;
}

/**
 * The graph a job on `spec` uses: an explicit file; else the file named by the target's env variable, the copy
 * saved in the running ComfyUI, `$COMFYUI_PATH/user/default/workflows/<name>`, the shipped copy (audio targets try
 * the shipped copy before the disk copy). A missing candidate is passed over; one that exists but cannot be read
 * or converted stops the search with an error (rendering another graph than the one the user set up would be
 * worse than not rendering).
 */
function missingAsNull(err: unknown): null {
  if (isMissing(err)) return null;
  throw err;
}

export async function resolveWorkflow(
  spec: TargetSpec,
  deps: WorkflowDeps = {},
): Promise<WorkflowResolution> {
  const env = deps.env ?? {};
  const read = deps.readFile ?? ((f: string) => fsReadFile(f, "utf8"));
  const name = workflowName(spec);
  const fromFile = (file: string) => async () => {
    try {
      return await read(file);
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  };
  const candidates: Candidate[] = [];
  if (deps.explicit) {
    candidates.push({
      source: "explicit",
      where: deps.explicit,
      label: "the requested file",
      load: fromFile(deps.explicit),
    });
  } else {
    const envName = workflowEnvName(spec);
    const envFile = env[envName]?.trim();
    if (envFile) {
      candidates.push({ source: "env", where: envFile, label: `$${envName}`, load: fromFile(envFile) });
    }
    if (deps.fetch) {
      const fetcher = deps.fetch;
      const route = `/api/userdata/${encodeURIComponent(`workflows/${name}`)}`;
      candidates.push({
        source: "comfy",
        where: route,
        label: "the copy saved in ComfyUI",
        load: async () => {
          let answer: FetchAnswer;
          try {
            answer = await fetcher(route);
          } catch {
            return null; // ComfyUI down: the shipped copy still renders once it is back, so keep looking
          }
          if (answer.status === 404) return null;
          if (answer.status < 200 || answer.status >= 300) {
            throw new WorkflowError(`ComfyUI answered ${answer.status}`);
          }
          return answer.text();
        },
      });
    }
    const disk: Candidate[] = [];
    const comfyPath = env.COMFYUI_PATH?.trim();
    if (comfyPath) {
      const file = path.join(comfyPath, "user", "default", "workflows", name);
      disk.push({ source: "saved", where: file, label: "the copy in $COMFYUI_PATH", load: fromFile(file) });
    }
    const shipped: Candidate[] = [];
    const file = shippedWorkflowPath(spec, deps.targetDir);
    if (file) {
      // A show's target.json is the user's file: what it names is read through the show folder's fence.
      const showFolder = deps.targetDir && !deps.readFile ? path.resolve(deps.targetDir, "..", "..") : null;
      const load = showFolder
        ? async () => readShowText(folderFence(showFolder, "the show folder"), file).catch(missingAsNull)
        : fromFile(file);
      shipped.push({ source: "repo", where: file, label: "the shipped copy", load });
    }
    // A saved canvas of an audio graph is more likely an experiment than a take-over (`prefer_repo`).
    const preferRepo = spec.kind === "audio" || spec.binding.prefer_repo === true;
    candidates.push(...(preferRepo ? [...shipped, ...disk] : [...disk, ...shipped]));
  }

  const tried: string[] = [];
  for (const c of candidates) {
    let text: string | null;
    try {
      text = await c.load();
    } catch (err) {
      return {
        ok: false,
        error: `target ${spec.id}: workflow from ${c.label} (${c.where}) cannot be read: ${errorMessage(err)}`,
        tried,
      };
    }
    if (text === null) {
      tried.push(`${c.label} (${c.where}): not there`);
      continue;
    }
    try {
      const { graph, format } = graphFrom(JSON.parse(text.replace(/^\uFEFF/, "")), deps.objectInfo);
      return { ok: true, graph, source: c.source, where: c.where, name, format, tried };
    } catch (err) {
      const why = err instanceof SyntaxError ? `not valid JSON (${err.message})` : errorMessage(err);
      return {
        ok: false,
        error: `target ${spec.id}: workflow from ${c.label} (${c.where}) is unreadable: ${why}`,
        tried,
      };
    }
  }
  return {
    ok: false,
    error: `target ${spec.id}: no workflow found (${tried.length ? tried.join("; ") : "nothing to try"})`,
    tried,
  };
}

/** One error per shot of the target when its workflow cannot be used, so each shot says why it did not render. */
export function workflowShotErrors(
  res: WorkflowResolution,
  shots: readonly string[],
): { shot: string; error: string }[] {
  return res.ok ? [] : shots.map((shot) => ({ shot, error: res.error }));
}

// ─── formats ─────────────────────────────────────────────────────────────────────────────────────────────────

/** An API graph as is, a canvas (`nodes` and `links`) converted; anything else is an error. */
export function graphFrom(
  data: unknown,
  objectInfo?: ObjectInfo,
): { graph: ApiGraph; format: "api" | "canvas" } {
  if (isObject(data) && Array.isArray(data.nodes) && Array.isArray(data.links)) {
    return { graph: canvasToApi(data, objectInfo), format: "canvas" };
  }
  if (isObject(data) && Object.keys(data).length > 0) {
    const parsed = API_GRAPH.safeParse(data);
    if (parsed.success) return { graph: parsed.data, format: "api" };
  }
  throw new WorkflowError(
    "neither an API graph ({id: {class_type, inputs}}) nor a canvas workflow (nodes and links)",
  );
}

// ─── canvas → API (targets 6.3) ──────────────────────────────────────────────────────────────────────────────

interface FlatInput {
  name: string;
  type: string;
  link: string | null;
  widget: boolean;
}

interface FlatNode {
  id: string;
  type: string;
  mode: number;
  title: string | null;
  inputs: FlatInput[];
  outputs: { type: string }[];
  widgets: unknown;
  /** Values an unfed subgraph input promoted onto an inner widget. */
  overrides: Record<string, unknown>;
}

interface FlatLink {
  id: string;
  origin: string;
  slot: number;
  target: string;
  targetSlot: number;
  type: string;
}

interface SubgraphDef {
  id: string;
  nodes: unknown[];
  links: unknown[];
  inputs: { name: string }[];
  outputs: { name: string }[];
}

const MUTED = 2;
const BYPASSED = 4;
const SUBGRAPH_IN = "-10";
const SUBGRAPH_OUT = "-20";
const DROPPED = new Set(["MarkdownNote", "Note", "H3ShotInfo"]);
const FRONTEND_PRIMITIVES = new Set(["PrimitiveNode"]);
const SERVER_PRIMITIVES = new Set([
  "PrimitiveInt",
  "PrimitiveFloat",
  "PrimitiveString",
  "PrimitiveBoolean",
  "PrimitiveStringMultiline",
]);
const CONTROL_WORDS = new Set(["fixed", "increment", "decrement", "randomize"]);
const MAX_EXPANSIONS = 1000;

function flatLink(raw: unknown, prefix = ""): FlatLink | null {
  const id = (v: unknown) => {
    const s = String(v);
    return prefix && s !== SUBGRAPH_IN && s !== SUBGRAPH_OUT ? `${prefix}${s}` : s;
  };
  if (Array.isArray(raw) && raw.length >= 5) {
    return {
      id: `${prefix}${raw[0]}`,
      origin: id(raw[1]),
      slot: Number(raw[2]),
      target: id(raw[3]),
      targetSlot: Number(raw[4]),
      type: String(raw[5] ?? "*"),
    };
  }
  if (isObject(raw) && raw.id !== undefined) {
    return {
      id: `${prefix}${raw.id}`,
      origin: id(raw.origin_id),
      slot: Number(raw.origin_slot),
      target: id(raw.target_id),
      targetSlot: Number(raw.target_slot),
      type: String(raw.type ?? "*"),
    };
  }
  return null;
}

function flatNode(raw: unknown, prefix = ""): FlatNode {
  if (!isObject(raw) || raw.id === undefined || typeof raw.type !== "string") {
    throw new WorkflowError("a canvas node without an id or type");
  }
  const inputs = Array.isArray(raw.inputs) ? raw.inputs.filter(isObject) : [];
  const outputs = Array.isArray(raw.outputs) ? raw.outputs.filter(isObject) : [];
  return {
    id: `${prefix}${raw.id}`,
    type: raw.type,
    mode: typeof raw.mode === "number" ? raw.mode : 0,
    title: typeof raw.title === "string" ? raw.title : null,
    inputs: inputs.map((i) => ({
      name: String(i.name),
      type: String(i.type ?? "*"),
      link: i.link === null || i.link === undefined ? null : `${prefix}${i.link}`,
      widget: isObject(i.widget),
    })),
    outputs: outputs.map((o) => ({ type: String(o.type ?? "*") })),
    widgets: raw.widgets_values,
    overrides: {},
  };
}

function subgraphDefs(doc: Record<string, unknown>): Map<string, SubgraphDef> {
  const defs = new Map<string, SubgraphDef>();
  const list =
    isObject(doc.definitions) && Array.isArray(doc.definitions.subgraphs) ? doc.definitions.subgraphs : [];
  for (const s of list) {
    if (!isObject(s) || typeof s.id !== "string") continue;
    defs.set(s.id, {
      id: s.id,
      nodes: Array.isArray(s.nodes) ? s.nodes : [],
      links: Array.isArray(s.links) ? s.links : [],
      inputs: (Array.isArray(s.inputs) ? s.inputs : []).map((i) => ({
        name: String(isObject(i) ? i.name : ""),
      })),
      outputs: (Array.isArray(s.outputs) ? s.outputs : []).map((o) => ({
        name: String(isObject(o) ? o.name : ""),
      })),
    });
  }
  return defs;
}

/** An instance's promoted widget values by input name (`widgets_values` applied over its widget inputs). */
function promotedValues(inst: FlatNode): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const widgetInputs = inst.inputs.filter((i) => i.widget);
  if (isObject(inst.widgets)) {
    for (const [k, v] of Object.entries(inst.widgets)) out.set(k, v);
    return out;
  }
  if (!Array.isArray(inst.widgets) || inst.widgets.length === 0) return out;
  const values = inst.widgets.filter(
    (v, i, all) => !(i > 0 && isControlWord(v) && typeof all[i - 1] === "number"),
  );
  if (values.length !== widgetInputs.length) {
    throw new WorkflowError(
      `subgraph node ${inst.id}: ${values.length} promoted widget values for ${widgetInputs.length} widget inputs; ` +
        "re-save the workflow in a current ComfyUI or export it as API",
    );
  }
  for (const [i, w] of widgetInputs.entries()) out.set(w.name, values[i]);
  return out;
}

const isControlWord = (v: unknown) => typeof v === "string" && CONTROL_WORDS.has(v);

/** Replace one subgraph instance by its inner nodes (ids `<instance>:<inner>`), rewiring both sides. */
function expandInstance(
  nodes: Map<string, FlatNode>,
  links: Map<string, FlatLink>,
  inst: FlatNode,
  def: SubgraphDef,
): void {
  const prefix = `${inst.id}:`;
  nodes.delete(inst.id);
  if (inst.mode === MUTED) return; // its outgoing links now dangle: readers lose those inputs
  if (inst.mode === BYPASSED) {
    throw new WorkflowError(
      `subgraph node ${inst.id} is bypassed; un-bypass it or remove it from the workflow`,
    );
  }
  const promoted = promotedValues(inst);
  const inner = def.nodes.map((n) => flatNode(n, prefix));
  for (const n of inner) nodes.set(n.id, n);
  const outerFeeding = (slot: number): FlatLink | null => {
    const name = def.inputs[slot]?.name;
    const inp = inst.inputs.find((i) => i.name === name);
    return inp?.link ? (links.get(inp.link) ?? null) : null;
  };
  const outputs = new Map<number, { origin: string; slot: number } | null>();
  for (const raw of def.links) {
    const l = flatLink(raw, prefix);
    if (!l) continue;
    let origin = { origin: l.origin, slot: l.slot };
    if (l.origin === SUBGRAPH_IN) {
      const outer = outerFeeding(l.slot);
      if (!outer) {
        // Unfed input: the instance's promoted widget value, else the inner widget keeps its own value.
        const target = nodes.get(l.target);
        const input = target?.inputs[l.targetSlot];
        const name = def.inputs[l.slot]?.name;
        if (target && input) {
          input.link = null;
          if (name !== undefined && promoted.has(name)) target.overrides[input.name] = promoted.get(name);
        }
        if (l.target === SUBGRAPH_OUT) outputs.set(l.targetSlot, null);
        continue;
      }
      origin = { origin: outer.origin, slot: outer.slot };
    }
    if (l.target === SUBGRAPH_OUT) {
      outputs.set(l.targetSlot, origin);
      continue;
    }
    links.set(l.id, { ...l, origin: origin.origin, slot: origin.slot });
  }
  for (const [id, l] of [...links]) {
    if (l.target === inst.id) links.delete(id);
    else if (l.origin === inst.id) {
      const to = outputs.get(l.slot);
      if (to) links.set(id, { ...l, origin: to.origin, slot: to.slot });
      else links.delete(id);
    }
  }
}

type Resolved =
  | { kind: "link"; node: string; slot: number }
  | { kind: "value"; value: unknown }
  | { kind: "none" };

/** Widget names of a node in order: its widget inputs, else `/object_info`'s non-socket inputs. */
function widgetNames(node: FlatNode, objectInfo?: ObjectInfo): string[] | null {
  const listed = node.inputs.filter((i) => i.widget).map((i) => i.name);
  if (listed.length) return listed;
  const info = objectInfo?.[node.type];
  if (!isObject(info)) return null;
  const names: string[] = [];
  for (const section of ["required", "optional"]) {
    const specs = objectOr(objectOr(info.input)[section]);
    const listedOrder = objectOr(info.input_order)[section];
    const order = Array.isArray(listedOrder) ? strings(listedOrder) : Object.keys(specs);
    for (const name of order) {
      const spec = specs[name];
      const t = Array.isArray(spec) ? spec[0] : undefined;
      const widget =
        Array.isArray(t) ||
        ["INT", "FLOAT", "STRING", "BOOLEAN", "COMBO"].includes(String(t)) ||
        t === undefined;
      if (widget) names.push(name);
    }
  }
  return names;
}

/**
 * Convert a canvas (UI) workflow to API format: subgraphs flattened, widget values named, notes/reroutes/primitives
 * and bypassed or muted nodes resolved away. Ids stay strings (`"398:384"` for a node inside subgraph 398).
 */
export function canvasToApi(doc: Record<string, unknown>, objectInfo?: ObjectInfo): ApiGraph {
  const nodes = new Map<string, FlatNode>();
  const links = new Map<string, FlatLink>();
  for (const raw of Array.isArray(doc.nodes) ? doc.nodes : []) {
    const n = flatNode(raw);
    nodes.set(n.id, n);
  }
  for (const raw of Array.isArray(doc.links) ? doc.links : []) {
    const l = flatLink(raw);
    if (l) links.set(l.id, l);
  }
  const defs = subgraphDefs(doc);
  for (let count = 0; ; count++) {
    const inst = [...nodes.values()].find((n) => defs.has(n.type));
    if (!inst) break;
    if (count >= MAX_EXPANSIONS) throw new WorkflowError("subgraphs nest too deep (over 1000 expansions)");
    expandInstance(nodes, links, inst, defs.get(inst.type)!);
  }

  const linkOfInput = (n: FlatNode, name: string) => n.inputs.find((i) => i.name === name)?.link ?? null;

  const resolve = (linkId: string, intoWidget: boolean, depth = 0): Resolved => {
    if (depth > 500) throw new WorkflowError("a loop of reroutes or bypassed nodes");
    const l = links.get(linkId);
    const src = l ? nodes.get(l.origin) : undefined;
    if (!l || !src || src.mode === MUTED || DROPPED.has(src.type)) return { kind: "none" };
    if (src.type === "Reroute") {
      const inLink = src.inputs[0]?.link;
      return inLink ? resolve(inLink, intoWidget, depth + 1) : { kind: "none" };
    }
    if (src.mode === BYPASSED) {
      const type = src.outputs[l.slot]?.type ?? l.type;
      const through = src.inputs.find((i) => i.link && i.type === type);
      return through?.link ? resolve(through.link, intoWidget, depth + 1) : { kind: "none" };
    }
    const primitiveValue = () => (Array.isArray(src.widgets) ? src.widgets[0] : undefined);
    if (FRONTEND_PRIMITIVES.has(src.type)) return { kind: "value", value: primitiveValue() };
    if (SERVER_PRIMITIVES.has(src.type) && intoWidget) return { kind: "value", value: primitiveValue() };
    return { kind: "link", node: src.id, slot: l.slot };
  };

  const graph: ApiGraph = {};
  for (const n of nodes.values()) {
    if (n.mode === MUTED || n.mode === BYPASSED || DROPPED.has(n.type) || n.type === "Reroute") continue;
    if (FRONTEND_PRIMITIVES.has(n.type)) continue;
    const inputs: Record<string, unknown> = {};
    if (isObject(n.widgets)) {
      Object.assign(inputs, n.widgets);
    } else if (Array.isArray(n.widgets) && n.widgets.length) {
      const names = widgetNames(n, objectInfo);
      if (!names) {
        throw new WorkflowError(
          `node ${n.id} (${n.type}) does not name its widgets and /object_info was not given; ` +
            "re-save the workflow in a current ComfyUI or export it as API",
        );
      }
      let w = 0;
      for (let i = 0; i < n.widgets.length && w < names.length; i++) {
        const v = n.widgets[i];
        inputs[names[w++]] = v;
        // A seed-like number is followed by its "control after generate" word, which is no widget of its own.
        if (typeof v === "number" && isControlWord(n.widgets[i + 1])) i++;
      }
    }
    for (const inp of n.inputs) {
      const linkId = linkOfInput(n, inp.name);
      if (!linkId) continue;
      const r = resolve(linkId, inp.widget);
      if (r.kind === "link") inputs[inp.name] = [r.node, r.slot];
      else if (r.kind === "value") inputs[inp.name] = r.value;
      else if (!inp.widget) delete inputs[inp.name];
    }
    Object.assign(inputs, n.overrides);
    const node: ApiNode = { class_type: n.type, inputs, _meta: { title: n.title ?? n.type } };
    graph[n.id] = node;
  }
  // A server-side primitive only read through widgets was inlined everywhere: drop it.
  const read = new Set<string>();
  for (const n of Object.values(graph)) {
    for (const v of Object.values(n.inputs)) if (Array.isArray(v) && v.length === 2) read.add(String(v[0]));
  }
  for (const [id, n] of Object.entries(graph)) {
    if (SERVER_PRIMITIVES.has(n.class_type) && !read.has(id)) delete graph[id];
  }
  return graph;
}
