// A process serving only the routes named on its command line (`node runtime/function.js "POST /studio/source/check"`):
// each route's module is imported alone, so it starts without loading the rest of the service. Its compile thread
// starts first, with nothing else loaded: the thread loads the compiler on another core while the route loads here.
import { createCompilePool } from "../lib/episode/compile-pool.ts";
import { serverOptions } from "./limits.ts";
import { consoleLogger, logLevel } from "./log.ts";

const USAGE = 'usage: node runtime/function.js "METHOD /studio/path" ... [--host 127.0.0.1] [--port 8190]';

export async function main(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): Promise<string> {
  let host = env.STUDIO_HOST || "127.0.0.1";
  let port = env.PORT ? Number(env.PORT) : 8190;
  const names: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] =
      argv[i].startsWith("--") && argv[i].includes("=") ? argv[i].split(/=(.*)/s, 2) : [argv[i]];
    const value = () => inline ?? argv[++i];
    if (flag === "--port") port = Number(value());
    else if (flag === "--host") host = value();
    else if (flag.startsWith("-")) throw new Error(`unknown option ${flag}\n${USAGE}`);
    else names.push(flag);
  }
  if (!names.length) throw new Error(`name at least one route\n${USAGE}`);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port: ${port} is not a port number`);
  const log = consoleLogger(logLevel(env.STUDIO_LOG));
  // A single function is above all a compile route (check, preview, build): the thread is ready by its first request.
  const compile = createCompilePool();
  compile.warm();
  const [{ serve }, { createFunctionHandler, loadFunctions }, { guardOptions }, { createServices }] =
    await Promise.all([
      import("@hono/node-server"),
      import("./function.ts"),
      import("./guard-options.ts"),
      import("./services.ts"),
    ]);
  const [fns, services] = await Promise.all([
    loadFunctions(names),
    // Pages' sockets are the full server's: a single function has none to tell.
    createServices({ env: { ...env, STUDIO_ROLES: "api" }, log, events: { emit() {} }, compile }),
  ]);
  const handler = createFunctionHandler(services, fns, { guard: guardOptions(env, host) });
  return new Promise((resolve) => {
    const server = serve({ fetch: handler, hostname: host, port, serverOptions: serverOptions() }, (info) => {
      const url = `http://${host.includes(":") ? `[${host}]` : host}:${info.port}`;
      process.stdout.write(`Episode Studio function ${names.join(", ")} listening on ${url}/studio/\n`);
      resolve(url);
    });
    const stop = () => server.close(() => process.exit(0));
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}
