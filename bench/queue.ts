// Queue benchmark: 50 jobs through the real store (libsql file) and WorkerPool against a scripted engine that
// runs one job at a time for a fixed time (a local ComfyUI), lane parallelism 2: does the pool keep the engine
// busy (the next job already queued there when one ends), and what does a job cost around the engine's time.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { silentLogger } from "../lib/context.ts";
import type { Engine, EngineJob } from "../lib/engines/types.ts";
import type { JobHandler } from "../lib/jobs/kinds.ts";
import { createJobStore } from "../lib/jobs/store.ts";
import type { JobStore } from "../lib/jobs/types.ts";
import { plainKind } from "../workers/jobs/index.ts";
import { OutboxWriter } from "../workers/outbox.ts";
import { WorkerPool } from "../workers/pool.ts";
import { benchServices } from "./show.ts";

const JOBS = 50;
const PARALLEL = 2;
const ENGINE_MS = 100;
const BUSY_GOAL = 0.99;
const OVERHEAD_GOAL_MS = 20;

interface Span {
  in: number;
  out: number;
}

interface EngineTrace {
  /** Per job: submitted → outputs collected (its wait in the engine's queue included). */
  inside: Map<string, Span>;
  /** Per job: when the engine was actually working on it. */
  working: Span[];
}

/** A backend that works on one job at a time, ENGINE_MS each, first in first out; submit only queues. */
function scriptedEngine(trace: EngineTrace): Engine {
  let queue: Promise<void> = Promise.resolve();
  const results = new Map<string, Promise<void>>();
  return {
    backend: "bench",
    prepare: async () => ({ inputs: {}, notes: [] }),
    async submit(job) {
      trace.inside.set(job.stem, { in: performance.now(), out: Number.NaN });
      queue = queue.then(async () => {
        const span = { in: performance.now(), out: Number.NaN };
        await new Promise((r) => setTimeout(r, ENGINE_MS));
        span.out = performance.now();
        trace.working.push(span);
      });
      results.set(job.stem, queue);
      return { backendPromptId: job.stem };
    },
    async collect(job, _submitted, hooks) {
      hooks.onProgress({ progress: 0.5, step: "in the engine" });
      await results.get(job.stem);
      trace.inside.get(job.stem)!.out = performance.now();
      return { notes: [] };
    },
    cancel: async () => {},
  };
}

const handler: JobHandler = async (job, ctx) => {
  const engine = ctx.engine("bench");
  const ej = { stem: job.id } as EngineJob;
  const hooks = { signal: ctx.signal, onProgress: (p: { progress: number }) => ctx.progress(p) };
  const prepared = await engine.prepare(ej, hooks);
  const submitted = await engine.submit(ej, prepared, hooks);
  ctx.progress({ backend_prompt_id: submitted.backendPromptId, step: "rendering" });
  await engine.collect(ej, submitted, hooks);
};

/** Times claim and finish per job, so the service's own share of each job can be told from the engine's. */
function timed(store: JobStore, claimMs: Map<string, number>, held: Map<string, Span>): JobStore {
  return Object.assign(Object.create(store) as JobStore, {
    async claim(owner: string, leaseMs: number, lanes?: readonly string[]) {
      const t0 = performance.now();
      const job = await store.claim(owner, leaseMs, lanes);
      if (job) {
        claimMs.set(job.id, performance.now() - t0);
        held.set(job.id, { in: performance.now(), out: Number.NaN });
      }
      return job;
    },
    async finish(...args: Parameters<JobStore["finish"]>) {
      const job = await store.finish(...args);
      const span = held.get(args[0]);
      if (span) span.out = performance.now();
      return job;
    },
  });
}

/** Time with at least `atLeast` spans open, over the time from the first opening to the last closing. */
function overlapFraction(spans: Span[], atLeast: number): number {
  const edges = spans.flatMap((s) => [
    { t: s.in, d: 1 },
    { t: s.out, d: -1 },
  ]);
  edges.sort((a, b) => a.t - b.t || a.d - b.d);
  let inside = 0;
  let busy = 0;
  for (let i = 0; i < edges.length; i++) {
    inside += edges[i].d;
    if (inside >= atLeast && i + 1 < edges.length) busy += edges[i + 1].t - edges[i].t;
  }
  return busy / (edges[edges.length - 1].t - edges[0].t);
}

interface Figures {
  busy: number;
  overhead: number;
  /** Process CPU time per job (user + system): the service's own work, whatever the machine's other load. */
  cpu: number;
  queuedAhead: number;
  wall: number;
  failed: number;
}

