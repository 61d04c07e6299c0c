// Model files at queue time (targets 4): which files a pass wants, which installed file stands in for each,
// the accelerator fallback to the `base` preset, and a target's readiness on one ComfyUI.

import { z } from "zod";
import { isObject, str } from "../store/json-guards.ts";
import { LOADER_FOLDERS } from "./folders.ts";
import { type ApiGraph, GraphError, jobClasses, type PatchOptions, targetClasses } from "./graph.ts";
import { globMatch, hasSignature, identify, relation, type SafetensorsHeader } from "./modelid.ts";
import { loaderVariant } from "./patches/h3-core.ts";
import type { LoraItem, Preset, TargetSpec } from "./registry.ts";

export type Tier = "required" | "accelerator" | "optional";
export type Pass = "final" | "proxy";

const names = z.array(z.string());

/** One model parameter of a target's `models` block. */
const modelSpec = z.looseObject({
  family: z.string(),
  patterns: names.optional(),
  tier: z.enum(["required", "accelerator", "optional"]).optional(),
  feature: z.string().optional(),
  default: z.string().optional(),
  keep: names.optional(),
  exclude: names.optional(),
  folder: z.string().optional(),
  class_type: z.string().optional(),
  field: z.string().optional(),
});
export type ModelSpec = z.output<typeof modelSpec>;

/** A preset's own LoRAs (`base.loras`). */
const loraItems = z.array(
  z.looseObject({ name: z.string(), strength: z.number(), stage: z.string().optional() }),
);

/** Installed files per models folder (what `GET /models/<folder>` answers); `null`/absent: the folder can't be listed. */
export type Listing = Readonly<Record<string, readonly string[] | null | undefined>>;

/** The header of an installed file, or null when it cannot be read (no `COMFYUI_PATH`, not a safetensors file). */
export type HeaderLookup = (folder: string, file: string) => Promise<SafetensorsHeader | null>;

export interface ResolveOptions {
  headerOf?: HeaderLookup;
  /** Extra name globs per family (series `model_families`). */
  familyGlobs?: Record<string, readonly string[]>;
}

export interface FileMatch {
  using: string;
  how: "exact" | "family";
  match?: "name" | "fingerprint";
}

export interface MissingFile {
  param: string;
  tier: Tier;
  want: string;
  family: string | null;
  folder: string | null;
  url: string | null;
  source: string;
  label: string;
  feature?: string;
}

export interface ParamResolution {
  want: string;
  using: string | null;
  /** `unlisted`: ComfyUI could not list the folder, so the file is left alone (not blocked). */
  how: "exact" | "family" | "base" | "off" | "unlisted" | "missing";
  tier: Tier;
  folder: string | null;
  match?: "name" | "fingerprint";
}

export interface ModelsResolution {
  pass: Pass;
  params: Record<string, ParamResolution>;
  loras: LoraItem[];
  /** Files to patch instead of the wanted ones (`model` and other file params), after substitutes and `base`. */
  files: Record<string, string>;
  /** Non-file values the base preset brings (steps, cfg, sampler, …). */
  values: Record<string, unknown>;
  base: boolean;
  missing: MissingFile[];
  /** A required file is missing: the shot is skipped with `missing_files`. */
  blocked: boolean;
  features_off: string[];
  notes: string[];
}

export interface JobModels {
  model?: string | null;
  loras?: LoraItem[] | null;
  /** File params set by the job (substitutes, `text_encoder`, …). */
  values?: Record<string, unknown>;
}

/** A listing entry's file name: subfolders and Windows separators dropped. */
export const baseName = (file: string) => file.replace(/\\/g, "/").split("/").pop() ?? file;
const stem = (file: string) => baseName(file).replace(/\.[^.]+$/, "");

const PRECISION = /(?<![a-z0-9])(nvfp4|fp4|fp8|int8|int4|bf16|fp16|fp32)/;
/** Weight precision written in a file name (`…-int8-…` → `int8`), or null. */
export function precisionOf(file: string): string | null {
  return PRECISION.exec(stem(file).toLowerCase().replace(/-/g, "_"))?.[1] ?? null;
}

