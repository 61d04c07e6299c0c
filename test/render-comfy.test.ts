// ComfyUI renders for real, in process: POST /studio/render on an ltx2 series, the job store, a WorkerPool and the
// local engine against the ComfyUI double (settings' local_url); model files checked at queue time (rules 4, 5).
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { settingsFile } from "../lib/config/settings.ts";
import { clearReadinessCache } from "../lib/engines/comfyui/readiness.ts";
import { closeComfyEngines, engineFor } from "../lib/engines/registry.ts";
import { openJobStore, type StudioJobStore } from "../lib/jobs/store.ts";
import { countFrames } from "../lib/media/ffmpeg.ts";
import { renderJob } from "../workers/jobs/render.ts";
import { WorkerPool } from "../workers/pool.ts";
import { type ComfyDouble, DEFAULT_MODELS, startComfyDouble } from "./support/comfy-double/index.ts";
import { seriesS } from "./support/series-s.ts";
import { makeStudio, type Studio } from "./support/studio-episode.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

const SCRIPT3 = [
  "= e01  T",
  "# sq01 kitchen",
  "## sh010",
  "dur: 2",
  "The kettle steams.",
  "## sh020",
  "dur: 1",
  "Rain on the window.",
  "## sh030",
  "dur: 1",
  "The light goes out.",
].join("\n");

let s: Studio;
let store: StudioJobStore;
const doubles: ComfyDouble[] = [];
const pools: WorkerPool[] = [];

async function useDouble(models: Record<string, string[]>): Promise<ComfyDouble> {
  const double = await startComfyDouble({ models, stepMs: 1 });
  doubles.push(double);
  clearReadinessCache();
  const file = settingsFile(s.env.services);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify({ local_url: double.url }));
  return double;
}

async function png(file: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await sharp({ create: { width: 64, height: 64, channels: 3, background: "#336699" } })
    .png()
    .toFile(file);
}

async function ltxEpisode(): Promise<string> {
  const series = seriesS();
  series.series.target = "ltx2";
  const ep = await s.episode(SCRIPT3, { series });
  // The location plate the shots read, and sh010's first keyframe.
  await png(path.join(path.dirname(ep), "refs", "_bg", "kitchen.png"));
  await png(path.join(ep, "refs", "_bg", "kitchen.png"));
  await png(path.join(ep, "refs", "shots", "sh010", "first.png"));
  return ep;
}

