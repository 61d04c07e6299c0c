// The worker pool: claims jobs while it has room, runs each with its kind's handler, holds the lease with a
// heartbeat, writes progress (throttled) and the end, and emits `studio.job` on start, progress and end.
import type { Services } from "../lib/context.ts";
import { type JobContext, type JobKinds, parsePayload } from "../lib/jobs/kinds.ts";
import { sweepAfterJobs } from "../lib/jobs/leftover-sweep.ts";
import { newOwner, ownerGone } from "../lib/jobs/owner.ts";
import type { Job, JobStore, ProgressUpdate } from "../lib/jobs/types.ts";
import { jobView } from "../lib/jobs/view.ts";
import { errorMessage } from "../lib/store/json-guards.ts";
import {
  ADVERT_MAX_AGE_MS,
  ADVERT_MS,
  engineUnreachable,
  probeConfigured,
  Reach,
  reachMsFromEnv,
} from "./reach.ts";

export interface WorkerPoolOptions {
  /** Its engines, job signals and log are the pool's. */
  services: Services;
  store: JobStore;
  /** The kinds this pool runs (the services' table by default). */
  kinds?: JobKinds;
  /** Lease owner id; unique per pool by default (host, pid, process start, random). */
  owner?: string;
  /**
   * Whether a lease owner is a process that has ended, so its running jobs are given back at once rather than
   * when their lease lapses (by default: a process of this host whose pid is gone or was reused).
   */
  ownerGone?: (owner: string) => boolean;
  /** Called with jobs that ended or were given back, to remove what they left (their work folders, temps). */
  afterJobs?: (jobs: Job[]) => Promise<unknown>;
  leaseMs?: number;
  /** How often an idle pool looks for work (wake() looks at once). */
  pollMs?: number;
  /** Jobs this pool runs at once, over every lane (the store caps each lane by its own parallelism). */
  concurrency?: number;
  /** Claim only from these lanes (all when absent). */
  lanes?: readonly string[];
  /**
   * How often the pool probes its engines and tells the other workers which lanes it reaches (STUDIO_REACH_MS, 5 s
   * by default); a job that finds its engine unreachable probes at once.
   */
  reachMs?: number;
  /** Lane → why its engine is down now (null = it answered); the configured backends' probes by default. */
  probe?: () => Promise<Record<string, string | null>>;
  /** Smallest gap between two progress writes of one job (250 ms = 4 writes/s). */
  progressMs?: number;
  /** How long `stop()` waits for running jobs by default. */
  stopWaitMs?: number;
  emit(kind: string, data: unknown): void;
  /** The job as events show it; the contract's job object by default. */
  view?: (job: Job) => unknown;
}

export interface StopOptions {
  /** true: stop claiming and wait for running jobs; false: also abort them (their rows stay for another worker). */
  graceful: boolean;
  timeoutMs?: number;
}

type AbortWhy = "cancel" | "stop" | "lease";

interface RunningJob {
  job: Job;
  ctrl: AbortController;
  why: AbortWhy | null;
  /** A heartbeat saw cancel_requested (kept apart from `why`, which the first abort sets). */
  cancelSeen: boolean;
  /** Why the job goes back to the queue for another worker (its engine is unreachable here), once decided. */
  handedOff: string | null;
  /** The reach already heard that this job found its engine unreachable. */
  unreachableNoted: boolean;
  ending: boolean;
  pending: Omit<ProgressUpdate, "log">;
  pendingLog: string[];
  lastWrite: number;
  timer: NodeJS.Timeout | null;
  writes: Promise<void>;
  done: Promise<void>;
}

const abortError = (message: string) => new DOMException(message, "AbortError");

export function defaultOwner(): string {
  return newOwner();
}

