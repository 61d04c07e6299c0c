// The caches of one process, held by its services: each module names its own slot, the services build one
// `Caches` at start, so nothing is cached at module level and every test env starts empty.

/** A named place in `Caches`, made once per `Caches` on first use. */
export interface CacheSlot<T> {
  readonly name: string;
  readonly make: () => T;
}

/** Declare a slot (a module constant: the slot is a key, the value lives in each `Caches`). */
export function cacheSlot<T>(name: string, make: () => T): CacheSlot<T> {
  return Object.freeze({ name, make });
}

export interface Caches {
  /** The slot's value in these caches, made on first use. */
  of<T>(slot: CacheSlot<T>): T;
}

/** What a function that reads through a cache takes: the services or a ctx fit. */
export interface WithCaches {
  readonly caches: Caches;
}

export function createCaches(): Caches {
  const held = new Map<CacheSlot<unknown>, unknown>();
  return {
    of<T>(slot: CacheSlot<T>): T {
      if (held.has(slot)) return held.get(slot) as T;
      const value = slot.make();
      held.set(slot, value);
      return value;
    },
  };
}
