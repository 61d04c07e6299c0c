// The workers of GET /studio/jobs as the Queue view draws them: one row per worker process (its machine, the lanes
// it runs, the engines it cannot reach and why) and, per lane, the machines that run it.
// Free of DOM imports so vitest can run it as plain TypeScript.
import type { WorkerAd } from "../../types.ts";
import { formatDuration } from "./queue-model.ts";

export interface WorkerRow {
  owner: string;
  /** `host · pid 123`. */
  where: string;
  lanes: string[];
  /** Lanes it cannot reach, each with why, by lane name. */
  down: { lane: string; why: string }[];
  kinds: string[];
  /** `seen 2.0 s ago`. */
  seen: string;
}

export interface LaneReach {
  /** Machines with a worker that runs the lane (several workers on one machine count once). */
  hosts: string[];
  /** Machines whose workers cannot reach the lane's engine, with why. */
  down: { host: string; why: string }[];
}

function valid(w: unknown): w is WorkerAd {
  if (typeof w !== "object" || w === null) return false;
  const a = w as Partial<WorkerAd>;
  return (
    typeof a.owner === "string" &&
    typeof a.host === "string" &&
    Array.isArray(a.lanes) &&
    typeof a.down === "object" &&
    a.down !== null
  );
}

/** The workers, by machine then process; an answer without workers (or a malformed entry) shows none. */
export function workerRows(workers: readonly unknown[] | undefined, now: number): WorkerRow[] {
  return (workers ?? [])
    .filter(valid)
    .slice()
    .sort((a, b) => a.host.localeCompare(b.host) || a.pid - b.pid || a.owner.localeCompare(b.owner))
    .map((w) => ({
      owner: w.owner,
      where: `${w.host} · pid ${w.pid}`,
      lanes: [...w.lanes].sort(),
      down: Object.entries(w.down)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([lane, why]) => ({ lane, why: String(why) })),
      kinds: Array.isArray(w.kinds) ? [...w.kinds].sort() : [],
      seen: `seen ${formatDuration(Math.max(0, now - (Number.isFinite(w.seen) ? w.seen : now)))} ago`,
    }));
}

/** Which machines run `lane` and which cannot reach its engine; null when the answer lists no workers. */
export function laneReach(workers: readonly unknown[] | undefined, lane: string): LaneReach | null {
  const list = (workers ?? []).filter(valid);
  if (!list.length) return null;
  const hosts = new Set<string>();
  const down = new Map<string, string>();
  for (const w of list) {
    if (w.lanes.includes(lane)) hosts.add(w.host);
    else if (typeof w.down[lane] === "string") down.set(w.host, w.down[lane]);
  }
  // A machine with one worker that reaches the lane runs it, whatever another of its workers says.
  for (const h of hosts) down.delete(h);
  return {
    hosts: [...hosts].sort(),
    down: [...down].sort(([a], [b]) => a.localeCompare(b)).map(([host, why]) => ({ host, why })),
  };
}

/** The lane's line: `runs on gpu-1, gpu-2`, or that no worker reaches its engine. */
export function reachText(reach: LaneReach | null): string | null {
  if (!reach) return null;
  if (reach.hosts.length) return `runs on ${reach.hosts.join(", ")}`;
  return "no worker reaches its engine now";
}