export function modelSpecs(spec: TargetSpec): Record<string, ModelSpec> {
  const out: Record<string, ModelSpec> = {};
  for (const [k, v] of Object.entries(spec.models ?? {})) {
    const parsed = modelSpec.safeParse(v);
    if (parsed.success) out[k] = parsed.data;
  }
  return out;
}

/** The models folder of a file param: `models.<param>.folder`, else by its loader class and field. */
export function modelFolder(spec: TargetSpec, param: string): string | null {
  if (param === "loras") return "loras";
  const m = modelSpecs(spec)[param];
  if (m?.folder) return m.folder;
  if (m?.class_type && m.field) return LOADER_FOLDERS[`${m.class_type}.${m.field}`] ?? null;
  const bound = isObject(spec.binding.params) ? spec.binding.params[param] : undefined;
  const first = Array.isArray(bound) ? bound[0] : bound;
  if (isObject(first) && typeof first.class_type === "string" && typeof first.field === "string") {
    return LOADER_FOLDERS[`${first.class_type}.${first.field}`] ?? null;
  }
  return null;
}

const NO_LORA = new Set(["", "none", "off", "-"]);

/** `name`, `name:0.6` → a LoRA item (null for none/off). */
function loraFrom(value: unknown, strength: number): LoraItem | null {
  if (typeof value !== "string") return null;
  const raw = value.trim();
  if (NO_LORA.has(raw.toLowerCase())) return null;
  const m = /^(.*):(-?\d+(?:\.\d+)?)$/.exec(raw);
  return m ? { name: m[1], strength: Number(m[2]) } : { name: raw, strength };
}

function presetOf(spec: TargetSpec, pass: Pass): Preset {
  return spec.presets[pass] ?? spec.presets.final ?? {};
}

export interface WantedFiles {
  /** File per model param (`null`: nothing wanted for it on this pass). */
  files: Record<string, string | null>;
  loras: LoraItem[];
  /** LoRA names of the pass's own slot: a missing one is an accelerator, not a blocker. */
  loraSlot: string[];
}

/** Which files a pass wants: the pass preset's, else final's, else the param's `default`. */
export function wantedFiles(spec: TargetSpec, pass: Pass): WantedFiles {
  const preset = presetOf(spec, pass);
  const final = spec.presets.final ?? {};
  const files: Record<string, string | null> = {};
  for (const [param, m] of Object.entries(modelSpecs(spec))) {
    if (param === "loras") continue;
    const pick = (p: Preset) => str(p[param]);
    files[param] = pick(preset) ?? pick(final) ?? m.default ?? null;
  }
  let loras: LoraItem[] = [];
  const strength = typeof preset.lora_strength === "number" ? preset.lora_strength : 1.0;
  const one = loraFrom(preset.lora, strength);
  if (one) loras = [one];
  else if (Array.isArray(preset.loras)) loras = preset.loras.filter((l) => l && typeof l.name === "string");
  return { files, loras, loraSlot: loras.map((l) => l.name) };
}

function compileKeep(rules: readonly string[] | undefined): RegExp[] {
  return (rules ?? []).map((r) => new RegExp(r));
}

/** A candidate shares every `keep` word the wanted name has (so `dev` never stands in for `distilled`). */
function keeps(rules: RegExp[], want: string, cand: string): boolean {
  for (const r of rules) {
    const w = r.exec(want);
    if (!w) continue;
    const c = r.exec(cand);
    if (!c || (c[1] ?? c[0]) !== (w[1] ?? w[0])) return false;
  }
  return true;
}

/**
 * Which installed file serves `want`: the same file (any subfolder, any case); else a file of the same
 * family by name patterns, else by header (not for LoRAs); the best of several shares the wanted precision, then
 * has the shortest name, then comes first in ComfyUI's listing. Null when nothing fits.
 */
