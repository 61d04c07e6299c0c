// Settings the environment sets: they win over the file and GET /studio/settings lists them in `from_env`.
import type { Services } from "../context.ts";
import {
  isApiKey,
  isHfToken,
  normalDeployments,
  normalIdList,
  normalLocalVia,
  normalPaidLimit,
  normalPath,
  normalUrl,
  type SettingsField,
} from "./settings-values.ts";

interface EnvField {
  field: SettingsField;
  /** Variables in order of preference: the first one set to a usable value wins. */
  names: readonly string[];
  /** The value, or undefined when the text cannot be used (the variable is then ignored). */
  parse(text: string): unknown;
}

const url = (text: string) => normalUrl(text) ?? undefined;

/** Every variable that sets a setting. A blank or unusable value counts as unset. */
export const SETTINGS_ENV: readonly EnvField[] = [
  { field: "local_url", names: ["STUDIO_LOCAL_URL"], parse: url },
  { field: "engine_url", names: ["STUDIO_ENGINE_URL"], parse: url },
  { field: "cloud_url", names: ["STUDIO_CLOUD_URL"], parse: url },
  {
    field: "api_key",
    names: ["STUDIO_API_KEY", "COMFY_API_KEY"],
    parse: (text) => (isApiKey(text) ? text.trim() : undefined),
  },
  {
    field: "hf_token",
    names: ["HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"],
    parse: (text) => (isHfToken(text) ? text.trim() : undefined),
  },
  {
    field: "deployments",
    names: ["STUDIO_DEPLOYMENTS"],
    parse: (text) => {
      try {
        return normalDeployments(JSON.parse(text));
      } catch {
        return undefined;
      }
    },
  },
  { field: "path", names: ["STUDIO_ENGINE_PATH"], parse: (text) => normalPath(text) ?? undefined },
  {
    field: "paid_limit",
    names: ["STUDIO_PAID_LIMIT"],
    parse: (text) => {
      const t = text.trim().toLowerCase();
      if (t === "none" || t === "null") return null;
      return /^\d+$/.test(t) ? normalPaidLimit(Number(t)) : undefined;
    },
  },
  {
    field: "enabled_drafts",
    names: ["STUDIO_ENABLED_DRAFTS"],
    parse: (text) => normalIdList(text.split(",").map((s) => s.trim())),
  },
  {
    field: "local_via",
    names: ["STUDIO_LOCAL_VIA"],
    parse: (text) => normalLocalVia(text.trim()) ?? undefined,
  },
];

export interface EnvSettings {
  values: Partial<Record<SettingsField, unknown>>;
  /** `{field: the variable that set it}`. */
  from: Partial<Record<SettingsField, string>>;
}

/** The settings the environment sets, and which variable set each. */
export function envSettings(env: Services["env"] | undefined): EnvSettings {
  const out: EnvSettings = { values: {}, from: {} };
  if (!env) return out;
  for (const { field, names, parse } of SETTINGS_ENV) {
    for (const name of names) {
      const text = env[name];
      if (text === undefined || !text.trim()) continue;
      const value = parse(text);
      if (value === undefined) continue;
      out.values[field] = value;
      out.from[field] = name;
      break;
    }
  }
  return out;
}
