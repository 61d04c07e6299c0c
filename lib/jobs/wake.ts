// In-process signals from the routes to a worker pool in the same process: a job was added (claim now rather than
// at the next poll) or a cancel was asked for (look at the job now rather than at its next heartbeat).
type Listener<T> = (value: T) => void;

const added = new Set<Listener<void>>();
const canceled = new Set<Listener<string>>();

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

/** Called by a pool; answers the unsubscribe function. */
export function onJobAdded(fn: () => void): () => void {
  return subscribe(added, fn);
}

/** Called by a route right after it inserted one or more jobs. */
export function jobAdded(): void {
  notify(added, undefined);
}

/** Called by a pool; answers the unsubscribe function. */
export function onCancelRequested(fn: (id: string) => void): () => void {
  return subscribe(canceled, fn);
}

/** Called by the cancel route after the store marked a running job `cancel_requested`. */
export function cancelRequested(id: string): void {
  notify(canceled, id);
}
