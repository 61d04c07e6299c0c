// Entry for a per-function deployment (wrangler.toml.example): a fetch handler for the routes named in
// STUDIO_FUNCTIONS ("POST /studio/source/check,GET /studio/config"), each route's module imported alone; every
// route when unset.

import { silentLogger } from "../lib/context.ts";
import { createFunctionHandler, type FetchHandler, loadFunctions } from "./function.ts";
import { createServices } from "./services.ts";

let handler: Promise<FetchHandler> | undefined;

async function build(env: Record<string, string | undefined>): Promise<FetchHandler> {
  const names = (env.STUDIO_FUNCTIONS ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const fns = names.length ? await loadFunctions(names) : (await import("../functions/index.ts")).functions;
  // Events have no page sockets here; a deployment that needs them runs the full server.
  const services = await createServices({ env, log: silentLogger, events: { emit() {} } });
  return createFunctionHandler(services, fns);
}

export default {
  fetch(request: Request, env: Record<string, string | undefined> = process.env): Promise<Response> {
    handler ??= build(env);
    return handler.then((h) => h(request));
  },
};
