// The finishing graphs against the ComfyUI double: every builder's graph passes ComfyUI's prompt validation when its
// nodes and model files are there; the pixel upscale and a 1× pixel post run through the ComfyUI engine (the take
// uploaded, the frames scaled by the double as ComfyUI's nodes size them, saved with the take's sound); and with
// nodes or files absent, the sentences name the pack or "update ComfyUI" and the models folder.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createComfyEngine } from "../lib/engines/comfyui/index.ts";
import type { NodeInfo } from "../lib/engines/comfyui/readiness.ts";
import type { EngineJob } from "../lib/engines/types.ts";
import { PostGraphError, postGraph } from "../lib/post/graphs/index.ts";
import type { ApiGraph } from "../lib/targets/graph.ts";
import { missingSentences, upscaleGraph } from "../lib/upscale/graphs/index.ts";
import { cutSigmas, LatentGraphError, latentModeNeeds } from "../lib/upscale/graphs/latent.ts";
import { seedvr2Batch, seedvr2Resolution } from "../lib/upscale/graphs/seedvr2.ts";
import type { BuiltGraph, SourceVideo } from "../lib/upscale/graphs/types.ts";
import {
  type ComfyDouble,
  DEFAULT_MODELS,
  DEFAULT_NODES,
  NODE_DEFS,
  startComfyDouble,
} from "./support/comfy-double/index.ts";

const MODELS = {
  ...DEFAULT_MODELS,
  upscale_models: ["RealESRGAN_x2.pth", "4x-UltraSharp.pth"],
  SEEDVR2: ["seedvr2_ema_7b_fp16.safetensors", "seedvr2_ema_3b_fp16.safetensors", "ema_vae_fp16.safetensors"],
  checkpoints: ["SUPIR-v0F_fp16.safetensors", "sd_xl_base_1.0_0.9vae.safetensors"],
  optical_flow: ["raft_large_C_T_SKHT_V2-ff5fadd5.pth"],
};

const temps: string[] = [];
async function tempDir(prefix: string): Promise<string> {
  const d = await mkdtemp(path.join(os.tmpdir(), prefix));
  temps.push(d);
  return d;
}

let double: ComfyDouble;
let dir: string;
let take: SourceVideo;

async function ffprobe(file: string) {
  const r = await execa("ffprobe", [
    ...["-v", "error", "-count_packets", "-show_entries", "stream=codec_type,width,height,nb_read_packets"],
    ...["-of", "json", file],
  ]);
  const streams = JSON.parse(r.stdout).streams as {
    codec_type: string;
    width?: number;
    height?: number;
    nb_read_packets: string;
  }[];
  const v = streams.find((s) => s.codec_type === "video");
  return {
    width: v?.width,
    height: v?.height,
    frames: Number(v?.nb_read_packets),
    audio: streams.some((s) => s.codec_type === "audio"),
  };
}

beforeAll(async () => {
  dir = await tempDir("upscale-graphs-");
  const file = path.join(dir, "sh010_t01.mp4");
  await execa("ffmpeg", [
    ...["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x192:rate=24", "-f", "lavfi"],
    ...["-i", "sine=frequency=330:sample_rate=48000", "-frames:v", "12", "-t", "0.5"],
    ...["-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", file],
  ]);
  take = { file, width: 320, height: 192, fps: 24, frames: 12 };
  double = await startComfyDouble({ nodes: Object.keys(NODE_DEFS), models: MODELS, stepMs: 1 });
});
afterAll(async () => {
  await double?.close();
  await Promise.all(temps.map((d) => rm(d, { recursive: true, force: true })));
});

/** The graph as the engine would send it: the take's path swapped for an uploaded input's name. */
async function submitted(built: BuiltGraph): Promise<ApiGraph> {
  const graph = structuredClone(built.graph);
  const name = "studio/take.mp4";
  await execa("mkdir", ["-p", path.join(double.inputDir, "studio")]);
  await execa("cp", [take.file, path.join(double.inputDir, name)]);
  for (const node of Object.values(graph)) if (node.inputs.file === take.file) node.inputs.file = name;
  return graph;
}

async function validates(built: BuiltGraph): Promise<void> {
  const res = await fetch(`${double.url}/prompt`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ prompt: await submitted(built), client_id: "graphs-test" }),
  });
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(200);
  await double.idle(60_000);
}

