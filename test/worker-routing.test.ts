// Routing across workers: the reach decisions (which lanes to claim, shares of a lane, when to hand a job off) and
// two pools over one in-memory store whose engines answer or not, as the probes say.
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { BackendUnreachable } from "../lib/backends/http.ts";
import { ComfyDownError } from "../lib/engines/comfyui/http.ts";
import { defineJobKind } from "../lib/jobs/kinds.ts";
import type { Job, JobKind, WorkerAd } from "../lib/jobs/types.ts";
import { plainKind } from "../workers/jobs/index.ts";
import { WorkerPool } from "../workers/pool.ts";
import {
  claimLanes,
  engineUnreachable,
  laneShare,
  othersReach,
  reachMsFromEnv,
  reachOf,
} from "../workers/reach.ts";
import { quietWorkerServices } from "./support/ctx.ts";
import { MemoryJobStore } from "./support/memory-jobs.ts";

const ad = (owner: string, lanes: string[], down: Record<string, string> = {}): WorkerAd => ({
  owner,
  host: "h",
  pid: 1,
  kinds: ["render"],
  lanes,
  down,
  seen: 0,
});

describe("reach decisions", () => {
  it("reachOf: builtin always reached; a lane a job found unreachable stays down whatever the probe said", () => {
    expect(reachOf({ local: null, router: "no API key is set" }, new Map())).toEqual({
      lanes: ["builtin", "local"],
      down: { router: "no API key is set" },
    });
    expect(reachOf({ local: null, builtin: "?" }, new Map([["local", "refused"]]))).toEqual({
      lanes: ["builtin"],
      down: { local: "refused" },
    });
    // A lane not among the configured ones but marked down is said down too.
    expect(reachOf({}, new Map([["deployment:x", "gone"]]))).toEqual({
      lanes: ["builtin"],
      down: { "deployment:x": "gone" },
    });
  });

  it("claimLanes: alone, every lane (as on one machine), even one whose engine is down", () => {
    const mine = { lanes: ["builtin"], down: { local: "refused" } };
    expect(claimLanes({ mine, others: [], known: ["local"], parallel: {}, holding: {} })).toBeUndefined();
    expect(
      claimLanes({ mine, others: [], known: ["local"], parallel: {}, holding: {}, only: ["local"] }),
    ).toEqual(["local"]);
  });

  it("claimLanes: leaves a lane it cannot reach to the worker that reaches it, keeps lanes nobody reaches", () => {
    const mine = { lanes: ["builtin"], down: { local: "refused" } };
    const lanes = claimLanes({
      mine,
      others: [ad("b", ["builtin", "local"])],
      known: ["builtin", "local", "cloud", "router", "deployment:z", "test"],
      parallel: { builtin: 4 },
      holding: {},
    });
    expect(lanes).toEqual(["builtin", "cloud", "deployment:z", "router", "test"]);
    // Its own lane setting still narrows the set.
    expect(
      claimLanes({
        mine,
        others: [ad("b", ["builtin", "local"])],
        known: ["builtin", "local", "cloud"],
        parallel: {},
        holding: {},
        only: ["local", "cloud"],
      }),
    ).toEqual(["cloud"]);
  });

  it("claimLanes: a lane several workers reach is shared: each takes its part of the lane's parallel", () => {
    const mine = { lanes: ["builtin", "local"], down: {} };
    const others = [ad("b", ["builtin", "local"]), ad("c", ["builtin", "local"])];
    const base = { mine, others, known: ["builtin", "local"], parallel: { local: 3, builtin: 1 } };
    expect(claimLanes({ ...base, holding: {} })).toBeUndefined();
    expect(claimLanes({ ...base, holding: { local: 1 } })).toEqual(["builtin"]);
    expect(claimLanes({ ...base, holding: { local: 1, builtin: 1 } })).toEqual([]);
    expect(laneShare(3, 3)).toBe(1);
    expect(laneShare(4, 3)).toBe(2);
    expect(laneShare(1, 3)).toBe(1);
    expect(laneShare(5, 0)).toBe(5);
  });

  it("othersReach and engineUnreachable", () => {
    expect(othersReach("local", [ad("b", ["builtin"], { local: "x" })])).toBe(false);
    expect(othersReach("local", [ad("b", ["builtin", "local"])])).toBe(true);
    const down = new ComfyDownError("http://127.0.0.1:9", "ECONNREFUSED", "connection refused");
    expect(engineUnreachable(down)).toBe("ComfyUI at http://127.0.0.1:9 is down (connection refused)");
    expect(engineUnreachable(new Error("wrapped", { cause: down }))).toBe(down.message);
    expect(engineUnreachable(new BackendUnreachable("http://x", "http://x refused the connection"))).toBe(
      "http://x refused the connection",
    );
    expect(engineUnreachable(new Error("ComfyUI refused the prompt"))).toBeNull();
    expect(engineUnreachable("down")).toBeNull();
  });

  it("STUDIO_REACH_MS: a whole number from 50 to 60000 ms, 5 s when unset; anything else is refused by name", () => {
    expect(reachMsFromEnv({})).toBe(5_000);
    expect(reachMsFromEnv({ STUDIO_REACH_MS: " 200 " })).toBe(200);
    expect(() => reachMsFromEnv({ STUDIO_REACH_MS: "10" })).toThrow(
      /STUDIO_REACH_MS: 10 is not a whole number of milliseconds from 50 to 60000/,
    );
    expect(() => reachMsFromEnv({ STUDIO_REACH_MS: "soon" })).toThrow(/STUDIO_REACH_MS: soon/);
    expect(() => reachMsFromEnv({ STUDIO_REACH_MS: "60001" })).toThrow(/STUDIO_REACH_MS: 60001/);
  });
});

