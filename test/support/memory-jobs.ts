// A small in-memory JobStore for unit tests of the worker pool: same claim rules as the real store, no database.
import { randomUUID } from "node:crypto";
import { StudioError } from "../../lib/errors.ts";
import { releasedFields } from "../../lib/jobs/row-rules.ts";
import type { Job, JobStore, LaneState, NewJob, ProgressUpdate, WorkerAd } from "../../lib/jobs/types.ts";
import { JobEnds } from "../../lib/jobs/wait.ts";
import { checkAd, maxAge } from "../../lib/jobs/worker-ad.ts";

const ENDED = new Set(["succeeded", "failed", "canceled"]);

export class MemoryJobStore implements JobStore {
  readonly jobs = new Map<string, Job>();
  readonly lanes = new Map<string, { paused: boolean; parallel: number }>();
  readonly events: { id: number; kind: string; data: unknown }[] = [];
  /** Every successful claim, in order, for tests that check nothing ran twice. */
  readonly claims: { id: string; owner: string }[] = [];
  readonly adverts = new Map<string, WorkerAd>();
  private nextPosition = 0;
  private paidCount = 0;
  private readonly clock: () => number;
  private readonly ends = new JobEnds();

  constructor(opts: { now?: () => number } = {}) {
    this.clock = opts.now ?? Date.now;
  }

  private lane(name: string) {
    let lane = this.lanes.get(name);
    if (!lane) {
      lane = { paused: false, parallel: 1 };
      this.lanes.set(name, lane);
    }
    return lane;
  }

  private iso(): string {
    return new Date(this.clock()).toISOString();
  }

  private must(id: string): Job {
    const job = this.jobs.get(id);
    if (!job) throw new StudioError(404, `no job ${id}`);
    return job;
  }

  async add(input: NewJob): Promise<Job> {
    this.lane(input.lane);
    const job: Job = {
      id: randomUUID(),
      kind: input.kind,
      lane: input.lane,
      title: input.title,
      after: input.after ?? null,
      info: input.info,
      payload: input.payload,
      status: "queued",
      progress: 0,
      step: null,
      steps: null,
      created: this.iso(),
      started: null,
      finished: null,
      error: null,
      log: [],
      lease_owner: null,
      lease_expires: null,
      backend_prompt_id: null,
      cancel_requested: false,
      attempts: 0,
      position: this.nextPosition++,
    };
    this.jobs.set(job.id, job);
    return structuredClone(job);
  }

  async get(id: string): Promise<Job | null> {
    const job = this.jobs.get(id);
    return job ? structuredClone(job) : null;
  }

  async list(): Promise<{ jobs: Job[]; lanes: Record<string, LaneState> }> {
    const all = [...this.jobs.values()];
    const lanes: Record<string, LaneState> = {};
    for (const [name, lane] of this.lanes) {
      lanes[name] = {
        ...lane,
        waiting: all
          .filter((j) => j.lane === name && j.status === "queued")
          .sort((a, b) => a.position - b.position)
          .map((j) => j.id),
        running: all.filter((j) => j.lane === name && j.status === "running").map((j) => j.id),
      };
    }
    return { jobs: structuredClone(all), lanes };
  }

  async claim(owner: string, leaseMs: number, lanes?: readonly string[]): Promise<Job | null> {
    const all = [...this.jobs.values()];
    const waiting = all
      .filter((j) => j.status === "queued" && (!lanes || lanes.includes(j.lane)))
      .sort((a, b) => a.position - b.position);
    for (const job of waiting) {
      const lane = this.lane(job.lane);
      if (lane.paused) continue;
      const running = all.filter((j) => j.lane === job.lane && j.status === "running").length;
      if (running >= lane.parallel) continue;
      const after = job.after ? this.jobs.get(job.after) : undefined;
      if (after && !ENDED.has(after.status)) continue;
      job.status = "running";
      job.started = this.iso();
      job.lease_owner = owner;
      job.lease_expires = this.clock() + leaseMs;
      job.attempts++;
      this.claims.push({ id: job.id, owner });
      return structuredClone(job);
    }
    return null;
  }

  async heartbeat(id: string, owner: string, leaseMs: number): Promise<{ held: boolean; cancel: boolean }> {
    const job = this.jobs.get(id);
    if (job?.status !== "running" || job.lease_owner !== owner) return { held: false, cancel: false };
    job.lease_expires = this.clock() + leaseMs;
    return { held: true, cancel: job.cancel_requested };
  }

  async update(id: string, owner: string, update: ProgressUpdate): Promise<void> {
    const job = this.jobs.get(id);
    if (!job || job.lease_owner !== owner || job.status !== "running") return;
    if (update.progress !== undefined) job.progress = update.progress;
    if (update.step !== undefined) job.step = update.step;
    if (update.steps !== undefined) job.steps = update.steps;
    if (update.backend_prompt_id !== undefined) job.backend_prompt_id = update.backend_prompt_id;
    if (update.log !== undefined) job.log = [...job.log, update.log].slice(-20);
  }

