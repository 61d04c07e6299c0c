// The targets listing with readiness on the local ComfyUI, and the model picker lists: what GET /studio/targets
// and GET /studio/models answer (targets 1.13, 4.5; api extras 1.16).
import path from "node:path";
import { engineAddress } from "../backends/list.ts";
import { effectiveSettings } from "../config/settings-store.ts";
import type { Services } from "../context.ts";
import { speechReadiness } from "../engines/builtin/speech.ts";
import { badRequest, StudioError } from "../errors.ts";
import { readShowText } from "../paths/guarded.ts";
import { seriesConfigFence } from "../paths/series-config.ts";
import { seriesHome } from "../paths/series-home.ts";
import { isRouterTarget } from "../router/target.ts";
import { errorMessage, isObject, oneOf } from "../store/json-guards.ts";
import { heldDraft } from "./custom-draft.ts";
import { type GraphView, graphView } from "./graph-view.ts";
import { targetLimits } from "./limits.ts";
import {
  type Confidence,
  globMatch,
  hasSignature,
  identify,
  readSafetensorsHeader,
  relation,
} from "./modelid.ts";
import { baseName, type ComfyAnswer, modelFolder, modelSpecs, type Readiness, readiness } from "./models.ts";
import { cachedReadiness, fetchComfyAnswer, storeReadiness } from "./readiness-cache.ts";
import { TARGET_KINDS, type TargetKind, type TargetSpec, videoCapabilities } from "./registry.ts";
import {
  customTargetDir,
  loadSettingsTargets,
  loadShowTargets,
  settingsTargetsRoot,
  targetsForShow,
} from "./target-tree.ts";
import { resolveWorkflow, workflowName } from "./workflow.ts";

type Svc = Pick<Services, "home" | "env" | "log" | "engines" | "targets" | "caches" | "media">;

/** The machine defaults when settings choose none and nothing was detected: the built-in targets. */
export const BUILTIN_DEFAULTS: Readonly<Record<TargetKind, string>> = {
  video: "animatic",
  image: "card",
  audio: "speech",
};

export const isBuiltinTarget = (spec: TargetSpec) => spec.backend === "builtin";

/** `?kind=`: absent or empty means every kind; anything else but video/image/audio is a 400. */
export function parseKind(value: string | undefined): TargetKind | undefined {
  if (value === undefined || value === "") return undefined;
  if (oneOf(TARGET_KINDS, value)) return value;
  throw badRequest(`kind must be video, image or audio (got ${JSON.stringify(value)})`);
}

/** Where a show's own targets live: the series home of the episode (its parent when the config is there). */
export async function showDirOf(services: Pick<Services, "caches">, epReal: string): Promise<string> {
  return (await seriesHome(services, epReal)).home;
}

export interface ModelParamView {
  family: string;
  label: string;
  patterns: string[];
  folder: string | null;
  tier: "required" | "accelerator" | "optional";
  /** Words a substitute file must share with the wanted one. */
  keep: string[];
  /** Globs of files never taken as substitutes. */
  exclude: string[];
  /** The file used when no preset names one. */
  default: string | null;
  feature?: string;
}

function modelsView(spec: TargetSpec): Record<string, ModelParamView> {
  const out: Record<string, ModelParamView> = {};
  for (const [param, m] of Object.entries(modelSpecs(spec))) {
    const raw = spec.models?.[param] ?? {};
    const view: ModelParamView = {
      family: m.family,
      label: typeof raw.label === "string" && raw.label ? raw.label : m.family,
      patterns: [...(m.patterns ?? [])],
      folder: modelFolder(spec, param),
      tier: m.tier ?? "required",
      keep: [...(m.keep ?? [])],
      exclude: [...(m.exclude ?? [])],
      default: m.default ?? null,
    };
    if (m.feature) view.feature = m.feature;
    out[param] = view;
  }
  return out;
}

function presetsView(spec: TargetSpec): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pass of ["final", "proxy"] as const) {
    const p = spec.presets[pass];
    if (!p) continue;
    // A proxy without a model renders the series model, then the final's: said as `model: null`.
    out[pass] = { ...p, model: p.model ?? null };
  }
  return out;
}

function widgetsView(spec: TargetSpec): Record<string, unknown> {
  const params = isObject(spec.binding.params) ? spec.binding.params : {};
  const out: Record<string, unknown> = {};
  for (const [param, v] of Object.entries(params)) out[param] = Array.isArray(v) ? (v[0] ?? null) : v;
  return out;
}

