// Which engine runs a backend: the built-in one always; the ComfyUI engines are not wired in yet.
import type { Services } from "../context.ts";
import { BUILTIN_BACKEND, createBuiltinEngine } from "./builtin/index.ts";
import type { Engine } from "./types.ts";

// One built-in engine per environment: its run table must be shared by submit, collect and cancel.
const builtins = new WeakMap<object, Engine>();

/** The engine for `backend`; throws for a backend that has no engine in this process. */
export function engineFor(backend: string, services: Pick<Services, "env">): Engine {
  if (backend === BUILTIN_BACKEND) {
    let engine = builtins.get(services.env);
    if (!engine) {
      engine = createBuiltinEngine(services.env);
      builtins.set(services.env, engine);
    }
    return engine;
  }
  throw new Error(
    `backend '${backend}' is not configured: only the built-in engine exists until the ComfyUI engine lands`,
  );
}