/** Runs `built` through the ComfyUI engine as a job would, answering the collected video. */
async function runOnEngine(built: BuiltGraph, stem: string): Promise<string> {
  const engine = createComfyEngine({ url: double.url });
  try {
    const job = {
      kind: "video",
      target: "ltx2",
      ep: "ep01",
      pass: "final",
      subject: "sh010",
      take: 1,
      stem,
      width: take.width,
      height: take.height,
      fps: take.fps,
      frames: take.frames,
      seed: 1n,
      prompt: "",
      negative: null,
      inputs: { take: take.file },
      workDir: await tempDir("upscale-graphs-work-"),
      graph: built.graph,
    } as unknown as EngineJob;
    const hooks = { signal: new AbortController().signal, onProgress() {} };
    const prepared = await engine.prepare(job, hooks);
    const submittedJob = await engine.submit(job, prepared, hooks);
    const outputs = await engine.collect(job, submittedJob, hooks);
    expect(outputs.video).toBeTruthy();
    return outputs.video as string;
  } finally {
    await engine.close();
  }
}

async function catalogue(nodes: readonly string[], models = MODELS) {
  const d = await startComfyDouble({ nodes: [...nodes], models });
  try {
    const info = (await (await fetch(`${d.url}/object_info`)).json()) as Record<string, NodeInfo>;
    return info;
  } finally {
    await d.close();
  }
}

describe("pixel upscale (core nodes)", () => {
  it("runs through the engine: the take uploaded, upscaled ×2 and fitted to the asked size, its sound kept", async () => {
    const built = upscaleGraph({
      method: "pixel",
      model: "RealESRGAN_x2.pth",
      source: take,
      out: { width: 640, height: 384 },
      prefix: "studio/sh010_t01.up",
    });
    expect(Object.values(built.graph).map((n) => n.class_type)).toEqual([
      "LoadVideo",
      "GetVideoComponents",
      "UpscaleModelLoader",
      "ImageUpscaleWithModel",
      "ImageScale",
      "CreateVideo",
      "SaveVideo",
    ]);
    expect(built.needs.models).toEqual([
      {
        folder: "upscale_models",
        file: "RealESRGAN_x2.pth",
        loader: { class_type: "UpscaleModelLoader", input: "model_name" },
      },
    ]);
    expect(built.notes.join(" ")).toMatch(/H3FinishUpscale/);
    const before = double.uploads.length;
    const video = await runOnEngine(built, "sh010_t01.up");
    const sent = double.prompts.at(-1)?.body as { prompt: ApiGraph };
    const upload = double.uploads.slice(before).find((u) => u.filename.endsWith(".mp4"));
    expect(upload, "the take is uploaded").toBeTruthy();
    expect(sent.prompt["1"].inputs.file).toBe(`studio/${upload?.name.split("/").pop()}`);
    expect(await ffprobe(video)).toEqual({ width: 640, height: 384, frames: 12, audio: true });
  });

  it("crops to cover a delivery size of another aspect, or pads inside it", async () => {
    for (const fit of ["crop", "pad"] as const) {
      const built = upscaleGraph({
        method: "pixel",
        model: "4x-UltraSharp.pth",
        source: take,
        out: { width: 1280, height: 720, fit },
        prefix: `studio/fit-${fit}`,
      });
      const last = Object.values(built.graph).find((n) =>
        ["ImageScale", "ResizeAndPadImage"].includes(n.class_type),
      );
      expect(last?.class_type).toBe(fit === "crop" ? "ImageScale" : "ResizeAndPadImage");
      if (fit === "crop") expect(last?.inputs.crop).toBe("center");
      const video = await runOnEngine(built, `fit-${fit}`);
      expect(await ffprobe(video)).toMatchObject({ width: 1280, height: 720, frames: 12 });
    }
  });

  it("names the upscale model missing from models/upscale_models/, and core nodes as 'update ComfyUI'", async () => {
    const built = upscaleGraph({
      method: "pixel",
      model: "RealESRGAN_x2.pth",
      source: take,
      out: { width: 640, height: 384 },
      prefix: "p",
    });
    const info = await catalogue(
      DEFAULT_NODES.filter((n) => n !== "ImageUpscaleWithModel"),
      { ...MODELS, upscale_models: [] },
    );
    expect(missingSentences(built.needs, info)).toEqual([
      "node ImageUpscaleWithModel is missing: it comes with ComfyUI itself (update ComfyUI)",
      "model file RealESRGAN_x2.pth is missing from models/upscale_models/",
    ]);
    // A folder list, when known, wins over the loader's choices.
    const full = await catalogue(DEFAULT_NODES);
    expect(missingSentences(built.needs, full)).toEqual([]);
    expect(missingSentences(built.needs, full, { upscale_models: ["other.pth"] })).toEqual([
      "model file RealESRGAN_x2.pth is missing from models/upscale_models/",
    ]);
  });
});

