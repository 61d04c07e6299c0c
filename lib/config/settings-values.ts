// Checks and normal forms of settings values, shared by the PUT schema, the environment and hand-edited files.
import path from "node:path";
import { isTargetId } from "../schema/fields.ts";
import { isObject, oneOf } from "../store/json-guards.ts";

/** The settings fields in the order GET /studio/settings shows them (`sdk` is built in, never stored). */
export const SETTINGS_FIELDS = [
  "local_url",
  "engine_url",
  "cloud_url",
  "api_key",
  "hf_token",
  "deployments",
  "path",
  "paid_limit",
  "enabled_drafts",
  "target_limits",
  "local_via",
  "default_targets",
  "detected_targets",
] as const;

export type SettingsField = (typeof SETTINGS_FIELDS)[number];

export const LOCAL_VIA = ["engine", "proxy"] as const;
export type LocalVia = (typeof LOCAL_VIA)[number];

export const URL_RULE = "must be an http:// or https:// address, or null";
export const API_KEY_RULE = "must be a key of printable characters without spaces, or null to remove it";
export const HF_TOKEN_RULE = "must be a token of printable characters without spaces, or null to remove it";
export const PAID_LIMIT_RULE = "must be a whole number, 0 or more, or null for no cap";
export const PATH_RULE = "must be an absolute folder path, or null";

const KEY = /^[\x21-\x7e]{1,4096}$/;

/** Why `text` cannot be a backend address, or null when it can. */
export function urlProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return URL_RULE;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return URL_RULE;
  if (url.username || url.password) return "must not hold a user name or password (the key goes in api_key)";
  if (url.search || url.hash) return "must be a base address without ?query or #fragment";
  return null;
}

/** `http://host:port[/base]` without a trailing slash; null for a blank or unusable value. */
export function normalUrl(value: unknown): string | null {
  if (typeof value !== "string" || !value.trim() || urlProblem(value) !== null) return null;
  const url = new URL(value.trim());
  return `${url.origin}${url.pathname}`.replace(/\/+$/, "");
}

export function isApiKey(value: unknown): value is string {
  return typeof value === "string" && KEY.test(value.trim());
}

/** A Hugging Face token has the shape of a key (it goes into an Authorization header the same way). */
export const isHfToken = isApiKey;

export function normalPaidLimit(value: unknown): number | null | undefined {
  if (value === null) return null;
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

export function normalPath(value: unknown): string | null {
  if (typeof value !== "string" || !value.trim() || value.includes("\0")) return null;
  return path.isAbsolute(value.trim()) ? path.resolve(value.trim()) : null;
}

export function normalLocalVia(value: unknown): LocalVia | null {
  return oneOf(LOCAL_VIA, value) ? value : null;
}

/** `{target: url}` keeping only well-formed entries. */
export function normalDeployments(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isObject(value)) return out;
  for (const [target, url] of Object.entries(value)) {
    const u = normalUrl(url);
    if (isTargetId(target) && u) out[target] = u;
  }
  return out;
}

/** Target ids, de-duplicated, in their order. */
export function normalIdList(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return [...new Set(value.filter(isTargetId))];
}

/** `{target: {limit: value}}` keeping only object entries under target ids. */
export function normalTargetLimits(value: unknown): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  if (!isObject(value)) return out;
  for (const [target, limits] of Object.entries(value)) {
    if (isTargetId(target) && isObject(limits)) out[target] = limits;
  }
  return out;
}
