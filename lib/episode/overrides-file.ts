// overrides.json: the editor's per-shot render overrides, episode target and upscale recipes.
import path from "node:path";
import type { Services } from "../context.ts";
import { StudioError } from "../errors.ts";
import { episodeFence, readShowJson, writeShowFile } from "../paths/guarded.ts";
import { pyJson } from "../script/canonical.ts";
import { forgetJsonFile } from "../store/json-file.ts";
import {
  type EpisodeTargets,
  type OverridesFile,
  type PassOverride,
  parseOverrides,
  type ShotOverrides,
  type TargetOverride,
} from "./overrides-record.ts";

export const PASS_FIELDS = ["prompt", "model", "model_low", "loras", "steps", "negative", "size"] as const;
export type PassField = (typeof PASS_FIELDS)[number];

export type { EpisodeTargets, OverridesFile, PassOverride, ShotOverrides, TargetOverride };

export const overridesPath = (ep: string) => path.join(ep, "overrides.json");

/** The file as stored (a fresh copy the caller may change); `{}` when there is none. */
export async function readOverrides(services: Pick<Services, "caches">, ep: string): Promise<OverridesFile> {
  const value = await readShowJson(services, episodeFence(ep), overridesPath(ep), "overrides.json");
  if (value === undefined) return {};
  const file = parseOverrides(value);
  if (file === null) {
    throw new StudioError(500, `overrides.json in ${ep} is not a JSON object; fix or remove it`);
  }
  return structuredClone(file);
}

/** The shot's block for `target`, when there is one. */
export function targetBlock(file: OverridesFile, shot: string, target: string): TargetOverride | undefined {
  const block = target === "target" ? null : file.shots?.[shot]?.[target];
  return typeof block === "object" && block !== null ? block : undefined;
}

/** The episode target stored by the editor, or null (a plain name string means none). */
export function episodeTarget(file: OverridesFile): string | null {
  return typeof file.episode === "object" && file.episode?.target ? file.episode.target : null;
}

/** Drop what the format says must not linger: base_hash-only pass blocks, empty blocks, empty maps. */
export function tidyOverrides(file: OverridesFile): OverridesFile {
  const shots = file.shots;
  for (const [shot, shotBlock] of Object.entries(shots ?? {})) {
    for (const [key, block] of Object.entries(shotBlock ?? {})) {
      if (key === "target" || typeof block !== "object" || block === null) continue;
      for (const pass of ["final", "proxy"] as const) {
        const p = block[pass];
        if (p && Object.keys(p).every((k) => k === "base_hash")) delete block[pass];
      }
      if (Object.keys(block).length === 0 && shotBlock) delete shotBlock[key];
    }
    if (shots && Object.keys(shotBlock ?? {}).length === 0) delete shots[shot];
  }
  if (shots && Object.keys(shots).length === 0) delete file.shots;
  for (const key of ["upscale", "post"] as const) {
    const map = file[key];
    if (map && Object.keys(map).length === 0) delete file[key];
  }
  return file;
}

/** Write the file (seeds as integer literals, 2-space indent), after tidying it. */
export async function writeOverrides(
  services: Pick<Services, "caches">,
  ep: string,
  file: OverridesFile,
): Promise<void> {
  await writeShowFile(episodeFence(ep), overridesPath(ep), overridesText(file));
  forgetJsonFile(services, overridesPath(ep));
}

/** The file's text after tidying it: 2-space JSON, seeds as integer literals, every key in its order. */
export function overridesText(file: OverridesFile): string {
  return `${pyJson(tidyOverrides(file), { indent: 2, floatKeys: NO_FLOATS })}\n`;
}

const NO_FLOATS: ReadonlySet<string> = new Set();
