// Both job stores, each on real databases (embedded files and a throw-away PostgreSQL server): queue order, lanes,
// leases, cancel/move/retry, outbox, worker adverts, migrations, and claims racing from two stores and two processes.
import { execFile } from "node:child_process";
import { access, writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { createClient } from "@libsql/client";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { StudioError } from "../lib/errors.ts";
import { relaxCommits } from "../lib/jobs/commit-mode.ts";
import { shownDatabaseUrl } from "../lib/jobs/database-url.ts";
import { newJobId } from "../lib/jobs/job-id.ts";
import { MIGRATIONS, migrate } from "../lib/jobs/migrate.ts";
import { migratePg, PG_MIGRATIONS } from "../lib/jobs/pg-migrate.ts";
import { createJobStore, jobStoreOpener, type StudioJobStore } from "../lib/jobs/store.ts";
import type { NewJob } from "../lib/jobs/types.ts";
import { createLocks } from "../lib/store/lock.ts";
import { makeTestEnv, type TestEnv } from "./support/ctx.ts";
import { startPostgres, type TestPostgres } from "./support/postgres.ts";

let env: TestEnv;
let server: TestPostgres;
let n = 0;
const open: StudioJobStore[] = [];

beforeAll(async () => {
  env = await makeTestEnv();
  server = await startPostgres();
}, 120_000);
// Each test's stores close after it, so PostgreSQL connections do not pile up.
afterEach(async () => {
  for (const s of open.splice(0)) await s.close().catch(() => {});
});
afterAll(async () => {
  await server?.stop();
  await env?.cleanup();
});

const dbUrl = () => pathToFileURL(path.join(env.dir, `jobs-${++n}.db`)).href;

// The stores of this file are one process's: they share its locks, as stores opened through its services would.
const processLocks = createLocks();

/** Opens stores on a fresh database (or the one given) with a clock the test moves (2030-01-01, +1 ms a reading). */
const opener = (newUrl: () => Promise<string>) => async (given?: string) => {
  const url = given ?? (await newUrl());
  const clock = { t: Date.UTC(2030, 0, 1) };
  const store = await createJobStore(url, { now: () => clock.t++, locks: processLocks });
  open.push(store);
  return { store, clock, url };
};

const STORES = [
  { name: "libsql (embedded file)", newUrl: async () => dbUrl() },
  { name: "PostgreSQL", newUrl: () => server.database() },
];

/** A job back in the queue after a worker held it: nobody holds it, and its run so far is forgotten. */
const BACK_IN_QUEUE = {
  status: "queued",
  lease_owner: null,
  lease_expires: null,
  started: null,
  progress: 0,
  step: null,
} as const;

const job = (title: string, more: Partial<NewJob> = {}): NewJob => ({
  kind: "render",
  lane: "local",
  title,
  info: { ep: "/shows/s/ep01", shot: title },
  payload: { title },
  ...more,
});

async function rejects(p: Promise<unknown>, status: number, message: RegExp) {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StudioError);
  expect((err as StudioError).status).toBe(status);
  expect((err as StudioError).message).toMatch(message);
}

/** Claim until nothing can start; answers the titles in claim order. */
async function drain(store: StudioJobStore, owner = "w", lanes?: string[]) {
  const titles: string[] = [];
  for (let j = await store.claim(owner, 60_000, lanes); j; j = await store.claim(owner, 60_000, lanes)) {
    titles.push(j.title);
  }
  return titles;
}