async function once(outbox: boolean): Promise<Figures> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "studio-bench-queue-"));
  const store = await createJobStore(pathToFileURL(path.join(dir, "studio.db")).href);
  try {
    await store.setParallel("bench", PARALLEL);
    for (let i = 0; i < JOBS; i++) {
      await store.add({ kind: "render", lane: "bench", title: `job ${i}`, info: {}, payload: {} });
    }
    const trace: EngineTrace = { inside: new Map(), working: [] };
    const claimMs = new Map<string, number>();
    const held = new Map<string, Span>();
    const services = benchServices(dir, {}, ["worker"]);
    // As serve.ts does: the hub (no sockets here) and, when asked, the outbox for other API processes.
    const writer = outbox ? new OutboxWriter(store, "bench", silentLogger) : null;
    let ended = 0;
    let allDone: () => void = () => {};
    const done = new Promise<void>((resolve) => {
      allDone = resolve;
    });
    const pool = new WorkerPool({
      services: {
        ...services,
        engines: { ...services.engines, get: () => engine },
      },
      store: timed(store, claimMs, held),
      kinds: { render: plainKind(handler) },
      emit: (kind, data) => {
        writer?.emit(kind, data);
        const status = (data as { status?: string }).status;
        if (status === "succeeded" || status === "failed") if (++ended === JOBS) allDone();
      },
    });
    const engine = scriptedEngine(trace);
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    pool.start();
    await done;
    const wall = performance.now() - t0;
    const cpuUsed = process.cpuUsage(cpu0);
    await pool.stop({ graceful: true });
    await writer?.flush();

    // Busy: the engine working, from the first submit to the last result (it can only idle between jobs).
    const inside = [...trace.inside.values()];
    const first = Math.min(...inside.map((s) => s.in));
    const last = Math.max(...trace.working.map((s) => s.out));
    const fraction = trace.working.reduce((a, s) => a + (s.out - s.in), 0) / (last - first);
    // Also: the time with `parallel` jobs handed to the engine (one working, the next queued behind it).
    const queuedAhead = overlapFraction(inside, PARALLEL);
    const overheads = [...held.entries()].map(([id, h]) => {
      const e = trace.inside.get(id)!;
      return claimMs.get(id)! + (h.out - h.in) - (e.out - e.in);
    });
    const overhead = overheads.reduce((a, b) => a + b, 0) / overheads.length;
    const failed = (await store.list()).jobs.filter((j) => j.status !== "succeeded").length;
    const cpu = (cpuUsed.user + cpuUsed.system) / 1000 / JOBS;
    return { busy: fraction, overhead, queuedAhead, wall, failed, cpu };
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const RUNS = 3;

export async function run(): Promise<void> {
  console.log(
    `job queue (${JOBS} jobs, a one-at-a-time engine at ${ENGINE_MS} ms each, lane parallel ${PARALLEL}, real store on a libsql file; median of ${RUNS} runs)`,
  );
  for (const [label, outbox] of [
    ["pool, events to the hub", false],
    ["pool, events to hub + outbox (serve)", true],
  ] as const) {
    const runs: Figures[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await once(outbox));
    const median = (pick: (f: Figures) => number) =>
      runs.map(pick).sort((a, b) => a - b)[Math.floor(RUNS / 2)];
    const spread = (pick: (f: Figures) => number, digits: number) =>
      `${Math.min(...runs.map(pick)).toFixed(digits)}–${Math.max(...runs.map(pick)).toFixed(digits)}`;
    const busy = median((f) => f.busy);
    const overhead = median((f) => f.overhead);
    const failed = runs.reduce((a, f) => a + f.failed, 0);
    console.log(`  ${label}${failed ? `  (${failed} jobs NOT succeeded)` : ""}`);
    console.log(
      `    engine busy        ${(busy * 100).toFixed(2)}%  (${(busy / BUSY_GOAL).toFixed(3)}x of the ${BUSY_GOAL * 100}% goal; ${spread((f) => f.busy * 100, 2)}%)`,
    );
    console.log(
      `    overhead per job   ${overhead.toFixed(2)} ms  (${(overhead / OVERHEAD_GOAL_MS).toFixed(2)}x of the ${OVERHEAD_GOAL_MS} ms goal; ${spread((f) => f.overhead, 2)} ms)`,
    );
    console.log(
      `    CPU per job        ${median((f) => f.cpu).toFixed(2)} ms  (${spread((f) => f.cpu, 2)} ms; the overhead above also holds waits for a busy machine)`,
    );
    console.log(
      `    ${PARALLEL} jobs in the engine ${(median((f) => f.queuedAhead) * 100).toFixed(1)}% of the time; wall ${median((f) => f.wall).toFixed(0)} ms (engine alone ${JOBS * ENGINE_MS} ms)`,
    );
  }
}
