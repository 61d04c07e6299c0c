// Reads settings.json (with the environment's settings over it): what builds, jobs and the settings routes use.
import path from "node:path";
import type { Services } from "../context.ts";
import { StudioError } from "../errors.ts";
import { readJsonFile } from "../store/json-file.ts";
import { isObject, trimmed } from "../store/json-guards.ts";
import { studioDataDir } from "./home.ts";
import { envSettings } from "./settings-env.ts";
import { type SettingsRecord, settingsRecord } from "./settings-record.ts";

export type TargetChoice = {
  video?: string;
  image?: string;
  audio?: string;
};

export interface Settings {
  default_targets: TargetChoice;
  detected_targets: TargetChoice;
  [field: string]: unknown;
}

export function settingsFile(services: Pick<Services, "home">): string {
  return path.join(studioDataDir(services.home), "settings.json");
}

/**
 * The settings file, with `default_targets` and `detected_targets` always objects. Absent file: both empty.
 * Given `env`, a setting an environment variable sets (settings-env.ts) replaces the file's value.
 */
export async function readSettings(
  services: Pick<Services, "home" | "caches"> & { env?: Services["env"] },
): Promise<Settings> {
  const raw = await readSettingsFile(services);
  return {
    ...raw,
    ...envSettings(services.env).values,
    default_targets: targetChoice(raw.default_targets),
    detected_targets: targetChoice(raw.detected_targets),
  };
}

/** The file as stored (shared with the cache: do not mutate); `{}` when absent, 500 when not an object. */
export async function readSettingsFile(services: Pick<Services, "home" | "caches">): Promise<SettingsRecord> {
  const file = settingsFile(services);
  const raw = await readJsonFile(services, file, "settings.json");
  if (raw === undefined) return {};
  const record = settingsRecord.parse(raw);
  if (record === null) throw new StudioError(500, `settings.json at ${file} must be a JSON object`);
  return record;
}

/** The machine's default video target: chosen, else detected, else the built-in animatic. */
export function defaultVideoTarget(settings: Pick<Settings, "default_targets" | "detected_targets">): string {
  return settings.default_targets?.video || settings.detected_targets?.video || "animatic";
}

/** The kinds a target choice names a target for. */
export const CHOICE_KINDS = ["video", "image", "audio"] as const;

// Only non-empty strings count; anything else in a hand-edited file is ignored rather than fatal.
export function targetChoice(value: unknown): TargetChoice {
  if (!isObject(value)) return {};
  const out: TargetChoice = {};
  for (const kind of CHOICE_KINDS) {
    const id = trimmed(value[kind]);
    if (id) out[kind] = id;
  }
  return out;
}
