// Cluster benchmark: one API process and worker processes (added as the rounds go) over a throw-away PostgreSQL, each worker with its own
// scripted ComfyUI (a double whose every prompt takes ENGINE_MS), 60 render-like jobs queued through the API (each a
// retry of one ended seed job, the API's way to queue a kind it does not run itself) while the lane is paused, timed
// from its resume to the last end. The same 60 on one worker,
// then on three (the ratio, goal close to 3x), then on three with one killed (SIGKILL) a third of the way in: every
// job must still end succeeded, none lost, and only the jobs in flight on the killed worker run again. Figures,
// never pass/fail.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createJobStore } from "../lib/jobs/store.ts";
import type { Job, JobKind, JobStore } from "../lib/jobs/types.ts";
import { type ComfyDouble, startComfyDouble } from "../test/support/comfy-double/index.ts";
import { until } from "../test/support/poll.ts";
import { startPostgres, type TestPostgres } from "../test/support/postgres.ts";
import { startWorker, type Watched } from "../test/support/processes.ts";
import { startServer } from "../test/support/server.ts";
import { CLUSTER_KIND, type ClusterPayload } from "./cluster-job.ts";

const JOBS = 60;
const ENGINE_MS = 400;
const SPEEDUP_GOAL = 3;
const root = path.resolve(import.meta.dirname, "..");
const HANDLER = path.join(root, "bench", "cluster-job.ts");

type Proc = Pick<Watched, "child" | "exited">;

// Looks are spaced out: the benchmark's own queries must not eat the machine the workers run on.
const waitFor = <T>(what: string, probe: () => Promise<T | undefined | false>) =>
  until(what, probe, { ms: 120_000, everyMs: 100 });

async function post(api: string, action: string, body: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${api}/studio/jobs/${action}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`POST /studio/jobs/${action}: ${res.status} ${await res.text()}`);
}

/** Prompts each double accepted, by the job their output prefix names. */
function promptsByJob(doubles: ComfyDouble[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const d of doubles)
    for (const p of d.prompts) {
      if (p.status !== 200) continue;
      const body = p.body as { prompt?: Record<string, { inputs?: { filename_prefix?: unknown } }> };
      const prefix = body.prompt?.["2"]?.inputs?.filename_prefix;
      if (typeof prefix !== "string" || !prefix.startsWith("bench_")) continue;
      const id = prefix.slice("bench_".length);
      out.set(id, (out.get(id) ?? 0) + 1);
    }
  return out;
}

interface Round {
  ms: number;
  jobs: Job[];
  /** Job id → starts recorded by the handler. */
  starts: Map<string, number>;
  /** Job id → prompts the engines accepted. */
  prompts: Map<string, number>;
  /** Jobs each worker started, in worker order. */
  perWorker: number[];
}

/** One database, one API process and the workers started so far; rounds of 60 jobs run on them in turn. */
interface Cluster {
  api: string;
  store: JobStore;
  runs: string;
  /** Each worker's ComfyUI, started up front. */
  doubles: ComfyDouble[];
  workers: Proc[];
  procs: Proc[];
}

async function addWorker(c: Cluster, home: string, db: string, double: ComfyDouble): Promise<void> {
  const w = await startWorker({
    STUDIO_HOME: home,
    STUDIO_DB_URL: db,
    STUDIO_LOCAL_URL: double.url,
    STUDIO_WORKER_EXTRA_HANDLERS: HANDLER,
    STUDIO_LEASE_MS: "3000",
    STUDIO_REACH_MS: "2000",
  });
  c.workers.push(w);
  c.procs.push(w);
}

/** Every worker advertises after all adverts were there (and reads the others right after): they know each other. */
async function settled(c: Cluster, count: number): Promise<void> {
  const ads = await waitFor("every worker's advert", async () => {
    const all = await c.store.workers();
    return all.length === count && all;
  });
  const all = Math.max(...ads.map((w) => w.seen));
  await waitFor("every worker to advertise again", async () =>
    (await c.store.workers()).every((w) => w.seen > all + 50),
  );
}

/** 60 jobs queued through the API while the lane is paused, timed from the resume to the last end. */
async function round(c: Cluster, killAt: number | null): Promise<Round> {
  // Paused first, so the seed never runs and the clock starts with all 60 waiting.
  await post(c.api, "pause", { lane: "local", paused: true });
  const seed = await c.store.add({
    kind: CLUSTER_KIND as JobKind,
    lane: "local",
    title: "cluster seed",
    info: {},
    payload: { runs: c.runs } satisfies ClusterPayload,
  });
  await c.store.cancel(seed.id);
  const before = new Set((await c.store.list()).jobs.map((j) => j.id));
  for (let i = 0; i < JOBS; i++) await post(c.api, "retry", { id: seed.id });
  const ids = (await c.store.list()).jobs
    .filter((j) => (j.kind as string) === CLUSTER_KIND && !before.has(j.id))
    .map((j) => j.id);
  if (ids.length !== JOBS) throw new Error(`${ids.length} jobs queued, not ${JOBS}`);
  const t0 = performance.now();
  await post(c.api, "pause", { lane: "local", paused: false });
  let killed = false;
  const mine = new Set(ids);
  // One listing per look (this round's jobs are the newest, well inside the 200 finished it shows).
  await waitFor("every job to end", async () => {
    const listed = (await c.store.list()).jobs.filter((j) => mine.has(j.id));
    const ended = listed.filter((j) => ["succeeded", "failed", "canceled"].includes(j.status)).length;
    if (killAt !== null && !killed && ended >= JOBS / 3) {
      killed = true;
      c.workers[killAt].child.kill("SIGKILL");
    }
    return ended === JOBS;
  });
  const ms = performance.now() - t0;
  const jobs = (await Promise.all(ids.map((id) => c.store.get(id)))) as Job[];
  const lines = (await readFile(c.runs, "utf8")).split("\n").filter(Boolean);
  const starts = new Map<string, number>();
  const byPid = new Map<number, number>();
  for (const line of lines) {
    const [id, pid] = line.split(" ");
    if (!mine.has(id)) continue;
    starts.set(id, (starts.get(id) ?? 0) + 1);
    byPid.set(Number(pid), (byPid.get(Number(pid)) ?? 0) + 1);
  }
  const prompts = new Map([...promptsByJob(c.doubles)].filter(([id]) => mine.has(id)));
  return { ms, jobs, starts, prompts, perWorker: c.workers.map((w) => byPid.get(w.child.pid ?? -1) ?? 0) };
}

