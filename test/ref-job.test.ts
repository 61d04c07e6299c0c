// Ref jobs run for real: POST /studio/refs/generate, a real job store, a WorkerPool in process and the built-in
// card engine (a character's four views, a prop, a location, a keyframe, each a PNG of the asked size); a failure,
// a retry with the same settings, cancels (waiting and running), a restart whose job is gone swept by the listing;
// and flux2_klein against the ComfyUI double: inputs bound, the picture collected into the take, missing model
// files reported before anything is reserved.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { settingsFile } from "../lib/config/settings.ts";
import type { Engine } from "../lib/engines/types.ts";
import { newJobId } from "../lib/jobs/job-id.ts";
import { retryJob } from "../lib/jobs/kinds.ts";
import type { JobStore } from "../lib/jobs/types.ts";
import { afterAnswerSettled } from "../lib/refs/list-after.ts";
import { JOB_GONE } from "../lib/render/sweep.ts";
import { refJob } from "../workers/jobs/ref.ts";
import { WorkerPool } from "../workers/pool.ts";
import { type ComfyDouble, DEFAULT_MODELS, startComfyDouble } from "./support/comfy-double/index.ts";
import { scriptedEngines } from "./support/ctx.ts";
import { seriesS } from "./support/series-s.ts";
import { makeStudio, SCRIPT, type Studio } from "./support/studio-episode.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

let s: Studio;
let store: JobStore;
const pools: WorkerPool[] = [];
const doubles: ComfyDouble[] = [];

beforeAll(async () => {
  s = await makeStudio();
  store = await s.env.services.jobs();
});
afterAll(async () => {
  await s.env.services.engines.close();
  for (const d of doubles) await d.close();
  await store.close();
  await s.cleanup();
});
beforeEach(() => {
  s.env.events.length = 0;
});
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.stop({ graceful: false, timeoutMs: 2_000 });
  for (const j of (await store.list()).jobs) {
    if (j.status === "queued") await store.cancel(j.id);
    if (j.status === "running") await store.finish(j.id, j.lease_owner ?? "", "failed", "test cleanup");
  }
  await store.pause("builtin", false);
});

