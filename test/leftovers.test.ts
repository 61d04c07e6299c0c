// Crash leftovers and dead owners: the temporary names and the owner each encodes, the sweep (dead and live pids,
// jobs active or not, look-alike names kept, links not followed), owner ids, and the immediate give-back of jobs
// whose owner process on this host has ended (store and pool).
import { spawn } from "node:child_process";
import { mkdir, readdir, stat, symlink, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobFolders, sweepAtStart } from "../lib/jobs/leftover-sweep.ts";
import { newOwner, ownerGone, parseOwner, pidAlive, thisProcess } from "../lib/jobs/owner.ts";
import { createJobStore, type StudioJobStore } from "../lib/jobs/store.ts";
import type { Job } from "../lib/jobs/types.ts";
import { createCaches } from "../lib/store/caches.ts";
import { type LeftoverRules, sweepLeftovers } from "../lib/store/leftovers.ts";
import { assembleWorkPath, jobWorkPath, leftoverOwner, tempName, tempPath } from "../lib/store/temp-names.ts";
import { plainKind } from "../workers/jobs/index.ts";
import { WorkerPool } from "../workers/pool.ts";
import { makeTestEnv, quietWorkerServices, type TestEnv } from "./support/ctx.ts";
import { MemoryJobStore } from "./support/memory-jobs.ts";

let env: TestEnv;
/** The pid of a process that has ended (a real child, waited for). */
let deadPid: number;
const stores: StudioJobStore[] = [];

beforeAll(async () => {
  env = await makeTestEnv();
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.once("exit", resolve));
  deadPid = child.pid ?? 0;
  expect(deadPid).toBeGreaterThan(0);
  expect(pidAlive(deadPid)).toBe(false);
});
afterAll(async () => {
  for (const s of stores) await s.close().catch(() => {});
  await env.cleanup();
});

const livePid = () => process.ppid;
let dirs = 0;
const freshDir = async () => {
  const dir = path.join(env.dir, `sweep-${++dirs}`);
  await mkdir(dir, { recursive: true });
  return dir;
};
const names = async (dir: string) => (await readdir(dir)).sort();
const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

function rules(more: Partial<LeftoverRules> = {}): LeftoverRules {
  return {
    pidAlive,
    jobActive: async () => false,
    self: { pid: process.pid, started: Math.floor(performance.timeOrigin) },
    quietMs: 0,
    now: Date.now,
    ...more,
  };
}

describe("temporary names", () => {
  it("tempName and tempPath encode this process's pid; every maker's name parses back to its owner", () => {
    expect(tempName("shotlist.json")).toMatch(
      new RegExp(`^\\.shotlist\\.json\\.${process.pid}\\.[0-9a-f]{8}\\.tmp$`),
    );
    const withExt = tempPath("/x/y/sh010_t01.jpg", ".png");
    expect(path.dirname(withExt)).toBe("/x/y");
    expect(path.basename(withExt)).toMatch(/^\.sh010_t01\.jpg\.\d+\.[0-9a-f]{8}\.tmp\.png$/);
    expect(() => tempName("a", "png")).toThrow(/not a file extension/);
    for (const made of [
      tempName("cut.json"),
      path.basename(withExt),
      path.basename(assembleWorkPath("/x")),
    ]) {
      expect(leftoverOwner(made), made).toEqual({ pid: process.pid });
    }
    const work = path.basename(jobWorkPath("/x", "sh010_t01", "j_0123456789ab"));
    expect(work).toBe(".render_sh010_t01_j_0123456789ab");
    expect(leftoverOwner(work)).toEqual({ job: "j_0123456789ab" });
    // An id of another shape is made file-safe and never swept by job.
    const odd = path.basename(jobWorkPath("/x", "sh010_t01", "a/b:c"));
    expect(odd).toBe(".render_sh010_t01_a_b_c");
    expect(leftoverOwner(odd)).toBeNull();
  });

  it("earlier versions' download and keyframe temporaries are recognised by their pid", () => {
    expect(leftoverOwner(".sh010_t01.mp4.4242.part")).toEqual({ pid: 4242 });
    expect(leftoverOwner(".first.4242.cut.png")).toEqual({ pid: 4242 });
  });

  it("names that only look similar belong to nobody", () => {
    for (const name of [
      "shotlist.json.123.deadbeef.tmp", // not hidden
      ".shotlist.json.123.deadbee.tmp", // 7 hex
      ".shotlist.json.123.DEADBEEF.tmp", // upper case
      ".shotlist.json.deadbeef.tmp", // no pid (the builtin engine's old names)
      ".shotlist.json.0.deadbeef.tmp", // pid 0
      ".shotlist.json.12345678901.deadbeef.tmp", // not a pid
      ".shotlist.json.123.deadbeef.tmpx",
      ".shotlist.json.123.deadbeef.tmp.toolongext",
      ".shotlist.json.123.deadbeef.tmp.",
      ".assemble-123-deadbee",
      ".assemble-123-deadbeef.old",
      ".assemble-answer-j_0123456789ab.json",
      ".render_sh010_t01_j_0123456789a",
      ".render_sh010_j_0123456789ab",
      ".render_sh010_t01_j_0123456789ab.bak",
      ".sh010.mp4.part",
      ".first.x.cut.png",
      "sh010_t01.mp4",
      ".DS_Store",
    ]) {
      expect(leftoverOwner(name), name).toBeNull();
    }
  });
});