/** Pool settings a host reads from its environment: STUDIO_LEASE_MS, STUDIO_WORKER_CONCURRENCY. */
export function poolSettingsFromEnv(env: Record<string, string | undefined>): {
  leaseMs: number;
  concurrency: number;
} {
  const whole = (name: string, fallback: number, min: number) => {
    const text = env[name]?.trim();
    if (!text) return fallback;
    const n = Number(text);
    if (!Number.isInteger(n) || n < min) throw new Error(`${name}: ${text} is not a whole number >= ${min}`);
    return n;
  };
  return {
    leaseMs: whole("STUDIO_LEASE_MS", 15_000, 30),
    concurrency: whole("STUDIO_WORKER_CONCURRENCY", 4, 1),
  };
}

export class WorkerPool {
  readonly owner: string;
  private readonly services: Services;
  private readonly store: JobStore;
  private readonly kinds: JobKinds | undefined;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly concurrency: number;
  private readonly lanes: readonly string[] | undefined;
  private readonly progressMs: number;
  private readonly stopWaitMs: number;
  private readonly emitFn: (kind: string, data: unknown) => void;
  private readonly view: (job: Job) => unknown;
  private readonly ownerGone: (owner: string) => boolean;
  private readonly afterJobsFn: (jobs: Job[]) => Promise<unknown>;
  private readonly reach: Reach;
  private readonly reachMs: number;

  private state: "idle" | "running" | "stopping" | "stopped" = "idle";
  private readonly running = new Map<string, RunningJob>();
  private pumping: Promise<void> | null = null;
  private pumpAgain = false;
  private pollTimer: NodeJS.Timeout | null = null;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private reclaimTimer: NodeJS.Timeout | null = null;
  private reachTimer: NodeJS.Timeout | null = null;
  private advertTimer: NodeJS.Timeout | null = null;
  private beating = false;
  private reclaiming = false;
  private readonly unsubscribe: (() => void)[] = [];

  constructor(opts: WorkerPoolOptions) {
    this.services = opts.services;
    this.store = opts.store;
    this.kinds = opts.kinds;
    this.owner = opts.owner ?? defaultOwner();
    this.leaseMs = opts.leaseMs ?? 15_000;
    this.pollMs = opts.pollMs ?? 250;
    this.concurrency = Math.max(1, opts.concurrency ?? 4);
    this.lanes = opts.lanes;
    this.progressMs = opts.progressMs ?? 250;
    this.stopWaitMs = opts.stopWaitMs ?? 5_000;
    this.emitFn = opts.emit;
    this.view = opts.view ?? jobView;
    this.ownerGone = opts.ownerGone ?? ((owner) => ownerGone(owner));
    this.afterJobsFn = opts.afterJobs ?? ((jobs) => sweepAfterJobs(opts.services, opts.store, jobs));
    this.reachMs = opts.reachMs ?? reachMsFromEnv(opts.services.env);
    this.reach = new Reach({
      store: opts.store,
      owner: this.owner,
      kinds: async () => Object.keys(this.kinds ?? (await this.services.jobKinds())).sort(),
      probe: opts.probe ?? (() => probeConfigured(opts.services)),
      maxAgeMs: ADVERT_MAX_AGE_MS,
      log: opts.services.log,
    });
  }

  /** Jobs running in this pool now. */
  get size(): number {
    return this.running.size;
  }

  start(): void {
    if (this.state !== "idle") return;
    this.state = "running";
    const signals = this.services.jobSignals;
    this.unsubscribe.push(
      signals.onJobAdded(() => this.wake()),
      signals.onCancelRequested((id) => {
        if (this.running.has(id)) void this.beat([id]);
      }),
    );
    this.heartbeatTimer = setInterval(() => void this.beat(), Math.max(10, Math.floor(this.leaseMs / 3)));
    this.reclaimTimer = setInterval(() => void this.reclaim(), Math.max(10, Math.floor(this.leaseMs / 2)));
    this.reachTimer = setInterval(() => void this.reach.refresh().then(() => this.wake()), this.reachMs);
    this.advertTimer = setInterval(() => void this.reach.beat().then(() => this.wake()), ADVERT_MS);
    // A database that pushes says when a job may be runnable; without one the poll finds it.
    const off = this.store.listen?.("jobs", () => this.wake());
    if (off) this.unsubscribe.push(off);
    // A restarted host gives back what a dead one left, and knows which engines it reaches, before it looks for work.
    void Promise.all([this.reclaim(), this.reach.refresh()]).then(() => this.wake());
  }

