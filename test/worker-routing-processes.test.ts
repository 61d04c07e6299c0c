// Two worker processes over one job database (a libsql file, then PostgreSQL), each with its own ComfyUI double as
// its `local` engine: renders on `local` run on both; with one double gone, the job that hit it goes to the other
// worker and that worker takes `local` alone; with one worker left and its engine down, the job fails as it says.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobDatabaseUrl } from "../lib/jobs/database-url.ts";
import type { JobStore } from "../lib/jobs/types.ts";
import { type ComfyDouble, DEFAULT_MODELS, startComfyDouble } from "./support/comfy-double/index.ts";
import { png, pointAtDouble, TWO_SHOTS } from "./support/comfy-studio.ts";
import { allEnded } from "./support/jobs.ts";
import { until } from "./support/poll.ts";
import { startPostgres, type TestPostgres } from "./support/postgres.ts";
import { spawnWorker, startWorker, type Watched } from "./support/processes.ts";
import { seriesS } from "./support/series-s.ts";
import { makeStudio, type Studio } from "./support/studio-episode.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

const SCRIPT3 = [TWO_SHOTS, "## sh030", "dur: 1", "The light goes out."].join("\n");

const waitFor = <T>(what: string, probe: () => Promise<T | undefined | false>, ms = 60_000) =>
  until(what, probe, { ms });

const accepted = (double: ComfyDouble) => double.prompts.filter((p) => p.status === 200).length;

describe("a worker process with a bad STUDIO_REACH_MS", () => {
  it("stops at start with exit 2 and says what is wrong", async () => {
    const s = await makeStudio();
    try {
      const worker = spawnWorker({ STUDIO_HOME: s.env.home, STUDIO_REACH_MS: "soon" });
      const code = await worker.exited;
      const out = worker.output();
      expect(code).toBe(2);
      expect(out).toMatch(/STUDIO_REACH_MS: soon is not a whole number of milliseconds from 50 to 60000/);
      expect(out).not.toMatch(/running/);
    } finally {
      await s.cleanup();
    }
  }, 60_000);
});

