// Job kinds: what a job of each kind carries (its payload's schema), how a worker runs it, and how a retry of it
// is made. The table itself lives with the workers; routes reach it through the services.
import type { z } from "zod";
import type { Services } from "../context.ts";
import type { Engine } from "../engines/types.ts";
import { conflict } from "../errors.ts";
import { errorMessage } from "../store/json-guards.ts";
import type { Job, JobStore, NewJob, ProgressUpdate } from "./types.ts";
import { hasEnded } from "./wait.ts";

/** What a running job receives from the pool. */
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
  /**
   * Whether a failure goes to another worker rather than failing the job: true when `err` says the engine could not
   * be reached and another live worker reaches the job's lane. The handler then leaves its files as a fresh run
   * expects them (a take stays queued) and rethrows; the job goes back to the queue.
   */
  handOff(err: unknown): Promise<boolean>;
}

/**
 * Runs one job to its end. Resolving means `succeeded`; throwing means `failed` with the error's message,
 * unless `ctx.signal` was aborted by a cancel, which ends it `canceled`. A handler makes its own files right
 * (a render closes its take) before it returns or throws.
 */
export type JobHandler<P = unknown> = (job: Job<P>, ctx: JobContext) => Promise<void>;

export interface JobKindSpec<P = unknown> {
  /** The payload as the worker expects it; a job whose payload does not parse fails before it runs. */
  payload: z.ZodType<P>;
  // Method syntax on purpose: a table holds kinds of different payloads side by side.
  run(job: Job<P>, ctx: JobContext): Promise<void>;
  /** The new job for a retry of an ended one (may write files: a render reserves a new take); a plain copy when absent. */
  retry?(job: Job<P>, services: Services): Promise<NewJob<P>>;
  /** Once the retry's job is in the store: jobs that must wait on it (a render re-queues the rest of its chain). */
  afterRetry?(added: Job<P>, old: Job<P>, services: Services, store: JobStore): Promise<void>;
}

/** Kind → spec. Keys are strings so extension kinds (STUDIO_WORKER_EXTRA_HANDLERS) fit the same table. */
export type JobKinds = Readonly<Partial<Record<string, JobKindSpec>>>;

export function defineJobKind<P>(spec: JobKindSpec<P>): JobKindSpec<P> {
  return spec;
}

/** The job with its payload parsed by the kind's schema; an error saying which fields are wrong otherwise. */
export function parsePayload<P>(spec: JobKindSpec<P>, job: Job): Job<P> {
  const parsed = spec.payload.safeParse(job.payload);
  if (parsed.success) return { ...job, payload: parsed.data };
  const problems = parsed.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join(".") : "payload"}: ${i.message}`)
    .join("; ");
  throw new Error(`the ${job.kind} job's payload is not one this worker can run (${problems})`);
}

/** A new job for an ended one: through the kind's retry when it has one, else a plain copy (store.retry). */
export async function retryJob(services: Services, store: JobStore, job: Job): Promise<Job> {
  const spec = (await services.jobKinds())[job.kind];
  if (!spec?.retry) return store.retry(job.id);
  // Checked before the retry runs, since it may write files (reserve a take) for nothing.
  if (!hasEnded(job)) throw conflict(`job ${job.id} is ${job.status}: only an ended job can be retried`);
  let typed: Job;
  try {
    typed = parsePayload(spec, job);
  } catch (err) {
    throw conflict(`job ${job.id} cannot be retried: ${errorMessage(err)}`);
  }
  const next = await spec.retry(typed, services);
  const added = await store.add({ ...next, after: next.after ?? null });
  await spec.afterRetry?.({ ...added, payload: next.payload }, typed, services, store);
  return added;
}