describe("the sweep", () => {
  it("removes leftovers of dead pids and ended jobs, keeps live owners' and everything else", async () => {
    const ep = await freshDir();
    const shotlist = path.join(ep, "shotlist");
    const shot = path.join(ep, "renders_proxy", "sh010");
    await mkdir(shotlist, { recursive: true });
    await mkdir(shot, { recursive: true });
    const dead = tempPath(path.join(shotlist, "shotlist_proxy.json"), "", deadPid);
    const live = tempPath(path.join(shotlist, "shots.json"), "", livePid());
    const mine = tempPath(path.join(shotlist, "shotlist.json"));
    const mineBefore = tempPath(path.join(shotlist, "shotlist.x.json"));
    await Promise.all([dead, live, mine, mineBefore].map((f) => writeFile(f, "")));
    // Same pid as this process, written before it started: an earlier process that had the same pid.
    const past = new Date(performance.timeOrigin - 60_000);
    await utimes(mineBefore, past, past);
    const assemble = assembleWorkPath(path.join(ep, "renders_proxy"), deadPid);
    await mkdir(assemble);
    await writeFile(path.join(assemble, "clips.ffconcat"), "x");
    const partial = tempPath(path.join(ep, "renders_proxy", "ep01_proxy.mp4"), "", deadPid);
    await writeFile(partial, "half");
    const endedWork = jobWorkPath(shot, "sh010_t01", "j_00000000000a");
    const activeWork = jobWorkPath(shot, "sh010_t02", "j_00000000000b");
    for (const d of [endedWork, activeWork]) {
      await mkdir(path.join(d, "frames"), { recursive: true });
      await writeFile(path.join(d, "sh010_t01.mp4"), "x");
    }
    const lookAlikes = [
      path.join(shotlist, `.shots.json.${deadPid}.deadbee.tmp`),
      path.join(shotlist, `shots.json.${deadPid}.deadbeef.tmp`),
      path.join(shot, ".render_sh010_t03_j_zz"),
      path.join(shot, "sh010_t01.mp4"),
      path.join(ep, "renders_proxy", ".assemble-answer-j_00000000000a.json"),
    ];
    for (const f of lookAlikes) await writeFile(f, "keep");

    const asked: string[] = [];
    const removed = await sweepLeftovers(
      [{ dir: ep, depth: 5 }],
      rules({
        jobActive: async (id) => {
          asked.push(id);
          return id === "j_00000000000b";
        },
      }),
    );
    expect(removed.sort()).toEqual([dead, mineBefore, assemble, partial, endedWork].sort());
    for (const gone of removed) expect(await exists(gone), gone).toBe(false);
    for (const kept of [live, mine, activeWork, ...lookAlikes]) expect(await exists(kept), kept).toBe(true);
    expect(asked.sort()).toEqual(["j_00000000000a", "j_00000000000b"]);
  });

  it("lists no deeper than asked, never through a link, and keeps recent leftovers during a quiet period", async () => {
    const root = await freshDir();
    const deep = path.join(root, "a", "b", "c");
    await mkdir(deep, { recursive: true });
    const tooDeep = tempPath(path.join(deep, "x.json"), "", deadPid);
    await writeFile(tooDeep, "");
    const outside = await freshDir();
    const behindLink = tempPath(path.join(outside, "y.json"), "", deadPid);
    await writeFile(behindLink, "");
    await symlink(outside, path.join(root, "linked"));
    const fresh = tempPath(path.join(root, "fresh.json"), "", deadPid);
    const old = tempPath(path.join(root, "old.json"), "", deadPid);
    await writeFile(fresh, "");
    await writeFile(old, "");
    const longAgo = new Date(Date.now() - 3_600_000);
    await utimes(old, longAgo, longAgo);

    expect(await sweepLeftovers([{ dir: root, depth: 3 }], rules({ quietMs: 60_000 }))).toEqual([old]);
    expect(await exists(tooDeep)).toBe(true);
    expect(await exists(behindLink)).toBe(true);
    expect(await exists(fresh)).toBe(true);
    // Without a quiet period (one host), and deep enough: the rest goes, the linked folder's content stays.
    expect((await sweepLeftovers([{ dir: root, depth: 4 }], rules())).sort()).toEqual(
      [fresh, tooDeep].sort(),
    );
    expect(await exists(behindLink)).toBe(true);
    expect(await names(root)).toEqual(["a", "linked"]);
  });

  it("a job's folders: pass folder, take folder and keyframe folder from its info", () => {
    expect(jobFolders({ info: { ep: "/s/ep01", pass: "proxy", shot: "sh 010" } })).toEqual([
      { dir: path.join("/s/ep01", "renders_proxy"), depth: 1 },
      { dir: path.join("/s/ep01", "renders_proxy", "sh_010"), depth: 1 },
      { dir: path.join("/s/ep01", "refs", "shots", "sh_010"), depth: 1 },
    ]);
    expect(jobFolders({ info: { ep: "/s/ep01", pass: "final" } })).toEqual([
      { dir: path.join("/s/ep01", "renders"), depth: 1 },
    ]);
    expect(jobFolders({ info: { ep: "relative/ep01", pass: "final" } })).toEqual([]);
    expect(jobFolders({ info: {} })).toEqual([]);
  });
});