describe.each(STORES)("$name", ({ newUrl }) => {
  const fresh = opener(newUrl);

  describe("add, get, list", () => {
    it("adds a queued job with every field and reads it back", async () => {
      const { store } = await fresh();
      const a = await store.add(job("sh010", { after: "j_000000000000" }));
      expect(a).toMatchObject({
        kind: "render",
        lane: "local",
        title: "sh010",
        after: "j_000000000000",
        info: { ep: "/shows/s/ep01", shot: "sh010" },
        payload: { title: "sh010" },
        status: "queued",
        progress: 0,
        step: null,
        steps: null,
        created: expect.stringMatching(/^2030-01-01T00:00:00\.\d{3}Z$/),
        started: null,
        finished: null,
        error: null,
        log: [],
        lease_owner: null,
        lease_expires: null,
        backend_prompt_id: null,
        cancel_requested: false,
        attempts: 0,
        position: 0,
      });
      expect(a.id).toMatch(/^j_[0-9a-f]{12}$/);
      expect(await store.get(a.id)).toEqual(a);
      expect(await store.get("j_nope")).toBeNull();
      const b = await store.add(job("sh020"));
      expect(b.id).not.toBe(a.id);
      expect(b.position).toBe(1);
    });

    it("adds a job under an id drawn beforehand, once, and refuses an id newJobId() would not draw", async () => {
      const { store } = await fresh();
      const id = newJobId();
      expect(id).toMatch(/^j_[0-9a-f]{12}$/);
      expect(newJobId()).not.toBe(id);
      const a = await store.add(job("sh010", { id }));
      expect(a.id).toBe(id);
      expect((await store.get(id))?.title).toBe("sh010");
      await expect(store.add(job("sh020", { id }))).rejects.toThrow();
      await expect(store.add(job("sh030", { id: "j_../x" }))).rejects.toThrow(/not an id newJobId\(\) draws/);
      expect((await store.list()).jobs.map((j) => j.title)).toEqual(["sh010"]);
    });

    it("lists running, then waiting in run order, then the last 200 finished newest first", async () => {
      const { store } = await fresh();
      const ended: string[] = [];
      for (let i = 0; i < 205; i++) {
        const j = await store.add(job(`done${i}`, { lane: "cloud" }));
        await store.cancel(j.id);
        ended.push(j.id);
      }
      const w1 = await store.add(job("w1"));
      const w2 = await store.add(job("w2"));
      const w3 = await store.add(job("w3"));
      await store.move(w3.id, 0);
      await store.setParallel("local", 1);
      expect((await store.claim("w", 60_000))?.id).toBe(w3.id);
      await store.pause("router", true);

      const { jobs, lanes } = await store.list();
      expect(jobs.slice(0, 3).map((j) => j.id)).toEqual([w3.id, w1.id, w2.id]);
      expect(jobs).toHaveLength(3 + 200);
      expect(jobs.slice(3).map((j) => j.id)).toEqual(ended.slice(5).reverse());
      expect(lanes).toEqual({
        cloud: { paused: false, parallel: 1, waiting: [], running: [] },
        local: { paused: false, parallel: 1, waiting: [w1.id, w2.id], running: [w3.id] },
        router: { paused: true, parallel: 1, waiting: [], running: [] },
      });
    });

    it("lists every job with its payload as stored, large or absent", async () => {
      const { store } = await fresh();
      const graph = Object.fromEntries(
        Array.from({ length: 300 }, (_, i) => [
          String(i),
          { class_type: "Node", inputs: { seed: i, text: "x".repeat(50) } },
        ]),
      );
      const big = await store.add(job("big", { payload: { workflow: { graph }, take: 1 } }));
      const none = await store.add(job("none", { payload: null }));
      const listed = (await store.list()).jobs;
      expect(listed.find((j) => j.id === big.id)?.payload).toEqual({ workflow: { graph }, take: 1 });
      expect(listed.find((j) => j.id === none.id)?.payload).toBeNull();
      expect(listed.find((j) => j.id === big.id)).toEqual(await store.get(big.id));
    });

    it("keeps progress within 0..1 and the last 20 log lines, only for the lease holder", async () => {
      const { store } = await fresh();
      const a = await store.add(job("a"));
      await store.claim("w", 60_000);
      for (let i = 0; i < 25; i++) await store.update(a.id, "w", { log: `line ${i}` });
      await store.update(a.id, "w", { progress: 1.7, step: "sampling", steps: 30, backend_prompt_id: "p1" });
      await store.update(a.id, "intruder", { progress: 0.1, log: "not mine" });
      await store.update(a.id, "intruder", { progress: 0.2, step: "not mine" });
      const got = await store.get(a.id);
      expect(got?.log).toHaveLength(20);
      expect(got?.log[0]).toBe("line 5");
      expect(got?.log[19]).toBe("line 24");
      expect(got).toMatchObject({ progress: 1, step: "sampling", steps: 30, backend_prompt_id: "p1" });
      // Fields and a log line in one update land together.
      await store.update(a.id, "w", { progress: -3, step: "saving", log: "line 25" });
      expect(await store.get(a.id)).toMatchObject({ progress: 0, step: "saving", steps: 30 });
      expect((await store.get(a.id))?.log.at(-1)).toBe("line 25");
    });
  });

  describe("claim", () => {
    it("takes jobs by position, marks them running with a lease and counts attempts", async () => {
      const { store, clock } = await fresh();
      await store.setParallel("local", 10);
      for (const t of ["a", "b", "c", "d"]) await store.add(job(t));
      const d = (await store.list()).lanes.local.waiting[3];
      await store.move(d, 1);
      const start = clock.t;
      const first = await store.claim("w1", 5000);
      expect(first).toMatchObject({ title: "a", status: "running", lease_owner: "w1", attempts: 1 });
      expect(first?.lease_expires).toBeGreaterThanOrEqual(start + 5000);
      expect(first?.started).not.toBeNull();
      expect(await drain(store)).toEqual(["d", "b", "c"]);
    });

    it("claims only from the lanes asked for, and nothing from an empty list", async () => {
      const { store } = await fresh();
      await store.add(job("l", { lane: "local" }));
      await store.add(job("c", { lane: "cloud" }));
      expect(await store.claim("w", 60_000, [])).toBeNull();
      expect(await drain(store, "w", ["cloud", "router"])).toEqual(["c"]);
      expect(await drain(store, "w", ["local"])).toEqual(["l"]);
    });

    it("starts nothing in a paused lane until it resumes", async () => {
      const { store } = await fresh();
      await store.add(job("l"));
      await store.add(job("c", { lane: "cloud" }));
      await store.pause("local", true);
      expect(await drain(store)).toEqual(["c"]);
      expect((await store.list()).lanes.local.paused).toBe(true);
      await store.pause("local", false);
      expect(await drain(store)).toEqual(["l"]);
    });

    it("runs at most `parallel` jobs per lane (1 by default)", async () => {
      const { store } = await fresh();
      for (const t of ["a", "b", "c", "d"]) await store.add(job(t));
      await store.add(job("x", { lane: "cloud" }));
      expect(await drain(store)).toEqual(["a", "x"]);
      await store.setParallel("local", 3);
      expect(await drain(store)).toEqual(["b", "c"]);
      expect((await store.list()).lanes.local).toMatchObject({ parallel: 3, running: expect.any(Array) });
      await rejects(store.setParallel("local", 0), 400, /^parallel: /);
      await rejects(store.setParallel("local", 1.5), 400, /^parallel: /);
    });

    it("holds a job with `after` until its predecessor ends (any way), letting others pass", async () => {
      const { store } = await fresh();
      await store.setParallel("local", 5);
      const a = await store.add(job("a"));
      await store.add(job("b", { after: a.id }));
      await store.add(job("c"));
      await store.add(job("orphan", { after: "j_gone00000000" }));
      expect(await drain(store)).toEqual(["a", "c", "orphan"]);
      expect(await store.finish(a.id, "w", "failed", "engine said no")).toMatchObject({ status: "failed" });
      expect(await drain(store)).toEqual(["b"]);
    });

    it("two stores on the same database racing never take the same job", async () => {
      const { store: one, url } = await fresh();
      const { store: two } = await fresh(url);
      await one.setParallel("local", 1000);
      for (let i = 0; i < 40; i++) await one.add(job(`j${i}`));
      const grab = async (s: StudioJobStore, owner: string) => {
        const got: string[] = [];
        for (;;) {
          const j = await s.claim(owner, 60_000);
          if (!j) return got;
          got.push(j.id);
        }
      };
      const [a, b] = await Promise.all([grab(one, "one"), grab(two, "two")]);
      const all = [...a, ...b];
      expect(all).toHaveLength(40);
      expect(new Set(all).size).toBe(40);
      expect(a.length).toBeGreaterThan(0);
      expect(b.length).toBeGreaterThan(0);
    });

    it("two processes on the same database racing never take the same job", async () => {
      const { store, url } = await fresh();
      await store.setParallel("local", 1000);
      const ids = new Set<string>();
      for (let i = 0; i < 200; i++) ids.add((await store.add(job(`j${i}`))).id);
      const race = ++n;
      const script = path.join(env.dir, `claimer-${race}.mjs`);
      const go = path.join(env.dir, `claimers-${race}.go`);
      const storeUrl = pathToFileURL(path.resolve("lib/jobs/store.ts")).href;
      await writeFile(
        script,
        [
          'import { access, writeFile } from "node:fs/promises";',
          `import { createJobStore } from ${JSON.stringify(storeUrl)};`,
          "const [url, owner, go] = process.argv.slice(2);",
          "const store = await createJobStore(url);",
          // Both start claiming at the same moment, whatever their start-up took.
          "await writeFile(go + '.' + owner, '');",
          "while (!(await access(go).then(() => true, () => false))) await new Promise((r) => setTimeout(r, 2));",
          "const got = [];",
          // A pause between claims, as a pool does work between them; without it one process's busy wait can lose
          // every turn (SQLite's lock is not fair), which is correct but proves less.
          "for (let j = await store.claim(owner, 60000); j; j = await store.claim(owner, 60000)) {",
          "  got.push(j.id);",
          "  await new Promise((r) => setTimeout(r, 1));",
          "}",
          "await store.close();",
          "process.stdout.write(JSON.stringify(got));",
        ].join("\n"),
      );
      const run = promisify(execFile);
      const children = ["p1", "p2"].map((owner) =>
        run(process.execPath, ["--import", "tsx", script, url, owner, go]),
      );
      const ready = (owner: string) =>
        access(`${go}.${owner}`).then(
          () => true,
          () => false,
        );
      const deadline = Date.now() + 20_000;
      while (!((await ready("p1")) && (await ready("p2")))) {
        if (Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 5));
      }
      // Written even when one never got ready, so no child is left waiting; its failure then shows below.
      await writeFile(go, "");
      const answers = await Promise.all(children);
      const [a, b] = answers.map((r) => JSON.parse(r.stdout) as string[]);
      const all = [...a, ...b];
      expect(all).toHaveLength(200);
      expect(new Set(all)).toEqual(ids);
      const owners = new Set((await store.list()).jobs.map((j) => j.lease_owner));
      expect(owners).toEqual(new Set(["p1", "p2"]));
    });
  });

  describe("cancel, move, retry", () => {
    it("cancels a waiting job at once, asks a running one to stop, refuses an ended one", async () => {
      const { store } = await fresh();
      const run = await store.add(job("run"));
      const wait = await store.add(job("wait"));
      await store.claim("w", 60_000);

      const canceled = await store.cancel(wait.id);
      expect(canceled).toMatchObject({ status: "canceled", cancel_requested: false });
      expect(canceled.finished).not.toBeNull();

      const asked = await store.cancel(run.id);
      expect(asked).toMatchObject({ status: "running", cancel_requested: true, finished: null });
      expect(await store.heartbeat(run.id, "w", 60_000)).toEqual({ held: true, cancel: true });
      expect(await store.finish(run.id, "w", "canceled")).toMatchObject({ status: "canceled" });

      await rejects(store.cancel(wait.id), 409, new RegExp(`^job ${wait.id} has already ended$`));
      await rejects(store.cancel(run.id), 409, /has already ended/);
      await rejects(store.cancel("j_nope"), 404, /j_nope/);
    });

    it("moves a waiting job within its lane and refuses running, ended and unknown jobs", async () => {
      const { store } = await fresh();
      const jobs = [];
      for (const t of ["a", "b", "c", "d"]) jobs.push(await store.add(job(t)));
      await store.add(job("other", { lane: "cloud" }));
      const running = await store.claim("w", 60_000);
      expect(running?.title).toBe("a");
      await store.move(jobs[1].id, 99);
      await store.move(jobs[3].id, 0);
      expect((await store.list()).lanes.local.waiting).toEqual([jobs[3].id, jobs[2].id, jobs[1].id]);
      await rejects(
        store.move(jobs[0].id, 0),
        409,
        new RegExp(`^job ${jobs[0].id} is running: only waiting jobs can be moved$`),
      );
      await store.cancel(jobs[2].id);
      await rejects(store.move(jobs[2].id, 0), 409, /has already ended/);
      await rejects(store.move("j_nope", 0), 404, /j_nope/);
      await rejects(store.move(jobs[1].id, -1), 400, /^index: /);
      await store.finish(jobs[0].id, "w", "succeeded");
      expect(await drain(store, "w", ["local"])).toEqual(["d"]);
    });

    it("retries only an ended job, as a new queued job with the same work", async () => {
      const { store } = await fresh();
      const a = await store.add(job("a", { after: "j_before000000" }));
      await rejects(store.retry(a.id), 409, new RegExp(`^job ${a.id} is queued: only an ended job`));
      await store.claim("w", 60_000);
      await rejects(store.retry(a.id), 409, /is running/);
      await store.update(a.id, "w", { log: "boom" });
      await store.finish(a.id, "w", "failed", "boom");
      const again = await store.retry(a.id);
      expect(again.id).not.toBe(a.id);
      expect(again).toMatchObject({
        kind: "render",
        lane: "local",
        title: "a",
        info: a.info,
        payload: a.payload,
        after: null,
        status: "queued",
        attempts: 0,
        log: [],
        error: null,
      });
      await rejects(store.retry("j_nope"), 404, /j_nope/);
    });
  });

  describe("leases", () => {
    it("a lapsed lease returns the job to the queue; the old holder has lost it", async () => {
      const { store, clock } = await fresh();
      const a = await store.add(job("a"));
      await store.claim("old", 1000);
      await store.update(a.id, "old", { progress: 0.4, step: "s" });
      expect(await store.reclaimExpired()).toEqual([]);
      clock.t += 5000;
      const [back] = await store.reclaimExpired();
      expect(back).toMatchObject({ id: a.id, ...BACK_IN_QUEUE, attempts: 1 });
      expect(await store.heartbeat(a.id, "old", 1000)).toEqual({ held: false, cancel: false });
      expect(await store.finish(a.id, "old", "succeeded")).toBeNull();
      const again = await store.claim("new", 1000);
      expect(again).toMatchObject({ id: a.id, lease_owner: "new", attempts: 2 });
      expect(await store.heartbeat(a.id, "old", 1000)).toEqual({ held: false, cancel: false });
      expect((await store.heartbeat(a.id, "new", 1000)).held).toBe(true);
    });

    it("a heartbeat keeps the lease; the third lapse fails the job", async () => {
      const { store, clock } = await fresh();
      const a = await store.add(job("a"));
      await store.claim("w", 1000);
      clock.t += 800;
      await store.heartbeat(a.id, "w", 1000);
      clock.t += 800;
      expect(await store.reclaimExpired()).toEqual([]);
      for (let attempt = 1; attempt <= 3; attempt++) {
        if (attempt > 1) expect((await store.claim("w", 1000))?.attempts).toBe(attempt);
        const [changed] = await store.reclaimExpired(clock.t + 10_000);
        expect(changed.status).toBe(attempt < 3 ? "queued" : "failed");
      }
      expect(await store.get(a.id)).toMatchObject({
        status: "failed",
        error: "its worker stopped answering three times",
        attempts: 3,
      });
      expect((await store.get(a.id))?.finished).not.toBeNull();
    });

    it("a lapsed job that was asked to cancel ends canceled", async () => {
      const { store, clock } = await fresh();
      const a = await store.add(job("a"));
      await store.claim("w", 1000);
      await store.cancel(a.id);
      clock.t += 5000;
      const [changed] = await store.reclaimExpired();
      expect(changed).toMatchObject({ id: a.id, status: "canceled" });
    });
  });

  describe("workers and release", () => {
    const ad = (owner: string, lanes: string[] = ["builtin", "local"]) => ({
      owner,
      host: "gpu-1",
      pid: 4242,
      kinds: ["render", "ref"],
      lanes,
      down: { cloud: "no API key" },
    });

    it("keeps each worker's latest advert, lists the live ones by owner, forgets a retired one", async () => {
      const { store, url, clock } = await fresh();
      await store.advertise(ad("w2"));
      await store.advertise(ad("w1", ["builtin"]));
      await store.advertise(ad("w1", ["builtin", "cloud"]));
      const listed = await store.workers();
      expect(listed.map((w) => w.owner)).toEqual(["w1", "w2"]);
      expect(listed[0]).toEqual({ ...ad("w1", ["builtin", "cloud"]), seen: expect.any(Number) });
      // Another store on the same database sees them.
      const { store: other } = await fresh(url);
      expect((await other.workers()).map((w) => w.owner)).toEqual(["w1", "w2"]);
      clock.t += 20_000;
      await store.advertise(ad("w2"));
      clock.t += 15_000;
      expect((await store.workers()).map((w) => w.owner)).toEqual(["w2"]);
      expect((await store.workers(60_000)).map((w) => w.owner)).toEqual(["w1", "w2"]);
      await store.retire("w2");
      await store.retire("nobody");
      expect((await store.workers(60_000)).map((w) => w.owner)).toEqual(["w1"]);
    });

    it("refuses an advert with a missing or wrong field", async () => {
      const { store } = await fresh();
      await expect(store.advertise({ ...ad("w"), owner: " " })).rejects.toThrow(/^worker advert: owner: /);
      await expect(store.advertise({ ...ad("w"), pid: -1 })).rejects.toThrow(/^worker advert: pid: /);
      await expect(store.advertise({ ...ad("w"), lanes: "local" as unknown as string[] })).rejects.toThrow(
        /^worker advert: lanes: /,
      );
      expect(await store.workers()).toEqual([]);
    });

    it("release gives a held job back to the queue, in its place, without counting the attempt", async () => {
      const { store } = await fresh();
      const a = await store.add(job("a"));
      const b = await store.add(job("b"));
      const held = await store.claim("w1", 60_000);
      expect(held?.id).toBe(a.id);
      await store.update(a.id, "w1", { progress: 0.5, step: "sampling", steps: 20 });
      expect(await store.release(a.id, "other", "engine down")).toBeNull();
      expect(await store.release("j_nope", "w1", "engine down")).toBeNull();
      const back = await store.release(a.id, "w1", "local engine unreachable");
      expect(back).toMatchObject({ id: a.id, ...BACK_IN_QUEUE, steps: null, attempts: 0, finished: null });
      expect(back?.log.at(-1)).toBe("local engine unreachable; left for another worker");
      expect(await store.heartbeat(a.id, "w1", 1000)).toEqual({ held: false, cancel: false });
      expect(await store.release(a.id, "w1", "again")).toBeNull();
      expect((await store.list()).lanes.local.waiting).toEqual([a.id, b.id]);
      expect(await store.claim("w2", 60_000)).toMatchObject({ id: a.id, lease_owner: "w2", attempts: 1 });
    });

    it("release of a job asked to cancel ends it canceled, and wakes its waiters", async () => {
      const { store } = await fresh();
      const a = await store.add(job("a"));
      await store.claim("w1", 60_000);
      await store.cancel(a.id);
      const waiting = store.waitFor(a.id, new AbortController().signal, 60_000);
      expect(await store.release(a.id, "w1", "engine down")).toMatchObject({ status: "canceled" });
      expect(await waiting).toMatchObject({ id: a.id, status: "canceled" });
    });
  });

  describe("outbox, paid counter", () => {
    it("answers events in order after an id, and prunes those older than 10 minutes", async () => {
      const { store, clock } = await fresh();
      await store.emit("studio.job", { n: 1 });
      await store.emit("studio.take", { n: 2 });
      await store.emit("studio.job", { n: 3 });
      const all = await store.eventsSince(0);
      expect(all.map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
      expect(all.map((e) => e.kind)).toEqual(["studio.job", "studio.take", "studio.job"]);
      expect(await store.eventsSince(all[0].id)).toEqual(all.slice(1));
      expect(await store.eventsSince(all[0].id, 1)).toEqual([all[1]]);
      clock.t += 11 * 60_000;
      await store.emit("studio.job", { n: 4 });
      const left = await store.eventsSince(0);
      expect(left.map((e) => e.data)).toEqual([{ n: 4 }]);
      expect(left[0].id).toBeGreaterThan(all[2].id);
    });

    it("writes a burst of events emitted in one turn, every one in emit order", async () => {
      const { store } = await fresh();
      const burst = Array.from({ length: 1203 }, (_, n) =>
        store.emit(n % 2 ? "studio.take" : "studio.job", { n }),
      );
      await Promise.all(burst);
      await store.emit("studio.job", { n: "after" });
      const all = await store.eventsSince(0, 5000);
      expect(all.map((e) => (e.data as { n: unknown }).n)).toEqual([
        ...Array.from({ length: 1203 }, (_, n) => n),
        "after",
      ]);
      expect(all[1].kind).toBe("studio.take");
    });

    it("counts paid runs, shared by every store on the database, until reset", async () => {
      const { store, url } = await fresh();
      const { store: other } = await fresh(url);
      expect(await store.paid()).toEqual({ count: 0 });
      expect(await store.paidAdd()).toEqual({ count: 1 });
      expect(await other.paidAdd(2)).toEqual({ count: 3 });
      expect(await store.paid()).toEqual({ count: 3 });
      await other.paidReset();
      expect(await store.paid()).toEqual({ count: 0 });
    });
  });
});

