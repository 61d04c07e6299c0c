// The standalone server: one Node process serving every route, /ws, and a graceful stop (exit 3 = restart).
import { serve } from "@hono/node-server";
import { WebSocketServer } from "ws";
import { functions } from "../functions/index.ts";
import type { ServerControl } from "../lib/context.ts";
import { createApp } from "./app.ts";
import { consoleLogger } from "./log.ts";
import { createServices } from "./services.ts";
import { WsHub } from "./ws.ts";

export interface ServeOptions {
  host: string;
  port: number;
}

export function parseArgs(argv: readonly string[], env: Record<string, string | undefined>): ServeOptions {
  let host = env.STUDIO_HOST || "127.0.0.1";
  let port = env.PORT ? Number(env.PORT) : 8190;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.includes("=") ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    const value = () => inline ?? argv[++i];
    if (flag === "--port") port = Number(value());
    else if (flag === "--host") host = value();
    else if (flag === "--help" || flag === "-h") {
      process.stdout.write("usage: node runtime/serve.js [--host 127.0.0.1] [--port 8190]\n");
      process.exit(0);
    } else throw new Error(`unknown argument ${arg} (use --host, --port)`);
  }
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port: ${port} is not a port number`);
  return { host, port };
}

export interface Running {
  url: string;
  /** Stop as server/stop would: close sockets, then exit the process with `code`. */
  stop(code: number): void;
}

export async function main(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): Promise<Running> {
  const { host, port } = parseArgs(argv, env);
  const log = consoleLogger();
  const hub = new WsHub();
  const services = await createServices({ env, log, events: hub });
  const wss = new WebSocketServer({ noServer: true });

  let stopping = false;
  const control: ServerControl = { host, port, stop: (restart) => stop(restart ? 3 : 0) };
  const app = createApp({ ...services, server: control }, functions, { hub });
  let listening: (url: string) => void = () => {};
  const ready = new Promise<string>((resolve) => {
    listening = resolve;
  });
  const server = serve({ fetch: app.fetch, hostname: host, port, websocket: { server: wss } }, (info) => {
    control.port = info.port;
    const url = `http://${host.includes(":") ? `[${host}]` : host}:${info.port}`;
    process.stdout.write(`Episode Studio listening on ${url}/studio/ (settings: ${services.home})\n`);
    listening(url);
  });
  server.on("error", (err) => {
    process.stderr.write(`episode-studio: cannot listen on ${host}:${port}: ${err.message}\n`);
    process.exit(2);
  });

  function stop(code: number) {
    if (stopping) return;
    stopping = true;
    // Let the reply that asked for the stop reach the client before sockets close.
    setTimeout(() => {
      log.info(`stopping (exit ${code})`);
      hub.closeAll();
      wss.close();
      server.close(() => process.exit(code));
      if ("closeIdleConnections" in server) server.closeIdleConnections();
      setTimeout(() => process.exit(code), 2000).unref();
    }, 25);
  }

  process.on("SIGINT", () => stop(0));
  process.on("SIGTERM", () => stop(0));
  return { url: await ready, stop };
}
