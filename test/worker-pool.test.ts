// WorkerPool against an in-memory store: runs, lane and pool limits, cancel, failures, leases, progress, stop.
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { silentLogger } from "../lib/context.ts";
import { defineJobKind, type JobHandler } from "../lib/jobs/kinds.ts";
import type { Job, JobKind } from "../lib/jobs/types.ts";
import { plainKind } from "../workers/jobs/index.ts";
import { WorkerPool } from "../workers/pool.ts";
import { quietWorkerServices, testServices } from "./support/ctx.ts";
import { MemoryJobStore } from "./support/memory-jobs.ts";

const services = quietWorkerServices("/nonexistent");

type HandlerTable = Partial<Record<string, JobHandler>>;

const pools: WorkerPool[] = [];
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.stop({ graceful: false, timeoutMs: 500 });
});

function setup(
  handlers: HandlerTable,
  opts: { leaseMs?: number; pollMs?: number; concurrency?: number } = {},
) {
  const store = new MemoryJobStore();
  const events: Job[] = [];
  const pool = new WorkerPool({
    services,
    store,
    kinds: Object.fromEntries(Object.entries(handlers).map(([kind, run]) => [kind, run && plainKind(run)])),
    owner: "test-worker",
    leaseMs: opts.leaseMs ?? 3_000,
    pollMs: opts.pollMs ?? 20,
    concurrency: opts.concurrency,
    emit: (kind, data) => {
      if (kind === "studio.job") events.push(data as Job);
    },
  });
  pools.push(pool);
  const add = (kind: JobKind = "render", payload: unknown = {}, lane = "builtin") =>
    store.add({ kind, lane, title: `${kind} job`, info: {}, payload });
  return { store, pool, events, add };
}

async function waitFor(cond: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 5));
  }
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

const ended = (store: MemoryJobStore, id: string) => () =>
  ["succeeded", "failed", "canceled"].includes(store.jobs.get(id)?.status ?? "");

