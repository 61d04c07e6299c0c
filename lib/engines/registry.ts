// Which engine runs a backend: the built-in one always; `local` the ComfyUI engine at the settings' local
// address; `cloud` and `deployment:<target>` the Comfy API v2 engine with the settings' address and key.
import { DEFAULT_CLOUD, engineAddress } from "../backends/list.ts";
import { effectiveSettings } from "../config/settings-store.ts";
import type { Services } from "../context.ts";
import { BUILTIN_BACKEND, createBuiltinEngine } from "./builtin/index.ts";
import { type ComfyV2Engine, createComfyV2Engine } from "./comfy-v2/index.ts";
import { type ComfyEngine, createComfyEngine } from "./comfyui/index.ts";
import type { Engine, EngineJob } from "./types.ts";

// One built-in engine per environment: its run table must be shared by submit, collect and cancel.
const builtins = new WeakMap<object, Engine>();
// One ComfyUI engine per address (its websocket and watches are shared by every job on that server).
const comfies = new Map<string, ComfyEngine>();
// The settings-driven lanes (local, cloud, deployments) per environment, settings folder and lane.
const lanes = new WeakMap<object, Map<string, Engine>>();

/** The ComfyUI address of the `local` lane: `local_url`, else `engine_url`, else http://127.0.0.1:8188. */
export async function localAddress(services: Pick<Services, "home" | "env">): Promise<string> {
  return engineAddress(await effectiveSettings(services));
}

/** The shared ComfyUI engine of one address. */
export function comfyEngineAt(url: string): ComfyEngine {
  let engine = comfies.get(url);
  if (!engine) {
    engine = createComfyEngine({ backend: "local", url });
    comfies.set(url, engine);
  }
  return engine;
}

/** Close every ComfyUI and Comfy API v2 engine this process opened (tests, shutdown). */
export async function closeComfyEngines(): Promise<void> {
  const all: { close(): Promise<void> }[] = [...comfies.values(), ...v2s.values()];
  comfies.clear();
  v2s.clear();
  await Promise.all(all.map((e) => e.close().catch(() => {})));
}

type V2Backend = "cloud" | `deployment:${string}`;
// One Comfy API v2 engine per backend, address and key.
const v2s = new Map<string, ComfyV2Engine>();

function v2EngineAt(backend: V2Backend, url: string, apiKey: string | null): ComfyV2Engine {
  const key = `${backend}\n${url}\n${apiKey ?? ""}`;
  let engine = v2s.get(key);
  if (!engine) {
    engine = createComfyV2Engine({ backend, url, apiKey });
    v2s.set(key, engine);
  }
  return engine;
}

/** The real engine of a settings-driven lane, from the settings in force now. */
async function pickEngine(backend: string, services: Pick<Services, "home" | "env">): Promise<Engine> {
  if (backend === "local") return comfyEngineAt(await localAddress(services));
  const s = await effectiveSettings(services);
  if (!s.api_key)
    throw new Error(`backend '${backend}' needs an API key: set api_key in the settings (or STUDIO_API_KEY)`);
  if (backend === "cloud") return v2EngineAt("cloud", s.cloud_url ?? DEFAULT_CLOUD, s.api_key);
  const target = backend.slice("deployment:".length);
  const url = s.deployments[target];
  if (!url) throw new Error(`backend '${backend}' has no address: add it to deployments in the settings`);
  return v2EngineAt(backend as V2Backend, url, s.api_key);
}

/**
 * Why a cloud or deployment lane cannot take jobs now (no key, no address), or null; asked before a take is
 * reserved so a request gets a per-shot error instead of a take that fails at once.
 */
export async function laneUnready(
  backend: string,
  services: Pick<Services, "home" | "env">,
): Promise<string | null> {
  if (backend !== "cloud" && !backend.startsWith("deployment:")) return null;
  try {
    await pickEngine(backend, services);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * A lane whose engine comes from the settings: they are read when a job starts (they may change while the
 * service runs), and the job then stays on that engine for its submit, collect and cancel.
 */
function laneEngine(backend: string, services: Pick<Services, "home" | "env">): Engine {
  const pinned = new WeakMap<EngineJob, Promise<Engine>>();
  const at = (job: EngineJob): Promise<Engine> => {
    let p = pinned.get(job);
    if (!p) {
      p = pickEngine(backend, services);
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

/** The engine for `backend`; throws for a backend that has no engine in this process. */
export function engineFor(backend: string, services: Pick<Services, "env" | "home">): Engine {
  if (backend === BUILTIN_BACKEND) {
    let engine = builtins.get(services.env);
    if (!engine) {
      engine = createBuiltinEngine(services.env);
      builtins.set(services.env, engine);
    }
    return engine;
  }
  if (backend === "local" || backend === "cloud" || backend.startsWith("deployment:")) {
    let byKey = lanes.get(services.env);
    if (!byKey) {
      byKey = new Map();
      lanes.set(services.env, byKey);
    }
    const key = `${services.home}\n${backend}`;
    let engine = byKey.get(key);
    if (!engine) {
      engine = laneEngine(backend, services);
      byKey.set(key, engine);
    }
    return engine;
  }
  throw new Error(
    `backend '${backend}' is not configured: the engines are builtin, local (ComfyUI), cloud and deployment:<target>`,
  );
}
