// Removes what a crashed process or an ended job left behind: temporary files and work folders named by
// lib/store/temp-names.ts whose owner is gone. Anything whose name is not exactly one of those is kept.
import type { Dirent } from "node:fs";
import { lstat, readdir, rm } from "node:fs/promises";
import path from "node:path";
import { type LeftoverOwner, leftoverOwner } from "./temp-names.ts";

export interface LeftoverRules {
  /** Whether a process with this pid runs on this host. */
  pidAlive(pid: number): boolean;
  /** Whether the job may still use its work folder (queued or running); a job unknown to the store is not. */
  jobActive(id: string): Promise<boolean>;
  /** This process: a name with its pid but older than its start is an earlier process's that had the same pid. */
  self: { pid: number; started: number };
  /**
   * Pid-owned leftovers changed within this many ms are kept: with a database shared by several hosts, a pid
   * that is not alive here may be a process of another host writing into the same shared folder. 0 keeps none.
   */
  quietMs: number;
  now(): number;
}

export interface SweepTarget {
  dir: string;
  /** How many folder levels to list: 1 lists `dir` only, 2 its subfolders too, and so on. */
  depth: number;
}

/** Remove every leftover whose owner is gone in the targets; answers the paths removed. Never follows links. */
export async function sweepLeftovers(
  targets: readonly SweepTarget[],
  rules: LeftoverRules,
  signal?: AbortSignal,
): Promise<string[]> {
  const removed: string[] = [];
  const listed = new Map<string, number>();
  const jobs = new Map<string, Promise<boolean>>();
  const jobActive = (id: string) => {
    let known = jobs.get(id);
    if (!known) {
      known = rules.jobActive(id);
      jobs.set(id, known);
    }
    return known;
  };

  async function walk(dir: string, depth: number): Promise<void> {
    if (depth < 1 || signal?.aborted) return;
    // Targets overlap (an episode and its show folder): a folder already listed as deep is not listed again.
    const key = path.resolve(dir);
    if ((listed.get(key) ?? 0) >= depth) return;
    listed.set(key, depth);
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (signal?.aborted) return;
      const full = path.join(dir, entry.name);
      const owner = leftoverOwner(entry.name);
      if (owner) {
        if (await ownerGone(owner, full, entry.isDirectory())) {
          // One that cannot be removed (permissions) does not stop the sweep of the others.
          const gone = await rm(full, { recursive: true, force: true }).then(
            () => true,
            () => false,
          );
          if (gone) removed.push(full);
        }
      } else if (entry.isDirectory()) {
        await walk(full, depth - 1);
      }
    }
  }

  async function ownerGone(owner: LeftoverOwner, full: string, folder: boolean): Promise<boolean> {
    if ("job" in owner) return !(await jobActive(owner.job));
    if (owner.pid === rules.self.pid) {
      const changed = await lastChange(full, folder);
      return changed !== null && changed < rules.self.started;
    }
    if (rules.pidAlive(owner.pid)) return false;
    if (rules.quietMs <= 0) return true;
    const changed = await lastChange(full, folder);
    return changed !== null && rules.now() - changed > rules.quietMs;
  }

  for (const t of targets) await walk(t.dir, t.depth);
  return removed;
}

/** The newest modification time of a file, or of a folder and the entries directly in it; null when gone. */
async function lastChange(full: string, folder: boolean): Promise<number | null> {
  const own = await lstat(full).catch(() => null);
  if (!own) return null;
  let newest = own.mtimeMs;
  if (folder) {
    const names = await readdir(full).catch((): string[] => []);
    for (const name of names) {
      const st = await lstat(path.join(full, name)).catch(() => null);
      if (st && st.mtimeMs > newest) newest = st.mtimeMs;
    }
  }
  return newest;
}