const services = quietWorkerServices("/nonexistent");

const pools: WorkerPool[] = [];
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.stop({ graceful: false, timeoutMs: 500 });
});

async function waitFor(cond: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 5));
  }
}

interface Engine {
  /** Whether its `local` engine answers a job. */
  local: boolean;
  /** Whether its probe says so (a probe can be a round behind the engine); the engine's state when absent. */
  probe?: boolean;
  /** A job waits for this before it finds the engine down. */
  gate?: Promise<void>;
}

/** A worker whose `local` engine answers as `up` says; its jobs record who ran them. */
function worker(store: MemoryJobStore, owner: string, up: Engine, ran: string[]) {
  const kind = defineJobKind({
    payload: z.object({}).passthrough(),
    async run(job, ctx) {
      if (!up.local) {
        await up.gate;
        // From now on a probe sees what the job saw.
        up.probe = false;
        const err = new ComfyDownError("http://127.0.0.1:9", "ECONNREFUSED", "connection refused");
        await ctx.handOff(err);
        throw err;
      }
      ran.push(`${job.id} ${owner}`);
      await new Promise((r) => setTimeout(r, 30));
    },
  });
  const pool = new WorkerPool({
    services,
    store,
    kinds: { render: kind, sleep: plainKind(async () => {}) },
    owner,
    pollMs: 10,
    reachMs: 50,
    leaseMs: 3_000,
    probe: async () => ({ local: (up.probe ?? up.local) ? null : "connection refused", builtin: null }),
    emit() {},
  });
  pools.push(pool);
  return pool;
}

const add = (store: MemoryJobStore, lane = "local") =>
  store.add({ kind: "render" as JobKind, lane, title: "r", info: {}, payload: {} });

describe("pools over one store", () => {
  it("advertise their reach, share a lane, and a stopped pool retires its advert", async () => {
    const store = new MemoryJobStore();
    await store.setParallel("local", 2);
    const ran: string[] = [];
    const a = worker(store, "a", { local: true }, ran);
    const b = worker(store, "b", { local: true }, ran);
    a.start();
    b.start();
    await waitFor(async () => (await store.workers()).length === 2);
    expect((await store.workers()).map((w) => [w.owner, w.lanes, w.kinds])).toEqual([
      ["a", ["builtin", "local"], ["render", "sleep"]],
      ["b", ["builtin", "local"], ["render", "sleep"]],
    ]);
    const jobs = await Promise.all(Array.from({ length: 8 }, () => add(store)));
    await waitFor(async () =>
      (await Promise.all(jobs.map((j) => store.get(j.id)))).every((j) => j?.status === "succeeded"),
    );
    expect(new Set(ran.map((line) => line.split(" ")[1]))).toEqual(new Set(["a", "b"]));
    expect(ran).toHaveLength(8);
    await a.stop({ graceful: true });
    expect((await store.workers()).map((w) => w.owner)).toEqual(["b"]);
  });

  it("a job that finds its engine down goes to the worker that reaches it; that lane then stays with it", async () => {
    const store = new MemoryJobStore();
    const ran: string[] = [];
    // A's engine is gone but its probe has not seen it yet: the first job it takes hits the dead engine, once B is up.
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const a = worker(store, "a", { local: false, probe: true, gate }, ran);
    a.start();
    const first = await add(store);
    await waitFor(() => store.claims.some((c) => c.owner === "a"));
    const b = worker(store, "b", { local: true }, ran);
    b.start();
    await waitFor(async () => (await store.workers()).length === 2);
    open();
    const jobs = [first, ...(await Promise.all(Array.from({ length: 3 }, () => add(store))))];
    await waitFor(async () =>
      (await Promise.all(jobs.map((j) => store.get(j.id)))).every((j) => j?.status === "succeeded"),
    );
    expect(ran.map((line) => line.split(" ")[1])).toEqual(["b", "b", "b", "b"]);
    for (const j of jobs) expect((await store.get(j.id))?.attempts).toBe(1);
    // A took the first job once, handed it off, and took no local job after.
    expect(store.claims.filter((c) => c.owner === "a").map((c) => c.id)).toEqual([first.id]);
    expect((await store.get(first.id))?.log.join("\n")).toMatch(/left for another worker/);
    const ads = await store.workers();
    expect(ads.find((w) => w.owner === "a")?.down).toEqual({
      local: "ComfyUI at http://127.0.0.1:9 is down (connection refused)",
    });
  });

  it("alone, a worker whose engine is down fails the job with the engine's message", async () => {
    const store = new MemoryJobStore();
    const ran: string[] = [];
    const a = worker(store, "a", { local: false }, ran);
    a.start();
    await waitFor(async () => (await store.workers()).length === 1);
    const job = await add(store);
    await waitFor(async () => (await store.get(job.id))?.status === "failed");
    const ended = (await store.get(job.id)) as Job;
    expect(ended.error).toBe("ComfyUI at http://127.0.0.1:9 is down (connection refused)");
    expect(ran).toEqual([]);
  });
});
