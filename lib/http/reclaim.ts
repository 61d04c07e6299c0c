// Dead chunks of a large upload are given back as it streams. Every chunk of a request body is a fresh buffer
// outside V8's heap, dead as soon as it is written out; V8 collects such buffers only once tens of megabytes of
// them have piled up (its external-memory trigger), so a 64 MB upload would swell the process by half its size.
// A young-generation collection every few megabytes received (about a millisecond each) keeps the growth small.
import v8 from "node:v8";
import vm from "node:vm";

export type Collect = (options: { type: "minor" | "major" }) => void;

/** Bytes received between two collections. */
export const RECLAIM_EVERY = 2 * 1024 * 1024;

/** V8's collector as a function, or null where it cannot be had (looked up per upload: a context costs ~1 ms). */
export function collector(): Collect | null {
  try {
    const global = (globalThis as { gc?: unknown }).gc;
    if (typeof global === "function") return global as Collect;
    // The flag makes `gc` a global of contexts made from now on; one such context hands it over.
    v8.setFlagsFromString("--expose-gc");
    const made: unknown = vm.runInNewContext("gc");
    return typeof made === "function" ? (made as Collect) : null;
  } catch {
    return null;
  }
}

/** Counts a body's bytes as they arrive and runs a young-generation collection every RECLAIM_EVERY bytes. */
export class Reclaimer {
  private since = 0;
  private readonly collect: Collect | null;

  constructor(collect: Collect | null = collector()) {
    this.collect = collect;
  }

  add(bytes: number): void {
    this.since += bytes;
    if (this.since < RECLAIM_EVERY) return;
    this.since = 0;
    this.collect?.({ type: "minor" });
  }
}
