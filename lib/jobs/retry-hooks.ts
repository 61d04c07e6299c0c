// Retry per job kind: a kind may say how its retry is made (a render reserves a new take with the same settings).
import type { Services } from "../context.ts";
import { conflict } from "../errors.ts";
import type { Job, JobKind, JobStore, NewJob } from "./types.ts";
import { hasEnded } from "./view.ts";

/** Builds the new job for a retry of `job` (already checked to have ended); may write files (a new take). */
export type RetryHook = (job: Job, services: Services) => Promise<NewJob>;

const hooks = new Map<JobKind, RetryHook>();

/** Register the retry of one kind (a later registration replaces it); answers a function that removes it. */
export function registerRetry(kind: JobKind, fn: RetryHook): () => void {
  hooks.set(kind, fn);
  return () => {
    if (hooks.get(kind) === fn) hooks.delete(kind);
  };
}

/** A new job for an ended one: through the kind's hook when it has one, else a plain copy (store.retry). */
export async function retryJob(services: Services, store: JobStore, job: Job): Promise<Job> {
  const hook = hooks.get(job.kind);
  if (!hook) return store.retry(job.id);
  // Checked before the hook runs, since a hook may write files (reserve a take) for nothing.
  if (!hasEnded(job)) throw conflict(`job ${job.id} is ${job.status}: only an ended job can be retried`);
  const next = await hook(job, services);
  return store.add({ ...next, after: next.after ?? null });
}
