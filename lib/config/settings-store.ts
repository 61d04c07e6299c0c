// The settings in force (file, then environment), the GET /studio/settings answer and the checked PUT write.
import { stat } from "node:fs/promises";
import type { Services } from "../context.ts";
import { badRequest, StudioError } from "../errors.ts";
import { errorCode, errorMessage } from "../store/json-guards.ts";
import { withLock } from "../store/lock.ts";
import { mountedComfy } from "./mounted.ts";
import { CHOICE_KINDS, readSettings, readSettingsFile, settingsFile, type TargetChoice } from "./settings.ts";
import { envSettings } from "./settings-env.ts";
import { type SettingsRecord, writeSettingsRecord } from "./settings-record.ts";
import type { SettingsUpdate } from "./settings-schema.ts";
import {
  isApiKey,
  isHfToken,
  type LocalVia,
  normalDeployments,
  normalIdList,
  normalLocalVia,
  normalPaidLimit,
  normalPath,
  normalTargetLimits,
  normalUrl,
  type SettingsField,
} from "./settings-values.ts";

/** The Comfy API v2 client is part of this service: nothing to install, always ready. */
export interface SdkState {
  status: "ready";
  error: null;
  command: null;
  python: null;
}

export function sdkState(): SdkState {
  return { status: "ready", error: null, command: null, python: null };
}

/** Every setting in force, well-formed (a hand-edited value that cannot be used counts as unset). */
export interface EffectiveSettings {
  local_url: string | null;
  engine_url: string | null;
  cloud_url: string | null;
  api_key: string | null;
  hf_token: string | null;
  deployments: Record<string, string>;
  path: string | null;
  paid_limit: number | null;
  enabled_drafts: string[];
  target_limits: Record<string, Record<string, unknown>>;
  local_via: LocalVia | null;
  default_targets: TargetChoice;
  detected_targets: TargetChoice;
  /** The ComfyUI this service is mounted in (STUDIO_MOUNTED_COMFY): the local address when the settings name none. */
  mounted: string | null;
}

export interface SettingsView extends Omit<EffectiveSettings, "api_key" | "hf_token" | "mounted"> {
  /** Write-only: `"set"` or null, never the key. */
  api_key: "set" | null;
  /** Write-only like the key. */
  hf_token: "set" | null;
  sdk: SdkState;
}

export interface SettingsAnswer {
  settings: SettingsView;
  file: string;
  from_env: Partial<Record<SettingsField, string>>;
}

type SettingsServices = Pick<Services, "home" | "env" | "caches">;

export async function effectiveSettings(services: SettingsServices): Promise<EffectiveSettings> {
  const s = await readSettings(services);
  return {
    local_url: normalUrl(s.local_url),
    engine_url: normalUrl(s.engine_url),
    cloud_url: normalUrl(s.cloud_url),
    api_key: isApiKey(s.api_key) ? s.api_key.trim() : null,
    hf_token: isHfToken(s.hf_token) ? s.hf_token.trim() : null,
    deployments: normalDeployments(s.deployments),
    path: normalPath(s.path),
    paid_limit: normalPaidLimit(s.paid_limit) ?? null,
    enabled_drafts: normalIdList(s.enabled_drafts),
    target_limits: normalTargetLimits(s.target_limits),
    local_via: normalLocalVia(s.local_via),
    default_targets: s.default_targets,
    detected_targets: s.detected_targets,
    mounted: mountedComfy(services.env),
  };
}

/** The GET /studio/settings body. */
export async function settingsAnswer(services: SettingsServices): Promise<SettingsAnswer> {
  const { mounted: _mounted, ...s } = await effectiveSettings(services);
  return {
    settings: {
      ...s,
      api_key: s.api_key ? "set" : null,
      hf_token: s.hf_token ? "set" : null,
      sdk: sdkState(),
    },
    file: settingsFile(services),
    from_env: envSettings(services.env).from,
  };
}

/**
 * Check `update`'s folder on the disk, then merge it into the file atomically (other keys in the file are kept).
 * Null (or a blank address) removes a field. Answers as GET. The target ids are the caller's to check against
 * the target registry first (lib/targets/settings-check.ts): settings sit below the targets.
 */
export async function writeSettings(
  services: SettingsServices & Pick<Services, "locks">,
  update: SettingsUpdate,
): Promise<SettingsAnswer> {
  if (update.path?.trim()) await checkFolder(update.path);
  const file = settingsFile(services);
  await withLock(services, file, async () => {
    const next: SettingsRecord = { ...(await readSettingsFile(services)) };
    const put = <K extends SettingsField>(field: K, value: SettingsRecord[K] | undefined) => {
      if (value === null || value === undefined) delete next[field];
      else next[field] = value;
    };
    for (const field of ["local_url", "engine_url", "cloud_url"] as const) {
      if (update[field] !== undefined) put(field, normalUrl(update[field]));
    }
    if (update.api_key !== undefined) put("api_key", update.api_key?.trim() ?? null);
    if (update.hf_token !== undefined) put("hf_token", update.hf_token?.trim() ?? null);
    if (update.deployments !== undefined) put("deployments", nonEmpty(normalDeployments(update.deployments)));
    if (update.path !== undefined) put("path", normalPath(update.path));
    if (update.paid_limit !== undefined) put("paid_limit", update.paid_limit);
    if (update.enabled_drafts !== undefined) {
      const list = normalIdList(update.enabled_drafts);
      put("enabled_drafts", list.length ? list : null);
    }
    if (update.target_limits !== undefined)
      put("target_limits", nonEmpty(normalTargetLimits(update.target_limits)));
    if (update.local_via !== undefined) put("local_via", update.local_via);
    for (const field of ["default_targets", "detected_targets"] as const) {
      const value = update[field];
      if (value === undefined) continue;
      const out: TargetChoice = {};
      for (const kind of CHOICE_KINDS) {
        const id = value?.[kind];
        if (id) out[kind] = id;
      }
      put(field, nonEmpty(out));
    }
    await writeSettingsRecord(services, file, next);
  });
  return settingsAnswer(services);
}

function nonEmpty<T extends object>(value: T): T | null {
  return Object.keys(value).length ? value : null;
}

async function checkFolder(value: string): Promise<void> {
  const folder = normalPath(value);
  if (!folder) throw badRequest(`path: "${value}" must be an absolute folder path, or null`);
  try {
    if (!(await stat(folder)).isDirectory()) throw badRequest(`path: "${folder}" is not a folder`);
  } catch (err) {
    if (err instanceof StudioError) throw err;
    const code = errorCode(err);
    if (code === "ENOENT" || code === "ENOTDIR") throw badRequest(`path: "${folder}" does not exist`);
    throw badRequest(`path: "${folder}" cannot be read (${code ?? errorMessage(err)})`);
  }
}
