// Engine gaps against the ComfyUI double: node classes the engine lacks and param bindings that do not select one
// node are caught by readiness and at planning (no take reserved), and a take refused at queue time records `error`.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { StudioJobStore } from "../lib/jobs/store.ts";
import { queueRender } from "../lib/render/queue.ts";
import { renderBody, renderRequest } from "../lib/render/request.ts";
import { retrySidecar } from "../lib/render/retry.ts";
import { clearTargetReadiness } from "../lib/targets/readiness-cache.ts";
import { renderJob } from "../workers/jobs/render.ts";
import { WorkerPool } from "../workers/pool.ts";
import {
  type ComfyDouble,
  DEFAULT_MODELS,
  NODE_DEFS,
  startComfyDouble,
} from "./support/comfy-double/index.ts";
import { png, pointAtDouble, TWO_SHOTS } from "./support/comfy-studio.ts";
import { MemoryJobStore } from "./support/memory-jobs.ts";
import { seriesS } from "./support/series-s.ts";
import { makeStudio, type Studio } from "./support/studio-episode.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

const SCRIPT = TWO_SHOTS;

const LTX2_DIR = path.join(import.meta.dirname, "..", "lib", "targets", "video", "ltx2");

let s: Studio;
let store: StudioJobStore;
const doubles: ComfyDouble[] = [];
const pools: WorkerPool[] = [];

/** A double offering every class but `lacking`, and the settings pointing at it. */
async function useDouble(lacking: string[] = []): Promise<ComfyDouble> {
  const nodes = Object.keys(NODE_DEFS).filter((n) => !lacking.includes(n));
  const double = await startComfyDouble({ models: DEFAULT_MODELS, nodes, stepMs: 1 });
  doubles.push(double);
  await pointAtDouble(s, double);
  clearTargetReadiness(s.env.services);
  return double;
}

/** An episode on `target`, with the kitchen plate and sh010's first keyframe; `own` writes the show's target first. */
async function episode(target: string, own?: { spec: Any; workflow: Any }): Promise<string> {
  const series = seriesS();
  series.series.target = target;
  const ep = await s.episode(SCRIPT, { series, build: !own });
  if (own) {
    const dir = path.join(ep, "targets", own.spec.id);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, "target.json"), JSON.stringify(own.spec, null, 2));
    await writeFile(path.join(dir, "workflow.json"), JSON.stringify(own.workflow, null, 2));
    const built = await s.call("POST", "/build", { ep });
    expect(built.body.ok, JSON.stringify(built.body)).toBe(true);
  }
  await png(path.join(path.dirname(ep), "refs", "_bg", "kitchen.png"), 64, 64, "#336699");
  await png(path.join(ep, "refs", "_bg", "kitchen.png"), 64, 64, "#336699");
  await png(path.join(ep, "refs", "shots", "sh010", "first.png"), 64, 64, "#336699");
  return ep;
}

/** A show's copy of ltx2 whose `width` also goes to EmptyImage, with two untitled EmptyImage nodes in its graph. */
async function ambiguousTarget(): Promise<{ spec: Any; workflow: Any }> {
  const spec = JSON.parse(await readFile(path.join(LTX2_DIR, "target.json"), "utf8"));
  spec.id = "ltx2_frames";
  spec.short = "LTX-2 frames";
  spec.binding.params.width = [spec.binding.params.width, { class_type: "EmptyImage", field: "width" }];
  const workflow = JSON.parse(await readFile(path.join(LTX2_DIR, "workflow.json"), "utf8"));
  const empty = { width: 64, height: 64, batch_size: 1, color: 0 };
  workflow["40"] = { class_type: "EmptyImage", inputs: { ...empty } };
  workflow["41"] = { class_type: "EmptyImage", inputs: { ...empty } };
  return { spec, workflow };
}

function startPool(): WorkerPool {
  const services = s.env.services;
  const pool = new WorkerPool({
    services,
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

async function waitFor(cond: () => Promise<boolean> | boolean, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 25));
  }
}

const sidecarFile = (ep: string, shot: string, take: number) =>
  path.join(ep, "renders_proxy", shot, `${shot}_t${String(take).padStart(2, "0")}.json`);
const sidecarOf = async (ep: string, shot: string, take: number): Promise<Any> =>
  JSON.parse(await readFile(sidecarFile(ep, shot, take), "utf8"));
const noTake = async (ep: string, shot: string) =>
  expect(await readFile(sidecarFile(ep, shot, 1), "utf8").catch(() => null)).toBeNull();
const render = (body: Record<string, unknown>) => s.call("POST", "/render", body);
const readinessOf = async (id: string, ep?: string): Promise<Any> => {
  const res = await s.call("GET", "/targets", { ready: 1, kind: "video", ...(ep ? { ep } : {}) });
  expect(res.status).toBe(200);
  return res.body.targets.find((t: Any) => t.id === id)?.readiness;
};

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
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.stop({ graceful: false, timeoutMs: 2_000 });
  for (const j of (await store.list()).jobs) {
    if (j.status === "queued") await store.cancel(j.id);
    if (j.status === "running") await store.finish(j.id, j.lease_owner ?? "", "failed", "test cleanup");
  }
});

