// Entry for a per-function deployment (wrangler.toml.example): a fetch handler for the routes named in
// STUDIO_FUNCTIONS ("POST /studio/source/check,GET /studio/config"), each route's module imported alone; every
// route when it is unset, none when it is empty.

import { silentLogger } from "../lib/context.ts";
import { createFunctionHandler, type FetchHandler, loadFunctions } from "./function.ts";
import { createServices } from "./services.ts";

let handler: Promise<FetchHandler> | undefined;

async function build(env: Record<string, string | undefined>): Promise<FetchHandler> {
  const names = (env.STUDIO_FUNCTIONS ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  // Unset: every route (a Node host); set, even to nothing: exactly the routes it names.
  const fns =
    env.STUDIO_FUNCTIONS === undefined
      ? (await import("../functions/index.ts")).functions
      : await loadFunctions(names);
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
