// A shot's last keyframe reaches the render: POST /studio/render on ltx2 and wan22_i2v series through the ComfyUI
// double, the job store, a WorkerPool and the local engine. The last frame is uploaded, loaded by the graph sent
// (ltx2: a LoadImage feeding the last-frame guide; wan22_i2v: WanFirstLastFrameToVideo's end_image), recorded as an
// input of the take and as a reference with its identity.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { settingsFile } from "../lib/config/settings.ts";
import type { StudioJobStore } from "../lib/jobs/store.ts";
import { shippedRegistry } from "../lib/targets/registry.ts";
import { renderJob } from "../workers/jobs/render.ts";
import type { WorkerPool } from "../workers/pool.ts";
import { type ComfyDouble, DEFAULT_MODELS, startComfyDouble } from "./support/comfy-double/index.ts";
import { jobEnded, startTestPool } from "./support/jobs.ts";
import { seriesS } from "./support/series-s.ts";
import { makeStudio, type Studio } from "./support/studio-episode.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

const SCRIPT = [
  "= e01  T",
  "# sq01 kitchen",
  "## sh010",
  "dur: 1",
  "last: import",
  "The kettle steams, then stops.",
].join("\n");

let s: Studio;
let store: StudioJobStore;
const doubles: ComfyDouble[] = [];
const pools: WorkerPool[] = [];

/** The double's own files plus every file the target downloads. */
function modelsFor(target: string): Record<string, string[]> {
  const models = structuredClone(DEFAULT_MODELS);
  const downloads = (shippedRegistry().get(target)?.downloads ?? {}) as Record<string, { folder: string }>;
  for (const [file, d] of Object.entries(downloads)) models[d.folder] = [...(models[d.folder] ?? []), file];
  return models;
}

async function useDouble(target: string): Promise<ComfyDouble> {
  const double = await startComfyDouble({ models: modelsFor(target), stepMs: 1 });
  doubles.push(double);
  s.env.services.engines.lookups.clear();
  const file = settingsFile(s.env.services);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify({ local_url: double.url }));
  return double;
}

async function png(file: string, colour: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await sharp({ create: { width: 64, height: 48, channels: 3, background: colour } })
    .png()
    .toFile(file);
}

/** An episode on `target` with the kitchen plate and sh010's keyframes (`ends`) in place. */
async function episodeOn(target: string, ends: ("first" | "last")[]): Promise<string> {
  const series = seriesS();
  series.series.target = target;
  const ep = await s.episode(SCRIPT, { series });
  await png(path.join(path.dirname(ep), "refs", "_bg", "kitchen.png"), "#336699");
  await png(path.join(ep, "refs", "_bg", "kitchen.png"), "#336699");
  const colours = { first: "#996633", last: "#339966" };
  for (const end of ends) await png(path.join(ep, "refs", "shots", "sh010", `${end}.png`), colours[end]);
  return ep;
}

/** Renders sh010 and answers its sidecar and the graph the double accepted for it. */
async function renderShot(ep: string, double: ComfyDouble): Promise<{ sc: Any; graph: Record<string, Any> }> {
  const res = await s.call("POST", "/render", { ep, shots: ["sh010"] });
  expect(res.status).toBe(200);
  expect(res.body.errors).toEqual([]);
  expect(res.body.skipped).toEqual([]);
  expect(res.body.queued).toHaveLength(1);
  const id = res.body.queued[0].prompt_id as string;
  expect((await store.get(id))?.payload).toMatchObject({
    last_frame: path.join(ep, "refs", "shots", "sh010", "last.png"),
  });
  pools.push(startTestPool(s.env.services, store, { render: renderJob }));
  const job: Any = await jobEnded(store, id);
  expect(job.status, JSON.stringify(job.error ?? job.log ?? job)).toBe("succeeded");
  const accepted = double.prompts.filter((p) => p.status === 200);
  expect(accepted).toHaveLength(1);
  const sc = JSON.parse(await readFile(path.join(ep, "renders_proxy", "sh010", "sh010_t01.json"), "utf8"));
  return { sc, graph: (accepted[0] as Any).body.prompt };
}

const ofClass = (g: Record<string, Any>, cls: string) =>
  Object.entries(g).filter(([, n]: [string, Any]) => n.class_type === cls);
const base = (n: string) => n.split("/").pop();

/** The last frame went up under the name the take records, and the recorded reference carries its identity. */
function expectLastRecorded(sc: Any, double: ComfyDouble): string {
  expect(typeof sc.inputs.last).toBe("string");
  expect(sc.inputs.last).not.toBe(sc.inputs.first);
  expect(double.uploads.map((u) => base(u.name))).toContain(base(sc.inputs.last));
  const ref = sc.refs.find((r: Any) => String(r.path).endsWith("sh010/last.png"));
  expect(ref).toMatchObject({ sha1: expect.stringMatching(/^[0-9a-f]{40}$/) });
  return sc.inputs.last;
}

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
});

describe("a shot's last keyframe on the local ComfyUI", () => {
  it("ltx2: the last frame is uploaded and loaded into the last-frame guide", async () => {
    const double = await useDouble("ltx2");
    const ep = await episodeOn("ltx2", ["last"]);
    const { sc, graph } = await renderShot(ep, double);
    expect(sc.inputs.first).toBeUndefined();
    const last = expectLastRecorded(sc, double);
    const loads = ofClass(graph, "LoadImage").filter(([, n]) => n.inputs.image === last);
    expect(loads).toHaveLength(1);
    const [loadId] = loads[0];
    const pre = ofClass(graph, "LTXVPreprocess").filter(([, n]) => n.inputs.image[0] === loadId);
    expect(pre).toHaveLength(1);
    const guides = ofClass(graph, "LTXVAddGuide").filter(([, n]) => n.inputs.image[0] === pre[0][0]);
    expect(guides.length).toBeGreaterThanOrEqual(1);
    for (const [, g] of guides) expect(g.inputs.frame_idx).toBe(-1);
  });

  it("wan22_i2v: the first and last frames switch to WanFirstLastFrameToVideo with end_image", async () => {
    const double = await useDouble("wan22_i2v");
    const ep = await episodeOn("wan22_i2v", ["first", "last"]);
    const { sc, graph } = await renderShot(ep, double);
    const last = expectLastRecorded(sc, double);
    expect(ofClass(graph, "WanImageToVideo")).toHaveLength(0);
    const flf = ofClass(graph, "WanFirstLastFrameToVideo");
    expect(flf).toHaveLength(1);
    const [, node] = flf[0];
    expect(graph[node.inputs.end_image[0]].inputs.image).toBe(last);
    expect(graph[node.inputs.start_image[0]].inputs.image).toBe(sc.inputs.first);
  });
});