export async function resolveFile(
  want: string,
  model: ModelSpec | undefined,
  files: readonly string[],
  folder: string | null,
  options: ResolveOptions = {},
): Promise<FileMatch | null> {
  const wantBase = baseName(want).toLowerCase();
  const exact = files.find((f) => baseName(f).toLowerCase() === wantBase);
  if (exact !== undefined) return { using: exact, how: "exact" };
  if (!model) return null;
  const keep = compileKeep(model.keep);
  const candidates = files
    .map((f, order) => ({ f, order, name: baseName(f).toLowerCase() }))
    .filter((c) => keeps(keep, wantBase, c.name) && !(model.exclude ?? []).some((g) => globMatch(g, c.name)));
  const wantPrecision = precisionOf(want);
  const best = (list: typeof candidates) =>
    [...list].sort(
      (a, b) =>
        Number(precisionOf(a.f) !== wantPrecision) - Number(precisionOf(b.f) !== wantPrecision) ||
        stem(a.f).length - stem(b.f).length ||
        a.order - b.order,
    )[0];
  const globs = [...(model.patterns ?? []), ...(options.familyGlobs?.[model.family] ?? [])];
  const byName = candidates.filter((c) => globs.some((g) => globMatch(g, c.name)));
  if (byName.length) return { using: best(byName).f, how: "family", match: "name" };
  if (!options.headerOf || folder === null || folder === "loras" || !hasSignature(model.family)) return null;
  const byHeader: typeof candidates = [];
  for (const c of candidates) {
    let header: SafetensorsHeader | null = null;
    try {
      header = await options.headerOf(folder, c.f);
    } catch {
      header = null; // an unreadable file is simply not evidence
    }
    if (!header) continue;
    const id = identify(header, c.name);
    if (!id.family) continue;
    const rel = relation(id.family, model.family);
    if (rel === "same" || rel === "variant") byHeader.push(c);
  }
  return byHeader.length ? { using: best(byHeader).f, how: "family", match: "fingerprint" } : null;
}

function download(
  spec: TargetSpec,
  file: string,
): { folder: string | null; url: string | null; source: string } {
  const d = isObject(spec.downloads) ? spec.downloads : {};
  const hit = d[baseName(file)];
  if (isObject(hit)) {
    return {
      folder: typeof hit.folder === "string" ? hit.folder : null,
      url: typeof hit.url === "string" && hit.url ? hit.url : null,
      source: typeof hit.source === "string" ? hit.source : `search for "${baseName(file)}"`,
    };
  }
  return { folder: null, url: null, source: `search for "${baseName(file)}" (e.g. on Hugging Face)` };
}

function missingFile(
  spec: TargetSpec,
  param: string,
  want: string,
  tier: Tier,
  family: string | null,
  folder: string | null,
  feature?: string,
): MissingFile {
  const d = download(spec, want);
  const where = folder ?? d.folder;
  const out: MissingFile = {
    param,
    tier,
    want,
    family,
    folder: where,
    url: d.url,
    source: d.source,
    label: `${param}: ${want}${where ? ` (models/${where})` : ""}`,
  };
  if (feature) out.feature = feature;
  return out;
}

const featureOf = (param: string, m: ModelSpec | undefined, want: string) =>
  m?.feature ?? `${param} ${stem(want)}`;

/**
 * Resolve every file a pass wants against what ComfyUI has: substitutes by family, optional files switched
 * off, a missing accelerator falling back to the preset's `base` (its files then required), a missing required file
 * blocking the job.
 */
