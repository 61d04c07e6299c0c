// A task module for the thread-pool test: echoes, fails on request, and spins the CPU.
import { threadId } from "node:worker_threads";

export function echo(arg: unknown): { arg: unknown; threadId: number } {
  return { arg, threadId };
}

export function fail(message: string): never {
  throw new TypeError(message);
}

export function spin(ms: number): number {
  const end = Date.now() + ms;
  let n = 0;
  while (Date.now() < end) n++;
  return n;
}

export function die(): never {
  process.exit(7);
}
