// How much old work both job stores keep, and how often they prune it: pruning rides on writes, so no timer runs.

/** Finished jobs kept beyond the listed ones, so a recent one can still be read or retried. */
export const FINISHED_KEPT = 1000;
/** Outbox rows older than this go. */
export const EVENTS_KEPT_MS = 10 * 60_000;
/** Rows of one insert into the outbox (three bound values each, well under either database's limit). */
export const EVENTS_PER_INSERT = 500;
const PRUNE_EVERY_MS = 30_000;

/** A pruner that runs `prune(t)` when called at most once every 30 s (epoch ms `t` from `now`). */
export function throttledPrune(now: () => number, prune: (t: number) => Promise<void>): () => Promise<void> {
  let last = Number.NEGATIVE_INFINITY;
  return async () => {
    const t = now();
    if (t - last < PRUNE_EVERY_MS) return;
    last = t;
    await prune(t);
  };
}
