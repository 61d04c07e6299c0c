// Which engine runs a backend: the built-in one always; `local` the ComfyUI engine at the settings' local
// address; `cloud` and `deployment:<target>` the Comfy API v2 engine with the settings' address and key; `router` the
// hosted-model router at the cloud address with the same key. A process
// makes one registry (its services hold it), so every job on a backend shares that backend's engine.
import { DEFAULT_CLOUD, engineAddress } from "../backends/list.ts";
import { mountedClientId, mountedComfy } from "../config/mounted.ts";
import { type EffectiveSettings, effectiveSettings } from "../config/settings-store.ts";
import { normalUrl } from "../config/settings-values.ts";
import type { Services } from "../context.ts";
import { deploymentTarget } from "../jobs/lanes.ts";
import { routerAddress, routerProblem } from "../router/connect.ts";
import { BUILTIN_BACKEND, createBuiltinEngine } from "./builtin/index.ts";
import { type ComfyV2Backend, type ComfyV2Engine, createComfyV2Engine } from "./comfy-v2/index.ts";
import { type ComfyEngine, createComfyEngine } from "./comfyui/index.ts";
import { type ComfyLookups, createComfyLookups } from "./comfyui/readiness.ts";
import { createRouterEngine, type RouterEngine } from "./router/index.ts";
import type { Engine, EngineJob } from "./types.ts";

export interface Engines {
  /** The engine for `backend`; throws for a backend that has no engine in this process. */
  get(backend: string): Engine;
  /** The shared ComfyUI engine of one address (its websocket and watches serve every job on that server). */
  comfyAt(url: string): ComfyEngine;
  /** ComfyUI look-ups for readiness (node catalogue, model folders, server version), kept briefly per address. */
  lookups: ComfyLookups;
  /** Close every ComfyUI and Comfy API v2 engine and look-up client opened so far (shutdown, tests). */
  close(): Promise<void>;
}

/** The ComfyUI address of the `local` lane: `local_url`, else `engine_url`, else the mounted ComfyUI, else http://127.0.0.1:8188. */
export async function localAddress(services: Pick<Services, "home" | "env" | "caches">): Promise<string> {
  return engineAddress(await effectiveSettings(services));
}

/** Why a settings-driven cloud or deployment lane has no engine with these settings, or null. */
function laneProblem(backend: string, s: EffectiveSettings): string | null {
  if (!s.api_key)
    return `backend '${backend}' needs an API key: set api_key in the settings (or STUDIO_API_KEY)`;
  const target = deploymentTarget(backend);
  if (target !== null && !s.deployments[target])
    return `backend '${backend}' has no address: add it to deployments in the settings`;
  return null;
}

/**
 * Why a cloud or deployment lane cannot take jobs now (no key, no address), or null; asked before a take is
 * reserved so a request gets a per-shot error instead of a take that fails at once.
 */
export async function laneUnready(
  backend: string,
  services: Pick<Services, "home" | "env" | "caches">,
): Promise<string | null> {
  if (backend === "router") return routerProblem(await effectiveSettings(services));
  if (backend !== "cloud" && deploymentTarget(backend) === null) return null;
  return laneProblem(backend, await effectiveSettings(services));
}

export function createEngines(services: Pick<Services, "env" | "home" | "media" | "caches">): Engines {
  let builtin: Engine | null = null;
  // One ComfyUI engine per address; one Comfy API v2 engine per backend, address and key.
  const comfies = new Map<string, ComfyEngine>();
  const v2s = new Map<string, ComfyV2Engine>();
  // One router engine per address and key.
  const routers = new Map<string, RouterEngine>();
  // The settings-driven lanes (local, cloud, deployments), one per lane.
  const lanes = new Map<string, Engine>();
  const lookups = createComfyLookups();

  function comfyAt(url: string): ComfyEngine {
    let engine = comfies.get(url);
    if (!engine) {
      // Mounted, ComfyUI sends our prompts' events to the id the pack copies to the page's socket.
      const mountedId = mountedClientId(services.env);
      const mounted = mountedId !== null && normalUrl(url) === mountedComfy(services.env);
      engine = createComfyEngine({ backend: "local", url, clientId: mounted ? mountedId : undefined });
      comfies.set(url, engine);
    }
    return engine;
  }

  function v2At(backend: ComfyV2Backend, url: string, apiKey: string | null): ComfyV2Engine {
    const key = `${backend}\n${url}\n${apiKey ?? ""}`;
    let engine = v2s.get(key);
    if (!engine) {
      engine = createComfyV2Engine({ backend, url, apiKey });
      v2s.set(key, engine);
    }
    return engine;
  }

  /** The real engine of a settings-driven lane, from the settings in force now. */
  async function pick(backend: ComfyV2Backend | "local" | "router"): Promise<Engine> {
    if (backend === "local") return comfyAt(await localAddress(services));
    const s = await effectiveSettings(services);
    if (backend === "router") {
      const problem = routerProblem(s);
      if (problem) throw new Error(problem);
      const key = `${routerAddress(s)}\n${s.api_key}`;
      let engine = routers.get(key);
      if (!engine) {
        engine = createRouterEngine({ url: routerAddress(s), apiKey: s.api_key });
        routers.set(key, engine);
      }
      return engine;
    }
    const problem = laneProblem(backend, s);
    if (problem) throw new Error(problem);
    const target = deploymentTarget(backend);
    const url = target === null ? (s.cloud_url ?? DEFAULT_CLOUD) : s.deployments[target];
    return v2At(backend, url, s.api_key);
  }

  /**
   * A lane whose engine comes from the settings: they are read when a job starts (they may change while the
   * service runs), and the job then stays on that engine for its submit, collect and cancel.
   */
  function laneEngine(backend: ComfyV2Backend | "local" | "router"): Engine {
    const pinned = new WeakMap<EngineJob, Promise<Engine>>();
    const at = (job: EngineJob): Promise<Engine> => {
      let p = pinned.get(job);
      if (!p) {
        p = pick(backend);
        pinned.set(job, p);
      }
      return p;
    };
    return {
      backend,
      prepare: async (job, hooks) => (await at(job)).prepare(job, hooks),
      submit: async (job, prepared, hooks) => (await at(job)).submit(job, prepared, hooks),
      collect: async (job, submitted, hooks) => (await at(job)).collect(job, submitted, hooks),
      cancel: async (job, submitted) => (await at(job)).cancel(job, submitted),
    };
  }

  const isV2 = (backend: string): backend is ComfyV2Backend =>
    backend === "cloud" || deploymentTarget(backend) !== null;

  return {
    get(backend) {
      if (backend === BUILTIN_BACKEND) {
        builtin ??= createBuiltinEngine(services.media);
        return builtin;
      }
      if (backend === "local" || backend === "router" || isV2(backend)) {
        let engine = lanes.get(backend);
        if (!engine) {
          engine = laneEngine(backend);
          lanes.set(backend, engine);
        }
        return engine;
      }
      throw new Error(
        `backend '${backend}' is not configured: the engines are builtin, local (ComfyUI), cloud, router and deployment:<target>`,
      );
    },
    comfyAt,
    lookups,
    async close() {
      const all: { close(): Promise<void> }[] = [...comfies.values(), ...v2s.values(), ...routers.values()];
      comfies.clear();
      v2s.clear();
      routers.clear();
      lanes.clear();
      await Promise.all([...all.map((e) => e.close().catch(() => {})), lookups.close()]);
    },
  };
}
