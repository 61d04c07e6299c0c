// Jobs in tests: a worker pool over the test's store, and waiting (for a condition, for one job to end, for every
// job a test names, or for every job a test picks until none is left to run).
import type { Services } from "../../lib/context.ts";
import type { JobKinds } from "../../lib/jobs/kinds.ts";
import type { Job, JobStore } from "../../lib/jobs/types.ts";
import { WorkerPool } from "../../workers/pool.ts";

const ENDED = ["succeeded", "failed", "canceled"];

/** The job once it has ended (succeeded, failed or canceled); throws after `ms`. */
export async function jobEnded(store: JobStore, id: string, ms = 60_000): Promise<Job> {
  const stop = Date.now() + ms;
  for (;;) {
    const job = await store.get(id);
    if (job && ENDED.includes(job.status)) return job;
    if (Date.now() > stop) throw new Error(`job ${id} did not end: ${JSON.stringify(job)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The jobs `ids` names once every one has ended, in that order; undefined while any has not (a probe for polling). */
export async function allEnded(store: JobStore, ids: string[]): Promise<Job[] | undefined> {
  const jobs = await Promise.all(ids.map((id) => store.get(id)));
  return jobs.every((j) => j && ENDED.includes(j.status)) ? (jobs as Job[]) : undefined;
}

/** Until every job `which` picks has ended (none queued or running); throws after `ms`. */
export async function jobsEnded(store: JobStore, which: (job: Job) => boolean, ms = 120_000): Promise<void> {
  const stop = Date.now() + ms;
  for (;;) {
    const left = (await store.list()).jobs.filter((j) => which(j) && !ENDED.includes(j.status));
    if (left.length === 0) return;
    if (Date.now() > stop) throw new Error(`jobs did not end: ${left.map((j) => j.id).join(", ")}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A started worker pool running `kinds` over the test's store, polling fast; the caller stops it. */
export function startTestPool(services: Services, store: JobStore, kinds: JobKinds): WorkerPool {
  const pool = new WorkerPool({
    services,
    store,
    kinds,
    emit: (kind, data) => services.events.emit(kind, data),
    pollMs: 20,
    leaseMs: 5_000,
  });
  pool.start();
  return pool;
}

/** Until `cond` holds; throws after `ms`. */
export async function waitFor(cond: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 25));
  }
}
