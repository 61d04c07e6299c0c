// ComfyUI renders for real, in process: POST /studio/render on an ltx2 series, the job store, a WorkerPool and the
// local engine against the ComfyUI double (settings' local_url); model files checked at queue time
// (mismatch and missing files).
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { settingsFile } from "../lib/config/settings.ts";
import type { StudioJobStore } from "../lib/jobs/store.ts";
import { countFrames } from "../lib/media/ffmpeg.ts";
import { renderJob } from "../workers/jobs/render.ts";
import { WorkerPool } from "../workers/pool.ts";
import { type ComfyDouble, DEFAULT_MODELS, startComfyDouble } from "./support/comfy-double/index.ts";
import { png, pointAtDouble, TWO_SHOTS } from "./support/comfy-studio.ts";
import { seriesS } from "./support/series-s.ts";
import { makeStudio, type Studio } from "./support/studio-episode.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

const SCRIPT3 = [TWO_SHOTS, "## sh030", "dur: 1", "The light goes out."].join("\n");

let s: Studio;
let store: StudioJobStore;
const doubles: ComfyDouble[] = [];
const pools: WorkerPool[] = [];

async function useDouble(
  models: Record<string, string[]>,
  workflows?: Record<string, unknown>,
): Promise<ComfyDouble> {
  const double = await startComfyDouble({ models, stepMs: 1, ...(workflows ? { workflows } : {}) });
  doubles.push(double);
  await pointAtDouble(s, double);
  return double;
}

async function ltxEpisode(): Promise<string> {
  const series = seriesS();
  series.series.target = "ltx2";
  const ep = await s.episode(SCRIPT3, { series });
  // The location plate the shots read, and sh010's first keyframe.
  await png(path.join(path.dirname(ep), "refs", "_bg", "kitchen.png"), 64, 64, "#336699");
  await png(path.join(ep, "refs", "_bg", "kitchen.png"), 64, 64, "#336699");
  await png(path.join(ep, "refs", "shots", "sh010", "first.png"), 64, 64, "#336699");
  return ep;
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

const ended = (id: string) => async () =>
  ["succeeded", "failed", "canceled"].includes((await store.get(id))?.status ?? "");
const sidecarFile = (ep: string, shot: string, take: number) =>
  path.join(ep, "renders_proxy", shot, `${shot}_t${String(take).padStart(2, "0")}.json`);
const sidecar = async (ep: string, shot: string, take: number): Promise<Any> =>
  JSON.parse(await readFile(sidecarFile(ep, shot, take), "utf8"));
const render = (body: Record<string, unknown>) => s.call("POST", "/render", body);

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
      expect(await countFrames(mp4, s.env.services.media)).toBe(sc.length);
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

  describe("model mismatch: same family renders with a note, another family is skipped", () => {
    // A distilled ltx2.5 transformer by name (it resolves by pattern) whose header is flux2-klein-9b's.
    const ODD = "ltx-2.5-22b-distilled-fp8.safetensors";
    const oddModels = () => {
      const models = structuredClone(DEFAULT_MODELS);
      models.diffusion_models = models.diffusion_models.map((f) => (f.includes("distilled") ? ODD : f));
      return models;
    };
    async function fakeComfyPath(): Promise<string> {
      const root = path.join(s.env.services.home, "comfy-local");
      const dir = path.join(root, "models", "diffusion_models");
      await mkdir(dir, { recursive: true });
      const t = (shape: number[]) => ({ dtype: "BF16", shape, data_offsets: [0, 0] });
      const header = Buffer.from(
        JSON.stringify({
          "img_in.weight": t([4096, 128]),
          "txt_in.weight": t([4096, 12288]),
          "double_stream_modulation_img.lin.weight": t([1]),
          "single_stream_modulation.lin.weight": t([1]),
          "double_blocks.7.img_attn.qkv.weight": t([1]),
          "single_blocks.23.linear1.weight": t([1]),
        }),
      );
      const len = Buffer.alloc(8);
      len.writeBigUInt64LE(BigInt(header.length));
      await writeFile(path.join(dir, ODD), Buffer.concat([len, header]));
      return root;
    }
    async function withPath(double: ComfyDouble, root: string | null): Promise<void> {
      await writeFile(
        settingsFile(s.env.services),
        JSON.stringify({ local_url: double.url, ...(root ? { path: root } : {}) }),
      );
    }

    it("skips a shot whose model file's header is another family, with model_mismatch and no take", async () => {
      const double = await useDouble(oddModels());
      await withPath(double, await fakeComfyPath());
      const ep = await ltxEpisode();
      const res = await render({ ep, shots: ["sh020"] });
      expect(res.body.queued).toEqual([]);
      expect(res.body.errors).toEqual([]);
      expect(res.body.skipped).toEqual([
        {
          shot: "sh020",
          reason: expect.stringMatching(/^model mismatch: model: .*flux2-klein-9b/),
          target: "ltx2",
          model_mismatch: [
            {
              param: "model",
              file: ODD,
              family: "flux2-klein-9b",
              label: expect.stringContaining(ODD),
              patterns: ["ltx-2.5*", "*ltx*2.5*", "*ltx*2_5*"],
              match: false,
              found: "flux2-klein-9b",
              message: expect.stringContaining("flux2-klein-9b"),
              block: true,
            },
          ],
        },
      ]);
      expect(await readFile(sidecarFile(ep, "sh020", 1), "utf8").catch(() => null)).toBeNull();
    });

    it("renders it with a note under allow_model_mismatch", async () => {
      const double = await useDouble(oddModels());
      await withPath(double, await fakeComfyPath());
      const ep = await ltxEpisode();
      const res = await render({ ep, shots: ["sh020"], allow_model_mismatch: true });
      expect(res.body.errors).toEqual([]);
      expect(res.body.skipped).toEqual([]);
      expect(res.body.queued).toHaveLength(1);
      const sc = await sidecar(ep, "sh020", 1);
      expect(sc.resolved.model).toMatchObject({ using: ODD, how: "family" });
      expect(sc.notes.join("\n")).toMatch(/model: .*flux2-klein-9b.*allow_model_mismatch/);
    });

    it("renders with a note when the substitute's header cannot be read on this machine", async () => {
      const double = await useDouble(oddModels());
      await withPath(double, null);
      const ep = await ltxEpisode();
      const res = await render({ ep, shots: ["sh030"] });
      expect(res.body.errors).toEqual([]);
      expect(res.body.skipped).toEqual([]);
      expect(res.body.queued).toHaveLength(1);
      const sc = await sidecar(ep, "sh030", 1);
      expect(sc.notes.join("\n")).toMatch(/model: .* could not be read from its header/);
    });

    it("skips a request model that names another family's file", async () => {
      await useDouble(DEFAULT_MODELS);
      const ep = await ltxEpisode();
      const res = await render({ ep, shots: ["sh010"], model: "flux-2-klein-9b-kv.safetensors" });
      expect(res.body.queued).toEqual([]);
      expect(res.body.skipped).toEqual([
        expect.objectContaining({
          shot: "sh010",
          reason: expect.stringMatching(/^model mismatch: /),
          model_mismatch: [
            expect.objectContaining({ param: "model", file: "flux-2-klein-9b-kv.safetensors" }),
          ],
        }),
      ]);
    });
  });

  it("names the address when the local ComfyUI does not answer, and reserves no take", async () => {
    const double = await useDouble(DEFAULT_MODELS);
    const ep = await ltxEpisode();
    await double.close();
    s.env.services.engines.lookups.clear();
    const res = await render({ ep, shots: ["sh010"] });
    expect(res.body.queued).toEqual([]);
    expect(res.body.errors).toEqual([
      { shot: "sh010", error: expect.stringContaining(`the local backend at ${double.url}`) },
    ]);
    expect(await readFile(sidecarFile(ep, "sh010", 1), "utf8").catch(() => null)).toBeNull();
  });
});