export async function resolveModels(
  spec: TargetSpec,
  pass: Pass,
  listing: Listing,
  options: ResolveOptions & { job?: JobModels } = {},
): Promise<ModelsResolution> {
  const models = modelSpecs(spec);
  const wanted = wantedFiles(spec, pass);
  const job = options.job ?? {};
  if (job.model) wanted.files.model = job.model;
  for (const [k, v] of Object.entries(job.values ?? {})) {
    if (k in wanted.files && typeof v === "string" && v) wanted.files[k] = v;
  }
  let loras = job.loras ?? wanted.loras;
  const slot = new Set(wanted.loraSlot.map((n) => n.toLowerCase()));

  const out: ModelsResolution = {
    pass,
    params: {},
    loras,
    files: {},
    values: {},
    base: false,
    missing: [],
    blocked: false,
    features_off: [],
    notes: [],
  };
  const missingAccelerators: MissingFile[] = [];

  const one = async (param: string, want: string, tier: Tier, model: ModelSpec | undefined) => {
    const folder = modelFolder(spec, param);
    const files = folder ? listing[folder] : undefined;
    if (!files) {
      out.params[param] = { want, using: null, how: "unlisted", tier, folder };
      return;
    }
    const hit = await resolveFile(want, model, files, folder, options);
    if (hit) {
      out.params[param] = {
        want,
        using: hit.using,
        how: hit.how,
        tier,
        folder,
        ...(hit.match ? { match: hit.match } : {}),
      };
      if (hit.how === "family") {
        out.files[param] = hit.using;
        out.notes.push(
          `${param}: ${want} is not installed; using ${hit.using} (same family, by ${hit.match})`,
        );
      }
      return;
    }
    const m = missingFile(
      spec,
      param,
      want,
      tier,
      model?.family ?? null,
      folder,
      tier === "optional" ? featureOf(param, model, want) : undefined,
    );
    out.missing.push(m);
    if (tier === "optional") {
      out.params[param] = { want, using: null, how: "off", tier, folder };
      const f = featureOf(param, model, want);
      if (!out.features_off.includes(f)) out.features_off.push(f);
      out.notes.push(`${param}: ${want} is not installed, so ${f} is off`);
    } else {
      out.params[param] = { want, using: null, how: "missing", tier, folder };
      if (tier === "accelerator") missingAccelerators.push(m);
      else out.blocked = true;
    }
  };

  for (const [param, want] of Object.entries(wanted.files)) {
    if (want) await one(param, want, models[param]?.tier ?? "required", models[param]);
  }
  const loraTier = (l: LoraItem): Tier =>
    slot.has(l.name.toLowerCase())
      ? models.loras?.tier === "required"
        ? "required"
        : "accelerator"
      : "required";
  for (const [i, l] of loras.entries())
    await one(i === 0 ? "loras" : `loras[${i}]`, l.name, loraTier(l), models.loras);

  if (missingAccelerators.length) {
    const preset = presetOf(spec, pass);
    const base = isObject(preset.base) ? preset.base : null;
    if (!base) {
      out.blocked = true;
      out.notes.push(
        `${missingAccelerators.map((m) => m.want).join(", ")} not installed and ${spec.short} has no base preset for this pass`,
      );
    } else {
      out.base = true;
      const names = missingAccelerators.map((m) => `${m.want} (${m.param})`).join(", ");
      out.notes.push(`accelerator ${names} is not installed: the slower base preset renders instead`);
      for (const [k, v] of Object.entries(base)) {
        if (k === "loras" || k === "lora") continue;
        if (k in models && typeof v === "string") {
          // The base's own files are what renders now: required, whatever the param's usual tier.
          delete out.files[k];
          await one(k, v, "required", models[k]);
          const p = out.params[k];
          if (p.how === "exact" || p.how === "unlisted") out.files[k] = p.using ?? v;
          if (p.how === "exact" || p.how === "family") p.how = "base";
        } else {
          out.values[k] = v;
        }
      }
      const accelerator = new Set(missingAccelerators.map((m) => m.want.toLowerCase()));
      const kept = loras.filter(
        (l) => !slot.has(l.name.toLowerCase()) && !accelerator.has(l.name.toLowerCase()),
      );
      const own = loraItems.safeParse(base.loras).data ?? [];
      loras = [...kept, ...own];
      out.loras = loras;
    }
  }
  return out;
}

export type ReadinessStatus = "ready" | "degraded" | "not_ready" | "unknown";

export interface Readiness {
  status: ReadinessStatus;
  missing: (MissingFile & { passes: Pass[] })[];
  resolved: Record<string, ParamResolution>;
  by_pass: Partial<Record<Pass, ModelsResolution>>;
  features_off: string[];
  nodes_missing: string[];
  error?: string;
}

export interface ComfyAnswer {
  /** `/object_info` (the whole answer, or just its class names); null when ComfyUI did not answer. */
  objectInfo: Record<string, unknown> | readonly string[] | null;
  /** `/models/<folder>` answers by folder. */
  models: Listing;
  /** Why ComfyUI gave no answer (reported with `unknown`). */
  error?: string;
}

interface NodeNeed {
  tier: Tier;
  feature?: string;
}

