// POST /studio/clip/queue for real: a Simple project written as the Simple view writes it, a real job store and a
// WorkerPool on the built-in engine. The pictures the shot reads (a character's four views, the plate, the first
// keyframe) are generated, the step waits for them (handing over to follow-up step jobs), makes them live and
// queues the render, which finishes; a still; a shot with everything live queues at once; a restart between the
// pictures and the step (a new store on the same database, a new pool) resumes the step; refusals.
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { STEP_LANE } from "../lib/clips/steps.ts";
import { jobDatabaseUrl } from "../lib/jobs/database-url.ts";
import { createJobStore } from "../lib/jobs/store.ts";
import type { Job, JobStore } from "../lib/jobs/types.ts";
import { refJob } from "../workers/jobs/ref.ts";
import { renderJob } from "../workers/jobs/render.ts";
import { stepJob } from "../workers/jobs/step.ts";
import { WorkerPool } from "../workers/pool.ts";
import { makeStudio, type Studio } from "./support/studio-episode.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

let s: Studio;
let store: JobStore;
const pools: WorkerPool[] = [];
const stores: JobStore[] = [];

beforeAll(async () => {
  s = await makeStudio();
  store = await s.env.services.jobs();
});
afterAll(async () => {
  for (const st of stores) await st.close();
  await s.env.services.engines.close();
  await store.close();
  await s.cleanup();
});
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.stop({ graceful: false, timeoutMs: 2_000 });
});

function startPool(opts: { store?: JobStore; lanes?: string[] } = {}): WorkerPool {
  const services = s.env.services;
  const pool = new WorkerPool({
    services,
    store: opts.store ?? store,
    kinds: { ref: refJob, render: renderJob, step: stepJob },
    emit: (kind, data) => services.events.emit(kind, data),
    pollMs: 20,
    leaseMs: 5_000,
    ...(opts.lanes ? { lanes: opts.lanes } : {}),
  });
  pools.push(pool);
  pool.start();
  return pool;
}

async function waitFor(cond: () => Promise<boolean> | boolean, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 30));
  }
}

const ENDED = ["succeeded", "failed", "canceled"];
const ended = async (id: string, st: JobStore = store) => ENDED.includes((await st.get(id))?.status ?? "");
/** The step jobs of one request: the first and the follow-ups naming it. */
const stepChain = async (first: string, st: JobStore = store): Promise<Job[]> =>
  (await st.list()).jobs.filter((j) => j.kind === "step" && (j.id === first || j.info.step === first));
const chainDone =
  (first: string, st: JobStore = store) =>
  async () => {
    const chain = await stepChain(first, st);
    return chain.length > 0 && chain.every((j) => ENDED.includes(j.status));
  };

/** A Simple project with one clip written as the Simple view writes it; `who` puts a character on screen. */
async function simpleClip(title: string, prompt: string, who?: string): Promise<string> {
  const made = await s.call("POST", "/clips/new", { title });
  expect(made.status).toBe(200);
  const ep = (made.body as Any).ep as string;
  const configFile = path.join(path.dirname(ep), "series.json");
  const series = JSON.parse(await readFile(configFile, "utf8"));
  series.locations.clip010 = { description: prompt, plate: "refs/_bg/clip010.png" };
  if (who) series.subjects[who] = { name: "Fox", design: "a red fox with a white-tipped tail" };
  const script = [
    `= clips  ${title}`,
    "",
    "# sq01  clip010",
    "",
    "## sh010",
    ...(who ? [`who: ${who}`] : []),
    "dur: 2",
    prompt,
    "",
  ].join("\n");
  const save = async (file: string, text: string, rebuild: boolean) => {
    const base = ((await s.call("GET", "/source", { ep, file })).body as Any).hash;
    return s.call("PUT", "/source", { ep, file, text, base_hash: base, rebuild });
  };
  expect((await save("series", JSON.stringify(series, null, 2), false)).status).toBe(200);
  const saved = await save("script", script, true);
  expect(saved.status).toBe(200);
  expect((saved.body as Any).build?.ok).toBe(true);
  return ep;
}

const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  );