const LTX2_DIR = path.join(import.meta.dirname, "..", "lib", "targets", "video", "ltx2");

/** The shipped ltx2 workflow with the video decoder's tile size changed, so the graph ComfyUI got is recognisable. */
async function markedWorkflow(tile: number): Promise<Any> {
  const graph = JSON.parse(await readFile(path.join(LTX2_DIR, "workflow.json"), "utf8"));
  graph["30"].inputs.tile_size = tile;
  return graph;
}

/** The tile sizes of the decoders in every graph the double received. */
const tileSizes = (double: ComfyDouble) =>
  double.prompts.flatMap((p: Any) =>
    Object.values(p.body?.prompt ?? p.prompt ?? {})
      .filter((n: Any) => n.class_type === "VAEDecodeTiled")
      .map((n: Any) => n.inputs.tile_size),
  );

async function renderAll(ids: string[]): Promise<void> {
  startPool();
  for (const id of ids) await waitFor(ended(id));
  for (const id of ids) {
    const j: Any = await store.get(id);
    expect(j.status, JSON.stringify(j.error ?? j.log ?? j)).toBe("succeeded");
  }
}

describe("the workflow each target renders with, resolved once per target per request", () => {
  const envName = "H3_LTX2_WORKFLOW";
  afterEach(() => {
    delete s.env.services.env[envName];
  });

  it("uses the file the target's environment variable names, over the copy saved in ComfyUI", async () => {
    const double = await useDouble(DEFAULT_MODELS, { "h3pipe_ltx2_5.json": await markedWorkflow(384) });
    const ep = await ltxEpisode();
    const file = path.join(path.dirname(ep), "env-workflow.json");
    await writeFile(file, JSON.stringify(await markedWorkflow(256)));
    s.env.services.env[envName] = file;
    const res = await render({ ep, shots: ["sh020", "sh030"] });
    expect(res.body.errors).toEqual([]);
    expect(res.body.queued).toHaveLength(2);
    await renderAll(res.body.queued.map((q: Any) => q.prompt_id));
    expect(tileSizes(double)).toEqual([256, 256]);
  });

  it("uses the copy saved in ComfyUI when no environment variable names one", async () => {
    const double = await useDouble(DEFAULT_MODELS, { "h3pipe_ltx2_5.json": await markedWorkflow(384) });
    const ep = await ltxEpisode();
    const res = await render({ ep, shots: ["sh020"] });
    expect(res.body.errors).toEqual([]);
    expect(res.body.queued).toHaveLength(1);
    // The job patches the graph chosen at queue time, even when the saved copy changes meanwhile.
    await writeFile(
      path.join(double.userDir, "default", "workflows", "h3pipe_ltx2_5.json"),
      JSON.stringify(await markedWorkflow(320)),
    );
    await renderAll(res.body.queued.map((q: Any) => q.prompt_id));
    expect(tileSizes(double)).toEqual([384]);
    expect((await sidecar(ep, "sh020", 1)).status).toBe("ok");
  });

  it("puts each shot of the target in errors when its workflow is unreadable, with no take", async () => {
    await useDouble(DEFAULT_MODELS);
    const ep = await ltxEpisode();
    const file = path.join(path.dirname(ep), "broken-workflow.json");
    await writeFile(file, "{ not json");
    s.env.services.env[envName] = file;
    const res = await render({ ep, shots: ["sh010", "sh020"] });
    expect(res.body.queued).toEqual([]);
    expect(res.body.skipped).toEqual([]);
    expect(res.body.errors.map((e: Any) => e.shot)).toEqual(["sh010", "sh020"]);
    for (const e of res.body.errors) {
      expect(e.error).toContain(file);
      expect(e.error).toMatch(/not valid JSON/);
      expect(e.take).toBeUndefined();
    }
    for (const shot of ["sh010", "sh020"]) {
      expect(await readFile(sidecarFile(ep, shot, 1), "utf8").catch(() => null)).toBeNull();
    }
  });
});