describe("libsql only", () => {
  it("applies migrations once, also when two stores open a new database together", async () => {
    const url = dbUrl();
    const locks = processLocks;
    const [a, b] = await Promise.all([createJobStore(url, { locks }), createJobStore(url, { locks })]);
    open.push(a, b);
    await a.add(job("kept"));
    const c = await createJobStore(url, { locks: processLocks });
    open.push(c);
    expect((await c.list()).jobs.map((j) => j.title)).toEqual(["kept"]);
    const client = createClient({ url });
    try {
      expect(await migrate(client)).toEqual([]);
      const ledger = (await client.execute("SELECT id, name FROM __migrations")).rows;
      expect(ledger.map((r) => Number(r.id))).toEqual(MIGRATIONS.map((m) => m.id));
      const version = await client.execute("SELECT value FROM meta WHERE key = 'schema_version'");
      expect(version.rows[0].value).toBe(String(MIGRATIONS[MIGRATIONS.length - 1].id));
      expect(String((await client.execute("PRAGMA journal_mode")).rows[0].journal_mode)).toBe("wal");
      await client.execute("INSERT INTO __migrations (id, name, applied) VALUES (999, 'future', 'x')");
    } finally {
      client.close();
    }
    await expect(createJobStore(url)).rejects.toThrow(/newer Episode Studio \(schema 999/);
  });

  it("applies a later migration to a database that has the earlier ones", async () => {
    const url = dbUrl();
    open.push(await createJobStore(url));
    const client = createClient({ url });
    try {
      const next = [
        ...MIGRATIONS,
        { id: 1000, name: "notes", statements: ["ALTER TABLE jobs ADD note TEXT"] },
      ];
      expect(await migrate(client, next)).toEqual([1000]);
      expect(await migrate(client, next)).toEqual([]);
    } finally {
      client.close();
    }
  });

  it("opens <home>/studio.db once per process, or STUDIO_DB_URL", async () => {
    const home = path.join(env.dir, "home-open");
    const services = { home, env: {}, now: () => new Date(), locks: createLocks() };
    const jobs = jobStoreOpener(services);
    const first = await jobs.open();
    expect(await jobs.open()).toBe(first);
    await access(path.join(home, "studio.db"));
    await first.close();
    const second = await jobs.open();
    expect(second).not.toBe(first);
    await second.close();

    const other = path.join(env.dir, "elsewhere", "x.db");
    const byEnv = await jobStoreOpener({
      ...services,
      env: { STUDIO_DB_URL: pathToFileURL(other).href },
    }).open();
    await access(other);
    await byEnv.close();
    await expect(createJobStore("mysql://127.0.0.1/y")).rejects.toThrow(
      /not supported: use file:<path>, .*postgres:\/\//,
    );
  });
});

describe("commit mode", () => {
  it("sets synchronous=NORMAL on the connection a write uses, a second pooled connection included", async () => {
    const client = createClient({ url: dbUrl() });
    try {
      await client.execute("PRAGMA journal_mode=WAL");
      const mode = async () => Number((await client.execute("PRAGMA synchronous")).rows[0][0]);
      // SQLite's default is FULL (2): one fsync per commit.
      expect(await mode()).toBe(2);
      await relaxCommits(client);
      expect(await mode()).toBe(1);
      // A read while a transaction holds the first connection makes the client open a second one, which starts
      // at FULL again; the next write runs on it once both transactions have ended.
      const first = await client.transaction("write");
      await client.execute("SELECT 1");
      const second = await client.transaction("read");
      expect(Number((await second.execute("PRAGMA synchronous")).rows[0][0])).toBe(2);
      await first.rollback();
      await second.rollback();
      await relaxCommits(client);
      const again = await client.transaction("write");
      expect(Number((await again.execute("PRAGMA synchronous")).rows[0][0])).toBe(1);
      await again.rollback();
    } finally {
      client.close();
    }
  });
});

describe("PostgreSQL only", () => {
  const fresh = opener(() => server.database());

  /** A plain client on a database, closed after `fn`. */
  async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  }

  async function until(what: string, check: () => boolean | Promise<boolean>, ms = 15_000) {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  it("applies migrations once, also when two stores open a new database together", async () => {
    const url = await server.database();
    const [a, b] = await Promise.all([createJobStore(url), createJobStore(url)]);
    open.push(a, b);
    await a.add(job("kept"));
    const c = await createJobStore(url);
    open.push(c);
    expect((await c.list()).jobs.map((j) => j.title)).toEqual(["kept"]);
    await withClient(url, async (client) => {
      const pool = new pg.Pool({ connectionString: url, max: 1 });
      try {
        expect(await migratePg(pool)).toEqual([]);
        const next = [
          ...PG_MIGRATIONS,
          { id: 1000, name: "notes", statements: ["ALTER TABLE jobs ADD note TEXT"] },
        ];
        expect(await migratePg(pool, next)).toEqual([1000]);
        expect(await migratePg(pool, next)).toEqual([]);
      } finally {
        await pool.end();
      }
      const ledger = await client.query("SELECT id FROM __migrations ORDER BY id");
      expect(ledger.rows.map((r) => Number(r.id))).toEqual([...PG_MIGRATIONS.map((m) => m.id), 1000]);
      const version = await client.query("SELECT value FROM meta WHERE key = 'schema_version'");
      expect(version.rows[0].value).toBe("1000");
      await client.query("INSERT INTO __migrations (id, name, applied) VALUES (2000, 'future', 'x')");
    });
    await expect(createJobStore(url)).rejects.toThrow(/newer Episode Studio \(schema 2000/);
  });

  it("keeps a lane's parallelism exact when two stores claim at once", async () => {
    const { store: one, url } = await fresh();
    const { store: two } = await fresh(url);
    await one.setParallel("local", 3);
    for (let i = 0; i < 20; i++) await one.add(job(`l${i}`));
    for (let i = 0; i < 4; i++) await one.add(job(`c${i}`, { lane: "cloud" }));
    const claims = await Promise.all(
      Array.from({ length: 24 }, (_, i) => (i % 2 ? one : two).claim(`w${i % 2}`, 60_000)),
    );
    const got = claims.filter((j) => j !== null);
    expect(got.filter((j) => j.lane === "local")).toHaveLength(3);
    expect(got.filter((j) => j.lane === "cloud")).toHaveLength(1);
    expect(new Set(got.map((j) => j.id)).size).toBe(got.length);
    expect((await one.list()).lanes.local.running).toHaveLength(3);
  });

  it("pushes `events` and `jobs` notices to another store on the database, and wakes its waiters at once", async () => {
    const { store: api, url } = await fresh();
    const { store: worker } = await fresh(url);
    const heard = { events: 0, jobs: 0 };
    const offEvents = api.listen?.("events", () => heard.events++);
    const offJobs = api.listen?.("jobs", () => heard.jobs++);
    expect(offEvents).toBeTypeOf("function");
    await worker.emit("studio.job", { n: 1 });
    await until("an events notice", () => heard.events > 0);
    const a = await worker.add(job("a"));
    await until("a jobs notice for the add", () => heard.jobs > 0);
    await worker.claim("w", 60_000);
    // A poll this slow never fires within the test: only the notice can end the wait.
    const waiting = api.waitFor(a.id, new AbortController().signal, 600_000);
    const before = heard.jobs;
    await worker.finish(a.id, "w", "succeeded");
    expect(await waiting).toMatchObject({ id: a.id, status: "succeeded" });
    await until("a jobs notice for the end", () => heard.jobs > before);
    offEvents?.();
    offJobs?.();
    const quiet = heard.events;
    await worker.emit("studio.job", { n: 2 });
    await worker.emit("studio.job", { n: 3 });
    // The api store's own listener is gone; a second store proves the notice was sent.
    const { store: third } = await fresh(url);
    let thirdHeard = 0;
    third.listen?.("events", () => thirdHeard++);
    await worker.emit("studio.job", { n: 4 });
    await until("the third store's notice", () => thirdHeard > 0);
    expect(heard.events).toBe(quiet);
  });

  it("sends a `jobs` notice for a lane resumed or widened, a job canceled or released, never for a claim", async () => {
    const { store: api, url } = await fresh();
    const { store: worker } = await fresh(url);
    const a = await worker.add(job("a"));
    const b = await worker.add(job("b"));
    let heard = 0;
    api.listen?.("jobs", () => heard++);
    const expectNotice = async (what: string, write: () => Promise<unknown>) => {
      const before = heard;
      await write();
      await until(what, () => heard > before);
    };
    await expectNotice("a resumed lane", () => worker.pause("local", false));
    await expectNotice("a widened lane", () => worker.setParallel("local", 2));
    await expectNotice("a waiting job canceled", () => worker.cancel(b.id));
    // The claim comes between two notices; only the release's may arrive after the marker below.
    await worker.claim("w", 60_000);
    await expectNotice("a release", () => worker.release(a.id, "w", "engine down"));
    const settled = heard;
    await worker.claim("w", 60_000);
    await expectNotice("a marker after the claim", () => worker.pause("cloud", false));
    expect(heard).toBe(settled + 1);
  });

  it("listens again when its listening connection drops", async () => {
    const { store: api, url } = await fresh();
    const { store: worker } = await fresh(url);
    let heard = 0;
    api.listen?.("events", () => heard++);
    const listeners = (c: pg.Client) =>
      c
        .query(
          "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()",
        )
        .then((r) => r.rows.map((row) => Number(row.pid)));
    await withClient(url, async (c) => {
      const before = await listeners(c);
      expect(before).toHaveLength(2);
      await c.query("SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid", [before]);
      await until("both stores listening again", async () => {
        const now = await listeners(c);
        return now.length === 2 && now.every((pid) => !before.includes(pid));
      });
    });
    const seen = heard;
    await worker.emit("studio.job", { n: 1 });
    await until("a notice after the reconnect", () => heard > seen);
  });

  it("says what it expected of a bad URL, and names an unreachable server without its password", async () => {
    await expect(createJobStore("postgres://")).rejects.toThrow(
      /is not a PostgreSQL URL: expected postgres:\/\/user:password@host:port\/database/,
    );
    await expect(createJobStore("postgresql://127.0.0.1")).rejects.toThrow(/is not a PostgreSQL URL/);
    const closed = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, "127.0.0.1", () => {
        const port = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(port));
      });
    });
    const err = await createJobStore(
      `postgres://studio:s3cret@127.0.0.1:${closed}/jobs?sslmode=disable`,
    ).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toMatch(
      new RegExp(`^cannot open the job database postgres://studio@127.0.0.1:${closed}/jobs: `),
    );
    expect(err?.message).not.toMatch(/s3cret/);
    // What logs show of a database URL.
    expect(shownDatabaseUrl("postgres://u:pw@db.lan:5432/studio?sslpassword=x")).toBe(
      "postgres://u@db.lan:5432/studio",
    );
    expect(shownDatabaseUrl("postgres://u:pw@[bad/studio")).toBe("postgres://[bad/studio");
    expect(shownDatabaseUrl("libsql://db.lan?authToken=t")).toBe("libsql://db.lan");
    expect(shownDatabaseUrl("file:/srv/studio.db")).toBe("file:/srv/studio.db");
  });

  it("is what STUDIO_DB_URL names when it is a postgres:// URL", async () => {
    const url = await server.database();
    const store = await jobStoreOpener({
      home: path.join(env.dir, "home-pg"),
      env: { STUDIO_DB_URL: url.replace(/^postgres:/, "postgresql:") },
      now: () => new Date(),
      locks: createLocks(),
    }).open();
    open.push(store);
    await store.add(job("via env"));
    expect(store.listen).toBeTypeOf("function");
    await withClient(url, async (c) => {
      expect((await c.query("SELECT title FROM jobs")).rows).toEqual([{ title: "via env" }]);
    });
    await expect(access(path.join(env.dir, "home-pg", "studio.db"))).rejects.toThrow();
  });
});