describe("owners", () => {
  const self = thisProcess();

  it("an owner id names host, pid and start, and parses back", () => {
    const id = newOwner();
    expect(id.startsWith(`${os.hostname()}:${process.pid}:t`)).toBe(true);
    expect(parseOwner(id)).toEqual(self);
    expect(newOwner()).not.toBe(id);
    // Ids written before the start was recorded, and a host name made of digits.
    expect(parseOwner("box:123:0a1b2c3d")).toEqual({ host: "box", pid: 123, started: null });
    expect(parseOwner("10.0.0.1:77:t1:0a1b2c3d")).toEqual({ host: "10.0.0.1", pid: 77, started: 1 });
    for (const odd of ["w1", "test-worker", "box:0:0a1b2c3d", "box:12:zz", ":12:0a1b2c3d"]) {
      expect(parseOwner(odd), odd).toBeNull();
    }
  });

  it("is gone only for a process of this host that ended (or an earlier one with this pid)", () => {
    const here = (pid: number, started: number | null = 1) => newOwner({ host: self.host, pid, started });
    expect(ownerGone(here(deadPid), self)).toBe(true);
    expect(ownerGone(here(livePid()), self)).toBe(false);
    expect(ownerGone(newOwner(), self)).toBe(false);
    expect(ownerGone(here(process.pid, (self.started ?? 0) - 5000), self)).toBe(true);
    expect(ownerGone(here(process.pid, null), self)).toBe(false);
    expect(ownerGone(newOwner({ host: `${self.host}-other`, pid: deadPid, started: 1 }), self)).toBe(false);
    expect(ownerGone("test-worker", self)).toBe(false);
  });
});