function startPool(engines?: (backend: string) => Engine): WorkerPool {
  const services = s.env.services;
  const pool = new WorkerPool({
    services: engines ? { ...services, engines: scriptedEngines(engines) } : services,
    store,
    kinds: { ref: refJob },
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
const generate = (body: Record<string, unknown>) => s.call("POST", "/refs/generate", body);
const two = (n: number) => String(n).padStart(2, "0");
const stemOf = (key: string, view: string | null, take: number) =>
  `${key}${view ? `_${view}` : ""}_t${two(take)}`;
const dirOf = (ep: string, key: string) => path.join(ep, "refs", "_takes", key);
const sidecar = async (ep: string, key: string, view: string | null, take: number): Promise<Any> =>
  JSON.parse(await readFile(path.join(dirOf(ep, key), `${stemOf(key, view, take)}.json`), "utf8"));
const refEvents = () => s.env.events.filter((e) => e.type === "studio.ref").map((e) => e.data as Any);

/** Series S with references on the built-in card (the shipped default is krea2). */
function cardSeries(target = "card") {
  const series = seriesS();
  series.refs = { target, keyframe_target: target };
  return series;
}

async function pngSize(file: string): Promise<{ width?: number; height?: number; format?: string }> {
  const meta = await sharp(file).metadata();
  return { width: meta.width, height: meta.height, format: meta.format };
}

/** An engine whose work runs until it is stopped (cancel), or fails at once. */
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

describe("ref jobs on the built-in card", () => {
  it("makes a character's four views as finished PNGs of the asked size, closing each sidecar ok", async () => {
    const ep = await s.episode(SCRIPT, { series: cardSeries() });
    const res = await generate({ ep, ref: "subject:ada" });
    expect(res.body.queued).toHaveLength(4);
    startPool();
    for (const q of res.body.queued) await waitFor(ended(q.prompt_id));
    for (const q of res.body.queued) {
      expect((await store.get(q.prompt_id))?.status).toBe("succeeded");
      const sc = await sidecar(ep, "subject__ada", q.view, 1);
      const stem = stemOf("subject__ada", q.view, 1);
      expect(sc).toMatchObject({
        status: "ok",
        image: `${stem}.png`,
        width: 1024,
        height: 1024,
        model: "card",
        job: q.prompt_id,
        backend_prompt_id: expect.stringMatching(/^builtin-/),
        seed_source: "stable",
      });
      expect(Array.isArray(sc.save_notes)).toBe(true);
      expect(sc.finished).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);
      expect(await pngSize(path.join(dirOf(ep, "subject__ada"), `${stem}.png`))).toEqual({
        width: 1024,
        height: 1024,
        format: "png",
      });
    }
    const ok = refEvents().filter((e) => e.status === "ok");
    expect(ok.map((e) => e.view).sort()).toEqual(["01_threequarter", "02_side", "03_back", "04_face"]);
    expect(ok[0]).toMatchObject({ ep, ref: "subject:ada", take: 1 });
    // Listed as usable candidates; no work folder is left in the episode.
    const listed = await s.call("GET", "/refs", { ep });
    await afterAnswerSettled(s.env.services, ep);
    const ada = listed.body.refs.find((r: Any) => r.id === "subject:ada");
    expect(ada.views.map((v: Any) => v.takes[0].usable)).toEqual([true, true, true, true]);
    const { readdir } = await import("node:fs/promises");
    expect((await readdir(ep)).filter((n) => n.startsWith(".render_"))).toEqual([]);
    // Once the reference has a usable take, auto draws a new seed.
    const next = await generate({ ep, ref: "subject:ada", view: "02_side" });
    expect(next.body.queued[0]).toMatchObject({ take: 2, seed_source: "new" });
  });

  it("makes a prop, a location and a keyframe at their sizes", async () => {
    const ep = await s.episode(SCRIPT, { series: cardSeries() });
    const prop = await generate({ ep, ref: "subject:kettle" });
    const plate = await generate({ ep, ref: "location:kitchen" });
    const still = await generate({ ep, ref: "shot:sh020:last" });
    const ids = [prop, plate, still].map((r) => r.body.queued[0].prompt_id);
    startPool();
    for (const id of ids) await waitFor(ended(id));
    const want: [string, number, number][] = [
      ["subject__kettle", 1024, 1024],
      ["location__kitchen", 1344, 768],
      ["shot__sh020__last", 1344, 768],
    ];
    for (const [key, width, height] of want) {
      const sc = await sidecar(ep, key, null, 1);
      expect(sc, key).toMatchObject({ status: "ok", width, height });
      expect(await pngSize(path.join(dirOf(ep, key), `${key}_t01.png`))).toMatchObject({ width, height });
    }
  });

  it("places a candidate of a series reference in the show folder when the series config lives there", async () => {
    const ep = await s.folder({ "../series.json": cardSeries(), "ep01.md": SCRIPT });
    expect((await s.call("POST", "/build", { ep })).body.ok).toBe(true);
    const res = await generate({ ep, ref: "location:street" });
    expect(res.body.errors).toEqual([]);
    startPool();
    await waitFor(ended(res.body.queued[0].prompt_id));
    const home = dirOf(path.dirname(ep), "location__street");
    const sc = JSON.parse(await readFile(path.join(home, "location__street_t01.json"), "utf8"));
    expect(sc).toMatchObject({ status: "ok", ep, image: "location__street_t01.png" });
    expect(await pngSize(path.join(home, "location__street_t01.png"))).toMatchObject({
      width: 1344,
      height: 768,
    });
  });

  it("closes a candidate failed with the engine's reason, and a retry makes a new one with the same settings", async () => {
    const ep = await s.episode(SCRIPT, { series: cardSeries() });
    const res = await generate({ ep, ref: "location:street", seed: "1234", note: "wet" });
    const id = res.body.queued[0].prompt_id;
    const pool = startPool(() => scriptedEngine("fail"));
    await waitFor(ended(id));
    expect(await store.get(id)).toMatchObject({ status: "failed", error: "the engine broke" });
    expect(await sidecar(ep, "location__street", null, 1)).toMatchObject({
      status: "failed",
      error: "the engine broke",
      save_notes: ["the engine broke"],
    });
    expect(refEvents().map((e) => e.status)).toEqual(["queued", "failed"]);
    await pool.stop({ graceful: false, timeoutMs: 2_000 });

    s.env.events.length = 0;
    const again = await retryJob(s.env.services, store, (await store.get(id))!);
    expect(again).toMatchObject({ kind: "ref", lane: "builtin", info: { take: 2, ref: "location:street" } });
    const queued = await sidecar(ep, "location__street", null, 2);
    expect(queued).toMatchObject({
      status: "queued",
      seed_source: "take:1",
      note: "wet",
      image: "location__street_t02.png",
      width: 1344,
      height: 768,
    });
    expect(String(queued.seed)).toBe("1234");
    expect(queued).not.toHaveProperty("error");
    startPool();
    await waitFor(ended(again.id));
    expect(await sidecar(ep, "location__street", null, 2)).toMatchObject({ status: "ok", job: again.id });
    expect(
      s.env.events.filter((e) => e.type !== "studio.job").map((e) => [e.type, (e.data as Any).status]),
    ).toEqual([
      ["studio.ref", "queued"],
      ["studio.episode", undefined],
      ["studio.ref", "ok"],
    ]);
  });

  it("cancels a waiting candidate (closed before it ran) and a running one (closed canceled)", async () => {
    const ep = await s.episode(SCRIPT, { series: cardSeries() });
    await store.pause("builtin", true);
    const waiting = await generate({ ep, ref: "subject:kettle" });
    const cancel = await s.call("POST", "/jobs/cancel", { id: waiting.body.queued[0].prompt_id });
    expect(cancel.status).toBe(200);
    expect(await sidecar(ep, "subject__kettle", null, 1)).toMatchObject({
      status: "failed",
      save_notes: ["canceled before it ran"],
    });
    expect(await sidecar(ep, "subject__kettle", null, 1)).not.toHaveProperty("error");
    expect(refEvents().map((e) => e.status)).toEqual(["queued", "failed"]);
    await store.pause("builtin", false);

    s.env.events.length = 0;
    const running = await generate({ ep, ref: "subject:kettle" });
    const id = running.body.queued[0].prompt_id;
    expect(running.body.queued[0].take).toBe(2);
    startPool(() => scriptedEngine("hang"));
    await waitFor(async () => (await store.get(id))?.status === "running");
    await waitFor(
      async () => (await sidecar(ep, "subject__kettle", null, 2)).backend_prompt_id === "scripted-hang",
    );
    await s.call("POST", "/jobs/cancel", { id });
    await waitFor(ended(id));
    expect((await store.get(id))?.status).toBe("canceled");
    expect(await sidecar(ep, "subject__kettle", null, 2)).toMatchObject({
      status: "failed",
      save_notes: ["canceled"],
    });
    expect(refEvents().map((e) => e.status)).toEqual(["queued", "failed"]);
  });

  it("closes a candidate whose job is gone after a restart when the references are listed", async () => {
    const ep = await s.episode(SCRIPT, { series: cardSeries() });
    await store.pause("builtin", true);
    const res = await generate({ ep, ref: "location:kitchen" });
    expect(res.body.queued).toHaveLength(1);
    // A restart on a fresh job database: the sidecar names a job no store knows.
    const file = path.join(dirOf(ep, "location__kitchen"), "location__kitchen_t01.json");
    const text = await readFile(file, "utf8");
    await writeFile(file, text.replace(res.body.queued[0].prompt_id, "j_gone"));
    s.env.events.length = 0;
    await s.call("GET", "/refs", { ep });
    await afterAnswerSettled(s.env.services, ep);
    expect(await sidecar(ep, "location__kitchen", null, 1)).toMatchObject({
      status: "failed",
      error: JOB_GONE,
    });
    expect(refEvents()).toEqual([{ ep, ref: "location:kitchen", view: null, take: 1, status: "failed" }]);
  });

  it("leaves a candidate whose job reaches the store moments after its sidecar names it", async () => {
    const ep = await s.episode(SCRIPT, { series: cardSeries() });
    await store.pause("builtin", true);
    const res = await generate({ ep, ref: "location:kitchen" });
    const queued: Any = await store.get(res.body.queued[0].prompt_id);
    // A process between its reserve and its insert: the sidecar names a job the store does not hold yet.
    const late = newJobId();
    const file = path.join(dirOf(ep, "location__kitchen"), "location__kitchen_t01.json");
    await writeFile(file, (await readFile(file, "utf8")).replace(queued.id, late));
    s.env.events.length = 0;
    await s.call("GET", "/refs", { ep });
    await new Promise((r) => setTimeout(r, 300));
    await store.add({
      id: late,
      kind: "ref",
      lane: "builtin",
      title: "late",
      info: {},
      payload: queued.payload,
    });
    await afterAnswerSettled(s.env.services, ep);
    expect(await sidecar(ep, "location__kitchen", null, 1)).toMatchObject({ status: "queued", job: late });
    expect(refEvents()).toEqual([]);
  });
});

describe("ref jobs on the local ComfyUI", () => {
  async function useDouble(models: Record<string, string[]>): Promise<ComfyDouble> {
    const double = await startComfyDouble({ models, stepMs: 1 });
    doubles.push(double);
    s.env.services.engines.lookups.clear();
    const file = settingsFile(s.env.services);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, JSON.stringify({ local_url: double.url }));
    return double;
  }

  it("makes a flux2_klein candidate: prompt, seed and size bound into the graph, the picture collected into the take", async () => {
    const double = await useDouble(DEFAULT_MODELS);
    const ep = await s.episode(SCRIPT, { series: cardSeries("flux2_klein") });
    const res = await generate({
      ep,
      ref: "location:kitchen",
      seed: "777",
      prompt: "a cramped kitchen, empty",
    });
    expect(res.body.errors).toEqual([]);
    expect(res.body.queued[0]).toMatchObject({ backend: "local", target: "flux2_klein", seed: "777" });
    const id = res.body.queued[0].prompt_id;
    expect((await store.get(id))?.lane).toBe("local");
    startPool();
    await waitFor(ended(id), 60_000);
    const job: Any = await store.get(id);
    expect(job.status, JSON.stringify(job.error ?? job.log)).toBe("succeeded");
    const sent: Any = double.prompts.at(-1)?.body;
    const graph = sent.prompt as Record<string, Any>;
    const nodes = Object.values(graph);
    const of = (cls: string) => nodes.filter((n) => n.class_type === cls);
    const positive = of("CLIPTextEncode").find((n) => n._meta?.title === "Positive prompt");
    expect(positive.inputs.text).toBe("a cramped kitchen, empty");
    expect(of("RandomNoise")[0].inputs.noise_seed).toBe(777);
    expect(of("EmptyFlux2LatentImage")[0].inputs).toMatchObject({ width: 1344, height: 768 });
    expect(of("UNETLoader")[0].inputs.unet_name).toBe("flux-2-klein-9b-kv.safetensors");
    expect(of("SaveImage")[0].inputs.filename_prefix).toBe("location__kitchen_t01");
    const sc = await sidecar(ep, "location__kitchen", null, 1);
    expect(sc).toMatchObject({
      status: "ok",
      target: "flux2_klein",
      backend: "local",
      image: "location__kitchen_t01.png",
      width: 1344,
      height: 768,
      backend_prompt_id: double.prompts.at(-1)?.prompt_id,
      resolved: { model: { using: "flux-2-klein-9b-kv.safetensors" } },
    });
    expect(await pngSize(path.join(dirOf(ep, "location__kitchen"), "location__kitchen_t01.png"))).toEqual({
      width: 1344,
      height: 768,
      format: "png",
    });
  });

  it("reports missing model files as an error entry with missing_files, reserving nothing", async () => {
    await useDouble({ ...DEFAULT_MODELS, text_encoders: [] });
    const ep = await s.episode(SCRIPT, { series: cardSeries("flux2_klein") });
    const res = await generate({ ep, ref: "subject:ada", view: "04_face" });
    expect(res.status).toBe(200);
    expect(res.body.queued).toEqual([]);
    expect(res.body.errors).toEqual([
      expect.objectContaining({
        ref: "subject:ada",
        view: "04_face",
        target: "flux2_klein",
        error: expect.stringMatching(/missing model files: qwen_3_8b_fp8mixed\.safetensors \(text_encoder\)/),
        missing_files: [
          expect.objectContaining({ param: "text_encoder", tier: "required", folder: "text_encoders" }),
        ],
      }),
    ]);
    expect(s.env.events.filter((e) => e.type === "studio.ref" || e.type === "studio.episode")).toEqual([]);
  });
});
