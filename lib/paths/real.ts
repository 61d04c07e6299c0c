// realpath for paths that may not exist yet (the nearest existing ancestor is resolved, the rest appended), and
// for the folders every request resolves again (roots, episodes), answered from one lstat while they stay put.
import type { BigIntStats } from "node:fs";
import { lstat, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { cacheSlot, type WithCaches } from "../store/caches.ts";
import { errorCode } from "../store/json-guards.ts";

export interface RealPath {
  real: string;
  exists: boolean;
}

export async function realpathNearest(p: string): Promise<RealPath> {
  const rest: string[] = [];
  let cur = path.resolve(p);
  for (;;) {
    try {
      const real = await realpath(cur);
      return { real: rest.length ? path.join(real, ...rest.reverse()) : real, exists: rest.length === 0 };
    } catch (err) {
      const code = errorCode(err);
      if (code !== "ENOENT" && code !== "ENOTDIR") throw err;
      const up = path.dirname(cur);
      if (up === cur) return { real: path.resolve(p), exists: false };
      rest.push(path.basename(cur));
      cur = up;
    }
  }
}

export interface RealFolder {
  real: string;
  /** What the real path names is a folder (not a file). */
  isDirectory: boolean;
}

/** Folders seen to be their own real path, by path: the folder's identity when it was resolved. */
const REAL_FOLDERS = cacheSlot("real folders", () => new Map<string, string>());
/** Paths are whatever requests name: the map is emptied rather than left to grow past this. */
const MAX_REAL_FOLDERS = 2000;

// Device, inode and birth time (change time where the file system keeps no birth time): a folder removed and
// made again, even on a reused inode, is another folder.
function identity(st: BigIntStats): string {
  return `${st.dev}:${st.ino}:${st.birthtimeNs || st.ctimeNs}`;
}

/**
 * realpath of an existing path (its errors thrown as realpath's), and whether it is a folder. A folder that was
 * its own real path is answered from one lstat of it while that lstat finds the same folder, not a link.
 * Safe for containment: a path whose last part became a link, or that now reaches another folder (a parent
 * swapped for a link), is resolved again; only the very folder resolved before, still at that path, is trusted.
 * What callers open below it is resolved afresh by the guarded door, against this path.
 */
export async function realFolder(services: WithCaches, p: string): Promise<RealFolder> {
  const abs = path.resolve(p);
  const known = services.caches.of(REAL_FOLDERS);
  const held = known.get(abs);
  if (held !== undefined) {
    const st = await lstat(abs, { bigint: true }).catch(() => null);
    if (st?.isDirectory() && identity(st) === held) return { real: abs, isDirectory: true };
    known.delete(abs);
  }
  const real = await realpath(abs);
  const st = await (real === abs ? lstat(abs, { bigint: true }) : stat(real, { bigint: true }));
  if (real === abs && st.isDirectory()) {
    if (known.size >= MAX_REAL_FOLDERS) known.clear();
    known.set(abs, identity(st));
  }
  return { real, isDirectory: st.isDirectory() };
}
