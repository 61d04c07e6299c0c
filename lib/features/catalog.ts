// What can be installed for the shipped targets: one feature per ComfyUI target, its model files (every file a
// pass or an optional feature wants, and every recorded download) and the node packs its recipe names. Only URLs
// recorded in a target's `downloads` are ever fetched.
import { isObject } from "../store/json-guards.ts";
import { baseName, modelFolder, modelSpecs, type Tier, wantedFiles } from "../targets/models.ts";
import {
  TARGET_KINDS,
  type TargetKind,
  type TargetRegistryView,
  type TargetSpec,
} from "../targets/registry.ts";

export interface CatalogGroup {
  id: TargetKind;
  label: string;
  about: string;
}

export interface CatalogModel {
  key: string;
  kind: "model";
  name: string;
  folder: string;
  /** The recorded download address, or null when none is trustworthy (then `source` says what to search for). */
  url: string | null;
  source: string;
  tier: Tier;
  /** The optional feature this file switches on, when it is optional. */
  feature?: string;
  sha256?: string;
}

export interface CatalogPack {
  key: string;
  kind: "pack";
  name: string;
  /** The node classes it brings that a target uses. */
  classes: string[];
  /** The most demanding tier the target's `nodes` give its classes (`optional` when they give none). */
  tier: Tier;
  /** The project's own pack (`own: true` on a class of it): not shipped here, nor found in ComfyUI's pack lists. */
  own?: boolean;
}

export type CatalogItem = CatalogModel | CatalogPack;

export interface CatalogFeature {
  id: string;
  group: TargetKind;
  label: string;
  about: string;
  target: string;
  /** A node pack only loads when ComfyUI starts again. */
  restart: boolean;
  items: CatalogItem[];
}

export const GROUPS: readonly CatalogGroup[] = [
  { id: "video", label: "Video targets", about: "Model files the ComfyUI video targets render shots with" },
  {
    id: "image",
    label: "Image targets",
    about: "Model files for reference pictures and keyframes on ComfyUI",
  },
  { id: "audio", label: "Audio targets", about: "Model files for voice samples on ComfyUI" },
];

const TIER_ORDER: Record<Tier, number> = { required: 0, accelerator: 1, optional: 2 };

export const modelKey = (folder: string, name: string) => `model:${folder}/${name}`;
export const packKey = (name: string) => `pack:${name}`;

interface Download {
  folder: string | null;
  url: string | null;
  source: string;
  sha256?: string;
}

function downloadsOf(spec: TargetSpec): Map<string, Download> {
  const out = new Map<string, Download>();
  const d = isObject(spec.downloads) ? spec.downloads : {};
  for (const [name, v] of Object.entries(d)) {
    if (name.startsWith("_") || !isObject(v)) continue;
    const url = typeof v.url === "string" && /^https?:\/\//.test(v.url) ? v.url : null;
    const sha =
      typeof v.sha256 === "string" && /^[0-9a-f]{64}$/i.test(v.sha256) ? v.sha256.toLowerCase() : null;
    out.set(baseName(name), {
      folder: typeof v.folder === "string" ? v.folder : null,
      url,
      source: typeof v.source === "string" ? v.source : `search for "${baseName(name)}"`,
      ...(sha ? { sha256: sha } : {}),
    });
  }
  return out;
}

/** Every model file a target may load, with the tier of its most demanding use. */
function targetModels(spec: TargetSpec): CatalogModel[] {
  const specs = modelSpecs(spec);
  const downloads = downloadsOf(spec);
  const found = new Map<string, CatalogModel>();
  const add = (name: string, folder: string | null, tier: Tier, feature?: string) => {
    const file = baseName(name);
    const d = downloads.get(file);
    const where = folder ?? d?.folder ?? null;
    if (!where || !/\.[a-z0-9]+$/i.test(file)) return;
    const key = modelKey(where, file);
    const seen = found.get(key);
    if (seen) {
      if (TIER_ORDER[tier] < TIER_ORDER[seen.tier]) {
        seen.tier = tier;
        delete seen.feature;
      }
      return;
    }
    found.set(key, {
      key,
      kind: "model",
      name: file,
      folder: where,
      url: d?.url ?? null,
      source: d?.source ?? `search for "${file}" (e.g. on Hugging Face)`,
      tier,
      ...(feature && tier === "optional" ? { feature } : {}),
      ...(d?.sha256 ? { sha256: d.sha256 } : {}),
    });
  };
  for (const pass of ["final", "proxy"] as const) {
    if (!spec.presets[pass]) continue;
    const wanted = wantedFiles(spec, pass);
    for (const [param, file] of Object.entries(wanted.files)) {
      if (!file) continue;
      const m = specs[param];
      add(file, modelFolder(spec, param), m?.tier ?? "required", m?.feature);
    }
    for (const lora of wanted.loras) add(lora.name, "loras", "accelerator");
    const base = spec.presets[pass]?.base;
    if (isObject(base) && typeof base.model === "string")
      add(base.model, modelFolder(spec, "model"), "accelerator");
  }
  // Recorded downloads the presets do not name (a base preset's files, optional features' defaults).
  for (const [name, d] of downloads) add(name, d.folder, "optional");
  return [...found.values()].sort(
    (a, b) => TIER_ORDER[a.tier] - TIER_ORDER[b.tier] || a.name.localeCompare(b.name),
  );
}

