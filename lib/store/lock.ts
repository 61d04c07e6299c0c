// Per-episode write serialization: writers of one episode queue behind each other, other episodes run freely.
// The queue tails live in a `Locks` the process builds once (its services hold it), so every writer of the
// process shares them.

export interface Locks {
  /** Run `work` after every earlier `run(key, ...)` of these locks has settled. */
  run<T>(key: string, work: () => Promise<T>): Promise<T>;
}

export function createLocks(): Locks {
  const tails = new Map<string, Promise<unknown>>();
  return {
    async run<T>(key: string, work: () => Promise<T>): Promise<T> {
      const previous = tails.get(key) ?? Promise.resolve();
      const run = previous.then(work, work);
      const tail = run.catch(() => undefined);
      tails.set(key, tail);
      try {
        return await run;
      } finally {
        // Drop the entry once nobody queued behind us, so the map does not grow with every episode ever seen.
        if (tails.get(key) === tail) tails.delete(key);
      }
    },
  };
}

/** Run `work` after every earlier `withLock(key, ...)` of the same services has settled. */
export function withLock<T>(
  services: { readonly locks: Locks },
  key: string,
  work: () => Promise<T>,
): Promise<T> {
  return services.locks.run(key, work);
}