describe("node classes the engine lacks", () => {
  it("readiness lists a class only a keyframed job sends", async () => {
    await useDouble(["LTXVImgToVideoInplace"]);
    const r = await readinessOf("ltx2");
    expect(r.nodes_missing).toEqual(["LTXVImgToVideoInplace"]);
    expect(r.status).toBe("not_ready");
  });

  it("skips at planning only the shot whose graph uses the missing class, with missing_nodes and no take", async () => {
    const double = await useDouble(["LTXVImgToVideoInplace"]);
    const ep = await episode("ltx2");
    const res = await render({ ep });
    expect(res.body.errors).toEqual([]);
    expect(res.body.skipped).toEqual([
      {
        shot: "sh010",
        reason: expect.stringMatching(/LTXVImgToVideoInplace/),
        target: "ltx2",
        missing_nodes: ["LTXVImgToVideoInplace"],
      },
    ]);
    await noTake(ep, "sh010");
    // sh020 reads no keyframe: its graph has no LTXVImgToVideoInplace, so it queues and renders.
    expect(res.body.queued.map((q: Any) => q.shot)).toEqual(["sh020"]);
    startPool();
    const id = res.body.queued[0].prompt_id;
    await waitFor(async () => ["succeeded", "failed"].includes((await store.get(id))?.status ?? ""));
    const job: Any = await store.get(id);
    expect(job.status, JSON.stringify(job.error)).toBe("succeeded");
    expect(double.prompts.every((p) => p.status === 200)).toBe(true);
  });
});

describe("param bindings that do not select exactly one node", () => {
  it("make readiness not_ready, naming the binding and its candidate nodes", async () => {
    await useDouble();
    const ep = await episode("ltx2_frames", await ambiguousTarget());
    const r = await readinessOf("ltx2_frames", ep);
    expect(r.status).toBe("not_ready");
    expect(r.error).toMatch(/'width'/);
    expect(r.error).toMatch(/EmptyImage matched 2 nodes \(40, 41\)/);
    // The shipped ltx2 beside it is still ready.
    expect((await readinessOf("ltx2", ep)).status).toBe("ready");
  });

  it("put the shot in errors at planning, with no take reserved", async () => {
    const double = await useDouble();
    const ep = await episode("ltx2_frames", await ambiguousTarget());
    const res = await render({ ep, shots: ["sh020"] });
    expect(res.body.queued).toEqual([]);
    expect(res.body.skipped).toEqual([]);
    expect(res.body.errors).toEqual([{ shot: "sh020", error: expect.stringMatching(/'width'.*EmptyImage/) }]);
    await noTake(ep, "sh020");
    expect(double.prompts).toEqual([]);
  });
});

describe("a take that fails at queue time", () => {
  it("is failed with its error set when ComfyUI refuses the prompt with node_errors", async () => {
    const double = await useDouble();
    const ep = await episode("ltx2");
    const res = await render({ ep, shots: ["sh020"] });
    expect(res.body.queued).toHaveLength(1);
    double.inject({ kind: "node_error", classType: "CLIPTextEncode", message: "the prompt is not welcome" });
    startPool();
    const id = res.body.queued[0].prompt_id;
    await waitFor(async () => ["succeeded", "failed"].includes((await store.get(id))?.status ?? ""));
    expect(double.prompts.map((p) => p.status)).toEqual([400]);
    const sc = await sidecarOf(ep, "sh020", 1);
    expect(sc.status).toBe("failed");
    expect(sc.error).toEqual(expect.stringContaining("the prompt is not welcome"));
    expect(sc.save_notes).toBe(sc.error);
    // A retry takes the settings, not the failure.
    const again = retrySidecar(sc, 1, 2, "2025-01-01T00:00:00");
    expect(again).toMatchObject({ status: "queued", take: 2, seed_source: "take:1" });
    expect(again).not.toHaveProperty("error");
    expect(again).not.toHaveProperty("save_notes");
  });

  it("is failed with its error set when its job cannot be stored", async () => {
    const ep = await s.episode(SCRIPT); // the built-in animatic: no engine involved
    const refusing = new MemoryJobStore();
    refusing.add = async () => {
      throw new Error("the job database is read-only");
    };
    const services = s.env.services;
    const req = renderRequest(renderBody.parse({ ep, shots: ["sh020"] }));
    const res = await queueRender(services, ep, req, {
      store: refusing,
      engine: (backend) => services.engines.get(backend),
    });
    expect(res.queued).toEqual([]);
    expect(res.errors).toEqual([
      { shot: "sh020", take: 1, error: expect.stringContaining("the job database is read-only") },
    ]);
    const sc = await sidecarOf(ep, "sh020", 1);
    expect(sc).toMatchObject({ status: "failed", error: "not queued: the job database is read-only" });
  });
});