/** The tier a target's `nodes` give a class: a list names required classes; an object may tier each one. */
function nodeTier(spec: TargetSpec, cls: string): { tier: Tier; own: boolean } | null {
  const nodes = spec.nodes;
  if (Array.isArray(nodes)) return nodes.includes(cls) ? { tier: "required", own: false } : null;
  if (!isObject(nodes) || !isObject(nodes[cls])) return null;
  const n = nodes[cls];
  const tier: Tier = n.tier === "optional" || n.tier === "accelerator" ? n.tier : "required";
  return { tier, own: n.own === true };
}

/**
 * Node packs a target names (`{class, pack}` entries, such as the context windows its upscale uses), each at the
 * most demanding tier its classes have in the target's `nodes` (a class named only for an optional feature, such as
 * the upscale's, leaves its pack optional).
 */
function targetPacks(spec: TargetSpec): CatalogPack[] {
  const packs = new Map<string, CatalogPack>();
  const add = (name: string, cls: string) => {
    const seen = packs.get(name) ?? {
      key: packKey(name),
      kind: "pack" as const,
      name,
      classes: [],
      tier: "optional",
    };
    if (!seen.classes.includes(cls)) seen.classes.push(cls);
    const t = nodeTier(spec, cls);
    if (t && TIER_ORDER[t.tier] < TIER_ORDER[seen.tier]) seen.tier = t.tier;
    if (t?.own) seen.own = true;
    packs.set(name, seen);
  };
  const visit = (value: unknown, depth: number) => {
    if (depth > 6 || !isObject(value)) return;
    if (typeof value.pack === "string" && typeof value.class === "string") {
      add(value.pack, value.class);
      return;
    }
    for (const v of Object.values(value)) visit(v, depth + 1);
  };
  for (const part of [spec.recipe, spec.binding, spec.upscale]) visit(part, 0);
  if (isObject(spec.nodes))
    for (const [cls, n] of Object.entries(spec.nodes))
      if (isObject(n) && typeof n.pack === "string") add(n.pack, cls);
  return [...packs.values()];
}

/** One feature per shipped ComfyUI target (the built-in targets need nothing installed). */
export function buildCatalog(registry: TargetRegistryView): CatalogFeature[] {
  const out: CatalogFeature[] = [];
  for (const kind of TARGET_KINDS) {
    for (const id of registry.ids(kind)) {
      const spec = registry.get(id);
      if (!spec || spec.backend === "builtin" || spec.custom) continue;
      const models = targetModels(spec);
      const packs = targetPacks(spec);
      if (models.length + packs.length === 0) continue;
      const required = models.filter((m) => m.tier === "required").length;
      out.push({
        id,
        group: kind,
        label: spec.label,
        about: `${required} required file${required === 1 ? "" : "s"}, ${models.length - required} accelerator or optional; installed into the engine's models folders`,
        target: id,
        restart: packs.length > 0,
        items: [...models, ...packs],
      });
    }
  }
  return out;
}

/** Every model item of the catalog by file name (case-insensitive), first record wins. */
export function modelsByName(catalog: readonly CatalogFeature[]): Map<string, CatalogModel> {
  const out = new Map<string, CatalogModel>();
  for (const f of catalog)
    for (const item of f.items)
      if (item.kind === "model" && !out.has(item.name.toLowerCase())) out.set(item.name.toLowerCase(), item);
  return out;
}
