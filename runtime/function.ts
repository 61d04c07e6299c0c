// Per-function adapter: a fetch handler serving a chosen subset of the routes. A route named by its URL is imported
// alone (its file follows from the URL by the rule of functions/index.ts), so one function loads only its modules.

import type { StudioFunction } from "../functions/fn.ts";
import type { Services } from "../lib/context.ts";
import { type AppOptions, createApp } from "./app.ts";
import { routeFiles, routeName } from "./route-name.ts";

export type FetchHandler = (request: Request) => Promise<Response>;

/** Modules are TypeScript when this file is, JavaScript once built into dist/. */
const EXT = import.meta.url.endsWith(".ts") ? "ts" : "js";

/** Import the named routes' modules, and only those; an unknown name is an error naming it. */
export async function loadFunctions(names: readonly string[]): Promise<StudioFunction[]> {
  return Promise.all(
    names.map(async (name) => {
      const wanted = routeName(name);
      for (const file of routeFiles(name)) {
        const url = new URL(`../functions/${file}.${EXT}`, import.meta.url);
        const mod = (await import(url.href).catch((err: unknown) => {
          // Only "there is no such file" means "try the next place"; a module that fails to load says why.
          if ((err as { code?: string }).code === "ERR_MODULE_NOT_FOUND" && String(err).includes(file))
            return null;
          throw err;
        })) as { default?: StudioFunction } | null;
        const fn = mod?.default;
        if (fn && sameRoute(fn, wanted)) return fn;
      }
      throw new Error(
        `no route ${name} (a route is named by its method and path, e.g. "GET /studio/config")`,
      );
    }),
  );
}

/** Whether `fn` answers `name` ("POST /source/check"); a path parameter matches any one segment name. */
function sameRoute(fn: StudioFunction, name: string): boolean {
  const [method, path] = name.split(" ");
  if (fn.method !== method) return false;
  const a = fn.path.split("/");
  const b = path.split("/");
  return (
    a.length === b.length &&
    a.every((s, i) => s === b[i] || (s.startsWith(":") && s.slice(1) === b[i].replace(/^:/, "")))
  );
}

/** A fetch handler for exactly these route modules: anything else answers 404. */
export function createFunctionHandler(
  services: Services,
  fns: readonly StudioFunction[],
  options?: AppOptions,
): FetchHandler {
  const app = createApp(services, fns, options);
  return async (request) => app.fetch(request);
}
