// The GET /studio/episode sweep: a take queued on the service's own queue whose job is gone (server restarted,
// job removed) or ended without closing it is closed `failed` before the answer (api extras 4.7).
import type { Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { type PassReads, passReads } from "../episode/pass-reads.ts";
import { type TakeRecord, takeStatus } from "../episode/takes.ts";
import type { Job, JobStore } from "../jobs/types.ts";
import { closeTake, noteText, type TakeRef, takeEvent } from "./sidecar.ts";
import { localIso } from "./time.ts";

export const JOB_GONE = "its job is gone (the server restarted or the job was removed)";
/** A take reserved moments ago may not carry its job id yet, so it gets 120 s before a sweep may close it. */
export const RESERVE_GRACE_MS = 120_000;

const ACTIVE = new Set(["queued", "running"]);

/** Whether a job is the one rendering this take. */
export const jobOfTake = (job: Job, t: TakeRef) =>
  job.kind === "render" &&
  job.info.ep === t.ep &&
  job.info.pass === t.pass &&
  job.info.shot === t.shot &&
  job.info.take === t.take;

/** Why a take whose job is `job` (null: gone) must be closed, or null while the job is alive. */
export function deadReason(job: Job | null): string | null {
  if (!job) return JOB_GONE;
  if (ACTIVE.has(job.status)) return null;
  if (job.status === "canceled") return job.started ? "canceled" : "canceled before it ran";
  if (job.status === "failed") return job.error?.trim() || JOB_GONE;
  return "its job ended without closing the take";
}

interface Candidate {
  t: TakeRef;
  record: TakeRecord;
}

/**
 * Close the pass's dead queued takes; answers how many changed. Cheap when nothing is queued: the job store is
 * opened only when some shot has a queued take of the service's queue. `reads` shares the build and the take
 * lists with whoever answers next in the same request.
 */
export async function sweepQueuedTakes(
  services: Pick<Services, "home" | "env" | "now" | "events" | "jobs" | "caches" | "locks">,
  ep: string,
  pass: Pass,
  opts: { store?: JobStore; reads?: PassReads } = {},
): Promise<number> {
  const reads = opts.reads ?? passReads(services, ep, pass);
  const build = await reads.build();
  if (!build) return 0;
  const lists = await Promise.all(build.order.map((shot) => reads.takes(pass, shot)));
  const candidates: Candidate[] = [];
  lists.forEach((takes, i) => {
    for (const record of takes) {
      if (takeStatus(record) !== "queued" || record.sidecar?.queue !== "studio") continue;
      candidates.push({ t: { ep, pass, shot: build.order[i], take: record.take }, record });
    }
  });
  if (candidates.length === 0) return 0;
  const store = opts.store ?? (await services.jobs());
  const now = services.now();
  let active: Job[] | null = null;
  const activeJobs = async () => {
    active ??= (await store.list()).jobs.filter((j) => ACTIVE.has(j.status));
    return active;
  };
  let changed = 0;
  for (const { t, record } of candidates) {
    const id = typeof record.sidecar?.job === "string" ? record.sidecar.job : null;
    let job = id ? await store.get(id) : null;
    if (!id) {
      // No id recorded (a retry's take, or one being queued right now): any live job naming the take keeps it.
      job = (await activeJobs()).find((j) => jobOfTake(j, t)) ?? null;
      const queued = Date.parse(String(record.sidecar?.queued ?? ""));
      if (!job && (!Number.isFinite(queued) || now.getTime() - queued < RESERVE_GRACE_MS)) continue;
    }
    const reason = deadReason(job);
    if (reason === null) continue;
    const note = noteText(reason);
    // A cancel is the person's own doing; any other end (a failed or vanished job) is the take's error.
    const closed = await closeTake(services, t, {
      status: "failed",
      finished: localIso(now),
      save_notes: note,
      ...(job?.status === "canceled" ? {} : { error: note }),
    });
    if (!closed) continue;
    changed++;
    services.events.emit("studio.take", takeEvent(t, "failed", closed));
  }
  return changed;
}
