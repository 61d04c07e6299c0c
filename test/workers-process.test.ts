// Real worker and server processes on one libsql file: no job runs twice, a killed worker's job is taken over,
// waiting jobs survive a server restart, and worker events reach an API process's sockets exactly once.
import type { ChildProcess } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { createJobStore } from "../lib/jobs/store.ts";
import type { Job, JobKind } from "../lib/jobs/types.ts";
import { makeTestEnv, type TestEnv } from "./support/ctx.ts";
import { allEnded } from "./support/jobs.ts";
import { until } from "./support/poll.ts";
import { startWorker as startWatchedWorker } from "./support/processes.ts";
import { type ServerProcess, startServer } from "./support/server.ts";
import type { SleepPayload } from "./support/sleep-handler.ts";

const root = path.resolve(import.meta.dirname, "..");
const SLEEP_HANDLER = path.join(root, "test", "support", "sleep-handler.ts");

let env: TestEnv;
beforeAll(async () => {
  env = await makeTestEnv();
});
afterAll(() => env.cleanup());

/** A worker process running the sleep kind besides its own, once it says it runs. */
const startWorker = async (extra: Record<string, string>) => {
  const w = await startWatchedWorker({ STUDIO_WORKER_EXTRA_HANDLERS: SLEEP_HANDLER, ...extra }, 20_000);
  return { ...w, pid: w.child.pid! };
};

function kill(children: { child: ChildProcess }[]): void {
  for (const { child } of children)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
}

const waitFor = <T>(what: string, probe: () => Promise<T | undefined | false>, ms: number) =>
  until(what, probe, { ms, everyMs: 25 });

async function runLines(file: string): Promise<{ id: string; pid: number }[]> {
  const text = await readFile(file, "utf8").catch(() => "");
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [id, pid] = line.split(" ");
      return { id, pid: Number(pid) };
    });
}

async function database(name: string) {
  const url = pathToFileURL(path.join(env.dir, `${name}.db`)).href;
  const file = path.join(env.dir, `${name}.runs`);
  await writeFile(file, "");
  const store = await createJobStore(url);
  const add = (payload: Omit<SleepPayload, "file">, lane = "test") =>
    store.add({
      // A test-only kind, run by the handler module the processes load through STUDIO_WORKER_EXTRA_HANDLERS.
      kind: "sleep" as JobKind,
      lane,
      title: "sleep",
      info: {},
      payload: { file, ...payload } satisfies SleepPayload,
    });
  return { url, file, store, add };
}