for (const kind of ["libsql", "postgres"] as const) {
  describe(`two workers, two ComfyUIs, one ${kind} job database`, () => {
    let s: Studio;
    let pg: TestPostgres | null = null;
    let store: JobStore;
    let ep: string;
    const doubles: ComfyDouble[] = [];
    const workers: Watched[] = [];
    let a: Watched;
    let b: Watched;
    let doubleA: ComfyDouble;
    let doubleB: ComfyDouble;

    beforeAll(async () => {
      s = await makeStudio();
      if (kind === "postgres") {
        pg = await startPostgres();
        s.env.services.env.STUDIO_DB_URL = await pg.database();
      }
      const url = jobDatabaseUrl(s.env.services);
      store = await s.env.services.jobs();
      // Each prompt takes a few hundred milliseconds, so two workers overlap.
      doubleA = await startComfyDouble({ models: DEFAULT_MODELS, stepMs: 80 });
      doubleB = await startComfyDouble({ models: DEFAULT_MODELS, stepMs: 80 });
      doubles.push(doubleA, doubleB);
      // The queue side (this process) checks models against A; each worker's own ComfyUI comes from its environment.
      await pointAtDouble(s, doubleA);
      const series = seriesS();
      series.series.target = "ltx2";
      ep = await s.episode(SCRIPT3, { series });
      await png(path.join(path.dirname(ep), "refs", "_bg", "kitchen.png"), 64, 64, "#336699");
      await png(path.join(ep, "refs", "_bg", "kitchen.png"), 64, 64, "#336699");
      await png(path.join(ep, "refs", "shots", "sh010", "first.png"), 64, 64, "#336699");
      const common = {
        STUDIO_HOME: s.env.home,
        STUDIO_ROOTS: s.root,
        STUDIO_DB_URL: url,
        // Slow probes on purpose: A's advert then says its engine is up for a while after it went away.
        STUDIO_REACH_MS: "60000",
        STUDIO_LOG: "info",
      };
      [a, b] = await Promise.all([
        startWorker({ ...common, STUDIO_LOCAL_URL: doubleA.url }),
        startWorker({ ...common, STUDIO_LOCAL_URL: doubleB.url }),
      ]);
      workers.push(a, b);
      await store.setParallel("local", 2);
    }, 120_000);

    afterAll(async () => {
      for (const w of workers)
        if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill("SIGKILL");
      await Promise.all(workers.map((w) => w.exited));
      await s?.env.services.engines.close();
      for (const d of doubles) await d.close().catch(() => {});
      await store?.close();
      await pg?.stop();
      await s?.cleanup();
    }, 60_000);

    /** Queue a render of the two short shots (a new take each time) and answer the job ids. */
    async function renderTwo(): Promise<string[]> {
      const res = await s.call("POST", "/render", { ep, shots: ["sh020", "sh030"], redo: true });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.errors).toEqual([]);
      return res.body.queued.map((q: Any) => q.prompt_id as string);
    }

    it("both workers advertise local and builtin; renders on local run on both ComfyUIs", async () => {
      const ads = await waitFor("both adverts to say local", async () => {
        const all = await store.workers();
        return all.length === 2 && all.every((w) => w.lanes.includes("local")) && all;
      });
      // Each advertises again after both adverts were there, and reads the other's right after: they know each other.
      const both = Math.max(...ads.map((w) => w.seen));
      await waitFor("both to advertise again", async () => {
        const all = await store.workers();
        return all.length === 2 && all.every((w) => w.seen > both + 50);
      });
      expect(ads.map((w) => w.lanes.filter((l) => l === "local" || l === "builtin"))).toEqual([
        ["builtin", "local"],
        ["builtin", "local"],
      ]);
      expect(ads.every((w) => w.kinds.includes("render"))).toBe(true);
      const listed = await s.call("GET", "/jobs");
      expect(listed.body.workers.map((w: Any) => w.owner).sort()).toEqual(ads.map((w) => w.owner).sort());

      const ids = [...(await renderTwo()), ...(await renderTwo())];
      expect(ids).toHaveLength(4);
      const jobs = await waitFor("four renders to end", () => allEnded(store, ids), 150_000);
      for (const j of jobs) expect(j.status, JSON.stringify(j.error ?? j.log)).toBe("succeeded");
      expect(jobs.map((j) => j.attempts)).toEqual(ids.map(() => 1));
      expect(accepted(doubleA)).toBeGreaterThan(0);
      expect(accepted(doubleB)).toBeGreaterThan(0);
      expect(accepted(doubleA) + accepted(doubleB)).toBe(4);
    }, 180_000);

    it("a job that hits A's dead ComfyUI finishes on B, and A takes no local job after", async () => {
      const beforeB = accepted(doubleB);
      await doubleA.close();
      // The queue side checks models against a ComfyUI that answers.
      await pointAtDouble(s, doubleB);
      const ids = await renderTwo();
      const jobs = await waitFor("two renders to end", () => allEnded(store, ids), 150_000);
      for (const j of jobs) expect(j.status, JSON.stringify(j.error ?? j.log)).toBe("succeeded");
      expect(jobs.map((j) => j.attempts)).toEqual(ids.map(() => 1));
      expect(accepted(doubleB) - beforeB).toBe(2);
      // B runs one local job at a time while it counts A as a second reacher: a slot was left for A, so A took one.
      const handedOff = jobs.filter((j) => j.log.some((line) => /left for another worker/.test(line)));
      expect(handedOff.length).toBeGreaterThan(0);
      expect(a.output()).toMatch(/left for another worker: its engine is unreachable from this worker/);
      const adA = await waitFor("A's advert to say local is down", async () =>
        (await store.workers()).find((w) => w.pid === a.child.pid && "local" in w.down),
      );
      expect(adA.down.local).toMatch(/127\.0\.0\.1/);
      expect(adA.lanes).not.toContain("local");
      for (const shot of ["sh020", "sh030"]) {
        const sidecar: Any = await s.readJson(path.join(ep, "renders_proxy", shot, `${shot}_t03.json`));
        expect(sidecar.status).toBe("ok");
      }
    }, 180_000);

    it("with B gone, A alone fails a local job with its engine's message", async () => {
      b.child.kill("SIGTERM");
      expect(await b.exited).toBe(0);
      await waitFor("B's advert to go", async () => (await store.workers()).length === 1);
      const res = await s.call("POST", "/render", { ep, shots: ["sh020"], redo: true });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const id = res.body.queued[0].prompt_id as string;
      const [job] = await waitFor("the render to end", () => allEnded(store, [id]), 60_000);
      expect(job.status).toBe("failed");
      expect(job.error).toMatch(new RegExp(`ComfyUI at ${doubleA.url.replace(/\./g, "\\.")}.* is down`));
      const sidecar: Any = await s.readJson(path.join(ep, "renders_proxy", "sh020", "sh020_t04.json"));
      expect(sidecar.status).toBe("failed");
    }, 120_000);
  });
}