/**
 * Classes the target needs: a plain job's graph (all required), `nodes` (list or tiered object), then what the
 * optional inputs add (keyframes, references, LoRAs: required unless `nodes` says otherwise).
 */
function nodeNeeds(spec: TargetSpec, graph: ApiGraph | null, patch: PatchOptions): Map<string, NodeNeed> {
  const needs = new Map<string, NodeNeed>();
  if (graph) for (const cls of jobClasses(spec, graph, patch)) needs.set(cls, { tier: "required" });
  const declared = spec.nodes;
  if (Array.isArray(declared)) {
    for (const cls of declared) if (typeof cls === "string") needs.set(cls, { tier: "required" });
  } else if (isObject(declared)) {
    for (const [cls, v] of Object.entries(declared)) {
      if (needs.get(cls)?.tier === "required") continue;
      const tier = isObject(v) && (v.tier === "optional" || v.tier === "accelerator") ? v.tier : "required";
      needs.set(cls, {
        tier,
        ...(isObject(v) && typeof v.feature === "string" ? { feature: v.feature } : {}),
      });
    }
  }
  if (graph) {
    for (const cls of targetClasses(spec, graph, patch))
      if (!needs.has(cls)) needs.set(cls, { tier: "required" });
  }
  return needs;
}

/**
 * A target's readiness on one ComfyUI: `ready` (every file of every pass resolves, every node is known),
 * `degraded` (only accelerators → base, or optional files/nodes missing), `not_ready` (a required file or node
 * missing, or the workflow does not fit its binding), `unknown` (ComfyUI did not answer).
 */
export async function readiness(
  spec: TargetSpec,
  answer: ComfyAnswer,
  options: ResolveOptions & { graph?: ApiGraph | null; patch?: PatchOptions } = {},
): Promise<Readiness> {
  const empty: Readiness = {
    status: "unknown",
    missing: [],
    resolved: {},
    by_pass: {},
    features_off: [],
    nodes_missing: [],
  };
  if (answer.objectInfo === null) return { ...empty, error: answer.error ?? "ComfyUI did not answer" };
  const known = new Set(
    Array.isArray(answer.objectInfo) ? answer.objectInfo : Object.keys(answer.objectInfo),
  );

  const out: Readiness = { ...empty, status: "ready" };
  let notReady = false;
  let degraded = false;
  const passes = (["final", "proxy"] as const).filter((p) => spec.presets[p]);
  const merged = new Map<string, MissingFile & { passes: Pass[] }>();
  for (const pass of passes) {
    const r = await resolveModels(spec, pass, answer.models, options);
    out.by_pass[pass] = r;
    if (r.blocked) notReady = true;
    if (r.base || r.missing.length) degraded = true;
    for (const m of r.missing) {
      const key = `${m.param}\u0000${m.want}`;
      const seen = merged.get(key);
      if (seen) seen.passes.push(pass);
      else merged.set(key, { ...m, passes: [pass] });
    }
    for (const f of r.features_off) if (!out.features_off.includes(f)) out.features_off.push(f);
  }
  out.missing = [...merged.values()];
  out.resolved = (out.by_pass.final ?? out.by_pass[passes[0]])?.params ?? {};

  let needs: Map<string, NodeNeed>;
  try {
    // A shot-list target on an engine without its pack is checked as the core graph it would send there.
    const variant = options.patch?.variant ?? loaderVariant(spec, known);
    needs = nodeNeeds(spec, options.graph ?? null, { ...options.patch, ...(variant ? { variant } : {}) });
  } catch (err) {
    if (!(err instanceof GraphError)) throw err;
    return { ...out, status: "not_ready", error: err.message };
  }
  for (const [cls, need] of needs) {
    if (known.has(cls)) continue;
    out.nodes_missing.push(cls);
    if (need.tier === "required") notReady = true;
    else {
      degraded = true;
      const f = need.feature ?? `${cls} node`;
      if (!out.features_off.includes(f)) out.features_off.push(f);
    }
  }
  out.nodes_missing.sort();
  out.status = notReady ? "not_ready" : degraded ? "degraded" : "ready";
  return out;
}