function summary(name: string, r: Round): string {
  const statuses = new Map<string, number>();
  for (const j of r.jobs) statuses.set(j.status, (statuses.get(j.status) ?? 0) + 1);
  const shown = [...statuses].map(([s, n]) => `${n} ${s}`).join(", ");
  return `${name}: ${(r.ms / 1000).toFixed(1)} s for ${JOBS} jobs (${shown}); jobs started per worker ${r.perWorker.join("/")}`;
}

export async function run(): Promise<void> {
  console.log(
    `\ncluster (PostgreSQL, 1 API + worker processes, ${JOBS} jobs of ${ENGINE_MS} ms on each worker's own ComfyUI)`,
  );
  let pg: TestPostgres;
  try {
    pg = await startPostgres();
  } catch (err) {
    console.log(`  skipped: ${err instanceof Error ? err.message : String(err)}`);
    return;
  }
  const home = await mkdtemp(path.join(os.tmpdir(), "cluster-bench-"));
  const doubles: ComfyDouble[] = [];
  let cluster: Cluster | null = null;
  try {
    for (let i = 0; i < 3; i++) doubles.push(await startComfyDouble({ nodeMs: { SaveImage: ENGINE_MS } }));
    const db = await pg.database();
    const runs = path.join(home, "runs.txt");
    await writeFile(runs, "");
    const api = await startServer({ STUDIO_HOME: home, STUDIO_DB_URL: db, STUDIO_ROLES: "api" });
    const c: Cluster = {
      api: api.url,
      store: await createJobStore(db),
      runs,
      doubles,
      workers: [],
      procs: [{ child: api.child, exited: api.exited }],
    };
    cluster = c;
    await addWorker(c, home, db, doubles[0]);
    await settled(c, 1);
    // One ComfyUI per machine: the lane runs as many at once as there are machines, one on each.
    await post(c.api, "parallel", { lane: "local", parallel: 1 });
    const one = await round(c, null);
    console.log(`  ${summary("1 worker ", one)}`);
    await Promise.all([addWorker(c, home, db, doubles[1]), addWorker(c, home, db, doubles[2])]);
    await settled(c, 3);
    await post(c.api, "parallel", { lane: "local", parallel: 3 });
    const three = await round(c, null);
    console.log(`  ${summary("3 workers", three)}`);
    const ideal = (JOBS * ENGINE_MS) / 1000;
    console.log(
      `  speed-up ${(one.ms / three.ms).toFixed(2)}x (goal close to ${SPEEDUP_GOAL}x); engine time alone ${ideal.toFixed(0)} s on one, ${(ideal / 3).toFixed(0)} s on three`,
    );
    const killed = await round(c, 1);
    console.log(`  ${summary("3 workers, one killed a third of the way in", killed)}`);
    const again = killed.jobs.filter((j) => (killed.starts.get(j.id) ?? 0) > 1 || j.attempts > 1);
    const twice = killed.jobs.filter((j) => (killed.prompts.get(j.id) ?? 0) > 1);
    const never = killed.jobs.filter((j) => (killed.prompts.get(j.id) ?? 0) === 0);
    const lost = killed.jobs.filter((j) => j.status !== "succeeded");
    console.log(
      `  after the kill: ${JOBS - lost.length}/${JOBS} succeeded, ${lost.length} lost; ` +
        `${again.length} started again (in flight on the killed worker: attempts ${again.map((j) => j.attempts).join(",") || "none"}); ` +
        `${twice.length} sent to an engine twice, ${never.length} never sent`,
    );
    const clean = [one, three].every(
      (r) => r.prompts.size === JOBS && [...r.prompts.values()].every((n) => n === 1),
    );
    console.log(`  without a kill: every job sent to an engine exactly once: ${clean ? "yes" : "NO"}`);
  } finally {
    if (cluster) {
      const procs = cluster.procs;
      for (const p of procs)
        if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGTERM");
      await Promise.all(procs.map((p) => p.exited));
      await cluster.store.close();
    }
    for (const d of doubles) await d.close();
    await pg.stop();
    await rm(home, { recursive: true, force: true });
  }
}