describe("POST /studio/clip/queue on the built-in engine", () => {
  it("generates the pictures, the step makes them live and queues the render, which finishes", async () => {
    const ep = await simpleClip("Fox Run", "A red fox runs across fresh snow at dawn.", "fox");
    const show = path.dirname(ep);
    s.env.events.length = 0;
    const answer = await s.call("POST", "/clip/queue", { ep, shot: "sh010", pass: "proxy" });
    expect(answer.status).toBe(200);
    const body = answer.body as Any;
    const byRef = Object.fromEntries(body.refs.map((r: Any) => [r.ref, r]));
    expect(Object.keys(byRef).sort()).toEqual(["location:clip010", "shot:sh010:first", "subject:fox"]);
    expect(byRef["subject:fox"].takes.map((t: Any) => t.view)).toEqual([
      "01_threequarter",
      "02_side",
      "03_back",
      "04_face",
    ]);
    for (const r of body.refs) {
      expect(r.state).toBe("queued");
      expect(r.errors).toEqual([]);
    }
    expect(body.waiting_on).toHaveLength(6);
    expect(body.step).toMatch(/^j_/);
    expect(body.renders).toEqual([]);
    expect(body.stills).toEqual([]);
    const step = (await store.get(body.step)) as Job;
    expect(step).toMatchObject({
      kind: "step",
      lane: STEP_LANE,
      after: body.waiting_on[0],
      status: "queued",
    });
    // Queued events of the pictures came out of the generate requests.
    expect(
      s.env.events.filter((e) => e.type === "studio.ref" && (e.data as Any).status === "queued"),
    ).toHaveLength(6);

    startPool();
    await waitFor(chainDone(body.step));
    const chain = await stepChain(body.step);
    expect(chain.every((j) => j.status === "succeeded")).toBe(true);
    expect(chain.filter((j) => j.id !== body.step).every((j) => j.info.step === body.step)).toBe(true);
    // Live: the fox's sheet stitched from its four views, the plate, the keyframe.
    expect(await exists(path.join(show, "refs", "fox", "fox_sheet_4panel.png"))).toBe(true);
    expect(await exists(path.join(show, "refs", "_bg", "clip010.png"))).toBe(true);
    const keyframe = path.join(ep, "refs", "shots", "sh010", "first.png");
    expect((await sharp(keyframe).metadata()).format).toBe("png");
    const picked = s.env.events.filter((e) => e.type === "studio.ref" && (e.data as Any).status === "picked");
    expect(picked.length).toBeGreaterThanOrEqual(6);

    // The render the step queued, finished.
    const last = chain.find((j) => j.log.some((l) => l.startsWith("queued")));
    expect(last?.log.join("\n")).toMatch(/queued sh010 t01/);
    const sidecar = path.join(ep, "renders_proxy", "sh010", "sh010_t01.json");
    await waitFor(
      async () => (await exists(sidecar)) && JSON.parse(await readFile(sidecar, "utf8")).status !== "queued",
    );
    const take = JSON.parse(await readFile(sidecar, "utf8"));
    expect(take.status).toBe("ok");
    expect(await exists(path.join(ep, "renders_proxy", "sh010", "sh010_t01.mp4"))).toBe(true);
  }, 120_000);

  it("with everything live, queues the renders at once: no step", async () => {
    const ep = path.join(s.root, "Fox-Run", "clips");
    const answer = await s.call("POST", "/clip/queue", { ep, shot: "sh010", pass: "proxy", takes: 2 });
    expect(answer.status).toBe(200);
    const body = answer.body as Any;
    expect(body).toMatchObject({ refs: [], waiting_on: [], step: null, stills: [] });
    expect(body.renders.map((r: Any) => r.take)).toEqual([2, 3]);
    expect(body.renders[0].seed).not.toBe(body.renders[1].seed);
  });

  it("a still: the first keyframe drawn on image_target, made live in place of the one there", async () => {
    const ep = path.join(s.root, "Fox-Run", "clips");
    const answer = await s.call("POST", "/clip/queue", {
      ep,
      shot: "sh010",
      pass: "proxy",
      still: true,
      image_target: "card",
    });
    expect(answer.status).toBe(200);
    const body = answer.body as Any;
    expect(body.stills).toHaveLength(1);
    expect(body.stills[0]).toMatchObject({ ref: "shot:sh010:first", target: "card" });
    expect(body.renders).toEqual([]);
    startPool();
    await waitFor(chainDone(body.step));
    const picks = JSON.parse(await readFile(path.join(ep, "refs", "_picks.json"), "utf8"));
    expect(picks.refs["shot:sh010:first"]).toMatchObject({ take: body.stills[0].take });
    const chain = await stepChain(body.step);
    expect(chain.some((j) => j.log.some((l) => l.includes("is the shot's keyframe")))).toBe(true);
  }, 60_000);

  it("a restart between the pictures and the step: the step resumes from the job store", async () => {
    const ep = await simpleClip("Restart Run", "A paper boat drifts down a gutter in the rain.");
    const answer = await s.call("POST", "/clip/queue", { ep, shot: "sh010", pass: "proxy" });
    const body = answer.body as Any;
    expect(body.waiting_on).toHaveLength(2);
    // The first process runs only the engine lane: the pictures are made, the step has not run.
    startPool({ lanes: ["builtin"] });
    for (const id of body.waiting_on) await waitFor(() => ended(id));
    await pools.pop()?.stop({ graceful: true, timeoutMs: 2_000 });
    expect((await store.get(body.step))?.status).toBe("queued");
    expect(await exists(path.join(path.dirname(ep), "refs", "_bg", "clip010.png"))).toBe(false);

    // A new process: its own connection to the same database and its own pool.
    const reopened = await createJobStore(jobDatabaseUrl(s.env.services));
    stores.push(reopened);
    startPool({ store: reopened });
    await waitFor(chainDone(body.step, reopened));
    expect((await reopened.get(body.step))?.status).toBe("succeeded");
    expect(await exists(path.join(path.dirname(ep), "refs", "_bg", "clip010.png"))).toBe(true);
    const sidecar = path.join(ep, "renders_proxy", "sh010", "sh010_t01.json");
    await waitFor(
      async () => (await exists(sidecar)) && JSON.parse(await readFile(sidecar, "utf8")).status === "ok",
    );
  }, 120_000);

  it("refuses a shot in no build (404), a pass with no build (404) and takes out of 1–8 (400)", async () => {
    const ep = path.join(s.root, "Fox-Run", "clips");
    expect((await s.call("POST", "/clip/queue", { ep, shot: "sh999" })).status).toBe(404);
    expect((await s.call("POST", "/clip/queue", { ep, shot: "sh010", takes: 9 })).status).toBe(400);
    expect((await s.call("POST", "/clip/queue", { ep, shot: "sh010", takes: 0 })).status).toBe(400);
    const unbuilt = (await s.call("POST", "/clips/new", { title: "Unbuilt" })).body as Any;
    const none = await s.call("POST", "/clip/queue", { ep: unbuilt.ep, shot: "sh010" });
    expect(none.status).toBe(404);
    expect((none.body as Any).error).toMatch(/no build/);
  });
});
