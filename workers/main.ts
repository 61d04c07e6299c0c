// A worker-only host (`node workers/main.js`): runs the pool against the shared job database, no HTTP; its events
// reach the API's sockets through the outbox. Stops gracefully on SIGINT/SIGTERM.
import { jobDatabaseUrl, shownDatabaseUrl } from "../lib/jobs/database-url.ts";
import { startLeftoverSweep } from "../lib/jobs/leftover-sweep.ts";
import { consoleLogger, logLevel } from "../runtime/log.ts";
import { createServices } from "../runtime/services.ts";
import { OutboxWriter } from "./outbox.ts";
import { defaultOwner, poolSettingsFromEnv, WorkerPool } from "./pool.ts";

export interface WorkerHost {
  owner: string;
  pool: WorkerPool;
  /** Stop claiming, wait (bounded) for running jobs, write the last events, close the database. */
  stop(): Promise<void>;
}

export async function main(env: Record<string, string | undefined>): Promise<WorkerHost> {
  const log = consoleLogger(logLevel(env.STUDIO_LOG));
  const owner = defaultOwner();
  const settings = poolSettingsFromEnv(env);
  let outbox: OutboxWriter | null = null;
  const services = await createServices({
    env: { ...env, STUDIO_ROLES: "worker" },
    log,
    events: { emit: (kind, data) => outbox?.emit(kind, data) },
  });
  const store = await services.jobs();
  outbox = new OutboxWriter(store, owner, log);
  const pool = new WorkerPool({
    services,
    store,
    owner,
    leaseMs: settings.leaseMs,
    concurrency: settings.concurrency,
    emit: services.events.emit,
  });
  pool.start();
  void startLeftoverSweep(services, store);
  const kinds = Object.keys(await services.jobKinds()).join(", ") || "none";
  process.stdout.write(
    `Episode Studio worker ${owner} running (database: ${shownDatabaseUrl(jobDatabaseUrl(services))}; kinds: ${kinds})\n`,
  );

  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      log.info("worker stopping");
      await pool.stop({ graceful: true });
      await outbox?.flush();
      await services.close();
    })();
    return stopping;
  };
  const exit = () => {
    void stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error(`worker: stop failed: ${err instanceof Error ? err.message : String(err)}`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", exit);
  process.on("SIGTERM", exit);
  return { owner, pool, stop };
}
