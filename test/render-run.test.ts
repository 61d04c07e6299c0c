// Renders run for real: POST /studio/render, the job store, a WorkerPool in-process and the built-in engine; then
// cancel (waiting and running), the GET /studio/episode sweep, retry and first-frame continuity.
import { access, readdir, readFile, rm, stat } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Engine } from "../lib/engines/types.ts";
import { retryJob } from "../lib/jobs/kinds.ts";
import type { JobStore } from "../lib/jobs/types.ts";
import { countFrames } from "../lib/media/ffmpeg.ts";
import { JOB_GONE } from "../lib/render/sweep.ts";
import { renderJob } from "../workers/jobs/render.ts";
import { WorkerPool } from "../workers/pool.ts";
import { scriptedEngines } from "./support/ctx.ts";
import { makeStudio, refusal, SCRIPT, type Studio } from "./support/studio-episode.ts";

let s: Studio;
let store: JobStore;
const pools: WorkerPool[] = [];

beforeAll(async () => {
  s = await makeStudio();
  store = await s.env.services.jobs();
});
afterAll(async () => {
  await store.close();
  await s.cleanup();
});
beforeEach(() => {
  s.env.events.length = 0;
});
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.stop({ graceful: false, timeoutMs: 2_000 });
  // A test that failed half-way must not leave work in the lane for the next one.
  for (const j of (await store.list()).jobs) {
    if (j.status === "queued") await store.cancel(j.id);
    if (j.status === "running") await store.finish(j.id, j.lease_owner ?? "", "failed", "test cleanup");
  }
  await store.pause("builtin", false);
});

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

function startPool(engines?: (backend: string) => Engine): WorkerPool {
  const services = s.env.services;
  const pool = new WorkerPool({
    services: engines ? { ...services, engines: scriptedEngines(engines) } : services,
    store,
    kinds: { render: renderJob },
    emit: (kind, data) => services.events.emit(kind, data),
    pollMs: 20,
    leaseMs: 5_000,
  });
  pools.push(pool);
  pool.start();
  return pool;
}

async function waitFor(cond: () => Promise<boolean> | boolean, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 25));
  }
}

const ended = (id: string) => async () =>
  ["succeeded", "failed", "canceled"].includes((await store.get(id))?.status ?? "");
const takeDir = (ep: string, shot: string) => path.join(ep, "renders_proxy", shot);
const sidecar = async (ep: string, shot: string, take: number): Promise<Any> =>
  JSON.parse(
    await readFile(path.join(takeDir(ep, shot), `${shot}_t${String(take).padStart(2, "0")}.json`), "utf8"),
  );
const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );
const render = (body: Record<string, unknown>) => s.call("POST", "/render", body);

/** An engine whose work runs until it is stopped (cancel tests), or fails at once. */
function scriptedEngine(mode: "hang" | "fail"): Engine {
  return {
    backend: "builtin",
    async prepare() {
      return { inputs: {}, notes: [] };
    },
    async submit() {
      return { backendPromptId: `scripted-${mode}` };
    },
    collect(_job, _submitted, hooks) {
      if (mode === "fail") return Promise.reject(new Error("the engine broke"));
      hooks.onProgress({ progress: 0.1, step: "hanging" });
      return new Promise((_resolve, reject) => {
        hooks.signal.addEventListener("abort", () => reject(new Error("canceled")), { once: true });
      });
    },
    async cancel() {},
  };
}

