// Which engine runs a backend: the built-in one always, `local` the ComfyUI engine at the settings' local address.
import { engineAddress } from "../backends/list.ts";
import { effectiveSettings } from "../config/settings-store.ts";
import type { Services } from "../context.ts";
import { BUILTIN_BACKEND, createBuiltinEngine } from "./builtin/index.ts";
import { type ComfyEngine, createComfyEngine } from "./comfyui/index.ts";
import type { Engine, EngineJob } from "./types.ts";

// One built-in engine per environment: its run table must be shared by submit, collect and cancel.
const builtins = new WeakMap<object, Engine>();
// One ComfyUI engine per address (its websocket and watches are shared by every job on that server).
const comfies = new Map<string, ComfyEngine>();
// The `local` lane per environment and settings folder.
const locals = new WeakMap<object, Map<string, Engine>>();

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

/** Close every ComfyUI engine this process opened (tests, shutdown). */
export async function closeComfyEngines(): Promise<void> {
  const all = [...comfies.values()];
  comfies.clear();
  await Promise.all(all.map((e) => e.close().catch(() => {})));
}

/**
 * The `local` lane: settings are read when a job starts (they may change while the service runs), and the job
 * then stays on that address for its submit, collect and cancel.
 */
function localEngine(services: Pick<Services, "home" | "env">): Engine {
  const pinned = new WeakMap<EngineJob, Promise<ComfyEngine>>();
  const at = (job: EngineJob): Promise<ComfyEngine> => {
    let p = pinned.get(job);
    if (!p) {
      p = localAddress(services).then(comfyEngineAt);
      pinned.set(job, p);
    }
    return p;
  };
  return {
    backend: "local",
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
  if (backend === "local") {
    let byHome = locals.get(services.env);
    if (!byHome) {
      byHome = new Map();
      locals.set(services.env, byHome);
    }
    let engine = byHome.get(services.home);
    if (!engine) {
      engine = localEngine(services);
      byHome.set(services.home, engine);
    }
    return engine;
  }
  throw new Error(
    `backend '${backend}' is not configured: only the built-in and local (ComfyUI) engines run in this process`,
  );
}