describe("WorkerPool", () => {
  it("claims and runs jobs, and emits studio.job on start and end", async () => {
    const seen: string[] = [];
    const { store, pool, events, add } = setup({
      render: async (job) => {
        seen.push(job.id);
      },
    });
    const jobs = await Promise.all([add(), add(), add()]);
    pool.start();
    for (const job of jobs) await waitFor(ended(store, job.id));
    expect(seen.sort()).toEqual(jobs.map((j) => j.id).sort());
    for (const job of jobs) {
      expect(store.jobs.get(job.id)).toMatchObject({ status: "succeeded", error: null, attempts: 1 });
      const mine = events.filter((e) => e.id === job.id).map((e) => e.status);
      expect(mine[0]).toBe("running");
      expect(mine.at(-1)).toBe("succeeded");
    }
  });

  it("keeps to the lane's parallelism and to its own concurrency", async () => {
    let now = 0;
    let most = 0;
    const handler: JobHandler = async () => {
      most = Math.max(most, ++now);
      await sleep(30);
      now--;
    };
    const a = setup({ render: handler }, { concurrency: 4 });
    await a.store.setParallel("builtin", 2);
    const jobsA = await Promise.all(Array.from({ length: 6 }, () => a.add()));
    a.pool.start();
    for (const job of jobsA) await waitFor(ended(a.store, job.id));
    expect(most).toBe(2);

    most = 0;
    const b = setup({ render: handler }, { concurrency: 3 });
    await b.store.setParallel("builtin", 10);
    const jobsB = await Promise.all(Array.from({ length: 9 }, () => b.add()));
    b.pool.start();
    for (const job of jobsB) await waitFor(ended(b.store, job.id));
    expect(most).toBe(3);
  });

  it("a cancel seen at a heartbeat aborts the handler and the job ends canceled", async () => {
    let sawAbort = false;
    const { store, pool, events, add } = setup(
      {
        render: async (_job, ctx) => {
          try {
            await sleep(10_000, ctx.signal);
          } catch (err) {
            sawAbort = ctx.signal.aborted;
            throw err;
          }
        },
      },
      { leaseMs: 150 },
    );
    const job = await add();
    pool.start();
    await waitFor(() => store.jobs.get(job.id)?.status === "running");
    await store.cancel(job.id);
    await waitFor(ended(store, job.id), 1_000);
    expect(sawAbort).toBe(true);
    expect(store.jobs.get(job.id)?.status).toBe("canceled");
    expect(events.at(-1)).toMatchObject({ id: job.id, status: "canceled" });
  });

  it("cancelRequested() makes an in-process pool look at once, not at the next heartbeat", async () => {
    const { store, pool, add } = setup(
      { render: (_job, ctx) => sleep(10_000, ctx.signal) },
      { leaseMs: 60_000 },
    );
    const job = await add();
    pool.start();
    await waitFor(() => store.jobs.get(job.id)?.status === "running");
    await store.cancel(job.id);
    services.jobSignals.cancelRequested(job.id);
    await waitFor(ended(store, job.id), 500);
    expect(store.jobs.get(job.id)?.status).toBe("canceled");
  });

  it("a handler that throws fails the job with its message; a kind with no handler fails too", async () => {
    const { store, pool, add } = setup({
      render: async () => {
        throw new Error("ffmpeg said no");
      },
    });
    const bad = await add("render");
    const none = await add("upscale");
    pool.start();
    await waitFor(ended(store, bad.id));
    await waitFor(ended(store, none.id));
    expect(store.jobs.get(bad.id)).toMatchObject({ status: "failed", error: "ffmpeg said no" });
    expect(store.jobs.get(none.id)).toMatchObject({
      status: "failed",
      error: "no handler for upscale jobs on this worker",
    });
  });

  it("heartbeats keep a job longer than its lease; a lapsed lease of a dead worker comes back and runs", async () => {
    const { store, pool, add } = setup({ render: () => sleep(400) }, { leaseMs: 90 });
    const long = await add();
    // A job a dead worker held: running, lease already lapsed.
    const orphan = await add("render", {}, "other");
    Object.assign(store.jobs.get(orphan.id)!, {
      status: "running",
      lease_owner: "dead",
      lease_expires: Date.now() - 1,
      attempts: 1,
    });
    pool.start();
    await waitFor(ended(store, long.id));
    await waitFor(ended(store, orphan.id));
    expect(store.jobs.get(long.id)).toMatchObject({ status: "succeeded", attempts: 1 });
    expect(store.claims.filter((c) => c.id === long.id)).toHaveLength(1);
    expect(store.jobs.get(orphan.id)).toMatchObject({ status: "succeeded", attempts: 2 });
  });

  it("writes progress at most about 4 times a second plus the final one, in order", async () => {
    const { store, pool, events, add } = setup({
      render: async (_job, ctx) => {
        for (let i = 1; i <= 50; i++) {
          ctx.progress({ progress: i / 50, step: `frame ${i}` });
          await sleep(10);
        }
        ctx.progress({ log: "done" });
      },
    });
    const writes: unknown[] = [];
    const update = store.update.bind(store);
    store.update = async (id, owner, u) => {
      writes.push(u);
      return update(id, owner, u);
    };
    const job = await add();
    pool.start();
    await waitFor(ended(store, job.id));
    // ~0.5 s of progress: 2–3 throttled writes, the first at once, the log line flushed before the end (progress
    // and step are not: the end itself says 1).
    expect(writes.length).toBeGreaterThanOrEqual(2);
    expect(writes.length).toBeLessThanOrEqual(5);
    expect(writes.at(-1)).toEqual({ log: "done" });
    expect(store.jobs.get(job.id)).toMatchObject({ status: "succeeded", progress: 1, log: ["done"] });
    const mine = events.filter((e) => e.id === job.id);
    expect(mine.filter((e) => e.status === "running").length).toBeLessThanOrEqual(6);
    expect(mine.at(-2)).toMatchObject({ status: "running", log: ["done"] });
    expect(mine.at(-1)).toMatchObject({ status: "succeeded", progress: 1 });
  });

  it("a failing job keeps the progress it had reached", async () => {
    const { store, pool, add } = setup({
      render: async (_job, ctx) => {
        ctx.progress({ progress: 0.1, step: "start" });
        ctx.progress({ progress: 0.4, step: "decode" });
        throw new Error("decoder crashed");
      },
    });
    const job = await add();
    pool.start();
    await waitFor(ended(store, job.id));
    expect(store.jobs.get(job.id)).toMatchObject({ status: "failed", progress: 0.4, step: "decode" });
  });

  it("wake() and jobAdded() claim at once instead of at the next poll", async () => {
    const { store, pool, add } = setup({ render: async () => {} }, { pollMs: 60_000 });
    pool.start();
    await sleep(20);
    const job = await add();
    services.jobSignals.jobAdded();
    await waitFor(ended(store, job.id), 500);
    expect(store.jobs.get(job.id)?.status).toBe("succeeded");
  });

  it("a graceful stop stops claiming and waits for running jobs; a hard stop aborts and leaves the row", async () => {
    const { store, pool, add } = setup({ render: (_job, ctx) => sleep(200, ctx.signal) });
    const first = await add();
    pool.start();
    await waitFor(() => store.jobs.get(first.id)?.status === "running");
    const stopping = pool.stop({ graceful: true });
    const later = await add();
    await stopping;
    expect(store.jobs.get(first.id)?.status).toBe("succeeded");
    await sleep(60);
    expect(store.jobs.get(later.id)?.status).toBe("queued");

    const b = setup({ render: (_job, ctx) => sleep(10_000, ctx.signal) });
    const held = await b.add();
    b.pool.start();
    await waitFor(() => b.store.jobs.get(held.id)?.status === "running");
    const t0 = Date.now();
    await b.pool.stop({ graceful: false, timeoutMs: 2_000 });
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect(b.store.jobs.get(held.id)).toMatchObject({ status: "running", lease_owner: "test-worker" });

    const c = setup({ render: () => sleep(1_000) });
    const stuck = await c.add();
    c.pool.start();
    await waitFor(() => c.store.jobs.get(stuck.id)?.status === "running");
    const t1 = Date.now();
    await c.pool.stop({ graceful: true, timeoutMs: 100 });
    expect(Date.now() - t1).toBeLessThan(1_000);
    expect(c.store.jobs.get(stuck.id)?.status).toBe("running");
  });
});

