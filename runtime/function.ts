// Per-function adapter: a fetch handler serving any subset of the routes, for per-function deployments.

import type { StudioFunction } from "../functions/fn.ts";
import { functions as allFunctions } from "../functions/index.ts";
import type { Services } from "../lib/context.ts";
import { createApp } from "./app.ts";

export type FetchHandler = (request: Request) => Promise<Response>;

/**
 * Build a fetch handler for the named routes (`"GET /config"`), or for the given modules.
 * Anything not selected answers 404, so a deployment exposes exactly what it names.
 */
export function createFunctionHandler(
  services: Services,
  only: readonly (string | StudioFunction)[],
): FetchHandler {
  const selected = only.map((item) => {
    if (typeof item !== "string") return item;
    const fn = allFunctions.find((f) => `${f.method} ${f.path}` === item);
    if (!fn)
      throw new Error(
        `no route ${item}; known: ${allFunctions.map((f) => `${f.method} ${f.path}`).join(", ")}`,
      );
    return fn;
  });
  const app = createApp(services, selected);
  return async (request) => app.fetch(request);
}