describe("rendering on the built-in animatic", () => {
  it("renders three shots into usable takes with exact frame counts, thumbnails and strips", async () => {
    const ep = await s.episode(SCRIPT.replace("Bo waits.", "BO: Hello there.\nBo waits."));
    const res = await render({ ep });
    expect(res.body.queued).toHaveLength(3);
    startPool();
    for (const q of res.body.queued) await waitFor(ended(q.prompt_id));
    const lengths: Record<string, number> = { sh010: 72, sh020: 48, sh030: 48 };
    for (const q of res.body.queued) {
      expect((await store.get(q.prompt_id))?.status).toBe("succeeded");
      const dir = takeDir(ep, q.shot);
      const sc = await sidecar(ep, q.shot, 1);
      expect(sc).toMatchObject({
        status: "ok",
        frames: lengths[q.shot],
        fps: 24,
        width: 448,
        height: 256,
        model: "animatic",
        mp4: `${q.shot}_t01.mp4`,
        thumb: `${q.shot}_t01.jpg`,
        strip: `${q.shot}_t01_strip.jpg`,
        backend_prompt_id: expect.stringMatching(/^builtin-/),
        job: q.prompt_id,
      });
      expect(sc.finished).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);
      expect(await countFrames(path.join(dir, `${q.shot}_t01.mp4`), s.env.services.media)).toBe(
        lengths[q.shot],
      );
      for (const f of [`${q.shot}_t01.jpg`, `${q.shot}_t01_strip.jpg`, `${q.shot}_t01_h3.wav`]) {
        expect((await stat(path.join(dir, f))).size).toBeGreaterThan(0);
      }
    }
    expect((await sidecar(ep, "sh020", 1)).save_notes).toMatch(/captions: 2/);
    const takeEvents = s.env.events.filter((e) => e.type === "studio.take").map((e) => e.data as Any);
    expect(takeEvents.filter((e) => e.status === "ok")).toHaveLength(3);
    expect(takeEvents.find((e) => e.status === "ok" && e.shot === "sh010").thumb).toBe(
      "renders_proxy/sh010/sh010_t01.jpg",
    );
    const status = await s.call("GET", "/episode", { ep, pass: "proxy" });
    for (const row of status.body.shots) {
      expect(row.takes).toEqual([
        expect.objectContaining({ take: 1, status: "ok", has_video: true, stale: [] }),
      ]);
      expect(row.cut.usable).toBe(true);
    }
  });

  it("closes a take failed with the engine's reason when its job fails", async () => {
    const ep = await s.episode(SCRIPT);
    const res = await render({ ep, shots: ["sh010"] });
    startPool(() => scriptedEngine("fail"));
    const id = res.body.queued[0].prompt_id;
    await waitFor(ended(id));
    expect(await store.get(id)).toMatchObject({ status: "failed", error: "the engine broke" });
    expect(await sidecar(ep, "sh010", 1)).toMatchObject({ status: "failed", save_notes: "the engine broke" });
    expect(s.env.events.some((e) => e.type === "studio.take" && (e.data as Any).status === "failed")).toBe(
      true,
    );
  });

  it("cuts a continuous: first shot's first frame from the previous take when its render starts", async () => {
    const ep = await s.episode(SCRIPT.replace("## sh020\n", "## sh020\ncontinuous: first\n"));
    const res = await render({ ep, shots: ["sh010", "sh020"] });
    expect(res.body.continuity_at_start).toEqual([
      {
        shot: "sh020",
        after: "its first frame is cut from sh010's new take in this run when its render starts",
      },
    ]);
    startPool();
    for (const q of res.body.queued) await waitFor(ended(q.prompt_id));
    const frame = path.join(ep, "refs", "shots", "sh020", "first.png");
    expect(await exists(frame)).toBe(true);
    const sc = await sidecar(ep, "sh020", 1);
    expect(sc).toMatchObject({ status: "ok", continuity: { shot: "sh010", take: 1, pass: "proxy" } });
    expect(sc.save_notes).toMatch(/picture: first keyframe first\.png/);
    expect(sc.inputs).toEqual({ first: frame });
    // Rendered with the frame cut at its start: not stale for that frame.
    expect(sc.refs.find((r: Any) => r.role === "first").sha1).toMatch(/^[0-9a-f]{40}$/);
    const status = await s.call("GET", "/episode", { ep, pass: "proxy" });
    expect(status.body.shots.find((r: Any) => r.shot === "sh020").takes[0].stale).toEqual([]);

    // Rendered alone later with its frame gone: the frame is cut before queueing, and frames are kept.
    await rm(frame);
    s.env.events.length = 0;
    const again = await render({ ep, shots: ["sh020"], redo: true, save_frames: true });
    expect(again.body.continuity).toEqual([
      { shot: "sh020", from: "sh010 t01", why: "it had no first frame yet" },
    ]);
    expect(again.body).not.toHaveProperty("continuity_at_start");
    expect(await exists(frame)).toBe(true);
    const pageEvents = s.env.events.filter((e) => e.type !== "studio.job");
    expect(pageEvents.map((e) => e.type)).toEqual(["studio.ref", "studio.take", "studio.episode"]);
    expect(pageEvents[0].data).toEqual({
      ep,
      ref: "shot:sh020:first",
      view: null,
      take: null,
      status: "ok",
    });
    await waitFor(ended(again.body.queued[0].prompt_id));
    const frames = (await readdir(path.join(takeDir(ep, "sh020"), "frames"))).sort();
    expect(frames).toHaveLength(48);
    expect(frames[0]).toBe("sh020_t02_000000.png");
    expect(frames[47]).toBe("sh020_t02_000047.png");
  });
});

