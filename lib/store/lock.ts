// Per-episode write serialization: writers of one episode queue behind each other, other episodes run freely.
const tails = new Map<string, Promise<unknown>>();

/** Run `work` after every earlier `withLock(key, ...)` call of this process has settled. */
export async function withLock<T>(key: string, work: () => Promise<T>): Promise<T> {
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
}