export interface DescribeOptions {
  isDefault: boolean;
  /** Settings `enabled_drafts`: targets shipped as drafts that the user turned on. */
  enabledDrafts: readonly string[];
  /** Settings `target_limits[id]`: limits replacing the target's own. */
  limits?: Record<string, unknown>;
  /** Which copy of the workflow is in force; null for a built-in target (it has none). */
  graph: GraphView | null;
}

/** One target as the listing describes it (without readiness). */
export function describeTarget(spec: TargetSpec, o: DescribeOptions): Record<string, unknown> {
  const builtin = isBuiltinTarget(spec);
  const custom = spec.custom === true;
  // A draft (shipped as one, or a show's own until its flag is cleared) stays one until settings enable it.
  const shippedDraft = !custom && spec.draft === true;
  return {
    id: spec.id,
    kind: spec.kind,
    label: spec.label,
    short: spec.short,
    // The family of the main model file: what pickers and substitutes are matched by.
    family: modelSpecs(spec).model?.family ?? null,
    default: o.isDefault,
    graph: o.graph,
    presets: presetsView(spec),
    widgets: widgetsView(spec),
    workflow: builtin ? null : workflowName(spec),
    loader: spec.binding.loader ?? null,
    saver: spec.binding.saver ?? null,
    template: spec.template,
    capabilities: spec.kind === "video" ? videoCapabilities(spec) : spec.capabilities,
    models: modelsView(spec),
    downloads: isObject(spec.downloads) ? spec.downloads : {},
    limits: targetLimits(spec, o.limits),
    backend: builtin ? "builtin" : isRouterTarget(spec) ? "router" : "local",
    custom,
    draft: heldDraft(spec, o.enabledDrafts),
    shipped_draft: shippedDraft,
    scope: custom ? (spec.scope ?? "show") : "shipped",
  };
}

/**
 * The default per kind: settings' choice, else the detected one, else the built-in target. An id that is not a
 * target of that kind here (a settings file from another version, or edited by hand) is passed over.
 */
export async function defaultTargets(
  services: Pick<Services, "home" | "env" | "caches" | "targets">,
): Promise<Record<TargetKind, string>> {
  const s = await effectiveSettings(services);
  const out = { ...BUILTIN_DEFAULTS };
  const fits = (id: string, kind: TargetKind) => services.targets.get(id)?.kind === kind;
  for (const kind of TARGET_KINDS) {
    const pick = [s.default_targets[kind], s.detected_targets[kind]].find((id) => id && fits(id, kind));
    if (pick) out[kind] = pick;
  }
  return out;
}

const READY_BUILTIN: Readiness = {
  status: "ready",
  missing: [],
  resolved: {},
  by_pass: {},
  features_off: [],
  nodes_missing: [],
};

/** The models folders a target's files live in (plus `loras`). */
function foldersOf(spec: TargetSpec): string[] {
  const out = new Set<string>(["loras"]);
  for (const param of Object.keys(modelSpecs(spec))) {
    const f = modelFolder(spec, param);
    if (f) out.add(f);
  }
  return [...out];
}

interface Checked {
  readiness: Readiness;
}

const cacheKey = (spec: TargetSpec, showDir: string | null) => {
  const dir = customTargetDir(spec, showDir);
  return dir ? `${dir}\u0000${spec.id}` : spec.id;
};

/**
 * Readiness of each target on the local engine: built-in targets are ready (speech when espeak-ng is found); the
 * rest come from the kept answer, else one fresh look at `/object_info` and the model folders shared by every target
 * not kept.
 */
export async function readinessOf(
  services: Svc,
  specs: readonly TargetSpec[],
  showDir: string | null,
): Promise<Map<string, Checked>> {
  const out = new Map<string, Checked>();
  const address = engineAddress(await effectiveSettings(services));
  const todo: TargetSpec[] = [];
  for (const spec of specs) {
    if (isBuiltinTarget(spec)) {
      // Built-in targets need nothing but ffmpeg, except speech, which needs espeak-ng.
      const readiness = spec.id === "speech" ? await speechReadiness(services.media) : READY_BUILTIN;
      out.set(spec.id, { readiness });
      continue;
    }
    const hit = cachedReadiness(services, address, cacheKey(spec, showDir));
    if (hit) out.set(spec.id, { readiness: hit });
    else todo.push(spec);
  }
  if (todo.length === 0) return out;
  const answer: ComfyAnswer = await fetchComfyAnswer(
    services.engines.lookups,
    address,
    todo.flatMap(foldersOf),
  );
  await Promise.all(
    todo.map(async (spec) => {
      const checked = await checkOne(services, spec, showDir, address, answer);
      storeReadiness(services, address, cacheKey(spec, showDir), checked.readiness);
      out.set(spec.id, checked);
    }),
  );
  return out;
}