describe("a show's own ComfyUI target", () => {
  it("renders on the base preset with a note when only its accelerator LoRA is missing", async () => {
    const double = await useDouble(DEFAULT_MODELS);
    const series = seriesS();
    series.series.target = "ltx2_turbo";
    const ep = await s.episode(SCRIPT3, { series, build: false });
    const spec = JSON.parse(await readFile(path.join(LTX2_DIR, "target.json"), "utf8"));
    const lora = "ltx-2.5-turbo-lora.safetensors";
    spec.id = "ltx2_turbo";
    spec.short = "LTX-2 turbo";
    spec.models.loras = {
      family: "ltx2.5-turbo-lora",
      patterns: ["*turbo*"],
      folder: "loras",
      tier: "accelerator",
    };
    for (const pass of ["final", "proxy"]) {
      spec.presets[pass].lora = lora;
      spec.presets[pass].base = { loras: [], steps: 20, cfg: 3.5 };
    }
    // The copy binds cfg (both stages' guiders), so the base preset's cfg reaches the patched graph.
    spec.binding.params.cfg = { class_type: "LTXVDualCFGGuider", field: "video_cfg", all: true };
    const dir = path.join(ep, "targets", "ltx2_turbo");
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, "target.json"), JSON.stringify(spec, null, 2));
    // The keyframe patch follows `binding.keyframe_patch`, which the copy keeps: the shipped workflow works as is.
    await writeFile(
      path.join(dir, "workflow.json"),
      await readFile(path.join(LTX2_DIR, "workflow.json"), "utf8"),
    );
    const built = await s.call("POST", "/build", { ep });
    expect(built.body.ok, JSON.stringify(built.body)).toBe(true);
    await png(path.join(ep, "refs", "_bg", "kitchen.png"), 64, 64, "#336699");
    await png(path.join(path.dirname(ep), "refs", "_bg", "kitchen.png"), 64, 64, "#336699");

    const res = await render({ ep, shots: ["sh020"] });
    expect(res.body.errors).toEqual([]);
    expect(res.body.skipped).toEqual([]);
    expect(res.body.queued.map((q: Any) => [q.shot, q.target])).toEqual([["sh020", "ltx2_turbo"]]);
    await renderAll(res.body.queued.map((q: Any) => q.prompt_id));
    const sc = await sidecar(ep, "sh020", 1);
    expect(sc).toMatchObject({ status: "ok", target: "ltx2_turbo", base: true });
    expect(sc.resolved.loras).toMatchObject({ want: lora, using: null, how: "missing", tier: "accelerator" });
    expect(sc.notes.join("\n")).toContain(`accelerator ${lora} (loras) is not installed`);
    expect(double.prompts.length).toBe(1);
    // Accelerator missing, so the base preset's values replace the target preset's (steps 8 → 20, cfg → 3.5).
    expect(sc.steps).toBe(20);
    const sent = Object.values(
      (double.prompts[0] as Any).body?.prompt ?? (double.prompts[0] as Any).prompt ?? {},
    ) as Any[];
    const guiders = sent.filter((n) => n.class_type === "LTXVDualCFGGuider");
    expect(guiders.length).toBeGreaterThan(0);
    for (const g of guiders) expect(g.inputs.video_cfg).toBe(3.5);
  });
});
