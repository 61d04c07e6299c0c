// The job model shared by the API (queueing, listing) and the worker pool (claiming, running).
import type { Pass } from "../compile/types.ts";

/** Contract kinds first; `assemble`, `install`, `step`, `master`, `align` and `preset` are internal kinds the contract's list does not name. */
export type JobKind =
  | "render"
  | "ref"
  | "upscale"
  | "post"
  | "tour"
  | "assemble"
  | "install"
  | "step"
  | "master"
  | "align"
  | "preset";
export type JobStatus = "queued" | "running" | "succeeded" | "failed" | "canceled";

export interface JobInfo {
  ep?: string;
  pass?: Pass;
  shot?: string;
  take?: number;
  target?: string;
  backend?: string;
  [more: string]: unknown;
}

/** A job; `P` is its payload's type once parsed by its kind's schema (`Job<RenderPayload>`). */
export interface Job<P = unknown> {
  id: string;
  kind: JobKind;
  /** The backend the job runs on: `builtin`, `local`, `cloud`, `deployment:<target>`, `router`. */
  lane: string;
  title: string;
  /** A job that must end (any way) before this one starts: continuity chains in cut order. */
  after: string | null;
  info: JobInfo;
  /** What the worker needs to run it (kind-specific, JSON). */
  payload: P;
  status: JobStatus;
  progress: number;
  step: string | null;
  steps: number | null;
  /** ISO-8601 times. */
  created: string;
  started: string | null;
  finished: string | null;
  error: string | null;
  /** The last 20 log lines. */
  log: string[];
  lease_owner: string | null;
  /** Epoch milliseconds when the lease lapses. */
  lease_expires: number | null;
  backend_prompt_id: string | null;
  /** Set by a cancel of a running job; the worker stops the engine and ends the job `canceled`. */
  cancel_requested: boolean;
  /** How many times a worker has started it (a lapsed lease gives it back to the queue). */
  attempts: number;
  /** Order within its lane among waiting jobs (smaller runs first). */
  position: number;
}

export interface NewJob<P = unknown> {
  /**
   * The id the job gets, drawn beforehand with newJobId() so a file written before the insert can already name it
   * (a reference candidate's sidecar); left out, the store draws one.
   */
  id?: string;
  kind: JobKind;
  lane: string;
  title: string;
  info: JobInfo;
  payload: P;
  after?: string | null;
}

export interface LaneState {
  paused: boolean;
  parallel: number;
  waiting: string[];
  running: string[];
}

export interface ProgressUpdate {
  progress?: number;
  step?: string | null;
  steps?: number | null;
  backend_prompt_id?: string | null;
  /** One more log line (the store keeps the last 20). */
  log?: string;
}

/** What a worker says about itself, so lanes go to workers that can run them. */
export interface WorkerAd {
  /** The pool's owner id. */
  owner: string;
  /** os.hostname() */
  host: string;
  pid: number;
  /** Job kinds it runs. */
  kinds: string[];
  /** Lanes whose engine it reaches now. */
  lanes: string[];
  /** Configured lanes it cannot reach now, and why. */
  down: Record<string, string>;
  /** Epoch milliseconds of its last advert (set by the store). */
  seen: number;
}

/** The notices a store that can push sends: outbox rows written, or a job that may be runnable now. */
export type StoreChannel = "events" | "jobs";

export interface JobStore {
  add(job: NewJob): Promise<Job>;
  get(id: string): Promise<Job | null>;
  /** Every queued or running job, then the last 200 finished, newest first; and every lane's state. */
  list(): Promise<{ jobs: Job[]; lanes: Record<string, LaneState> }>;
  /**
   * Atomically take the next runnable job for `owner` (across processes sharing the database): lane not paused,
   * lane below its parallelism, `after` ended; lowest position first. Null when nothing can start.
   */
  claim(owner: string, leaseMs: number, lanes?: readonly string[]): Promise<Job | null>;
  /** Extend the lease. Answers whether the owner still holds it and whether a cancel was asked for. */
  heartbeat(id: string, owner: string, leaseMs: number): Promise<{ held: boolean; cancel: boolean }>;
  update(id: string, owner: string, update: ProgressUpdate): Promise<void>;
  finish(
    id: string,
    owner: string,
    status: "succeeded" | "failed" | "canceled",
    error?: string | null,
  ): Promise<Job | null>;
  /** A waiting job ends `canceled` at once; a running one gets `cancel_requested`. 404/409 as StudioError. */
  cancel(id: string): Promise<Job>;
  /** Place a waiting job at `index` in its lane (0 = next). 409 for a job that is not waiting. */
  move(id: string, index: number): Promise<void>;
  /** A new job with the same kind, lane, info and payload (409 unless the job has ended). */
  retry(id: string): Promise<Job>;
  pause(lane: string, paused: boolean): Promise<void>;
  setParallel(lane: string, parallel: number): Promise<void>;
  /**
   * Running jobs whose lease lapsed, or whose owner `gone` says has ended, go back to the queue (or fail after 3
   * attempts; a cancel asked for ends them canceled); returns those changed.
   */
  reclaimExpired(now?: number, gone?: (owner: string) => boolean): Promise<Job[]>;
  /**
   * Resolves with the job once it has ended (succeeded, failed or canceled), or null when `signal` aborts first.
   * An end written by this store is seen at once; one written by another process is seen at the next look
   * (every `pollMs`, 250 ms by default). 404 as StudioError when there is no such job.
   */
  waitFor(id: string, signal: AbortSignal, pollMs?: number): Promise<Job | null>;
  /** Event outbox, so events of a worker in another process reach the API's sockets. */
  emit(kind: string, data: unknown): Promise<void>;
  eventsSince(id: number, limit?: number): Promise<{ id: number; kind: string; data: unknown }[]>;
  /** The paid-run counter of this server session. */
  paid(): Promise<{ count: number }>;
  /** Count `n` more runs sent to a paid backend; answers the new count. */
  paidAdd(n?: number): Promise<{ count: number }>;
  paidReset(): Promise<void>;
  /** Upsert this worker's advert (seen = now). */
  advertise(ad: Omit<WorkerAd, "seen">): Promise<void>;
  /** Workers seen within maxAgeMs (default 30 s), by owner. */
  workers(maxAgeMs?: number): Promise<WorkerAd[]>;
  /** Remove a worker's advert (graceful stop). */
  retire(owner: string): Promise<void>;
  /**
   * A running job this owner holds goes back to the queue (lease cleared, attempt not counted, `why` logged) for
   * another worker; null when not held.
   */
  release(id: string, owner: string, why: string): Promise<Job | null>;
  /**
   * Pushed notices where the database can push (PostgreSQL LISTEN/NOTIFY): "events" when outbox rows were written,
   * "jobs" when a job was added or may have become runnable (a job ended, a lane was resumed or widened). Absent
   * where it cannot (libsql): callers poll. Answers the unsubscribe.
   */
  listen?(channel: StoreChannel, fn: () => void): () => void;
  close(): Promise<void>;
}
