// Entry for a per-function deployment (wrangler.toml.example): a fetch handler for the routes named in
// STUDIO_FUNCTIONS ("GET /info,POST /source/check"), all of them when unset.

import { functions } from "../functions/index.ts";
import { silentLogger } from "../lib/context.ts";
import { createFunctionHandler, type FetchHandler } from "./function.ts";
import { createServices } from "./services.ts";

let handler: Promise<FetchHandler> | undefined;

function build(env: Record<string, string | undefined>): Promise<FetchHandler> {
  const names = (env.STUDIO_FUNCTIONS ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  // Events have no page sockets here; a deployment that needs them runs the full server.
  return createServices({ env, log: silentLogger, events: { emit() {} } }).then((services) =>
    createFunctionHandler(services, names.length ? names : functions),
  );
}

export default {
  fetch(request: Request, env: Record<string, string | undefined> = process.env): Promise<Response> {
    handler ??= build(env);
    return handler.then((h) => h(request));
  },
};
