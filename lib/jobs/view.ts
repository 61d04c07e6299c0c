// A job as the contract shows it (GET /studio/jobs, `studio.job` events) and the GET /studio/jobs answer.

import { readSettings } from "../config/settings.ts";
import type { Services } from "../context.ts";
import { sweepAfterJobs } from "./leftover-sweep.ts";
import type { Job, JobInfo, JobKind, JobStatus, JobStore, LaneState, WorkerAd } from "./types.ts";
import { hasEnded } from "./wait.ts";

export interface JobView {
  id: string;
  kind: JobKind;
  lane: string;
  title: string;
  after: string | null;
  info: JobInfo;
  status: JobStatus;
  progress: number;
  step: string | null;
  steps: number | null;
  created: string;
  started: string | null;
  finished: string | null;
  error: string | null;
  log: string[];
  can_retry: boolean;
  /** The engine's own id of the work (a ComfyUI prompt id), so a page on ComfyUI's socket can match its events. */
  backend_prompt_id: string | null;
}

export interface PaidState {
  count: number;
  /** Settings `paid_limit`; null = no cap. */
  limit: number | null;
}

export interface JobsAnswer {
  jobs: JobView[];
  lanes: Record<string, LaneState>;
  paid: PaidState;
  /** The live workers (seen lately), each with the lanes whose engine it reaches and those it cannot, and why. */
  workers: WorkerAd[];
}

/** Any ended job can be retried (succeeded too: a render retry is a new take with the same settings). */
export function jobView(job: Job): JobView {
  return {
    id: job.id,
    kind: job.kind,
    lane: job.lane,
    title: job.title,
    after: job.after,
    info: job.info,
    status: job.status,
    progress: job.progress,
    step: job.step,
    steps: job.steps,
    created: job.created,
    started: job.started,
    finished: job.finished,
    error: job.error,
    log: job.log,
    can_retry: hasEnded(job),
    backend_prompt_id: job.backend_prompt_id,
  };
}

/** The paid counter against settings `paid_limit` (a missing or non-numeric limit is no cap). */
export async function paidState(
  store: JobStore,
  services: Pick<Services, "home" | "caches">,
): Promise<PaidState> {
  const [{ count }, settings] = await Promise.all([store.paid(), readSettings(services)]);
  const limit = settings.paid_limit;
  return { count, limit: typeof limit === "number" && Number.isFinite(limit) && limit >= 0 ? limit : null };
}

/** The GET /studio/jobs body; also what every POST /studio/jobs/{action} answers. */
export async function jobsAnswer(
  store: JobStore,
  services: Pick<Services, "home" | "env" | "caches">,
): Promise<JobsAnswer> {
  // A job whose worker died is never listed as running past its lease, even between the pool's reclaim rounds.
  const changed = await store.reclaimExpired();
  // What those jobs left is removed in the background (a job that failed for good keeps no work folder).
  if (changed.length) void sweepAfterJobs(services, store, changed).catch(() => {});
  const [list, paid, workers] = await Promise.all([
    store.list(),
    paidState(store, services),
    store.workers(),
  ]);
  return { jobs: list.jobs.map(jobView), lanes: list.lanes, paid, workers };
}