describe("POST /studio/cancel", () => {
  it("fails a waiting take 'canceled before it ran', takes its job off the queue, and refuses a second cancel", async () => {
    const ep = await s.episode(SCRIPT);
    await store.pause("builtin", true);
    const res = await render({ ep, shots: ["sh010"] });
    s.env.events.length = 0;
    const canceled = await s.call("POST", "/cancel", { ep, shot: "sh010", take: 1 });
    expect(canceled.status).toBe(200);
    expect(canceled.body).toEqual({
      shot: "sh010",
      pass: "proxy",
      take: 1,
      status: "failed",
      save_notes: "canceled before it ran",
      finished: expect.any(String),
    });
    expect((await store.get(res.body.queued[0].prompt_id))?.status).toBe("canceled");
    expect(s.env.events).toEqual([
      {
        type: "studio.take",
        data: { ep, pass: "proxy", shot: "sh010", take: 1, status: "failed", thumb: null },
      },
    ]);
    refusal(
      await s.call("POST", "/cancel", { ep, shot: "sh010", take: 1 }),
      409,
      "sh010 t01 (proxy) is failed: only a queued take can be canceled",
    );
    refusal(
      await s.call("POST", "/cancel", { ep, shot: "sh010", take: 7 }),
      404,
      "no take sh010 t07 (proxy)",
    );
    refusal(await s.call("POST", "/cancel", { ep, shot: "sh010" }), 400, /^take: /);
  });

  it("closes the take of a waiting render canceled from the queue (POST /studio/jobs/cancel)", async () => {
    const ep = await s.episode(SCRIPT);
    await store.pause("builtin", true);
    const res = await render({ ep, shots: ["sh010"] });
    const id = res.body.queued[0].prompt_id;
    const jobs = await s.call("POST", "/jobs/cancel", { id });
    expect(jobs.status).toBe(200);
    expect((await store.get(id))?.status).toBe("canceled");
    expect(await sidecar(ep, "sh010", 1)).toMatchObject({
      status: "failed",
      save_notes: "canceled before it ran",
    });
  });

  it("stops a running job and waits until its handler closed the take 'canceled'", async () => {
    const ep = await s.episode(SCRIPT);
    const res = await render({ ep, shots: ["sh010"] });
    const id = res.body.queued[0].prompt_id;
    startPool(() => scriptedEngine("hang"));
    await waitFor(async () => (await store.get(id))?.status === "running");
    await waitFor(async () => (await sidecar(ep, "sh010", 1)).backend_prompt_id === "scripted-hang");
    const canceled = await s.call("POST", "/cancel", { ep, pass: "proxy", shot: "sh010", take: 1 });
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ status: "failed", save_notes: "canceled" });
    expect((await store.get(id))?.status).toBe("canceled");
    expect(await sidecar(ep, "sh010", 1)).toMatchObject({ status: "failed", save_notes: "canceled" });
  });

  it("refuses to cancel a finished take", async () => {
    const ep = await s.episode(SCRIPT);
    await s.take(ep, "proxy", "sh020", 1);
    refusal(
      await s.call("POST", "/cancel", { ep, shot: "sh020", take: 1 }),
      409,
      "sh020 t01 (proxy) is ok: only a queued take can be canceled",
    );
  });
});