async function checkOne(
  services: Svc,
  spec: TargetSpec,
  showDir: string | null,
  address: string,
  answer: ComfyAnswer,
): Promise<Checked> {
  if (answer.objectInfo === null) return { readiness: await readiness(spec, answer) };
  const wf = await resolveWorkflow(spec, {
    env: services.env,
    objectInfo: isObject(answer.objectInfo) ? answer.objectInfo : undefined,
    targetDir: customTargetDir(spec, showDir),
    fetch: async (route) => {
      const res = await fetch(address.replace(/\/+$/, "") + route, { signal: AbortSignal.timeout(10_000) });
      return { status: res.status, text: () => res.text() };
    },
  });
  const familyGlobs = showDir ? await seriesFamilyGlobs(services, showDir) : {};
  if (!wf.ok) {
    const r = await readiness(spec, answer, { familyGlobs });
    return {
      readiness: { ...r, status: r.status === "unknown" ? r.status : "not_ready", error: wf.error },
    };
  }
  return { readiness: await readiness(spec, answer, { familyGlobs, graph: wf.graph }) };
}

export interface ListingQuery {
  kind?: TargetKind;
  showDir: string | null;
  ready: boolean;
}

/** GET /studio/targets: `{targets, default}`. */
export async function listTargets(
  services: Svc,
  q: ListingQuery,
): Promise<{ targets: Record<string, unknown>[]; default: Record<TargetKind, string> }> {
  const shipped = services.targets;
  const specs: TargetSpec[] = [];
  for (const kind of TARGET_KINDS) {
    if (q.kind && kind !== q.kind) continue;
    for (const id of shipped.ids(kind)) specs.push(shipped.get(id)!);
  }
  const settingsDir = settingsTargetsRoot(services);
  const [own, shared] = await Promise.all([
    q.showDir ? loadShowTargets(services.targets, q.showDir) : null,
    settingsDir ? loadSettingsTargets(services.targets, settingsDir) : null,
  ]);
  // A show's own target wins over the settings' one of the same id.
  const ownIds = new Set(own?.targets.map((s) => s.id));
  for (const e of [...(own?.errors ?? []), ...(shared?.errors ?? [])])
    services.log.warn(`custom target skipped: ${e}`);
  for (const s of [...(own?.targets ?? []), ...(shared?.targets ?? []).filter((t) => !ownIds.has(t.id))])
    if (!q.kind || s.kind === q.kind) specs.push(s);
  const defaults = await defaultTargets(services);
  const settings = await effectiveSettings(services);
  const graphQuery = { env: services.env, address: engineAddress(settings), showDir: q.showDir };
  const [checked, graphs] = await Promise.all([
    q.ready ? readinessOf(services, specs, q.showDir) : null,
    Promise.all(specs.map((s) => (isBuiltinTarget(s) ? null : graphView(services, s, graphQuery)))),
  ]);
  const targets = specs.map((spec, i) => {
    const view = describeTarget(spec, {
      isDefault: defaults[spec.kind] === spec.id,
      enabledDrafts: settings.enabled_drafts,
      limits: settings.target_limits[spec.id],
      graph: graphs[i] ?? null,
    });
    const c = checked?.get(spec.id);
    if (c) view.readiness = c.readiness;
    return view;
  });
  return { targets, default: defaults };
}

/**
 * Series config `model_families` ({family: [globs]}) of the show, when it has one that reads. A config that is a
 * link out of its folder is refused (403), never read.
 */
async function seriesFamilyGlobs(
  services: Pick<Services, "caches">,
  showDir: string,
): Promise<Record<string, string[]>> {
  try {
    const home = await seriesHome(services, showDir);
    if (!home.config) return {};
    const fence = seriesConfigFence({ path: home.config, inParent: home.inParent });
    const raw: unknown = JSON.parse((await readShowText(fence, home.config)).replace(/^\uFEFF/, ""));
    const fams = isObject(raw) && isObject(raw.model_families) ? raw.model_families : {};
    const out: Record<string, string[]> = {};
    for (const [f, globs] of Object.entries(fams)) {
      if (Array.isArray(globs)) out[f] = globs.filter((g): g is string => typeof g === "string");
    }
    return out;
  } catch (err) {
    if (err instanceof StudioError) throw err;
    return {}; // a broken config is the build's to report, not the picker's
  }
}

export interface PickerFile {
  name: string;
  folder: string;
  match: "name" | "fingerprint" | "other";
  mismatch: boolean;
  family: string | null;
  label: string | null;
  confidence: Confidence;
  detail: string;
  base?: string;
}

export interface PickerQuery {
  target: string;
  param: string;
  showDir: string | null;
}

