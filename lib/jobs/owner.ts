// Lease owners name their process (host, pid, start time), so a restarted host can tell at once that a running
// job's owner on this very host is dead, instead of waiting out its lease.
import { randomUUID } from "node:crypto";
import os from "node:os";
import { errorCode } from "../store/json-guards.ts";

export interface OwnerId {
  host: string;
  pid: number;
  /** Epoch ms the process started (base 36 in the id); null in ids written before it was recorded. */
  started: number | null;
}

/** This process: its start time tells it apart from an earlier process that had the same pid. */
export function thisProcess(): OwnerId {
  return { host: os.hostname(), pid: process.pid, started: Math.floor(performance.timeOrigin) };
}

/** `<host>:<pid>:t<start, base 36>:<8 hex>`: unique per pool, and readable by `parseOwner`. */
export function newOwner(self: OwnerId = thisProcess()): string {
  const start = self.started === null ? "" : `t${self.started.toString(36)}:`;
  return `${self.host}:${self.pid}:${start}${randomUUID().slice(0, 8)}`;
}

const OWNER = /^(.+):(\d{1,10}):(?:t([0-9a-z]{1,12}):)?[0-9a-f]{8}$/;

/** The process an owner id names, or null for an id of another shape (a test's, another tool's). */
export function parseOwner(owner: string): OwnerId | null {
  const m = OWNER.exec(owner);
  if (!m) return null;
  const pid = Number(m[2]);
  if (!Number.isSafeInteger(pid) || pid <= 0) return null;
  return { host: m[1], pid, started: m[3] === undefined ? null : Number.parseInt(m[3], 36) };
}

/** Whether a process with this pid runs on this host (one we may not signal still runs). */
export function pidAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errorCode(err) !== "ESRCH";
  }
}

/**
 * Whether the owner is a process of this host that has ended: its pid is gone, or its pid is ours but it started
 * at another time (an earlier incarnation). Owners of other hosts, and ids that do not parse, are never gone here:
 * only their lease can free their jobs.
 */
export function ownerGone(owner: string, self: OwnerId = thisProcess(), alive = pidAlive): boolean {
  const o = parseOwner(owner);
  if (!o || o.host !== self.host) return false;
  if (o.pid === self.pid) return o.started !== null && self.started !== null && o.started !== self.started;
  return !alive(o.pid);
}