  /** Look for work at once (e.g. right after the API inserted a job). */
  wake(): void {
    if (this.state !== "running") return;
    void this.pump();
  }

  async stop(opts: StopOptions = { graceful: true }): Promise<void> {
    if (this.state === "stopped" || this.state === "stopping") return;
    const wasRunning = this.state === "running";
    this.state = "stopping";
    for (const off of this.unsubscribe.splice(0)) off();
    if (this.pollTimer) clearTimeout(this.pollTimer);
    this.pollTimer = null;
    if (wasRunning) {
      // A claim in flight may still hand over a job; it runs like the others.
      await this.pumping;
      if (!opts.graceful) for (const r of this.running.values()) this.abort(r, "stop");
      const all = Promise.allSettled([...this.running.values()].map((r) => r.done));
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, opts.timeoutMs ?? this.stopWaitMs);
      });
      await Promise.race([all, waited]);
      clearTimeout(timer);
    }
    // Jobs still running keep their rows; without heartbeats their leases lapse and another worker reclaims them.
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    if (this.reclaimTimer) clearInterval(this.reclaimTimer);
    if (this.reachTimer) clearInterval(this.reachTimer);
    if (this.advertTimer) clearInterval(this.advertTimer);
    this.heartbeatTimer = this.reclaimTimer = this.reachTimer = this.advertTimer = null;
    for (const r of this.running.values()) if (r.timer) clearTimeout(r.timer);
    // The other workers stop counting on this one at once rather than when its advert grows old.
    if (wasRunning) await this.reach.retire();
    this.state = "stopped";
  }

  private pump(): Promise<void> {
    if (this.pumping) {
      this.pumpAgain = true;
      return this.pumping;
    }
    this.pumping = this.claimLoop().finally(() => {
      this.pumping = null;
      this.schedulePoll();
    });
    return this.pumping;
  }

  private async claimLoop(): Promise<void> {
    do {
      this.pumpAgain = false;
      while (this.state === "running" && this.running.size < this.concurrency) {
        const lanes = this.reach.claimable(this.holding(), this.lanes);
        if (lanes?.length === 0) break;
        let job: Job | null;
        try {
          job = await this.store.claim(this.owner, this.leaseMs, lanes);
        } catch (err) {
          this.services.log.warn(`worker: claim failed: ${errorMessage(err)}`);
          return;
        }
        if (!job) break;
        this.run(job);
      }
    } while (this.pumpAgain && this.state === "running");
  }

  /** Jobs this pool runs now, per lane. */
  private holding(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const r of this.running.values()) out[r.job.lane] = (out[r.job.lane] ?? 0) + 1;
    return out;
  }

  private schedulePoll(): void {
    if (this.state !== "running") return;
    if (this.pollTimer) clearTimeout(this.pollTimer);
    this.pollTimer = setTimeout(() => {
      this.pollTimer = null;
      void this.pump();
    }, this.pollMs);
  }

  private run(job: Job): void {
    const r: RunningJob = {
      job,
      ctrl: new AbortController(),
      why: null,
      cancelSeen: false,
      handedOff: null,
      unreachableNoted: false,
      ending: false,
      pending: {},
      pendingLog: [],
      lastWrite: 0,
      timer: null,
      writes: Promise.resolve(),
      done: Promise.resolve(),
    };
    this.running.set(job.id, r);
    r.done = this.execute(r)
      .catch((err) =>
        this.services.log.error(`worker: job ${job.id} could not be closed: ${errorMessage(err)}`),
      )
      .finally(() => {
        this.running.delete(job.id);
        if (r.timer) clearTimeout(r.timer);
        this.wake();
      });
  }

  private async execute(r: RunningJob): Promise<void> {
    const { job } = r;
    this.emitJob(job);
    const log = this.services.log;
    log.info(`job ${job.id} started: ${job.kind} "${job.title}" on ${job.lane}`);
    const spec = (this.kinds ?? (await this.services.jobKinds()))[job.kind];
    let status: "succeeded" | "failed" | "canceled" | null;
    let error: string | null = null;
    let unreachable: string | null = null;
    if (!spec) {
      status = "failed";
      error = `no handler for ${job.kind} jobs on this worker`;
    } else {
      try {
        // Parsed here, at the edge: a payload that does not parse fails the job naming the fields at fault.
        await spec.run(parsePayload(spec, job), this.context(r));
        status = "succeeded";
      } catch (err) {
        if (r.cancelSeen || r.why === "cancel") {
          status = "canceled";
          error = "canceled";
        } else if (r.why === "stop" || r.why === "lease") {
          // Not this job's failure: the row stays running until its lease lapses and a worker takes it again.
          status = null;
        } else if (r.handedOff !== null) {
          status = null;
        } else {
          status = "failed";
          error = errorMessage(err);
          unreachable = engineUnreachable(err);
        }
      }
    }
    r.ending = true;
    // The end sets progress 1 on success, so only what the end does not say is still worth a write.
    if (status === "succeeded") {
      delete r.pending.progress;
      delete r.pending.step;
      delete r.pending.steps;
    }
    this.flush(r);
    await r.writes;
    if (r.handedOff !== null && r.why === null) {
      const why = `its engine is unreachable from this worker (${r.handedOff})`;
      const back = await this.store.release(job.id, this.owner, why);
      if (back) {
        log.info(`job ${job.id} left for another worker: ${why}`);
        this.emitJob(back);
        await this.afterJobs([back]);
      }
      return;
    }
    if (status === null || r.why === "lease") {
      const why = r.why === "lease" ? "this worker lost its lease" : "this worker is stopping";
      log.info(`job ${job.id} left for another worker: ${why}`);
      return;
    }
    // A kind that does not hand its jobs off still fails; the lane is then down here until its engine answers.
    if (unreachable !== null && !r.unreachableNoted) await this.reach.unreachable(job.lane, unreachable);
    const ended = await this.store.finish(job.id, this.owner, status, error);
    if (ended) {
      log.info(status === "failed" ? `job ${job.id} failed: ${error}` : `job ${job.id} ${status}`);
      this.emitJob(ended);
      await this.afterJobs([ended]);
    }
  }

  /** Leftovers of jobs that ended or went back to the queue; a failure is logged, never the job's. */
  private async afterJobs(jobs: Job[]): Promise<void> {
    if (jobs.length === 0) return;
    try {
      await this.afterJobsFn(jobs);
    } catch (err) {
      this.services.log.warn(
        `worker: leftovers of ${jobs.map((j) => j.id).join(", ")} not removed: ${errorMessage(err)}`,
      );
    }
  }

  private context(r: RunningJob): JobContext {
    return {
      services: this.services,
      store: this.store,
      owner: this.owner,
      signal: r.ctrl.signal,
      engine: (backend) => this.services.engines.get(backend),
      progress: (update) => this.progress(r, update),
      emit: (kind, data) => this.emit(kind, data),
      handOff: async (err) => {
        if (r.handedOff !== null) return true;
        if (r.ctrl.signal.aborted) return false;
        const why = engineUnreachable(err);
        if (why === null || r.job.lane === "builtin") return false;
        r.unreachableNoted = true;
        if (!(await this.reach.unreachable(r.job.lane, why))) return false;
        r.handedOff = why;
        return true;
      },
    };
  }

  private progress(r: RunningJob, update: ProgressUpdate): void {
    if (r.ending) return;
    const { log, ...fields } = update;
    const given = Object.entries(fields).filter(([, value]) => value !== undefined);
    r.pending = { ...r.pending, ...Object.fromEntries(given) };
    if (log !== undefined) r.pendingLog = [...r.pendingLog, log].slice(-20);
    if (r.timer) return;
    const wait = r.lastWrite + this.progressMs - Date.now();
    if (wait <= 0) this.flush(r);
    else r.timer = setTimeout(() => this.flush(r), wait);
  }

  /** Writes what progress() gathered, in order after earlier writes; the local copy follows for the event. */
  private flush(r: RunningJob): void {
    if (r.timer) clearTimeout(r.timer);
    r.timer = null;
    const fields = r.pending;
    const logs = r.pendingLog;
    if (Object.keys(fields).length === 0 && logs.length === 0) return;
    r.pending = {};
    r.pendingLog = [];
    r.lastWrite = Date.now();
    const updates: ProgressUpdate[] = logs.length
      ? [{ ...fields, log: logs[0] }, ...logs.slice(1).map((log) => ({ log }))]
      : [fields];
    r.writes = r.writes.then(async () => {
      try {
        for (const u of updates) await this.store.update(r.job.id, this.owner, u);
      } catch (err) {
        this.services.log.warn(`worker: progress of job ${r.job.id} not written: ${errorMessage(err)}`);
        return;
      }
      r.job = { ...r.job, ...fields, log: [...r.job.log, ...logs].slice(-20) };
      this.emitJob(r.job);
    });
  }

  /** Extend the leases of running jobs; a cancel asked for or a lease lost aborts the job's handler. */
  private async beat(ids?: string[]): Promise<void> {
    if (!ids && this.beating) return;
    if (!ids) this.beating = true;
    try {
      const targets = (ids ?? [...this.running.keys()])
        .map((id) => this.running.get(id))
        .filter((r): r is RunningJob => !!r && !r.ending);
      await Promise.all(
        targets.map(async (r) => {
          try {
            const { held, cancel } = await this.store.heartbeat(r.job.id, this.owner, this.leaseMs);
            if (!held) {
              this.services.log.warn(`worker: lost the lease of job ${r.job.id}; another worker has it`);
              this.abort(r, "lease");
            } else if (cancel) {
              r.cancelSeen = true;
              this.abort(r, "cancel");
            }
          } catch (err) {
            this.services.log.warn(`worker: heartbeat of job ${r.job.id} failed: ${errorMessage(err)}`);
          }
        }),
      );
    } finally {
      if (!ids) this.beating = false;
    }
  }

  private abort(r: RunningJob, why: AbortWhy): void {
    if (why === "lease") r.why = "lease";
    if (r.ctrl.signal.aborted) return;
    r.why = why;
    const text =
      why === "cancel"
        ? "the job was canceled"
        : why === "stop"
          ? "the worker is stopping"
          : "the worker lost the job's lease";
    r.ctrl.abort(abortError(text));
  }

  private async reclaim(): Promise<void> {
    if (this.reclaiming || this.state !== "running") return;
    this.reclaiming = true;
    try {
      // A lapsed lease, or at once an owner of this host that has ended (a restart after a crash).
      const changed = await this.store.reclaimExpired(undefined, this.ownerGone);
      for (const job of changed) {
        this.services.log.info(
          job.status === "queued"
            ? `job ${job.id} queued again: its worker is gone`
            : `job ${job.id} ${job.status}: ${job.error ?? "its worker is gone"}`,
        );
        this.emitJob(job);
      }
      if (changed.length) this.wake();
      void this.afterJobs(changed);
    } catch (err) {
      this.services.log.warn(`worker: reclaiming lapsed leases failed: ${errorMessage(err)}`);
    } finally {
      this.reclaiming = false;
    }
  }

  private emitJob(job: Job): void {
    this.emit("studio.job", this.view(job));
  }

  private emit(kind: string, data: unknown): void {
    try {
      this.emitFn(kind, data);
    } catch (err) {
      this.services.log.warn(`worker: event ${kind} not sent: ${errorMessage(err)}`);
    }
  }
}