describe("jobs of an owner that has ended", () => {
  it("the store gives them back at once, whatever their lease; other owners' jobs stay", async () => {
    const clock = { t: Date.UTC(2030, 0, 1) };
    const store = await createJobStore(pathToFileURL(path.join(env.dir, "reclaim.db")).href, {
      now: () => clock.t++,
    });
    stores.push(store);
    const add = (title: string) =>
      store.add({ kind: "render", lane: `lane-${title}`, title, info: {}, payload: null });
    const a = await add("a");
    const b = await add("b");
    const c = await add("c");
    await store.claim("dead", 3_600_000, ["lane-a"]);
    await store.claim("alive", 3_600_000, ["lane-b"]);
    await store.claim("dead", 3_600_000, ["lane-c"]);
    await store.cancel(c.id);
    expect(await store.reclaimExpired()).toEqual([]);
    const changed = await store.reclaimExpired(undefined, (owner) => owner === "dead");
    expect(changed.map((j) => [j.id, j.status]).sort()).toEqual(
      [
        [a.id, "queued"],
        [c.id, "canceled"],
      ].sort(),
    );
    expect(await store.get(a.id)).toMatchObject({
      status: "queued",
      lease_owner: null,
      attempts: 1,
      log: ["its worker process ended; queued again"],
    });
    expect(await store.get(b.id)).toMatchObject({ status: "running", lease_owner: "alive" });
    // The third start whose owner died fails the job for good.
    for (let attempt = 2; attempt <= 3; attempt++) {
      expect((await store.claim("dead", 3_600_000, ["lane-a"]))?.attempts).toBe(attempt);
      await store.reclaimExpired(undefined, (owner) => owner === "dead");
    }
    expect(await store.get(a.id)).toMatchObject({
      status: "failed",
      error: "its worker process ended three times",
    });
  });

  it("a starting pool runs a job its dead predecessor on this host left running, long before the lease lapses", async () => {
    const store = new MemoryJobStore();
    const deadOwner = newOwner({ host: os.hostname(), pid: deadPid, started: 1 });
    const otherHost = newOwner({ host: `${os.hostname()}-elsewhere`, pid: deadPid, started: 1 });
    const orphan = await store.add({
      kind: "render",
      lane: "builtin",
      title: "orphan",
      info: {},
      payload: null,
    });
    const foreign = await store.add({
      kind: "render",
      lane: "local",
      title: "foreign",
      info: {},
      payload: null,
    });
    await store.claim(deadOwner, 3_600_000, ["builtin"]);
    await store.claim(otherHost, 3_600_000, ["local"]);
    const ran: string[] = [];
    const swept: [string, string][] = [];
    const pool = new WorkerPool({
      services: quietWorkerServices(env.home),
      store,
      kinds: {
        render: plainKind(async (job) => {
          ran.push(job.id);
        }),
      },
      leaseMs: 3_600_000,
      pollMs: 20,
      emit() {},
      afterJobs: async (jobs: Job[]) => {
        for (const j of jobs) swept.push([j.id, j.status]);
      },
    });
    try {
      pool.start();
      const until = Date.now() + 5000;
      while ((await store.get(orphan.id))?.status !== "succeeded") {
        if (Date.now() > until)
          throw new Error(`the orphan was not run: ${JSON.stringify(await store.get(orphan.id))}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(ran).toEqual([orphan.id]);
      expect(await store.get(orphan.id)).toMatchObject({ attempts: 2 });
      expect(swept).toEqual([
        [orphan.id, "queued"],
        [orphan.id, "succeeded"],
      ]);
      // Another host's job waits for its lease: this host cannot know whether that process lives.
      expect(await store.get(foreign.id)).toMatchObject({ status: "running", lease_owner: otherHost });
    } finally {
      await pool.stop({ graceful: false, timeoutMs: 500 });
    }
  });
});

describe("a job's leftovers when it ends", () => {
  it("a job that fails for good, and one whose handler left its work folder, keep no work folder", async () => {
    const shows = path.join(env.dir, "ended-shows");
    const ep = path.join(shows, "show", "ep01");
    const shotDir = path.join(ep, "renders_proxy", "sh010");
    await mkdir(shotDir, { recursive: true });
    const services = quietWorkerServices(path.join(env.dir, "ended-home"), { STUDIO_ROOTS: shows });
    const store = await createJobStore(pathToFileURL(path.join(env.dir, "ended.db")).href);
    stores.push(store);
    const info = { ep, pass: "proxy" as const, shot: "sh010" };
    const doomed = await store.add({ kind: "render", lane: "builtin", title: "doomed", info, payload: null });
    const deadOwner = newOwner({ host: os.hostname(), pid: deadPid, started: 1 });
    // Two earlier starts whose process died; the third is running now under a dead owner.
    for (let i = 0; i < 3; i++) {
      await store.claim(deadOwner, 3_600_000);
      if (i < 2) await store.reclaimExpired(undefined, (o) => o === deadOwner);
    }
    const doomedWork = jobWorkPath(shotDir, "sh010_t01", doomed.id);
    await mkdir(doomedWork);
    await writeFile(path.join(doomedWork, "sh010_t01.mp4"), "half");
    const deadTemp = tempPath(path.join(shotDir, "sh010_t01.jpg"), ".png", deadPid);
    await writeFile(deadTemp, "");

    const untidy = await store.add({ kind: "render", lane: "builtin", title: "untidy", info, payload: null });
    const untidyWork = jobWorkPath(shotDir, "sh010_t02", untidy.id);
    const pool = new WorkerPool({
      services,
      store,
      kinds: {
        render: plainKind(async (job) => {
          await mkdir(jobWorkPath(shotDir, "sh010_t02", job.id));
        }),
      },
      leaseMs: 3_600_000,
      pollMs: 20,
      emit() {},
    });
    try {
      pool.start();
      const until = Date.now() + 10_000;
      while (
        (await exists(doomedWork)) ||
        (await exists(untidyWork)) ||
        (await store.get(untidy.id))?.status !== "succeeded"
      ) {
        if (Date.now() > until) throw new Error(`leftovers stayed: ${(await readdir(shotDir)).join(", ")}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      await pool.stop({ graceful: true, timeoutMs: 2000 });
    }
    expect(await store.get(doomed.id)).toMatchObject({
      status: "failed",
      error: "its worker process ended three times",
    });
    expect(await exists(deadTemp)).toBe(false);
    expect(await names(shotDir)).toEqual([]);
  });

  it("the start-up sweep covers the settings folder, the episodes of jobs and of the roots, and show folders", async () => {
    const shows = path.join(env.dir, "start-shows");
    const home = path.join(env.dir, "start-home");
    const found = path.join(shows, "show", "ep01");
    const jobOnly = path.join(shows, "show", "ep02");
    const outside = path.join(env.dir, "outside-ep");
    for (const d of [found, jobOnly, outside]) await mkdir(path.join(d, "shotlist"), { recursive: true });
    await writeFile(path.join(shows, "show", "series.json"), JSON.stringify({ series: "s" }));
    await writeFile(path.join(found, "ep01.md"), "# ep01\n");
    await mkdir(path.join(shows, "show", "refs", "_takes", "k"), { recursive: true });
    await mkdir(path.join(home, "default", "studio"), { recursive: true });
    const dead = (file: string) => tempPath(file, "", deadPid);
    const swept = [
      dead(path.join(home, "default", "studio", "settings.json")),
      dead(path.join(found, "shotlist", "shotlist.json")),
      dead(path.join(jobOnly, "shotlist", "shots.json")),
      dead(path.join(shows, "show", "refs", "_takes", "k", "a.png")),
      dead(path.join(shows, "show", "series.json")),
    ];
    const kept = dead(path.join(outside, "shotlist", "shotlist.json"));
    for (const f of [...swept, kept]) await writeFile(f, "");
    const store = await createJobStore(pathToFileURL(path.join(env.dir, "start.db")).href);
    stores.push(store);
    for (const ep of [jobOnly, outside])
      await store.add({ kind: "render", lane: "builtin", title: "t", info: { ep }, payload: null });
    const removed = await sweepAtStart({ home, env: { STUDIO_ROOTS: shows }, caches: createCaches() }, store);
    expect(removed.sort()).toEqual(swept.sort());
    // An episode outside the roots is never touched, even when a job names it.
    expect(await exists(kept)).toBe(true);
  });
});
