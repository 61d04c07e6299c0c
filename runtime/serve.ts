// The standalone server: one Node process serving every route, /ws, and a graceful stop (exit 3 = restart). With
// role `worker` it runs the job pool in the same process; with role `api` it relays other processes' outbox events.
import { serve } from "@hono/node-server";
import { routes } from "../functions/index.ts";
import type { EventSink, ServerControl } from "../lib/context.ts";
import { startLeftoverSweep } from "../lib/jobs/leftover-sweep.ts";
import type { JobStore } from "../lib/jobs/types.ts";
import { OutboxTail, OutboxWriter } from "../workers/outbox.ts";
import { defaultOwner, poolSettingsFromEnv, WorkerPool } from "../workers/pool.ts";
import { createApp } from "./app.ts";
import { isLoopbackHost } from "./guard.ts";
import { guardOptions } from "./guard-options.ts";
import { serverOptions } from "./limits.ts";
import { consoleLogger, logLevel } from "./log.ts";
import { pageSource } from "./page.ts";
import { reachableUrl, removeServerRecord, writeServerRecord } from "./server-record.ts";
import { createServices } from "./services.ts";
import { createSocketServer, WsHub } from "./ws.ts";

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
  const log = consoleLogger(logLevel(env.STUDIO_LOG));
  const hub = new WsHub();
  const origin = defaultOwner();
  let outbox: OutboxWriter | null = null;
  // Events of requests answered while the job store opens, written to the outbox once it is there.
  let early: [string, unknown][] | null = [];
  // Straight to this process's sockets; also to the outbox for the sockets of any other API process.
  const events: EventSink = {
    emit(kind, data) {
      hub.emit(kind, data);
      if (outbox) outbox.emit(kind, data);
      else early?.push([kind, data]);
    },
  };
  const services = await createServices({ env, log, events });
  const settings = poolSettingsFromEnv(env);
  let store: JobStore | null = null;
  let pool: WorkerPool | null = null;
  let tail: OutboxTail | null = null;

  /**
   * The job machinery, started once the port is ours (the database client loads meanwhile, not before the first
   * answer): the store, the paid counter's reset, the outbox both ways, then the pool and the leftover sweep.
   */
  async function startJobs(): Promise<void> {
    try {
      store = await services.jobs();
      // Paid runs are counted per server session (the `paid` count of GET /studio/jobs), so a new API process starts at 0.
      if (services.roles.includes("api")) await store.paidReset();
      outbox = new OutboxWriter(store, origin, log);
      for (const [kind, data] of early ?? []) outbox.emit(kind, data);
    } catch (err) {
      // The other routes still answer; the job routes report the database problem themselves.
      log.error(`jobs are off in this process: ${err instanceof Error ? err.message : String(err)}`);
      return;
    } finally {
      early = null;
    }
    if (services.roles.includes("worker")) {
      pool = new WorkerPool({
        services,
        store,
        owner: origin,
        leaseMs: settings.leaseMs,
        concurrency: settings.concurrency,
        emit: (kind, data) => events.emit(kind, data),
      });
    }
    if (services.roles.includes("api")) tail = new OutboxTail({ store, origin, sink: hub, log });
    await tail?.start();
    if (stopping) return;
    pool?.start();
    // Leftovers of a crashed process go in the background, never holding up start-up or a request.
    void startLeftoverSweep(services, store);
  }
  let jobsStarted: Promise<void> | null = null;
  const wss = createSocketServer();

  let stopping = false;
  let recorded: Promise<void> = Promise.resolve();
  const control: ServerControl = { host, port, stop: (restart) => stop(restart ? 3 : 0) };
  const guard = guardOptions(env, host);
  // A route reaching the store before it is started waits for the start (and the paid counter's reset).
  const jobs = async () => {
    await jobsStarted;
    return services.jobs();
  };
  const app = createApp({ ...services, jobs, server: control }, routes, {
    hub,
    guard,
    page: pageSource(log),
  });
  let listening: (url: string) => void = () => {};
  const ready = new Promise<string>((resolve) => {
    listening = resolve;
  });
  const server = serve(
    { fetch: app.fetch, hostname: host, port, websocket: { server: wss }, serverOptions: serverOptions() },
    (info) => {
      control.port = info.port;
      const url = `http://${host.includes(":") ? `[${host}]` : host}:${info.port}`;
      process.stdout.write(`Episode Studio listening on ${url}/studio/ (settings: ${services.home})\n`);
      if (!isLoopbackHost(host) && guard.token === undefined) {
        process.stderr.write(
          `episode-studio: listening on ${host} without STUDIO_TOKEN: anyone who can reach this address can read and change the show folders under the roots\n`,
        );
      }
      // Only once the port is ours: a host that cannot listen exits before it takes any job.
      jobsStarted = startJobs();
      // The command line on this machine finds this server by it and sends its work here.
      recorded = writeServerRecord(services.home, {
        url: reachableUrl(host, info.port),
        pid: process.pid,
        started: new Date().toISOString(),
      }).catch((err: unknown) => log.warn(`cannot write the server record: ${String(err)}`));
      listening(url);
    },
  );
  server.on("error", (err) => {
    process.stderr.write(`episode-studio: cannot listen on ${host}:${port}: ${err.message}\n`);
    process.exit(2);
  });

  function stop(code: number) {
    if (stopping) return;
    stopping = true;
    // Let the reply that asked for the stop reach the client before sockets close.
    setTimeout(async () => {
      log.info(`stopping (exit ${code})`);
      await recorded;
      await removeServerRecord(services.home, process.pid).catch(() => {});
      await jobsStarted;
      // No new jobs start; running ones get a bounded wait, then keep their rows for the next worker to reclaim.
      await pool?.stop({ graceful: true }).catch((err: unknown) => log.error(`worker pool: ${String(err)}`));
      await tail?.stop();
      await outbox?.flush();
      await services.close().catch(() => {});
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
