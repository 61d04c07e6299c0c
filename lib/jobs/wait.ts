// Waiting for a job to end: woken at once by an end this store wrote, otherwise by looking again now and then
// (an end written by a worker in another process reaches this one only through the database).
import { notFound } from "../errors.ts";
import type { Job, JobStatus } from "./types.ts";

export const ENDED_STATUSES: readonly JobStatus[] = ["succeeded", "failed", "canceled"];

export function hasEnded(job: Pick<Job, "status">): boolean {
  return ENDED_STATUSES.includes(job.status);
}

const DEFAULT_POLL_MS = 250;

/** Per store: who waits for which job, so the store's own writes wake them without a poll. */
export class JobEnds {
  private readonly waiters = new Map<string, Set<() => void>>();

  /** The job may have ended: its waiters look again now. */
  ended(id: string): void {
    const set = this.waiters.get(id);
    if (!set) return;
    this.waiters.delete(id);
    for (const wake of set) wake();
  }

  /** Any job may have ended (a store that lost its notices for a while): every waiter looks again now. */
  wakeAll(): void {
    const all = [...this.waiters.values()];
    this.waiters.clear();
    for (const set of all) for (const wake of set) wake();
  }

  async waitFor(
    id: string,
    signal: AbortSignal,
    get: (id: string) => Promise<Job | null>,
    pollMs = DEFAULT_POLL_MS,
  ): Promise<Job | null> {
    while (!signal.aborted) {
      // Registered before the read, so an end written between the read and the wait is not missed.
      const next = this.next(id, signal, pollMs);
      const job = await get(id).catch((err: unknown) => {
        next.cancel();
        throw err;
      });
      if (!job) {
        next.cancel();
        throw notFound(`job ${id} not found`);
      }
      if (hasEnded(job)) {
        next.cancel();
        return job;
      }
      await next.promise;
    }
    return null;
  }

  /** Resolves on this job's end, after `ms`, or on abort, whichever comes first. */
  private next(id: string, signal: AbortSignal, ms: number): { promise: Promise<void>; cancel(): void } {
    let done: () => void = () => {};
    const promise = new Promise<void>((resolve) => {
      done = resolve;
    });
    let set = this.waiters.get(id);
    if (!set) {
      set = new Set();
      this.waiters.set(id, set);
    }
    const timer = setTimeout(() => finish(), ms);
    const finish = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", finish);
      const waiting = this.waiters.get(id);
      waiting?.delete(finish);
      if (waiting?.size === 0) this.waiters.delete(id);
      done();
    };
    set.add(finish);
    signal.addEventListener("abort", finish, { once: true });
    return { promise, cancel: finish };
  }
}