describe("SeedVR2 (ComfyUI-SeedVR2_VideoUpscaler pack)", () => {
  const req = () =>
    ({
      method: "seedvr2",
      model: "7b",
      seed: 2 ** 40 + 5,
      source: take,
      out: { width: 1280, height: 720, fit: "crop" },
      prefix: "studio/s2",
    }) as const;

  it("sizes by the short edge that covers the delivery, batches as 4n+1, and validates when the pack is there", async () => {
    expect(seedvr2Resolution({ width: 1344, height: 768 }, { width: 3840, height: 2160, fit: "crop" })).toBe(
      2196,
    );
    expect(seedvr2Resolution({ width: 1344, height: 768 }, { width: 3840, height: 2160, fit: "pad" })).toBe(
      2160,
    );
    expect(seedvr2Batch(12, 0)).toBe(13);
    expect(seedvr2Batch(120, 33)).toBe(33);
    expect(() => seedvr2Batch(120, 32)).toThrow(/4n\+1/);
    const built = upscaleGraph(req());
    const up = Object.values(built.graph).find((n) => n.class_type === "SeedVR2VideoUpscaler");
    expect(up?.inputs).toMatchObject({ resolution: 768, batch_size: 13, color_correction: "lab", seed: 5 });
    await validates(built);
    const video = await runOnEngine(built, "s2");
    expect(await ffprobe(video)).toMatchObject({ width: 1280, height: 720, frames: 12, audio: true });
  });

  it("without the pack names it and the model files in models/SEEDVR2/", async () => {
    const info = await catalogue(DEFAULT_NODES, { ...MODELS, SEEDVR2: [] });
    expect(missingSentences(upscaleGraph(req()).needs, info, { SEEDVR2: [] })).toEqual([
      "nodes SeedVR2LoadDiTModel, SeedVR2LoadVAEModel, SeedVR2VideoUpscaler are missing: install the ComfyUI-SeedVR2_VideoUpscaler node pack",
      "model file seedvr2_ema_7b_fp16.safetensors is missing from models/SEEDVR2/",
      "model file ema_vae_fp16.safetensors is missing from models/SEEDVR2/",
    ]);
  });
});

describe("LTX-2.5 second stage from the target's own workflow", () => {
  const workflow = async () =>
    JSON.parse(
      await readFile(
        path.join(import.meta.dirname, "..", "lib", "targets", "video", "ltx2", "workflow.json"),
        "utf8",
      ),
    ) as ApiGraph;

  it("feeds the take re-encoded through the upsampler, holds its sound, cuts the sigmas, and validates", async () => {
    const built = upscaleGraph({
      method: "latent",
      mode: "second_stage",
      take_graph: await workflow(),
      start_step: 1,
      seed: 77,
      route: "vae",
      source: take,
      out: { width: 640, height: 384 },
      prefix: "studio/ss",
    });
    const g = built.graph;
    const cls = (c: string) => Object.entries(g).filter(([, n]) => n.class_type === c);
    // The take's first stage, guides and outputs are gone; one sampler remains.
    expect(cls("SamplerCustomAdvanced")).toHaveLength(1);
    expect(cls("EmptyLTXVLatentVideo")).toHaveLength(0);
    expect(cls("LoadImage")).toHaveLength(0);
    expect(cls("ManualSigmas")[0][1].inputs.sigmas).toBe("0.725, 0.421875, 0.0");
    const [[upId, up]] = cls("LTXVLatentUpsampler");
    expect(g[(up.inputs.samples as [string, number])[0]].class_type).toBe("VAEEncode");
    const [[, sampler]] = cls("SamplerCustomAdvanced");
    const held = g[(sampler.inputs.latent_image as [string, number])[0]];
    expect(held.class_type).toBe("H3HoldAudio");
    const concat = g[(held.inputs.latent as [string, number])[0]];
    expect(concat.inputs.video_latent).toEqual([upId, 0]);
    expect(g[(concat.inputs.audio_latent as [string, number])[0]].class_type).toBe("LTXVAudioVAEEncode");
    expect(cls("RandomNoise").every(([, n]) => n.inputs.noise_seed === 77)).toBe(true);
    expect(built.needs.nodes).toContainEqual({
      class_type: "H3HoldAudio",
      pack: expect.stringMatching(/h3pipe/),
    });
    expect(built.needs.models.map((m) => `${m.folder}/${m.file}`)).toContain(
      "latent_upscale_models/ltx-2.5-latent-spatial-upscaler-x2-bf16-1.0.safetensors",
    );
    await validates(built);
    const info = await catalogue(DEFAULT_NODES);
    expect(missingSentences(built.needs, info)).toEqual([
      "node H3HoldAudio is missing: install the h3pipe (the project's ComfyUI node pack) node pack",
    ]);
  });

  it("refuses a start step that leaves no step, and the project-pack modes with what they need", () => {
    expect(() => cutSigmas("0.909375, 0.725, 0.421875, 0.0", 3)).toThrow(/leaves no step/);
    expect(latentModeNeeds("pixel_refine", "vae").nodes.map((n) => n.class_type)).toContain("H3PixelUpscale");
    expect(() =>
      upscaleGraph({
        method: "latent",
        mode: "resample",
        take_graph: {},
        start_step: 7,
        seed: 1,
        route: "vae",
        source: take,
        out: { width: 640, height: 384 },
        prefix: "r",
      }),
    ).toThrow(LatentGraphError);
  });
});

