// Entry for a per-function deployment on a Workers-style platform (wrangler.toml.example): a fetch handler for the
// routes STUDIO_FUNCTIONS names ("POST /studio/source/check,POST /studio/shot/preview"), all of them when it is
// unset. Only routes that run with no file system can be named: their modules are listed here by name (a bundler
// follows these imports and no others), and one is loaded when it is first named. Every other route needs the
// shared storage of a studio host: `node runtime/function.js "GET /studio/config"` serves one there.
import type { StudioFunction } from "../functions/fn.ts";
import { silentLogger } from "../lib/context.ts";
import { functionServices } from "./function-services.ts";
import { guardFromEnv } from "./guard.ts";
import { WEB_RESPONDER } from "./respond-web.ts";
import { routeName } from "./route-name.ts";
import { createRouter } from "./router.ts";

export type FetchEntry = {
  fetch(request: Request, env?: Record<string, string | undefined>): Promise<Response>;
};

/** The routes that run with no file system: the texts come in the request, compiles run in line. */
export const PLATFORM_ROUTES: Readonly<Record<string, () => Promise<{ default: StudioFunction }>>> = {
  "POST /source/check": () => import("../functions/source/check.post.ts"),
  "POST /shot/preview": () => import("../functions/shot/preview.post.ts"),
};

/** The modules of the routes `STUDIO_FUNCTIONS` names; a route that cannot run here is an error naming it. */
export async function platformFunctions(list: string | undefined): Promise<StudioFunction[]> {
  const names =
    list === undefined
      ? Object.keys(PLATFORM_ROUTES)
      : list
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean);
  return Promise.all(
    names.map(async (name) => {
      const load = PLATFORM_ROUTES[routeName(name)];
      if (!load) {
        throw new Error(
          `STUDIO_FUNCTIONS: ${name} cannot run here (routes that can: ${Object.keys(PLATFORM_ROUTES).join(", ")}); ` +
            "the others need the shared storage of a studio host",
        );
      }
      return (await load()).default;
    }),
  );
}

/**
 * A fetch entry serving the given routes on this platform's services; built on the first request, from the
 * environment the platform hands it (its variables).
 */
export function serveFunctions(
  functions: (env: Record<string, string | undefined>) => Promise<readonly StudioFunction[]>,
): FetchEntry {
  let app: Promise<(request: Request) => Promise<Response>> | undefined;
  const build = async (env: Record<string, string | undefined>) => {
    const fns = await functions(env);
    // Events have no page sockets here; a deployment that needs them runs the full server.
    const services = functionServices({ env, log: silentLogger, events: { emit() {} } });
    // The names the deployment answers to come from STUDIO_ALLOWED_HOSTS: there is no listening address here.
    const router = createRouter(services, fns, { respond: WEB_RESPONDER, guard: guardFromEnv(env) });
    return async (request: Request) => router.fetch(request);
  };
  return {
    fetch(request, env = {}) {
      app ??= build(env);
      // A failed start is not kept: the next request tries again (and says why again).
      app.catch(() => {
        app = undefined;
      });
      return app.then((handle) => handle(request));
    },
  };
}

export default serveFunctions((env) => platformFunctions(env.STUDIO_FUNCTIONS));
