// A job listing as both stores assemble it from the rows they read: running, then waiting, then the latest
// finished, with every lane's state (lanes with a settings row or with any job).
import { listedJob } from "./row-rules.ts";
import type { Job, JobStore, LaneState } from "./types.ts";

/** Finished jobs a listing shows, newest first. */
export const FINISHED_LISTED = 200;

/** A listed job's row: its payload read as the text stored, parsed only when asked. */
export type ListedRow = Omit<Job, "payload"> & { payload_text: string | null };

export interface ListingRows {
  running: readonly ListedRow[];
  waiting: readonly ListedRow[];
  finished: readonly ListedRow[];
  laneRows: readonly { name: string; paused: boolean; parallel: number }[];
  /** Every lane that has a job. */
  seen: readonly { lane: string }[];
}

export function assembleListing({
  running,
  waiting,
  finished,
  laneRows,
  seen,
}: ListingRows): Awaited<ReturnType<JobStore["list"]>> {
  const lanes: Record<string, LaneState> = {};
  const names = new Set([...laneRows.map((l) => l.name), ...seen.map((s) => s.lane)]);
  for (const name of [...names].sort()) {
    const row = laneRows.find((l) => l.name === name);
    lanes[name] = { paused: row?.paused ?? false, parallel: row?.parallel ?? 1, waiting: [], running: [] };
  }
  for (const j of waiting) lanes[j.lane].waiting.push(j.id);
  for (const j of running) lanes[j.lane].running.push(j.id);
  const listed = ({ payload_text, ...row }: ListedRow): Job => listedJob(row, payload_text);
  return { jobs: [...running, ...waiting, ...finished].map(listed), lanes };
}
