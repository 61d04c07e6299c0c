// Counts the file-system calls (node:fs/promises) the code under test makes while `during` runs, by path, so a
// test can hold a request to the reads it needs. Replaces the functions in place and puts them back after.
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

const NAMES = ["stat", "lstat", "realpath", "readdir", "readFile", "open", "access"] as const;
export type FsCallName = (typeof NAMES)[number];

export interface FsCall {
  name: FsCallName;
  path: string;
}

/** Run `during` with every listed fs/promises call recorded (name and first argument). */
export async function recordFsCalls<T>(during: () => Promise<T>): Promise<{ result: T; calls: FsCall[] }> {
  const calls: FsCall[] = [];
  const api = fs.promises as unknown as Record<FsCallName, (...args: unknown[]) => unknown>;
  const originals = NAMES.map((name) => [name, api[name]] as const);
  for (const [name, original] of originals) {
    api[name] = function (this: unknown, ...args: unknown[]) {
      calls.push({ name, path: String(args[0]) });
      return original.apply(this, args);
    };
  }
  // ESM importers of node:fs/promises see the replaced functions only once the named exports are synced.
  syncBuiltinESMExports();
  try {
    return { result: await during(), calls };
  } finally {
    for (const [name, original] of originals) api[name] = original;
    syncBuiltinESMExports();
  }
}

/** How many recorded calls are `name` on exactly `file`. */
export const callsOn = (calls: readonly FsCall[], name: FsCallName, file: string) =>
  calls.filter((c) => c.name === name && c.path === file).length;