/** GET /studio/models: the local engine's files for one model param, the target's family first. */
export async function modelsPicker(services: Svc, q: PickerQuery): Promise<Record<string, unknown>> {
  const registry = await targetsForShow(services.targets, q.showDir, settingsTargetsRoot(services));
  const spec = registry.get(q.target);
  if (!spec) throw badRequest(`unknown target ${JSON.stringify(q.target)}`);
  const m = modelSpecs(spec)[q.param];
  if (!m) throw badRequest(`target ${spec.id} has no model param ${JSON.stringify(q.param)}`);
  const folder = modelFolder(spec, q.param);
  if (!folder) throw badRequest(`target ${spec.id}: no models folder is known for ${q.param}`);
  const raw = spec.models?.[q.param] ?? {};
  const label = typeof raw.label === "string" && raw.label ? raw.label : m.family;
  const extra = q.showDir ? ((await seriesFamilyGlobs(services, q.showDir))[m.family] ?? []) : [];
  const patterns = [...(m.patterns ?? []), ...extra];

  const address = engineAddress(await effectiveSettings(services));
  let listed: string[] | null;
  try {
    listed = await services.engines.lookups.models(address, folder);
  } catch (err) {
    throw new StudioError(503, `the local backend does not answer: ${errorMessage(err)}`);
  }
  const files = listed ?? [];

  // Other families' name patterns (every target the show can use), to flag a file that names another family.
  const others: { family: string; patterns: string[] }[] = [];
  for (const kind of TARGET_KINDS) {
    for (const id of registry.ids(kind)) {
      for (const o of Object.values(modelSpecs(registry.get(id)!))) {
        if (o.family !== m.family && o.patterns?.length)
          others.push({ family: o.family, patterns: o.patterns });
      }
    }
  }
  const comfyPath = services.env.COMFYUI_PATH?.trim();
  const canFingerprint = Boolean(comfyPath) && folder !== "loras" && hasSignature(m.family);
  let headersRead = false;

  const out: PickerFile[] = [];
  for (const name of files) {
    const lower = baseName(name).toLowerCase();
    const excluded = (m.exclude ?? []).some((g) => globMatch(g, lower));
    const byName = !excluded && patterns.some((g) => globMatch(g, lower));
    const otherByName = others.find((o) => o.patterns.some((g) => globMatch(g, lower)))?.family ?? null;
    let id: ReturnType<typeof identify> | null = null;
    if (canFingerprint && comfyPath) {
      try {
        id = identify(await readSafetensorsHeader(path.join(comfyPath, "models", folder, name)), lower);
        headersRead = true;
      } catch {
        id = null; // an unreadable file is simply not evidence
      }
    }
    const rel = id?.family ? relation(id.family, m.family) : null;
    const byHeader = !excluded && (rel === "same" || rel === "variant");
    const match: PickerFile["match"] = byName ? "name" : byHeader ? "fingerprint" : "other";
    const family = id?.family ?? (byName ? m.family : otherByName);
    const mismatch = rel === "different" || (!byName && !byHeader && otherByName !== null && !id?.family);
    const f: PickerFile = {
      name,
      folder,
      match,
      mismatch,
      family,
      label: family,
      confidence: id?.family ? id.confidence : family ? "name" : "unknown",
      detail: id
        ? id.detail
        : byName
          ? `name matches ${m.family}`
          : excluded
            ? `name is excluded for ${m.family}`
            : otherByName
              ? `name matches ${otherByName}`
              : "no family recognised by name",
    };
    if (id?.base) f.base = id.base;
    out.push(f);
  }
  const rank = { name: 0, fingerprint: 1, other: 2 } as const;
  const sorted = out
    .map((f, i) => ({ f, i }))
    .sort((a, b) => rank[a.f.match] - rank[b.f.match] || a.i - b.i)
    .map((x) => x.f);
  const mine = sorted.filter((f) => f.match !== "other");
  const rest = sorted.filter((f) => f.match === "other");
  return {
    target: spec.id,
    param: q.param,
    family: m.family,
    label,
    patterns,
    folder,
    class_type: typeof raw.class_type === "string" ? raw.class_type : null,
    field: typeof raw.field === "string" ? raw.field : null,
    fingerprint: headersRead,
    files: sorted,
    groups: [
      {
        family: m.family,
        label,
        files: mine.map((f) => ({ ...f, match: f.match === "name" ? "name" : "header" })),
      },
      {
        family: null,
        label: "unverified",
        detail: headersRead
          ? `files in models/${folder} whose name and header do not show ${m.family}`
          : `files in models/${folder} whose name does not show ${m.family} (headers not read: COMFYUI_PATH is not set)`,
        files: rest.map((f) => ({ ...f, match: null })),
      },
    ],
  };
}
