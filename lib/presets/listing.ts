// The presets a user can apply: the shipped ones, read off every video and image target's `presets.final` and
// `presets.proxy` (ids `<target>/final`, `<target>/proxy`), then the user's own; each with the address of its
// sample picture or null.
import type { Services } from "../context.ts";
import { badRequest } from "../errors.ts";
import { parseLoras } from "../series/load.ts";
import type { Preset, TargetRegistryView, TargetSpec } from "../targets/registry.ts";
import { type OwnPreset, readOwnPresets } from "./store.ts";

export type PresetKind = "video" | "image";
export const PRESET_KINDS: readonly PresetKind[] = ["video", "image"];

export interface ListedPreset {
  id: string;
  label: string;
  kind: PresetKind;
  target: string;
  /** Which pass of the target a shipped preset is; null for an own preset. */
  pass: "final" | "proxy" | null;
  /** Null: the target's own (a shipped proxy: the series model, else the final's). */
  model: string | null;
  loras: { name: string; strength: number }[] | null;
  steps: number | null;
  /** `WxH`, or null for the target's own size. */
  size: string | null;
  note: string | null;
  own: boolean;
  /** GET /studio/presets/image's address of the sample picture, or null when there is none. */
  picture: string | null;
}

/** The `kind` query: video or image, or nothing for both. */
export function parsePresetKind(value: string | undefined): PresetKind | undefined {
  if (value === undefined || value === "") return undefined;
  if ((PRESET_KINDS as readonly string[]).includes(value)) return value as PresetKind;
  throw badRequest(`kind must be video or image (got ${JSON.stringify(value)})`);
}

export const sizeText = (size: { width: number; height: number } | null) =>
  size ? `${size.width}x${size.height}` : null;

/** A target preset's LoRAs: its `loras` list, else its one `lora` string, else none. */
export function presetLoras(p: Preset): { name: string; strength: number }[] {
  if (Array.isArray(p.loras)) return p.loras.map((l) => ({ name: l.name, strength: l.strength }));
  if (typeof p.lora === "string" && p.lora.trim()) {
    try {
      return parseLoras(p.lora);
    } catch {
      return [];
    }
  }
  return [];
}

function shippedPresets(spec: TargetSpec): ListedPreset[] {
  const out: ListedPreset[] = [];
  if (spec.kind !== "video" && spec.kind !== "image") return out;
  for (const pass of ["final", "proxy"] as const) {
    const p = spec.presets[pass];
    if (!p) continue;
    const width = typeof p.width === "number" ? p.width : null;
    const height = typeof p.height === "number" ? p.height : null;
    out.push({
      id: `${spec.id}/${pass}`,
      label: `${spec.label} · ${pass}`,
      kind: spec.kind,
      target: spec.id,
      pass,
      model: typeof p.model === "string" && p.model ? p.model : null,
      loras: presetLoras(p),
      steps: typeof p.steps === "number" ? p.steps : null,
      size: width !== null && height !== null ? `${width}x${height}` : null,
      note: null,
      own: false,
      picture: null,
    });
  }
  return out;
}

export const pictureUrl = (p: Pick<OwnPreset, "id" | "picture">) =>
  p.picture === null ? null : `/studio/presets/image?id=${encodeURIComponent(p.id)}&v=${p.picture}`;

export function listedOwn(p: OwnPreset): ListedPreset {
  return {
    id: p.id,
    label: p.label,
    kind: p.kind,
    target: p.target,
    pass: null,
    model: p.model,
    loras: p.loras,
    steps: p.steps,
    size: sizeText(p.size),
    note: p.note,
    own: true,
    picture: pictureUrl(p),
  };
}

/** Every preset of `kind` (both kinds when absent): shipped in target order, then own in the order made. */
export async function listPresets(
  services: Pick<Services, "home" | "caches">,
  registry: TargetRegistryView,
  kind: PresetKind | undefined,
): Promise<ListedPreset[]> {
  const out: ListedPreset[] = [];
  for (const k of PRESET_KINDS) {
    if (kind && k !== kind) continue;
    for (const id of registry.ids(k)) {
      const spec = registry.get(id);
      if (spec) out.push(...shippedPresets(spec));
    }
  }
  for (const p of await readOwnPresets(services)) if (!kind || p.kind === kind) out.push(listedOwn(p));
  return out;
}

/** Whether an id names a shipped preset (`<target>/<pass>`): those are read-only. */
export const isShippedId = (id: string) => id.includes("/");
