// GET /studio/jobs and POST /studio/jobs/{action} through the app, on a database in the test's settings folder.
import { access, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { functions } from "../functions/index.ts";
import type { JobKindSpec } from "../lib/jobs/kinds.ts";
import type { JobStore, NewJob } from "../lib/jobs/types.ts";
import { createApp } from "../runtime/app.ts";
import { makeTestEnv, type TestEnv } from "./support/ctx.ts";

let env: TestEnv;
let app: ReturnType<typeof createApp>;
let store: JobStore;

beforeAll(async () => {
  env = await makeTestEnv();
  app = createApp(env.services, functions);
  store = await env.services.jobs();
});
afterAll(async () => {
  await store.close();
  await env.cleanup();
});
beforeEach(async () => {
  env.events.length = 0;
  // Every test starts from an empty queue with nothing running.
  for (const j of (await store.list()).jobs) {
    if (j.status === "queued") await store.cancel(j.id);
    if (j.status === "running") await store.finish(j.id, j.lease_owner ?? "", "failed", "test cleanup");
  }
  await store.pause("local", false);
  await store.setParallel("local", 1);
});

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Answer = { status: number; body: any };

async function get(): Promise<Answer> {
  const res = await app.request("/studio/jobs");
  return { status: res.status, body: await res.json() };
}

async function act(action: string, body: unknown): Promise<Answer> {
  const res = await app.request(`/studio/jobs/${action}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const job = (title: string, more: Partial<NewJob> = {}): NewJob => ({
  kind: "render",
  lane: "local",
  title,
  info: { ep: "/shows/s/ep01", pass: "proxy", shot: title, take: 1, target: "animatic", backend: "local" },
  payload: { take: 1 },
  ...more,
});

const VIEW_KEYS = [
  "after",
  "backend_prompt_id",
  "can_retry",
  "created",
  "error",
  "finished",
  "id",
  "info",
  "kind",
  "lane",
  "log",
  "progress",
  "started",
  "status",
  "step",
  "steps",
  "title",
].sort();

describe("GET /studio/jobs", () => {
  it("answers jobs as the contract shows them, lanes, and the paid counter; the database is in the home", async () => {
    await access(path.join(env.home, "studio.db"));
    const run = await store.add(job("sh010"));
    const wait = await store.add(job("sh020", { after: run.id }));
    await store.claim("w", 60_000);
    const { status, body } = await get();
    expect(status).toBe(200);
    const listed = body.jobs.filter((j: { id: string }) => j.id === run.id || j.id === wait.id);
    expect(listed.map((j: { id: string }) => j.id)).toEqual([run.id, wait.id]);
    expect(Object.keys(listed[0]).sort()).toEqual(VIEW_KEYS);
    expect(listed[0]).toMatchObject({ status: "running", can_retry: false, info: run.info, after: null });
    expect(listed[1]).toMatchObject({ status: "queued", after: run.id, progress: 0, log: [] });
    expect(body.lanes.local).toEqual({ paused: false, parallel: 1, waiting: [wait.id], running: [run.id] });
    expect(body.paid).toEqual({ count: 0, limit: null });
  });

  it("lists the live workers with the lanes each reaches and those it cannot; a retired one is gone", async () => {
    const ad = {
      owner: "gpu-2:4242",
      host: "gpu-2",
      pid: 4242,
      kinds: ["ref", "render"],
      lanes: ["builtin", "local"],
      down: { router: "no API key is set (settings api_key, or STUDIO_API_KEY)" },
    };
    const before = Date.now();
    await store.advertise(ad);
    try {
      const { status, body } = await get();
      expect(status).toBe(200);
      const listed = body.workers.find((w: { owner: string }) => w.owner === ad.owner);
      expect(listed).toEqual({ ...ad, seen: expect.any(Number) });
      expect(listed.seen).toBeGreaterThanOrEqual(before - 1000);
    } finally {
      await store.retire(ad.owner);
    }
    expect((await get()).body.workers.map((w: { owner: string }) => w.owner)).not.toContain(ad.owner);
  });

  it("reports paid_limit from the settings file", async () => {
    const dir = path.join(env.home, "default", "studio");
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, "settings.json"), JSON.stringify({ paid_limit: 5 }));
    await store.paidAdd(2);
    try {
      expect((await get()).body.paid).toEqual({ count: 2, limit: 5 });
    } finally {
      await writeFile(path.join(dir, "settings.json"), "{}");
      await store.paidReset();
    }
  });
});

describe("POST /studio/jobs/cancel", () => {
  it("cancels a waiting job, asks a running one to stop, and answers the GET body", async () => {
    const run = await store.add(job("a"));
    const wait = await store.add(job("b"));
    await store.claim("w", 60_000);
    const { status, body } = await act("cancel", { id: wait.id });
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(["jobs", "lanes", "paid", "workers"]);
    expect(body.jobs.find((j: { id: string }) => j.id === wait.id)).toMatchObject({
      status: "canceled",
      can_retry: true,
    });
    expect(env.events).toEqual([
      { type: "studio.job", data: expect.objectContaining({ id: wait.id, status: "canceled" }) },
    ]);

    const woken: string[] = [];
    const off = env.services.jobSignals.onCancelRequested((id) => woken.push(id));
    try {
      expect((await act("cancel", { id: run.id })).status).toBe(200);
    } finally {
      off();
    }
    expect(woken).toEqual([run.id]);
    expect(await store.get(run.id)).toMatchObject({ status: "running", cancel_requested: true });
    expect((await store.heartbeat(run.id, "w", 60_000)).cancel).toBe(true);
  });

  it("409 for an ended job, 404 for an unknown one, 400 without an id", async () => {
    const a = await store.add(job("a"));
    await store.cancel(a.id);
    expect(await act("cancel", { id: a.id })).toEqual({
      status: 409,
      body: { error: `job ${a.id} has already ended` },
    });
    expect(await act("cancel", { id: "j_nope" })).toEqual({
      status: 404,
      body: { error: "job j_nope not found" },
    });
    expect(await act("cancel", {})).toEqual({ status: 400, body: { error: "id: required" } });
    expect((await act("cancel", { id: 7 })).body.error).toMatch(/^id: /);
    expect((await act("cancel", { id: a.id, idx: 1 })).body.error).toBe("body: unknown field idx");
  });
});

describe("POST /studio/jobs/move", () => {
  it("places a waiting job at an index in its lane", async () => {
    const [a, b, c] = [await store.add(job("a")), await store.add(job("b")), await store.add(job("c"))];
    const { status, body } = await act("move", { id: c.id, index: 0 });
    expect(status).toBe(200);
    expect(body.lanes.local.waiting).toEqual([c.id, a.id, b.id]);
    expect(env.events.map((e) => e.type)).toEqual(["studio.job", "studio.jobs"]);
    expect(env.events[1].data).toEqual({ lanes: body.lanes, paid: body.paid });
  });

  it("409 for a running job, 404 unknown, 400 for a bad index", async () => {
    const a = await store.add(job("a"));
    await store.claim("w", 60_000);
    expect(await act("move", { id: a.id, index: 0 })).toEqual({
      status: 409,
      body: { error: `job ${a.id} is running: only waiting jobs can be moved` },
    });
    expect((await act("move", { id: "j_nope", index: 0 })).status).toBe(404);
    for (const index of [-1, 1.5, "0", undefined]) {
      const { status, body } = await act("move", { id: a.id, index });
      expect(status).toBe(400);
      expect(body.error).toMatch(
        index === undefined ? /^index: required$/ : /^index: must be a whole number/,
      );
    }
  });
});

describe("POST /studio/jobs/retry", () => {
  it("queues a new job for an ended one; 409 while it waits or runs; 404 unknown", async () => {
    // A kind no module registers a retry hook for, so this is the plain copy.
    const a = await store.add(job("a", { kind: "install" }));
    expect((await act("retry", { id: a.id })).status).toBe(409);
    await store.claim("w", 60_000);
    const running = await act("retry", { id: a.id });
    expect(running).toEqual({
      status: 409,
      body: { error: `job ${a.id} is running: only an ended job can be retried` },
    });
    await store.finish(a.id, "w", "failed", "engine stopped");
    let woken = 0;
    const off = env.services.jobSignals.onJobAdded(() => woken++);
    const { status, body } = await act("retry", { id: a.id }).finally(off);
    expect(status).toBe(200);
    expect(woken).toBe(1);
    const added = env.events.find((e) => e.type === "studio.job")?.data as { id: string };
    expect(added.id).not.toBe(a.id);
    expect(body.jobs.find((j: { id: string }) => j.id === added.id)).toMatchObject({
      status: "queued",
      title: "a",
      lane: "local",
      info: a.info,
    });
    expect((await act("retry", { id: "j_nope" })).status).toBe(404);
  });

  it("uses the kind's retry hook when one is registered", async () => {
    const a = await store.add(job("sh030", { kind: "tour" }));
    await store.claim("w", 60_000);
    await store.finish(a.id, "w", "succeeded");
    const seen: string[] = [];
    const kinds = env.services.jobKinds;
    const tour: JobKindSpec = {
      payload: z.unknown(),
      run: async () => {},
      retry: async (old, services) => {
        seen.push(`${old.id} ${services.home}`);
        return { ...job("sh030 take 2", { kind: "tour" }), info: { ...old.info, take: 2 } };
      },
    };
    env.services.jobKinds = async () => ({ ...(await kinds()), tour });
    const remove = () => {
      env.services.jobKinds = kinds;
    };
    try {
      const { status, body } = await act("retry", { id: a.id });
      expect(status).toBe(200);
      expect(seen).toEqual([`${a.id} ${env.home}`]);
      expect(body.jobs.find((j: { title: string }) => j.title === "sh030 take 2")).toMatchObject({
        status: "queued",
        info: { take: 2, shot: "sh030" },
      });
    } finally {
      remove();
    }
  });
});

describe("POST /studio/jobs/pause, parallel and paid-reset", () => {
  it("pauses and resumes a lane, emitting studio.jobs", async () => {
    const paused = await act("pause", { lane: "local", paused: true });
    expect(paused.status).toBe(200);
    expect(paused.body.lanes.local.paused).toBe(true);
    const a = await store.add(job("a"));
    expect(await store.claim("w", 60_000)).toBeNull();
    expect(env.events).toEqual([
      { type: "studio.jobs", data: { lanes: paused.body.lanes, paid: paused.body.paid } },
    ]);
    const resumed = await act("pause", { lane: "local", paused: false });
    expect(resumed.body.lanes.local.paused).toBe(false);
    expect((await store.claim("w", 60_000))?.id).toBe(a.id);
    // A lane that does not exist yet can be paused ahead of its first job.
    expect(
      (await act("pause", { lane: "deployment:wan", paused: true })).body.lanes["deployment:wan"],
    ).toEqual({
      paused: true,
      parallel: 1,
      waiting: [],
      running: [],
    });
  });

  it("400 for an unknown lane or a paused flag that is not a boolean", async () => {
    const bad = await act("pause", { lane: "gpu9", paused: true });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^lane: unknown lane "gpu9"/);
    expect(await act("pause", { lane: "local", paused: "yes" })).toEqual({
      status: 400,
      body: { error: "paused: must be true or false" },
    });
    expect((await act("pause", { paused: true })).body.error).toBe("lane: required");
  });

  it("parallel sets how many jobs of a lane run at once, emitting studio.jobs", async () => {
    const [a, b, c] = [await store.add(job("a")), await store.add(job("b")), await store.add(job("c"))];
    const { status, body } = await act("parallel", { lane: " local ", parallel: 2 });
    expect(status).toBe(200);
    expect(body.lanes.local).toMatchObject({ parallel: 2, waiting: [a.id, b.id, c.id] });
    expect(env.events).toEqual([{ type: "studio.jobs", data: { lanes: body.lanes, paid: body.paid } }]);
    expect((await store.claim("w", 60_000))?.id).toBe(a.id);
    expect((await store.claim("w", 60_000))?.id).toBe(b.id);
    expect(await store.claim("w", 60_000)).toBeNull();
  });

  it("400 for a parallel that is not a whole number from 1 to 64, or an unknown lane; nothing changes", async () => {
    const rule = "parallel: must be a whole number from 1 to 64";
    for (const parallel of [0, 65, 1.5, "2", -1])
      expect(await act("parallel", { lane: "local", parallel })).toEqual({
        status: 400,
        body: { error: rule },
      });
    expect((await act("parallel", { lane: "local" })).body.error).toBe("parallel: required");
    const bad = await act("parallel", { lane: "gpu9", parallel: 2 });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^lane: unknown lane "gpu9"/);
    expect((await get()).body.lanes.local?.parallel ?? 1).toBe(1);
    expect(env.events).toEqual([]);
  });

  it("paid-reset zeroes the counter", async () => {
    await store.paidAdd(3);
    const { status, body } = await act("paid-reset", {});
    expect(status).toBe(200);
    expect(body.paid).toEqual({ count: 0, limit: null });
    expect(env.events).toEqual([{ type: "studio.jobs", data: { lanes: body.lanes, paid: body.paid } }]);
  });
});

describe("POST /studio/jobs/{unknown}", () => {
  it("is a 400 naming the action", async () => {
    expect(await act("explode", {})).toEqual({
      status: 400,
      body: { error: "action: must be cancel, move, retry, pause, parallel or paid-reset" },
    });
    const res = await app.request("/studio/jobs/cancel", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "[1]",
    });
    expect(res.status).toBe(400);
  });
});
