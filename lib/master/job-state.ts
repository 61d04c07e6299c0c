// The master job as a page sees it (GET /studio/master/job and every `studio.master` event): the running `master`
// job of the job store, whose worker keeps its stage in `<ep>/master/.job.json`; else a lock held by another
// process (`elsewhere`); else the last master job that ended. The store and the folder are what every process
// shares, so any API process answers the same.
import os from "node:os";
import path from "node:path";
import type { Pass } from "../compile/types.ts";
import type { Job, JobStore } from "../jobs/types.ts";
import { episodeFence, readShowText, writeShowJson } from "../paths/guarded.ts";
import { isObject } from "../store/json-guards.ts";
import { lockLive, type MasterLock, masterFolder, readLock } from "./lock.ts";

export interface TitlesSummary {
  intro: string | null;
  outro: string | null;
  picture: "copied" | "re-encoded";
  why: string;
}

export interface MasterJob {
  ep: string;
  pass: Pass | null;
  state: "running" | "done" | "failed";
  elsewhere: boolean;
  by: string;
  started: string | null;
  finished: string | null;
  step: "assemble" | "titles" | null;
  stage: string | null;
  done: number | null;
  total: number | null;
  text: string;
  output: string | null;
  mov: string | null;
  report: string | null;
  titles: TitlesSummary | null;
  error: string;
}

/** Who assembles, as the lock and the busy message name it. */
export const MASTER_BY = "the editor";

const STATE_FILE = ".job.json";
export const jobStatePath = (ep: string) => path.join(masterFolder(ep), STATE_FILE);

/** A job at its start, before its worker said anything. */
export function startingJob(ep: string, pass: Pass | null, started: string | null): MasterJob {
  return {
    ep,
    pass,
    state: "running",
    elsewhere: false,
    by: MASTER_BY,
    started,
    finished: null,
    step: "assemble",
    stage: "start",
    done: null,
    total: null,
    text: "",
    output: null,
    mov: null,
    report: null,
    titles: null,
    error: "",
  };
}

/** What another process's lock tells of its run. */
export function elsewhereJob(ep: string, lock: MasterLock): MasterJob {
  return {
    ...startingJob(ep, null, lock.started || null),
    elsewhere: true,
    by: lock.by,
    step: null,
    stage: null,
  };
}

/** Written by the worker at every step, so any process can tell where its job is. */
export async function writeJobState(ep: string, jobId: string, job: MasterJob): Promise<void> {
  await writeShowJson(episodeFence(ep), jobStatePath(ep), { id: jobId, job });
}

async function readJobState(ep: string, jobId: string): Promise<MasterJob | null> {
  try {
    const v: unknown = JSON.parse(await readShowText(episodeFence(ep), jobStatePath(ep)));
    if (isObject(v) && v.id === jobId && isObject(v.job)) return v.job as unknown as MasterJob;
  } catch {
    // None yet, or being replaced: the job row says enough.
  }
  return null;
}

const isMasterOf = (ep: string) => (j: Job) => j.kind === "master" && j.info.ep === ep;

/** The job object of one master job: what its worker last wrote, else what its row says. */
export async function masterJobOf(ep: string, job: Job): Promise<MasterJob> {
  const state = await readJobState(ep, job.id);
  if (state) return state;
  const pass = job.info.pass ?? null;
  const base = startingJob(ep, pass, job.started ?? job.created);
  if (job.status === "queued" || job.status === "running") return base;
  return {
    ...base,
    state: job.status === "succeeded" ? "done" : "failed",
    stage: job.status === "succeeded" ? "done" : base.stage,
    finished: job.finished,
    error: job.status === "succeeded" ? "" : (job.error ?? `the master job ended ${job.status}`),
  };
}

/** GET /studio/master/job's answer for `ep` (the real episode path). */
export async function currentMasterJob(store: JobStore, ep: string, now: Date): Promise<MasterJob | null> {
  const jobs = (await store.list()).jobs.filter(isMasterOf(ep));
  const live = jobs.find((j) => j.status === "running") ?? jobs.find((j) => j.status === "queued");
  if (live) return masterJobOf(ep, live);
  const lock = await readLock(ep);
  if (lock && lockLive(lock, now) && !(lock.host === os.hostname() && lock.pid === process.pid))
    return elsewhereJob(ep, lock);
  // The list is newest first.
  const last = jobs.find((j) => j.status !== "queued" && j.status !== "running");
  return last ? masterJobOf(ep, last) : null;
}
