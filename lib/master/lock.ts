// The master's exclusive lock `<ep>/master/.assembling.json` {pid, host, by, started}: one assembly (or ProRes
// run) of an episode at a time, across processes and hosts sharing the show folder. A lock whose process is gone
// (same host) or that is older than a day (another host, whose processes cannot be asked) is stale and taken over.
import os from "node:os";
import path from "node:path";
import { conflict } from "../errors.ts";
import { pidAlive } from "../jobs/owner.ts";
import { createShowFile, episodeFence, mkdirShow, readShowText, removeShow } from "../paths/guarded.ts";
import { errorCode, isObject } from "../store/json-guards.ts";

export const LOCK_NAME = ".assembling.json";
/** A lock of another host older than this is taken to be left by a crash. */
export const FOREIGN_LOCK_MS = 24 * 3600_000;

export interface MasterLock {
  pid: number;
  host: string;
  by: string;
  started: string;
}

export const masterFolder = (ep: string) => path.join(ep, "master");
export const lockPath = (ep: string) => path.join(masterFolder(ep), LOCK_NAME);

/** The lock as written, or null when there is none (an unreadable one counts as stale: pid 0). */
export async function readLock(ep: string): Promise<MasterLock | null> {
  let text: string;
  try {
    text = await readShowText(episodeFence(ep), lockPath(ep));
  } catch (err) {
    if (errorCode(err) === "ENOENT") return null;
    throw err;
  }
  try {
    const v: unknown = JSON.parse(text);
    if (isObject(v))
      return {
        pid: typeof v.pid === "number" ? v.pid : 0,
        host: typeof v.host === "string" ? v.host : "",
        by: typeof v.by === "string" ? v.by : "someone",
        started: typeof v.started === "string" ? v.started : "",
      };
  } catch {
    // Half-written by a crash: stale.
  }
  return { pid: 0, host: "", by: "someone", started: "" };
}

/** Whether a lock still stands: its process lives on this host, or another host took it less than a day ago. */
export function lockLive(lock: MasterLock, now: Date, alive = pidAlive, host = os.hostname()): boolean {
  if (lock.host === host) return alive(lock.pid);
  const started = Date.parse(lock.started);
  return lock.host !== "" && Number.isFinite(started) && now.getTime() - started < FOREIGN_LOCK_MS;
}

/** `HH:MM` of a lock's start, local time. */
function since(started: string): string {
  const d = new Date(started);
  if (Number.isNaN(d.getTime())) return "an unknown time";
  return `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
}

export const busyMessage = (lock: MasterLock) =>
  `a master of this episode is already being assembled by ${lock.by} (since ${since(lock.started)}); wait for it to finish`;

export interface HeldLock {
  lock: MasterLock;
  /** A stale lock this one replaced. */
  tookOver: MasterLock | null;
  release(): Promise<void>;
}

/**
 * Take the lock, or a 409 saying who holds it (`extra` merged into the error body: the master job). A stale
 * lock is removed and the take tried once more; losing that race to another process is the same 409.
 */
export async function takeLock(
  ep: string,
  by: string,
  now: Date,
  busyExtra: (held: MasterLock) => Promise<Record<string, unknown>>,
): Promise<HeldLock> {
  const fence = episodeFence(ep);
  await mkdirShow(fence, masterFolder(ep));
  const lock: MasterLock = { pid: process.pid, host: os.hostname(), by, started: now.toISOString() };
  const text = `${JSON.stringify(lock, null, 2)}\n`;
  let tookOver: MasterLock | null = null;
  for (let attempt = 0; ; attempt++) {
    try {
      await createShowFile(fence, lockPath(ep), text);
      break;
    } catch (err) {
      if (errorCode(err) !== "EEXIST") throw err;
    }
    const held = await readLock(ep);
    if (held === null && attempt === 0) continue;
    if (held && !lockLive(held, now) && attempt === 0) {
      tookOver = held;
      await removeShow(fence, lockPath(ep));
      continue;
    }
    const who = held ?? { pid: 0, host: "", by: "another process", started: "" };
    throw conflict(busyMessage(who), await busyExtra(who));
  }
  return { lock, tookOver, release: () => releaseLock(ep, lock) };
}

/**
 * Remove the lock if it is still `lock` (the same process, host and start): a takeover by another process after
 * ours went stale stays. The route that took it and the job that ran under it may both call this.
 */
export async function releaseLock(ep: string, lock: MasterLock): Promise<void> {
  const current = await readLock(ep).catch(() => null);
  if (current && current.pid === lock.pid && current.host === lock.host && current.started === lock.started)
    await removeShow(episodeFence(ep), lockPath(ep));
}
