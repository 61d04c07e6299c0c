// What a job handler (workers/jobs/<kind>.ts) receives from the pool, and the shape of a handler.
import type { Services } from "../lib/context.ts";
import type { Engine } from "../lib/engines/types.ts";
import type { Job, JobStore, ProgressUpdate } from "../lib/jobs/types.ts";

export interface JobContext {
  services: Services;
  store: JobStore;
  /** This worker's lease owner id. */
  owner: string;
  /** Aborted when the job is canceled (cancel route) or the worker stops. */
  signal: AbortSignal;
  /** The engine of a backend (`builtin`, `local`, ...); throws a clear error for one not configured. */
  engine(backend: string): Engine;
  /** Progress, step, backend id, a log line: written to the job (throttled by the pool). */
  progress(update: ProgressUpdate): void;
  /** Emit a page event (`studio.take`, ...): straight to the sockets in the API's process, else via the outbox. */
  emit(kind: string, data: unknown): void;
}

/**
 * Runs one job to its end. Resolving means `succeeded`; throwing means `failed` with the error's message,
 * unless `ctx.signal` was aborted by a cancel, which ends it `canceled`. A handler makes its own files right
 * (a render closes its take) before it returns or throws.
 */
export type JobHandler = (job: Job, ctx: JobContext) => Promise<void>;
