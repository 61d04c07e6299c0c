// Rules both job stores apply to a job's row the same way: what an insert, a finish, a cancel, a move, a retry, a
// release or a reclaim writes, log length, progress bounds, how a row reads back as a job.
import { sql } from "drizzle-orm";
import { badRequest, conflict } from "../errors.ts";
import { strings } from "../store/json-guards.ts";
import { JOB_ID, newJobId } from "./job-id.ts";
import type { Job, JobStatus, NewJob, ProgressUpdate } from "./types.ts";
import { hasEnded } from "./wait.ts";

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

/** A running job's row back in the queue with its place kept, its run's traces cleared and a line saying why. */
function requeued(row: RunningRow, line: string) {
  return {
    ...CLEARED,
    status: "queued" as JobStatus,
    started: null,
    progress: 0,
    step: null,
    steps: null,
    log: appendLog(row.log, line),
  };
}

/**
 * What a released job's row becomes: back to the queue with its place kept and the attempt not counted, or ended
 * canceled when a cancel was asked for (nobody else should start what the user stopped).
 */
export function releasedFields(row: RunningRow, why: string, at: string) {
  if (row.cancel_requested) return { ...CLEARED, status: "canceled" as JobStatus, finished: at };
  return { ...requeued(row, `${why}; left for another worker`), attempts: Math.max(0, row.attempts - 1) };
}

interface LeasedRow extends RunningRow {
  lease_owner: string | null;
  lease_expires: number | null;
}

/**
 * What a running job's row becomes at time `t` when its lease lapsed or its owner is `gone`: back to the queue,
 * failed after three attempts, or canceled when a cancel was asked for (nobody is left to stop it); null while its
 * worker still holds it.
 */
export function reclaimedFields(
  row: LeasedRow,
  t: number,
  gone: ((owner: string) => boolean) | undefined,
  at: string,
) {
  const lapsed = row.lease_expires !== null && row.lease_expires < t;
  // An owner known to be dead: its lease would only make the lane wait for nothing.
  const dead = !lapsed && gone !== undefined && row.lease_owner !== null && gone(row.lease_owner);
  if (!lapsed && !dead) return null;
  const why = lapsed ? "its worker stopped answering" : "its worker process ended";
  if (row.cancel_requested) return { ...CLEARED, status: "canceled" as JobStatus, finished: at };
  if (row.attempts >= MAX_ATTEMPTS) {
    return { ...CLEARED, status: "failed" as JobStatus, finished: at, error: `${why} three times` };
  }
  return requeued(row, `${why}; queued again`);
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

/** A row read back as a job: the JSON columns defaulted where a row lacks them. */
export function jobFromRow<R extends Omit<Job, "info" | "payload" | "log">>(
  row: R & { info: Job["info"] | null; payload: unknown; log: unknown },
): Job {
  return {
    ...row,
    info: row.info ?? {},
    payload: row.payload ?? null,
    log: Array.isArray(row.log) ? row.log : [],
  };
}

/** The row a new job is inserted as, queued last in its lane (the place computed in the insert itself). */
export function newJobValues(job: NewJob, created: string) {
  checkLane(job.lane);
  if (job.id !== undefined && !JOB_ID.test(job.id))
    throw new Error(`${job.id} is not an id newJobId() draws`);
  return {
    id: job.id ?? newJobId(),
    kind: job.kind,
    lane: job.lane,
    title: job.title ?? "",
    after: job.after ?? null,
    info: job.info ?? {},
    payload: job.payload ?? null,
    status: "queued" as JobStatus,
    progress: 0,
    created,
    log: [] as string[],
    // Computed in the same statement as the insert, so the place is read and taken in one step.
    position: sql<number>`(SELECT coalesce(max(position), -1) + 1 FROM jobs WHERE lane = ${job.lane} AND status = 'queued')`,
  };
}

/** What finishing a running job sets; progress becomes 1 on success and stays as it was otherwise. */
export function finishedFields(status: JobStatus, error: string | null, at: string) {
  if (!["succeeded", "failed", "canceled"].includes(status)) {
    throw new Error(`finish: status must be succeeded, failed or canceled (got ${status})`);
  }
  return {
    status,
    finished: at,
    error: status === "succeeded" ? null : error,
    ...(status === "succeeded" ? { progress: 1 } : {}),
    lease_owner: null,
    lease_expires: null,
  };
}

/** What a cancel sets: a waiting job ends at once, a running one is asked to stop by its worker. */
export function canceledFields(job: Pick<Job, "id" | "status">, at: string) {
  if (hasEnded(job)) throw conflict(`job ${job.id} has already ended`);
  return job.status === "queued"
    ? { status: "canceled" as JobStatus, finished: at }
    : { cancel_requested: true };
}

/** Only a waiting job moves. */
export function checkMovable(job: Pick<Job, "id" | "status">): void {
  if (job.status === "running") throw conflict(`job ${job.id} is running: only waiting jobs can be moved`);
  if (job.status !== "queued")
    throw conflict(`job ${job.id} has already ended: only waiting jobs can be moved`);
}

/**
 * The positions to write when job `id` moves to `index` among its lane's waiting jobs (given in their order):
 * every job whose place changes, and the moved job always.
 */
export function movedPositions(
  waiting: readonly { id: string; position: number }[],
  id: string,
  position: number,
  index: number,
): { id: string; position: number }[] {
  const order = waiting.filter((w) => w.id !== id);
  order.splice(Math.min(index, order.length), 0, { id, position });
  return [...order.entries()]
    .filter(([at, w]) => w.position !== at || w.id === id)
    .map(([at, w]) => ({ id: w.id, position: at }));
}

/** The new job a retry adds: an ended job's work again, last in its lane, waiting on nothing. */
export function retriedJob(job: Job): NewJob {
  if (!hasEnded(job)) throw conflict(`job ${job.id} is ${job.status}: only an ended job can be retried`);
  return {
    kind: job.kind,
    lane: job.lane,
    title: job.title,
    info: job.info,
    payload: job.payload,
    after: null,
  };
}
