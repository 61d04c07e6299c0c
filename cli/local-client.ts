// The client with no server: the routes' own handlers called in this process on services built as a server builds
// them, and, for commands that queue work, a worker pool of this process running the jobs until the command ends.
import type { Method, StudioFunction } from "../functions/fn.ts";
import { routes } from "../functions/index.ts";
import type { Logger } from "../lib/context.ts";
import { answerRequest } from "../runtime/app.ts";
import { createServices } from "../runtime/services.ts";
import { defaultOwner, poolSettingsFromEnv, WorkerPool } from "../workers/pool.ts";
import { type Answer, answerOf, type Client, queryOf } from "./client.ts";

export async function localClient(
  env: Record<string, string | undefined>,
  log: Logger,
  opts: { runJobs: boolean },
): Promise<Client> {
  // The queue's work runs here, so this process has the worker role whatever the environment says.
  const services = await createServices({
    env: { ...env, STUDIO_ROLES: opts.runJobs ? "api,worker" : "api" },
    log,
    events: { emit() {} },
  });
  let pool: WorkerPool | null = null;
  if (opts.runJobs) {
    const settings = poolSettingsFromEnv(env);
    pool = new WorkerPool({
      services,
      store: await services.jobs(),
      owner: defaultOwner(),
      leaseMs: settings.leaseMs,
      concurrency: settings.concurrency,
      emit: services.events.emit,
    });
    pool.start();
  }
  const byRoute = new Map<string, StudioFunction>(routes.map((fn) => [`${fn.method} ${fn.path}`, fn]));
  return {
    where: "working in this process: no server is running",
    leftBehind: "its jobs stay in the queue for the next worker, server or command",
    async call(method: Method, path: string, input?: Record<string, unknown>): Promise<Answer> {
      const fn = byRoute.get(`${method} ${path}`);
      if (!fn) throw new Error(`no route ${method} /studio${path}`);
      const bodyless = method === "GET" || method === "DELETE";
      const request = new Request(`http://127.0.0.1/studio${path}${bodyless ? queryOf(input) : ""}`, {
        method,
        ...(bodyless
          ? {}
          : { headers: { "content-type": "application/json" }, body: JSON.stringify(input ?? {}) }),
      });
      const call = { request, remoteAddress: "127.0.0.1", params: {}, label: `${method} ${path}` };
      return answerOf(await answerRequest(fn, services, call));
    },
    async close() {
      await pool?.stop({ graceful: true });
      await services.close();
    },
  };
}