/** A page socket on the server's /ws, keeping every studio.job event. */
async function listen(url: string): Promise<{ jobs: Job[]; close(): void }> {
  const ws = new WebSocket(`${url.replace(/^http/, "ws")}/ws`);
  const jobs: Job[] = [];
  ws.on("message", (raw) => {
    const frame = JSON.parse(String(raw)) as { type: string; data: Job };
    if (frame.type === "studio.job") jobs.push(frame.data);
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  return { jobs, close: () => ws.close() };
}

describe("worker processes on one database", () => {
  it("two workers run 20 jobs with no job run twice, and stop with exit 0 on SIGTERM", async () => {
    const db = await database("twenty");
    // The lane allows 8 at once and each worker takes 3, so both workers must take part.
    await db.store.setParallel("test", 8);
    const workerEnv = { STUDIO_HOME: env.home, STUDIO_DB_URL: db.url, STUDIO_WORKER_CONCURRENCY: "3" };
    const workers = await Promise.all([startWorker(workerEnv), startWorker(workerEnv)]);
    try {
      const ids = (await Promise.all(Array.from({ length: 20 }, () => db.add({ ms: 400 })))).map((j) => j.id);
      const jobs = await waitFor("20 jobs to end", () => allEnded(db.store, ids), 30_000);
      expect(jobs.map((j) => j.status)).toEqual(ids.map(() => "succeeded"));
      expect(jobs.map((j) => j.attempts)).toEqual(ids.map(() => 1));
      const runs = await runLines(db.file);
      expect(runs).toHaveLength(20);
      expect(new Set(runs.map((r) => r.id)).size).toBe(20);
      expect(
        new Set(runs.map((r) => r.pid)),
        `both workers take part:\n${workers.map((w) => w.output()).join("\n")}`,
      ).toEqual(new Set(workers.map((w) => w.pid)));

      for (const w of workers) w.child.kill("SIGTERM");
      expect(await Promise.all(workers.map((w) => w.exited))).toEqual([0, 0]);
    } finally {
      kill(workers);
      await db.store.close();
    }
  }, 60_000);

  it("a job whose worker is killed with -9 is taken over by the other worker once its lease lapses", async () => {
    const db = await database("kill");
    const leaseMs = 1500;
    const workerEnv = { STUDIO_HOME: env.home, STUDIO_DB_URL: db.url, STUDIO_LEASE_MS: String(leaseMs) };
    const workers = await Promise.all([startWorker(workerEnv), startWorker(workerEnv)]);
    try {
      const job = await db.add({ ms: 60_000, retryMs: 100 });
      const first = await waitFor("the job to start", async () => (await runLines(db.file))[0], 10_000);
      const victim = workers.find((w) => w.pid === first.pid)!;
      const survivor = workers.find((w) => w !== victim)!;
      const killedAt = Date.now();
      victim.child.kill("SIGKILL");
      const [ended] = await waitFor(
        "the job to end",
        () => allEnded(db.store, [job.id]),
        4 * leaseMs + 5_000,
      );
      const tookMs = Date.now() - killedAt;
      console.log(`kill -9: the job ended ${tookMs} ms after the kill (lease ${leaseMs} ms)`);
      expect(ended).toMatchObject({ status: "succeeded", attempts: 2 });
      expect((await runLines(db.file)).map((r) => r.pid)).toEqual([victim.pid, survivor.pid]);
      // The lease lapses at most leaseMs after the kill; the survivor looks every leaseMs/2, then runs 100 ms.
      expect(tookMs).toBeLessThan(leaseMs * 1.5 + 1_500);
    } finally {
      kill(workers);
      await db.store.close();
    }
  }, 60_000);

  it("a server stopped with server/stop keeps its waiting jobs, and runs them when it starts again", async () => {
    const db = await database("restart");
    const serverEnv = {
      STUDIO_HOME: env.home,
      STUDIO_DB_URL: db.url,
      STUDIO_WORKER_EXTRA_HANDLERS: SLEEP_HANDLER,
    };
    const running = await db.add({ ms: 1_000 });
    const waiting = [await db.add({ ms: 50 }), await db.add({ ms: 50 })];
    const servers: ServerProcess[] = [];
    try {
      const a = await startServer(serverEnv);
      servers.push(a);
      await waitFor(
        "the first job to run",
        async () => (await db.store.get(running.id))?.status === "running",
        10_000,
      );
      const stop = await fetch(`${a.url}/studio/server/stop`, { method: "POST" });
      expect(stop.status).toBe(200);
      expect(await a.exited).toBe(0);
      // The graceful stop let the running job end and started none of the waiting ones.
      expect((await db.store.get(running.id))?.status).toBe("succeeded");
      for (const job of waiting) expect((await db.store.get(job.id))?.status).toBe("queued");

      const b = await startServer(serverEnv);
      servers.push(b);
      const page = await listen(b.url);
      try {
        const ids = waiting.map((j) => j.id);
        const jobs = await waitFor("the waiting jobs to run", () => allEnded(db.store, ids), 15_000);
        expect(jobs.map((j) => j.status)).toEqual(["succeeded", "succeeded"]);
        // Its own events reach its sockets once, not a second time from the outbox.
        await new Promise((r) => setTimeout(r, 600));
        for (const id of ids) {
          expect(page.jobs.filter((j) => j.id === id && j.status === "succeeded")).toHaveLength(1);
        }
      } finally {
        page.close();
      }
      expect((await runLines(db.file)).map((r) => r.id)).toEqual([running.id, ...waiting.map((j) => j.id)]);
      b.child.kill("SIGTERM");
      expect(await b.exited).toBe(0);
    } finally {
      kill(servers);
      await db.store.close();
    }
  }, 60_000);

  it("an API-only server broadcasts a worker process's job events once, through the outbox", async () => {
    const db = await database("split");
    const common = { STUDIO_HOME: env.home, STUDIO_DB_URL: db.url };
    const children: { child: ChildProcess }[] = [];
    try {
      const api = await startServer({ ...common, STUDIO_ROLES: "api" });
      children.push(api);
      const page = await listen(api.url);
      try {
        const worker = await startWorker(common);
        children.push(worker);
        const job = await db.add({ ms: 300 });
        await waitFor("the job to end", () => allEnded(db.store, [job.id]), 15_000);
        await waitFor(
          "the end event",
          async () => page.jobs.some((j) => j.id === job.id && j.status === "succeeded"),
          5_000,
        );
        await new Promise((r) => setTimeout(r, 600));
        const mine = page.jobs.filter((j) => j.id === job.id);
        expect(mine[0]).toMatchObject({ status: "running", can_retry: false });
        expect(mine.filter((j) => j.status === "succeeded")).toHaveLength(1);
        expect(mine.filter((j) => j.status === "running").length).toBeLessThanOrEqual(3);
      } finally {
        page.close();
      }
    } finally {
      kill(children);
      await db.store.close();
    }
  }, 60_000);
});
