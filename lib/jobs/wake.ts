// In-process signals from the routes to a worker pool in the same process: a job was added (claim now rather than
// at the next poll) or a cancel was asked for (look at the job now rather than at its next heartbeat). One set per
// process, held by its services.
type Listener<T> = (value: T) => void;

export interface JobSignals {
  /** Called by a route right after it inserted one or more jobs (or made waiting ones runnable). */
  jobAdded(): void;
  /** Called by a pool; answers the unsubscribe function. */
  onJobAdded(fn: () => void): () => void;
  /** Called by a route after the store marked a running job `cancel_requested`. */
  cancelRequested(id: string): void;
  /** Called by a pool; answers the unsubscribe function. */
  onCancelRequested(fn: (id: string) => void): () => void;
}

function subscribe<T>(set: Set<Listener<T>>, fn: Listener<T>): () => void {
  set.add(fn);
  return () => {
    set.delete(fn);
  };
}

function notify<T>(set: Set<Listener<T>>, value: T): void {
  for (const fn of set) {
    try {
      fn(value);
    } catch {
      // A listener's failure must not fail the route that added the job.
    }
  }
}

export function createJobSignals(): JobSignals {
  const added = new Set<Listener<void>>();
  const canceled = new Set<Listener<string>>();
  return {
    jobAdded: () => notify(added, undefined),
    onJobAdded: (fn) => subscribe(added, fn),
    cancelRequested: (id) => notify(canceled, id),
    onCancelRequested: (fn) => subscribe(canceled, fn),
  };
}