function startPool(): WorkerPool {
  const services = s.env.services;
  const pool = new WorkerPool({
    services,
    store,
    handlers: { render: renderJob },
    engines: (backend) => engineFor(backend, services),
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

const ended = (id: string) => async () =>
  ["succeeded", "failed", "canceled"].includes((await store.get(id))?.status ?? "");
const sidecarFile = (ep: string, shot: string, take: number) =>
  path.join(ep, "renders_proxy", shot, `${shot}_t${String(take).padStart(2, "0")}.json`);
const sidecar = async (ep: string, shot: string, take: number): Promise<Any> =>
  JSON.parse(await readFile(sidecarFile(ep, shot, take), "utf8"));
const render = (body: Record<string, unknown>) => s.call("POST", "/render", body);

beforeAll(async () => {
  s = await makeStudio();
  store = await openJobStore(s.env.services);
});
afterAll(async () => {
  await closeComfyEngines();
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

describe("rendering on the local ComfyUI", () => {
  it("renders three ltx2 shots on lane local with exact frame counts, resolved models and the first keyframe uploaded", async () => {
    const double = await useDouble(DEFAULT_MODELS);
    const ep = await ltxEpisode();
    const res = await render({ ep });
    expect(res.status).toBe(200);
    expect(res.body.errors).toEqual([]);
    expect(res.body.skipped).toEqual([]);
    expect(res.body.queued.map((q: Any) => [q.shot, q.target])).toEqual([
      ["sh010", "ltx2"],
      ["sh020", "ltx2"],
      ["sh030", "ltx2"],
    ]);
    const jobs = res.body.queued.map((q: Any) => q.prompt_id as string);
    for (const id of jobs) expect((await store.get(id))?.lane).toBe("local");
    startPool();
    for (const id of jobs) await waitFor(ended(id));
    for (const id of jobs) {
      const j: Any = await store.get(id);
      expect(j.status, JSON.stringify(j.error ?? j.log ?? j)).toBe("succeeded");
    }
    for (const shot of ["sh010", "sh020", "sh030"]) {
      const sc = await sidecar(ep, shot, 1);
      expect(sc).toMatchObject({ status: "ok", target: "ltx2", backend: "local", base: false });
      expect(sc.resolved.model).toEqual({
        want: "ltx-2.5-22b-distilled-transformer-comfy-int8-convrot.safetensors",
        using: "ltx-2.5-22b-distilled-transformer-comfy-int8-convrot.safetensors",
        how: "exact",
        tier: "required",
      });
      expect(sc.resolved.text_encoder).toMatchObject({ how: "exact", tier: "required" });
      const mp4 = path.join(ep, "renders_proxy", shot, sc.mp4);
      expect((await stat(mp4)).size).toBeGreaterThan(0);
      expect(await countFrames(mp4, s.env.services.env)).toBe(sc.length);
      expect(sc.frames).toBe(sc.length);
    }
    expect(double.prompts.length).toBeGreaterThanOrEqual(3);
    // sh010's first keyframe went up (the kitchen plate too, read by every shot), as the name the graph loads.
    const first = await sidecar(ep, "sh010", 1);
    expect(typeof first.inputs.first).toBe("string");
    const base = (n: string) => n.split("/").pop();
    expect(double.uploads.map((u) => base(u.name))).toContain(base(first.inputs.first));
    const loaded = double.prompts.flatMap((p: Any) =>
      Object.values(p.body?.prompt ?? p.prompt ?? {}).map((n: Any) => n.inputs?.image),
    );
    expect(loaded).toContain(first.inputs.first);
    expect((await sidecar(ep, "sh020", 1)).inputs.first).toBeUndefined();
  });

  it("skips a shot whose required model file is missing, with missing_files and no take", async () => {
    const models = structuredClone(DEFAULT_MODELS);
    models.text_encoders = models.text_encoders.filter((f) => !f.includes("gemma"));
    await useDouble(models);
    const ep = await ltxEpisode();
    const res = await render({ ep, shots: ["sh020"] });
    expect(res.body.queued).toEqual([]);
    expect(res.body.errors).toEqual([]);
    expect(res.body.skipped).toEqual([
      {
        shot: "sh020",
        reason: expect.stringMatching(
          /^missing model files: gemma4-12b-with-proj-ltx-2\.5.*\(text_encoder\)/,
        ),
        target: "ltx2",
        missing_files: [
          expect.objectContaining({
            param: "text_encoder",
            tier: "required",
            want: "gemma4-12b-with-proj-ltx-2.5-comfy-int8-convrot.safetensors",
            family: "ltx2.5-text-encoder",
            folder: "text_encoders",
          }),
        ],
      },
    ]);
    expect(res.body.skipped[0].missing_files[0]).toHaveProperty("url");
    expect(res.body.skipped[0].missing_files[0]).toHaveProperty("source");
    expect(await readFile(sidecarFile(ep, "sh020", 1), "utf8").catch(() => null)).toBeNull();
  });

  it("renders on with an optional ltx2 file missing: the feature is off, noted, and resolved says so", async () => {
    // ltx2 has no accelerator tier (its extra files are optional), so the planner's fallback path is shown with
    // the optional duration head: the shot queues, base stays false, and the note names the feature switched off.
    const models = structuredClone(DEFAULT_MODELS);
    models.model_patches = [];
    await useDouble(models);
    const ep = await ltxEpisode();
    const res = await render({ ep, shots: ["sh030"] });
    expect(res.body.errors).toEqual([]);
    expect(res.body.queued).toHaveLength(1);
    const sc = await sidecar(ep, "sh030", 1);
    expect(sc.base).toBe(false);
    expect(sc.resolved.duration_head).toMatchObject({ using: null, how: "off", tier: "optional" });
    expect(sc.notes.join("\n")).toMatch(/duration_head: .* is not installed, so .* is off/);
  });

  it("names the address when the local ComfyUI does not answer, and reserves no take", async () => {
    const double = await useDouble(DEFAULT_MODELS);
    const ep = await ltxEpisode();
    await double.close();
    clearReadinessCache();
    const res = await render({ ep, shots: ["sh010"] });
    expect(res.body.queued).toEqual([]);
    expect(res.body.errors).toEqual([
      { shot: "sh010", error: expect.stringContaining(`the local backend at ${double.url}`) },
    ]);
    expect(await readFile(sidecarFile(ep, "sh010", 1), "utf8").catch(() => null)).toBeNull();
  });
});