describe("the GET /studio/episode sweep", () => {
  it("fails a queued take whose job is gone, leaves live and fresh ones, and emits one take event", async () => {
    const ep = await s.episode(SCRIPT);
    const old = "2020-01-01T00:00:00+00:00";
    await s.take(ep, "proxy", "sh010", 1, {
      status: "queued",
      sidecar: { queue: "studio", job: "j_gone", queued: old },
    });
    await store.pause("builtin", true);
    const live = await render({ ep, shots: ["sh020"] });
    // Reserved a moment ago and not given its job id yet: within the grace period.
    await s.take(ep, "proxy", "sh030", 1, {
      status: "queued",
      sidecar: { queue: "studio", queued: new Date().toISOString() },
    });
    s.env.events.length = 0;
    const status = await s.call("GET", "/episode", { ep, pass: "proxy" });
    expect(status.status).toBe(200);
    const take = (shot: string) => status.body.shots.find((r: Any) => r.shot === shot).takes[0];
    expect(take("sh010")).toMatchObject({ status: "failed", save_notes: JOB_GONE });
    // A take that fails carries its error in the sidecar, as a failed render does.
    expect(await sidecar(ep, "sh010", 1)).toMatchObject({ status: "failed", error: JOB_GONE });
    expect(take("sh020")).toMatchObject({ status: "queued" });
    expect(take("sh030")).toMatchObject({ status: "queued" });
    expect(s.env.events).toEqual([
      {
        type: "studio.take",
        data: {
          ep,
          pass: "proxy",
          shot: "sh010",
          take: 1,
          status: "failed",
          thumb: "renders_proxy/sh010/sh010_t01.jpg",
        },
      },
    ]);

    // The job of sh020 fails without closing its take: the next listing closes it with the job's error.
    await store.pause("builtin", false);
    const job = await store.claim("gone-worker", 60_000, ["builtin"]);
    expect(job?.id).toBe(live.body.queued[0].prompt_id);
    await store.finish(job!.id, "gone-worker", "failed", "the worker died");
    const again = await s.call("GET", "/episode", { ep, pass: "proxy" });
    expect(again.body.shots.find((r: Any) => r.shot === "sh020").takes[0]).toMatchObject({
      status: "failed",
      save_notes: "the worker died",
    });
    expect(await sidecar(ep, "sh020", 1)).toMatchObject({ status: "failed", error: "the worker died" });

    // A job canceled before it ran closes its take failed too, but a cancel is no error.
    const canceled = await render({ ep, shots: ["sh010"] });
    const canceledTake = canceled.body.queued[0].take;
    await store.cancel(canceled.body.queued[0].prompt_id);
    await s.call("GET", "/episode", { ep, pass: "proxy" });
    const closed = await sidecar(ep, "sh010", canceledTake);
    expect(closed).toMatchObject({ status: "failed", save_notes: "canceled before it ran" });
    expect(closed.error).toBeUndefined();

    // An unbuilt pass is refused before anything is swept.
    const unbuilt = await s.episode(SCRIPT, { build: false });
    await s.take(unbuilt, "proxy", "sh010", 1, {
      status: "queued",
      sidecar: { queue: "studio", job: "j_gone", queued: old },
    });
    refusal(
      await s.call("GET", "/episode", { ep: unbuilt, pass: "proxy" }),
      404,
      /is not built: build the episode first/,
    );
    expect(await sidecar(unbuilt, "sh010", 1)).toMatchObject({ status: "queued" });
  });
});

describe("retry of a render job", () => {
  it("reserves a new take with the old take's seed, target and frozen shot list, and renders it", async () => {
    const ep = await s.episode(SCRIPT);
    const put = await s.call("PUT", "/override", { ep, pass: "proxy", shot: "sh030", fields: { steps: 4 } });
    expect(put.status).toBe(200);
    const res = await render({ ep, shots: ["sh030"], seed: "1234" });
    startPool();
    const id = res.body.queued[0].prompt_id;
    await waitFor(ended(id));
    const first = await sidecar(ep, "sh030", 1);
    const retried = await retryJob(s.env.services, store, (await store.get(id))!);
    expect(retried).toMatchObject({
      kind: "render",
      lane: "builtin",
      title: "sh030 t02 (proxy)",
      info: { shot: "sh030", take: 2 },
    });
    await waitFor(ended(retried.id));
    const second = await sidecar(ep, "sh030", 2);
    expect(second).toMatchObject({
      status: "ok",
      seed: 1234,
      seed_source: "take:1",
      target: first.target,
      steps: 4,
      overrides: ["steps"],
      job: retried.id,
      frames: 48,
    });
    const frozen = (take: number) =>
      readFile(path.join(takeDir(ep, "sh030"), `sh030_t0${take}.shotlist.json`), "utf8");
    expect(await frozen(2)).toBe(await frozen(1));
  });
});
