// Waiting on jobs in tests: one job until it has ended, or every job a test picks until none is left to run.
import type { Job, JobStore } from "../../lib/jobs/types.ts";

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
