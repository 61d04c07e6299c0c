// The configured backends (local, cloud, deployments, router, builtin) and one bounded probe of each.
import { DEFAULT_ENGINE } from "../config/config.ts";
import { type EffectiveSettings, effectiveSettings } from "../config/settings-store.ts";
import type { Services } from "../context.ts";
import { deploymentLane } from "../jobs/lanes.ts";
import { BackendUnreachable, callBackend, PROBE_TIMEOUT_MS } from "./http.ts";

export type BackendKind =
  | "comfyui"
  | "comfy-api-proxy"
  | "comfy-cloud"
  | "comfy-deployment"
  | "router"
  | "builtin";

export interface Backend {
  /** Lane name: `local`, `cloud`, `deployment:<target>`, `router`, `builtin`. */
  name: string;
  kind: BackendKind;
  /** Base address, or a few words for a backend that has none. */
  where: string | null;
}

export interface BackendStatus extends Backend {
  /** Why it cannot take work now, or null when it answered. */
  down: string | null;
}

export interface BackendsAnswer {
  backends: BackendStatus[];
  api_key: boolean;
}

export const DEFAULT_CLOUD = "https://cloud.comfy.org";
/** Where `comfy-api-proxy`, the self-hosted Comfy API v2, listens unless told otherwise (engines B.8). */
export const DEFAULT_PROXY = "http://127.0.0.1:8189";
export const BUILTIN_WHERE = "this process (ffmpeg and sharp)";
/** The hosted-model router's API, under the cloud address (lib/router/provider.ts). */
export const ROUTER_API = "/api/router/v1";

/**
 * The ComfyUI whose native routes (/models, /object_info, /queue) the service passes through: `local_url`, else
 * `engine_url`, else the ComfyUI the service is mounted in, else the default. With `local_via: proxy`, `local_url`
 * is a Comfy API v2 proxy (no native routes), so the engine behind it is `engine_url`, else the mounted one, else
 * the default.
 */
export function engineAddress(
  s: Pick<EffectiveSettings, "local_url" | "engine_url" | "local_via" | "mounted">,
): string {
  if (s.local_via === "proxy") return s.engine_url ?? s.mounted ?? DEFAULT_ENGINE;
  return s.local_url ?? s.engine_url ?? s.mounted ?? DEFAULT_ENGINE;
}

/** The backends the settings describe, in lane order. */
export function configuredBackends(s: EffectiveSettings): Backend[] {
  const out: Backend[] = [];
  if (s.local_via === "proxy")
    out.push({ name: "local", kind: "comfy-api-proxy", where: s.local_url ?? DEFAULT_PROXY });
  else out.push({ name: "local", kind: "comfyui", where: engineAddress(s) });
  // A key alone means Comfy Cloud at its usual address.
  if (s.cloud_url || s.api_key)
    out.push({ name: "cloud", kind: "comfy-cloud", where: s.cloud_url ?? DEFAULT_CLOUD });
  for (const target of Object.keys(s.deployments).sort()) {
    out.push({ name: deploymentLane(target), kind: "comfy-deployment", where: s.deployments[target] });
  }
  // The hosted-model router shares the cloud's address and key.
  out.push({ name: "router", kind: "router", where: s.cloud_url ?? DEFAULT_CLOUD });
  out.push({ name: "builtin", kind: "builtin", where: BUILTIN_WHERE });
  return out;
}

export interface ProbeOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** GET /studio/backends: every configured backend, each asked (in parallel, bounded) whether it answers. */
export async function listBackends(
  services: Pick<Services, "home" | "env" | "caches">,
  opts: ProbeOptions = {},
): Promise<BackendsAnswer> {
  const s = await effectiveSettings(services);
  const backends = await Promise.all(
    configuredBackends(s).map(async (b) => ({ ...b, down: await probe(b, s.api_key, opts) })),
  );
  return { backends, api_key: s.api_key !== null };
}

/** Why `backend` is down, or null when it answered as it should. */
export async function probe(
  backend: Backend,
  apiKey: string | null,
  opts: ProbeOptions = {},
): Promise<string | null> {
  const where = backend.where ?? "";
  const call = { timeoutMs: opts.timeoutMs ?? PROBE_TIMEOUT_MS, signal: opts.signal, discardBody: true };
  try {
    switch (backend.kind) {
      case "builtin":
        return null;
      case "router": {
        if (!apiKey) return "no API key is set (settings api_key, or STUDIO_API_KEY)";
        const res = await callBackend(where, `${ROUTER_API}/models`, {
          ...call,
          headers: { authorization: `Bearer ${apiKey}` },
        });
        if (res.status === 401 || res.status === 403) return `${where} refused the API key (${res.status})`;
        if (res.status === 404) return `${where} offers no hosted-model router (${ROUTER_API} answered 404)`;
        return res.status === 200 ? null : `${where} answered ${res.status} to ${ROUTER_API}/models`;
      }
      case "comfyui": {
        const res = await callBackend(where, "/system_stats", call);
        return res.status === 200 ? null : `${where} answered ${res.status} to /system_stats`;
      }
      case "comfy-api-proxy": {
        const res = await callBackend(where, "/api/v2/health", call);
        return res.status === 200 ? null : `${where} answered ${res.status} to /api/v2/health`;
      }
      case "comfy-cloud":
      case "comfy-deployment": {
        if (!apiKey) return "no API key is set (settings api_key, or STUDIO_API_KEY)";
        // A read that needs the key: 401/403 says the key is refused; other answers say the service is there.
        const res = await callBackend(where, "/api/v2/jobs?limit=1", {
          ...call,
          headers: { authorization: `Bearer ${apiKey}` },
        });
        if (res.status === 401 || res.status === 403) return `${where} refused the API key (${res.status})`;
        return res.status >= 500 ? `${where} answered ${res.status}` : null;
      }
    }
  } catch (err) {
    if (err instanceof BackendUnreachable) return err.message;
    throw err;
  }
}