describe("posts", () => {
  it("a 1× pixel pass keeps the upscale's size and frames and runs through the engine", async () => {
    const built = postGraph({
      source: take,
      prefix: "studio/post",
      enhance: { method: "pixel", model: "RealESRGAN_x2.pth" },
    });
    const video = await runOnEngine(built, "post");
    expect(await ffprobe(video)).toEqual({ width: 320, height: 192, frames: 12, audio: true });
  });

  it("SeedVR2, SUPIR blended by strength, and motion blur validate when their packs and files are there", async () => {
    const graphs = [
      postGraph({
        source: take,
        prefix: "a",
        enhance: { method: "seedvr2", model: "3b", seed: 3, chunk: 33 },
      }),
      postGraph({
        source: take,
        prefix: "b",
        enhance: { method: "supir", strength: 0.2, seed: 4 },
        motion_blur: 0.5,
      }),
      postGraph({ source: take, prefix: "c", enhance: null, motion_blur: 0.3 }),
    ];
    for (const g of graphs) await validates(g);
    const blend = Object.values(graphs[1].graph).find((n) => n.class_type === "ImageBlend");
    expect(blend?.inputs.blend_factor).toBe(0.2);
    const supir = Object.values(graphs[1].graph).find((n) => n.class_type === "SUPIR_Upscale");
    expect(supir?.inputs).toMatchObject({ steps: 10, cfg_scale: 4, restoration_scale: 4, scale_by: 1 });
    const video = await runOnEngine(graphs[1], "supir");
    expect(await ffprobe(video)).toMatchObject({ width: 320, height: 192, frames: 12 });
  });

  it("without the packs names SUPIR's pack, the project's pack, the checkpoints and the RAFT weights", async () => {
    const info = await catalogue(DEFAULT_NODES, { ...MODELS, checkpoints: [], optical_flow: [] });
    const built = postGraph({
      source: take,
      prefix: "b",
      enhance: { method: "supir", strength: 0.2, seed: 4 },
      motion_blur: 0.5,
    });
    expect(missingSentences(built.needs, info)).toEqual([
      "node SUPIR_Upscale is missing: install the ComfyUI-SUPIR node pack",
      "node H3MotionBlur is missing: install the h3pipe (the project's ComfyUI node pack) node pack",
      "model file SUPIR-v0F_fp16.safetensors is missing from models/checkpoints/",
      "model file sd_xl_base_1.0_0.9vae.safetensors is missing from models/checkpoints/",
      "model file raft_large_C_T_SKHT_V2-ff5fadd5.pth is missing from models/optical_flow/",
    ]);
  });

  it("refuses nothing to do, a blur outside 0..1 and a SUPIR strength outside 0.05..0.5", () => {
    expect(() => postGraph({ source: take, prefix: "x", enhance: null })).toThrow(/nothing to do/);
    expect(() => postGraph({ source: take, prefix: "x", enhance: null, motion_blur: 1.5 })).toThrow(
      PostGraphError,
    );
    expect(() =>
      postGraph({ source: take, prefix: "x", enhance: { method: "supir", strength: 0.9, seed: 1 } }),
    ).toThrow(/strength/);
  });
});
