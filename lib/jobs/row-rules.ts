// Rules both job stores apply to a job's row the same way: log length, progress bounds, what a release sets.
import { badRequest } from "../errors.ts";
import { strings } from "../store/json-guards.ts";
import type { Job, JobStatus, ProgressUpdate } from "./types.ts";

const LOG_LINES = 20;
const LOG_LINE_CHARS = 2000;
/** A job whose worker vanished this many times fails instead of queueing again. */
export const MAX_ATTEMPTS = 3;

export interface ProgressFields {
  progress?: number;
  step?: string | null;
  steps?: number | null;
  backend_prompt_id?: string | null;
}

/** The columns a progress update sets (its log line aside): progress clamped to 0..1, the others as given. */
export function progressFields(update: ProgressUpdate): ProgressFields {
  const set: ProgressFields = {};
  if (update.progress !== undefined && Number.isFinite(update.progress)) {
    set.progress = Math.min(1, Math.max(0, update.progress));
  }
  if (update.step !== undefined) set.step = update.step;
  if (update.steps !== undefined) set.steps = update.steps;
  if (update.backend_prompt_id !== undefined) set.backend_prompt_id = update.backend_prompt_id;
  return set;
}

/** The log with one more line, the last 20 kept. */
export function appendLog(log: unknown, line: string): string[] {
  const lines = strings(log);
  return [...lines, String(line).slice(0, LOG_LINE_CHARS)].slice(-LOG_LINES);
}

export function checkLease(leaseMs: number): void {
  if (!Number.isFinite(leaseMs) || leaseMs <= 0) {
    throw new Error(`lease must be a positive number of milliseconds (got ${leaseMs})`);
  }
}

export function checkLane(lane: string): void {
  if (typeof lane !== "string" || !lane.trim()) throw badRequest("lane: required");
}

export function checkParallel(parallel: number): void {
  if (!Number.isInteger(parallel) || parallel < 1) {
    throw badRequest("parallel: must be a whole number, 1 or more");
  }
}

export function checkIndex(index: number): void {
  if (!Number.isInteger(index) || index < 0) throw badRequest("index: must be a whole number, 0 or more");
}

interface RunningRow {
  log: unknown;
  attempts: number;
  cancel_requested: boolean;
}

const CLEARED = { lease_owner: null, lease_expires: null };

/**
 * What a released job's row becomes: back to the queue with its place kept and the attempt not counted, or ended
 * canceled when a cancel was asked for (nobody else should start what the user stopped).
 */
export function releasedFields(row: RunningRow, why: string, at: string) {
  if (row.cancel_requested) return { ...CLEARED, status: "canceled" as JobStatus, finished: at };
  return {
    ...CLEARED,
    status: "queued" as JobStatus,
    started: null,
    progress: 0,
    step: null,
    steps: null,
    attempts: Math.max(0, row.attempts - 1),
    log: appendLog(row.log, `${why}; left for another worker`),
  };
}

/**
 * What a running job's row becomes when its lease lapsed or its owner is gone: back to the queue, failed after
 * three attempts, or canceled when a cancel was asked for (nobody is left to stop it).
 */
export function reclaimedFields(row: RunningRow, lapsed: boolean, at: string) {
  const why = lapsed ? "its worker stopped answering" : "its worker process ended";
  if (row.cancel_requested) return { ...CLEARED, status: "canceled" as JobStatus, finished: at };
  if (row.attempts >= MAX_ATTEMPTS) {
    return { ...CLEARED, status: "failed" as JobStatus, finished: at, error: `${why} three times` };
  }
  return {
    ...CLEARED,
    status: "queued" as JobStatus,
    started: null,
    progress: 0,
    step: null,
    steps: null,
    log: appendLog(row.log, `${why}; queued again`),
  };
}

/**
 * A listed job. A listing reads every job's row, and a render's payload holds its whole workflow graph (tens of KB)
 * that no listing reader looks at: so it is read as text and parsed only when something asks for it.
 */
export function listedJob(row: Omit<Job, "payload">, payloadText: string | null): Job {
  let parsed: { value: unknown } | undefined;
  return {
    ...row,
    info: row.info ?? {},
    log: Array.isArray(row.log) ? row.log : [],
    get payload(): unknown {
      parsed ??= { value: payloadText === null ? null : JSON.parse(payloadText) };
      return parsed.value;
    },
  };
}