  async finish(
    id: string,
    owner: string,
    status: "succeeded" | "failed" | "canceled",
    error?: string | null,
  ): Promise<Job | null> {
    const job = this.jobs.get(id);
    if (!job || job.lease_owner !== owner || job.status !== "running") return null;
    job.status = status;
    job.error = error ?? null;
    job.finished = this.iso();
    if (status === "succeeded") job.progress = 1;
    job.lease_owner = null;
    job.lease_expires = null;
    this.ends.ended(id);
    return structuredClone(job);
  }

  waitFor(id: string, signal: AbortSignal, pollMs?: number): Promise<Job | null> {
    return this.ends.waitFor(id, signal, (j) => this.get(j), pollMs);
  }

  async cancel(id: string): Promise<Job> {
    const job = this.must(id);
    if (ENDED.has(job.status)) throw new StudioError(409, `job ${id} has already ended`);
    if (job.status === "queued") {
      job.status = "canceled";
      job.error = "canceled before it ran";
      job.finished = this.iso();
      this.ends.ended(id);
    } else job.cancel_requested = true;
    return structuredClone(job);
  }

  async move(id: string, index: number): Promise<void> {
    const job = this.must(id);
    if (job.status !== "queued") throw new StudioError(409, `job ${id} is not waiting`);
    const lane = [...this.jobs.values()]
      .filter((j) => j.lane === job.lane && j.status === "queued" && j !== job)
      .sort((a, b) => a.position - b.position);
    lane.splice(Math.max(0, Math.min(index, lane.length)), 0, job);
    lane.forEach((j, i) => {
      j.position = i;
    });
  }

  async retry(id: string): Promise<Job> {
    const job = this.must(id);
    if (!ENDED.has(job.status)) throw new StudioError(409, `job ${id} has not ended`);
    return this.add({
      kind: job.kind,
      lane: job.lane,
      title: job.title,
      info: job.info,
      payload: job.payload,
    });
  }

  async pause(lane: string, paused: boolean): Promise<void> {
    this.lane(lane).paused = paused;
  }

  async setParallel(lane: string, parallel: number): Promise<void> {
    this.lane(lane).parallel = parallel;
  }

  async reclaimExpired(now = this.clock(), gone?: (owner: string) => boolean): Promise<Job[]> {
    const changed: Job[] = [];
    for (const job of this.jobs.values()) {
      if (job.status !== "running") continue;
      const lapsed = job.lease_expires !== null && job.lease_expires <= now;
      const dead = gone !== undefined && job.lease_owner !== null && gone(job.lease_owner);
      if (!lapsed && !dead) continue;
      job.lease_owner = null;
      job.lease_expires = null;
      if (job.attempts >= 3) {
        job.status = "failed";
        job.error = "its worker stopped answering three times";
        job.finished = this.iso();
        this.ends.ended(job.id);
      } else {
        job.status = "queued";
        job.started = null;
      }
      changed.push(structuredClone(job));
    }
    return changed;
  }

  async emit(kind: string, data: unknown): Promise<void> {
    this.events.push({ id: this.events.length + 1, kind, data: structuredClone(data) });
  }

  async eventsSince(id: number, limit = 100): Promise<{ id: number; kind: string; data: unknown }[]> {
    return this.events.filter((e) => e.id > id).slice(0, limit);
  }

  async paid(): Promise<{ count: number }> {
    return { count: this.paidCount };
  }

  async paidAdd(n = 1): Promise<{ count: number }> {
    this.paidCount += n;
    return { count: this.paidCount };
  }

  async paidReset(): Promise<void> {
    this.paidCount = 0;
  }

  async advertise(ad: Omit<WorkerAd, "seen">): Promise<void> {
    const checked = checkAd(ad);
    this.adverts.set(checked.owner, { ...structuredClone(checked), seen: this.clock() });
  }

  async workers(maxAgeMs?: number): Promise<WorkerAd[]> {
    const since = this.clock() - maxAge(maxAgeMs);
    return [...this.adverts.values()]
      .filter((ad) => ad.seen >= since)
      .sort((a, b) => (a.owner < b.owner ? -1 : a.owner > b.owner ? 1 : 0))
      .map((ad) => structuredClone(ad));
  }

  async retire(owner: string): Promise<void> {
    this.adverts.delete(owner);
  }

  async release(id: string, owner: string, why: string): Promise<Job | null> {
    const job = this.jobs.get(id);
    if (!job || job.lease_owner !== owner || job.status !== "running") return null;
    // The real stores' rule: queued again in its place with the attempt not counted, or canceled when asked to be.
    const set = releasedFields(job, why, this.iso());
    Object.assign(job, set);
    if (set.status === "canceled") this.ends.ended(id);
    return structuredClone(job);
  }

  async close(): Promise<void> {}
}
