// POST /studio/cancel (States table): a queued take's waiting job leaves the queue and the take fails "canceled
// before it ran"; a running job is asked to stop and the route waits until it ended, its handler having closed
// the take "canceled". 409 for a take that is not queued, 404 for no such take.
import { stat } from "node:fs/promises";
import path from "node:path";
import type { Services } from "../context.ts";
import { conflict, notFound, StudioError } from "../errors.ts";
import type { Job, JobStore } from "../jobs/types.ts";
import { hasEnded } from "../jobs/wait.ts";
import {
  closeTake,
  readSidecarNow,
  type Sidecar,
  stemOf,
  type TakeRef,
  takeDir,
  takeEvent,
} from "./sidecar.ts";
import { deadReason, jobOfTake } from "./sweep.ts";
import { localIso } from "./time.ts";

export const CANCELED_WAITING = "canceled before it ran";
export const CANCELED_RUNNING = "canceled";

export interface CancelAnswer {
  shot: string;
  pass: string;
  take: number;
  status: string;
  save_notes: string;
  finished: string | null;
}

export interface CancelOptions {
  /** How long to wait for a running job to stop. */
  waitMs?: number;
  /** How often to look for an end written by a worker in another process. */
  pollMs?: number;
}

const two = (n: number) => String(n).padStart(2, "0");

function answer(t: TakeRef, s: Sidecar): CancelAnswer {
  return {
    shot: t.shot,
    pass: t.pass,
    take: t.take,
    status: typeof s.status === "string" ? s.status : "failed",
    save_notes: typeof s.save_notes === "string" ? s.save_notes : "",
    finished: typeof s.finished === "string" ? s.finished : null,
  };
}

async function jobOf(store: JobStore, t: TakeRef, s: Sidecar): Promise<Job | null> {
  if (typeof s.job === "string") return store.get(s.job);
  const { jobs } = await store.list();
  return jobs.find((j) => (j.status === "queued" || j.status === "running") && jobOfTake(j, t)) ?? null;
}

export async function cancelTake(
  services: Pick<Services, "events" | "now" | "jobSignals" | "caches" | "locks">,
  store: JobStore,
  t: TakeRef,
  opts: CancelOptions = {},
): Promise<CancelAnswer> {
  const label = `${t.shot} t${two(t.take)} (${t.pass})`;
  const s = await readSidecarNow(t);
  if (!s) {
    const mp4 = await stat(path.join(takeDir(t), `${stemOf(t)}.mp4`)).catch(() => null);
    if (mp4) throw conflict(`${label} is ok: only a queued take can be canceled`);
    throw notFound(`no take ${label}`);
  }
  if (s.status !== "queued") {
    throw conflict(`${label} is ${String(s.status)}: only a queued take can be canceled`);
  }

  let job = await jobOf(store, t, s);
  let note = CANCELED_WAITING;
  if (job && !hasEnded(job)) {
    try {
      job = await store.cancel(job.id);
    } catch (err) {
      // It ended between the read and the cancel: what it left is judged below.
      if (!(err instanceof StudioError && err.status === 409)) throw err;
      job = await store.get(job.id);
    }
  }
  if (job?.status === "running") {
    note = CANCELED_RUNNING;
    services.jobSignals.cancelRequested(job.id);
    const id = job.id;
    // Woken at once when this process's worker ends it; a worker elsewhere is seen at the next look.
    const ended = await store
      .waitFor(id, AbortSignal.timeout(opts.waitMs ?? 60_000), opts.pollMs ?? 200)
      .catch(() => null);
    job = ended ?? (await store.get(id));
    if (job?.status === "running")
      note = `${CANCELED_RUNNING} (the job did not stop within ${Math.round((opts.waitMs ?? 60_000) / 1000)} s)`;
  } else if (job && job.status !== "canceled") {
    // Ended on its own without closing the take: the sweep's reason.
    note = deadReason(job) ?? CANCELED_RUNNING;
  } else if (job?.status === "canceled" && job.started) {
    note = CANCELED_RUNNING;
  }

  const closed = await closeTake(services, t, {
    status: "failed",
    finished: localIso(services.now()),
    save_notes: note,
  });
  if (closed) {
    services.events.emit("studio.take", takeEvent(t, "failed", closed));
    return answer(t, closed);
  }
  // Closed by its own job (the handler's "canceled", or a finish that won the race).
  const now = await readSidecarNow(t);
  return answer(t, now ?? { status: "failed", save_notes: note, finished: null });
}
