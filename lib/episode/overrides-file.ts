// overrides.json (api-extras §5.5): the editor's per-shot render overrides, episode target and upscale recipes.
import path from "node:path";
import { StudioError } from "../errors.ts";
import { episodeFence, readShowJson, writeShowFile } from "../paths/guarded.ts";
import { pyJson } from "../script/canonical.ts";
import { forgetJsonFile } from "../store/json-file.ts";

export const PASS_FIELDS = ["prompt", "model", "model_low", "loras", "steps", "negative", "size"] as const;
export type PassField = (typeof PASS_FIELDS)[number];

export interface PassOverride {
  base_hash?: string;
  prompt?: string;
  model?: string;
  model_low?: string;
  loras?: { name: string; strength: number }[];
  steps?: number;
  negative?: string;
  size?: string;
}

/** One target's block of a shot: shared `seed`/`note`, then per-pass fields. */
export interface TargetOverride {
  seed?: bigint;
  note?: string;
  final?: PassOverride;
  proxy?: PassOverride;
}

/** `target` (the retarget) beside one block per target id. */
export type ShotOverrides = { target?: string } & { [targetId: string]: TargetOverride | string | undefined };

export interface EpisodeTargets {
  id: string;
  target?: string;
  refs_target?: string;
  keyframe_target?: string;
  voice_target?: string;
}

export interface OverridesFile {
  episode?: string | EpisodeTargets;
  shots?: Record<string, ShotOverrides>;
  upscale?: Record<string, Record<string, unknown>>;
  post?: Record<string, Record<string, unknown>>;
  [other: string]: unknown;
}

export const overridesPath = (ep: string) => path.join(ep, "overrides.json");

/** The file as stored (a fresh copy the caller may change); `{}` when there is none. */
export async function readOverrides(ep: string): Promise<OverridesFile> {
  const value = await readShowJson(episodeFence(ep), overridesPath(ep), "overrides.json");
  if (value === undefined) return {};
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new StudioError(500, `overrides.json in ${ep} is not a JSON object; fix or remove it`);
  }
  return structuredClone(value) as OverridesFile;
}

/** The shot's block for `target`, when there is one. */
export function targetBlock(file: OverridesFile, shot: string, target: string): TargetOverride | undefined {
  const block = file.shots?.[shot]?.[target];
  return block && typeof block === "object" ? (block as TargetOverride) : undefined;
}

/** The episode target stored by the editor, or null (a plain name string means none). */
export function episodeTarget(file: OverridesFile): string | null {
  return typeof file.episode === "object" && file.episode?.target ? file.episode.target : null;
}

/** Drop what the format says must not linger: base_hash-only pass blocks, empty blocks, empty maps. */
export function tidyOverrides(file: OverridesFile): OverridesFile {
  for (const [shot, shotBlock] of Object.entries(file.shots ?? {})) {
    for (const [key, block] of Object.entries(shotBlock)) {
      if (key === "target" || !block || typeof block !== "object") continue;
      const t = block as TargetOverride;
      for (const pass of ["final", "proxy"] as const) {
        const p = t[pass];
        if (p && Object.keys(p).every((k) => k === "base_hash")) delete t[pass];
      }
      if (Object.keys(t).length === 0) delete shotBlock[key];
    }
    if (Object.keys(shotBlock).length === 0) delete file.shots![shot];
  }
  if (file.shots && Object.keys(file.shots).length === 0) delete file.shots;
  for (const key of ["upscale", "post"] as const) {
    const map = file[key];
    if (map && typeof map === "object" && Object.keys(map).length === 0) delete file[key];
  }
  return file;
}

/** Write the file (seeds as integer literals, 2-space indent), after tidying it. */
export async function writeOverrides(ep: string, file: OverridesFile): Promise<void> {
  await writeShowFile(
    episodeFence(ep),
    overridesPath(ep),
    `${pyJson(tidyOverrides(file), { indent: 2, floatKeys: NO_FLOATS })}\n`,
  );
  forgetJsonFile(overridesPath(ep));
}

const NO_FLOATS: ReadonlySet<string> = new Set();