describe("job kinds, waiting for a job, and the job log lines", () => {
  const linesOf = () => {
    const lines: string[] = [];
    const svc = testServices({ ...services, log: { ...silentLogger, info: (m: string) => lines.push(m) } });
    return { lines, svc };
  };

  it("parses the payload with its kind's schema before it runs; one that does not parse fails naming the field", async () => {
    const { lines, svc } = linesOf();
    const store = new MemoryJobStore();
    const ran: string[] = [];
    const render = defineJobKind({
      payload: z.object({ shot: z.string() }),
      run: async (job) => {
        ran.push(job.payload.shot);
      },
    });
    const pool = new WorkerPool({
      services: svc,
      store,
      kinds: { render },
      owner: "w",
      pollMs: 20,
      emit() {},
    });
    pools.push(pool);
    const add = (title: string, payload: unknown) =>
      store.add({ kind: "render", lane: "builtin", title, info: {}, payload });
    const good = await add("good", { shot: "sh010" });
    const bad = await add("bad", { shot: 7 });
    pool.start();
    const never = new AbortController().signal;
    expect(await store.waitFor(good.id, never)).toMatchObject({ status: "succeeded" });
    const failed = await store.waitFor(bad.id, never);
    expect(failed?.status).toBe("failed");
    expect(failed?.error).toMatch(/^the render job's payload is not one this worker can run \(shot: /);
    expect(ran).toEqual(["sh010"]);
    expect(lines).toContain(`job ${good.id} started: render "good" on builtin`);
    expect(lines).toContain(`job ${good.id} succeeded`);
    expect(lines).toContain(`job ${bad.id} failed: ${failed?.error}`);
  });

  it("logs a job queued and a waiting job canceled through the services' store", async () => {
    const { lines, svc } = linesOf();
    const store = await testServices(svc, { jobStore: new MemoryJobStore() }).jobs();
    const job = await store.add({
      kind: "render",
      lane: "local",
      title: "sh010 t01 (proxy)",
      info: {},
      payload: {},
    });
    await store.cancel(job.id);
    expect(lines).toEqual([
      `job ${job.id} queued: render "sh010 t01 (proxy)" on local`,
      `job ${job.id} canceled before it ran`,
    ]);
  });

  it("waitFor wakes at an end the store writes, looks again for ends written elsewhere, and gives up on abort", async () => {
    const store = new MemoryJobStore();
    const job = await store.add({ kind: "render", lane: "builtin", title: "t", info: {}, payload: {} });
    await store.claim("w", 60_000);
    const stop = new AbortController();
    const waiting = store.waitFor(job.id, stop.signal, 60_000);
    await store.finish(job.id, "w", "failed", "engine stopped");
    expect(await waiting).toMatchObject({ id: job.id, status: "failed", error: "engine stopped" });

    // An end written behind the store's back (another process) is seen at the next look.
    const other = await store.add({ kind: "render", lane: "builtin", title: "t", info: {}, payload: {} });
    const seen = store.waitFor(other.id, stop.signal, 20);
    const row = store.jobs.get(other.id);
    if (row) row.status = "succeeded";
    expect(await seen).toMatchObject({ id: other.id, status: "succeeded" });

    const third = await store.add({ kind: "render", lane: "builtin", title: "t", info: {}, payload: {} });
    const givenUp = store.waitFor(third.id, stop.signal, 60_000);
    stop.abort();
    expect(await givenUp).toBeNull();
    await expect(store.waitFor("j_nope", new AbortController().signal)).rejects.toThrow(
      "job j_nope not found",
    );
  });
});
