// The MiniMax H3 video targets' shipped workflows: each validates against the node schemas (ComfyUI core's H3 nodes,
// the project's pack for the shot-list loader and the saver) as shipped and as patched for its jobs; Ref2VA's loader
// reads the frozen shot list, FL2VA takes first and last frames and a dub's dialogue slice, and readiness names
// what is missing.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Entry } from "../lib/compile/types.ts";
import type { ViewInputs } from "../lib/episode/view-inputs.ts";
import { buildCatalog } from "../lib/features/catalog.ts";
import { notInstallable } from "../lib/features/listing.ts";
import { mediaTools, probe } from "../lib/media/ffmpeg.ts";
import { dubSlice } from "../lib/render/dub-slice.ts";
import { h3CoreRefs } from "../lib/render/h3-core-refs.ts";
import type { Sidecar } from "../lib/render/sidecar.ts";
import {
  GraphError,
  nodesOf,
  type PatchInputs,
  type PatchValues,
  patchGraph,
  targetClasses,
} from "../lib/targets/graph.ts";
import { readiness } from "../lib/targets/models.ts";
import { coreUploads, loaderVariant } from "../lib/targets/patches/h3-core.ts";
import { shotListOptions } from "../lib/targets/patches/h3-shotlist.ts";
import { shippedRegistry } from "../lib/targets/registry.ts";
import { linkSource, oneNode, schemaErrors, shippedTarget } from "./support/comfy-schemas.ts";
import { makeTestEnv } from "./support/ctx.ts";
import { makeTone } from "./support/media.ts";

const registry = shippedRegistry();

const job = (over: PatchValues = {}): PatchValues => ({
  prompt: ["Ada turns to the window.", "Rain on the glass."],
  seed: 18446744073709551615n,
  steps: 8,
  width: 1344,
  height: 768,
  length: 124,
  fps: 24,
  sampler: "res_multistep",
  model: "minimax_h3_fl2va_pruned_int8_convrot.safetensors",
  text_encoder: "qwen.safetensors",
  video_vae: "video_vae.safetensors",
  audio_vae: "audio_vae.safetensors",
  prefix: "studio/e01/sh010_t01",
  ...over,
});

const packValues = { project_root: "/show", subfolder: "e01/renders/sh010", take: 1, save_latent: true };

describe("minimax_h3_fl2va", () => {
  it("ships a workflow of core nodes that validates against ComfyUI's node schemas", async () => {
    const { graph } = await shippedTarget("minimax_h3_fl2va");
    expect(schemaErrors(graph)).toEqual([]);
  });

  it("validates as patched for every job shape: none, first, last, both, dub audio, LoRAs, base, pack saver", async () => {
    const { spec, graph } = await shippedTarget("minimax_h3_fl2va");
    const shapes: [PatchValues, PatchInputs, "core" | "pack"][] = [
      [job(), {}, "core"],
      [job(), { first: "f.png" }, "core"],
      [job(), { last: "l.png" }, "core"],
      [job(), { first: "f.png", last: "l.png" }, "core"],
      [job(), { first: "f.png", audio: "sh010_dub.wav" }, "core"],
      [
        job({
          loras: [
            { name: "a.safetensors", strength: 1 },
            { name: "b.safetensors", strength: 0.5 },
          ],
        }),
        {},
        "core",
      ],
      [job({ loras: [], base: true, steps: 20 }), { first: "f.png" }, "pack"],
      [job(), { first: "f.png", last: "l.png", audio: "d.wav" }, "pack"],
    ];
    for (const [values, inputs, saver] of shapes) {
      const { graph: g } = patchGraph(spec, graph, values, inputs, { saver, saverValues: packValues });
      expect(schemaErrors(g), JSON.stringify({ inputs, saver })).toEqual([]);
    }
  });

  it("carries the job's values to the nodes its binding names", async () => {
    const { spec, graph } = await shippedTarget("minimax_h3_fl2va");
    const loras = [{ name: "minimax_h3_fl2v_turbo_8step_v1.0_comfyui_bf16.safetensors", strength: 1 }];
    const { graph: g, saver } = patchGraph(spec, graph, job({ loras }), { first: "f.png" });
    const i2v = oneNode(g, "MiniMaxH3ImageToVideo");
    expect(i2v.inputs).toMatchObject({
      prompt: "Ada turns to the window.\n\nRain on the glass.",
      width: 1344,
      height: 768,
      length: 124,
    });
    expect(oneNode(g, "UNETLoader").inputs.unet_name).toBe(
      "minimax_h3_fl2va_pruned_int8_convrot.safetensors",
    );
    expect(oneNode(g, "CLIPLoader").inputs).toMatchObject({ clip_name: "qwen.safetensors", type: "minimax" });
    expect(linkSource(g, oneNode(g, "VAEDecode"), "vae").inputs.vae_name).toBe("video_vae.safetensors");
    expect(linkSource(g, oneNode(g, "VAEDecodeAudio"), "vae").inputs.vae_name).toBe("audio_vae.safetensors");
    expect(oneNode(g, "RandomNoise").inputs.noise_seed).toBe(18446744073709551615n);
    expect(oneNode(g, "BasicScheduler").inputs.steps).toBe(8);
    expect(oneNode(g, "KSamplerSelect").inputs.sampler_name).toBe("res_multistep");
    // The LoRA is inserted after the model and both model readers take it.
    const lora = oneNode(g, "LoraLoaderModelOnly");
    expect(lora.inputs.lora_name).toBe(loras[0].name);
    expect(linkSource(g, oneNode(g, "BasicGuider"), "model")).toBe(lora);
    expect(linkSource(g, oneNode(g, "BasicScheduler"), "model")).toBe(lora);
    expect(g[saver]).toMatchObject({
      class_type: "SaveVideo",
      inputs: { filename_prefix: "studio/e01/sh010_t01" },
    });
  });

  it("renders from the prompt alone without keyframes, and reads first and last frames through LoadImage", async () => {
    const { spec, graph } = await shippedTarget("minimax_h3_fl2va");
    const none = patchGraph(spec, graph, job(), {}).graph;
    expect(oneNode(none, "MiniMaxH3ImageToVideo").inputs).not.toHaveProperty("first_frame");
    expect(oneNode(none, "MiniMaxH3ImageToVideo").inputs).not.toHaveProperty("last_frame");
    expect(nodesOf(none, "LoadImage")).toEqual([]);

    const both = patchGraph(spec, graph, job(), { first: "f.png", last: "l.png" }).graph;
    const i2v = oneNode(both, "MiniMaxH3ImageToVideo");
    expect(linkSource(both, i2v, "first_frame").inputs.image).toBe("f.png");
    expect(linkSource(both, i2v, "last_frame")).toMatchObject({
      class_type: "LoadImage",
      inputs: { image: "l.png" },
      _meta: { title: "last frame (h3pipe)" },
    });
    // A last frame alone is a valid job: the core node pins only the end.
    const last = patchGraph(spec, graph, job(), { last: "l.png" }).graph;
    expect(oneNode(last, "MiniMaxH3ImageToVideo").inputs).not.toHaveProperty("first_frame");
    expect(linkSource(last, oneNode(last, "MiniMaxH3ImageToVideo"), "last_frame").inputs.image).toBe("l.png");
  });

  it("anchors a dub's dialogue slice at frame 0 through LoadAudio and MiniMaxH3AddGuide", async () => {
    const { spec, graph } = await shippedTarget("minimax_h3_fl2va");
    const { graph: g } = patchGraph(spec, graph, job(), { first: "f.png", audio: "sh010_dub.wav" });
    const guide = oneNode(g, "MiniMaxH3AddGuide");
    const i2v = nodesOf(g, "MiniMaxH3ImageToVideo")[0];
    expect(guide.inputs).toMatchObject({ positive: [i2v, 0], latent: [i2v, 1], frame_idx: 0 });
    expect(linkSource(g, guide, "audio")).toMatchObject({
      class_type: "LoadAudio",
      inputs: { audio: "sh010_dub.wav" },
    });
    expect(linkSource(g, guide, "audio_vae").inputs.vae_name).toBe("audio_vae.safetensors");
    expect(linkSource(g, oneNode(g, "BasicGuider"), "conditioning")).toBe(guide);
  });

  it("refuses a workflow without its one MiniMaxH3ImageToVideo, naming it", async () => {
    const { spec, graph } = await shippedTarget("minimax_h3_fl2va");
    const broken = structuredClone(graph);
    broken["99"] = structuredClone(broken[nodesOf(graph, "MiniMaxH3ImageToVideo")[0]]);
    const run = () => patchGraph(spec, broken, job(), {});
    expect(run).toThrow(GraphError);
    expect(run).toThrow(/MiniMaxH3ImageToVideo matched 2 nodes/);
  });

  it("needs the guide and the audio loader only for the jobs that send them", async () => {
    const { spec, graph } = await shippedTarget("minimax_h3_fl2va");
    const all = targetClasses(spec, graph);
    for (const cls of ["LoadAudio", "MiniMaxH3AddGuide", "LoadImage", "LoraLoaderModelOnly"])
      expect(all).toContain(cls);
    const r = await readiness(
      spec,
      { objectInfo: all.filter((c) => c !== "MiniMaxH3AddGuide"), models: {} },
      { graph },
    );
    expect(r.nodes_missing).toEqual(["MiniMaxH3AddGuide"]);
    expect(r.status).toBe("not_ready");
  });
});

describe("minimax_h3_ref2va", () => {
  it("ships a workflow that validates against the node schemas (core H3 nodes, the pack's loader and saver)", async () => {
    const { graph } = await shippedTarget("minimax_h3_ref2va");
    expect(schemaErrors(graph)).toEqual([]);
  });

  it("feeds the shot list's values through the loader and saves with the pack saver in every job shape", async () => {
    const { spec, graph } = await shippedTarget("minimax_h3_ref2va");
    const t = { ep: "/shows/s/e01", pass: "proxy" as const, subject: "sh010", take: 3 };
    for (const values of [
      job({ model: "ref.safetensors", ref_image_size: "match" }),
      job({
        loras: [
          { name: "a.safetensors", strength: 1 },
          { name: "b.safetensors", strength: 0.5 },
        ],
      }),
      job({ loras: [], base: true, steps: 20 }),
    ]) {
      // The engine patches with its default options; the loader target takes the pack saver by itself.
      const { graph: g, saver } = patchGraph(spec, graph, values, {}, shotListOptions(spec, t));
      expect(schemaErrors(g)).toEqual([]);
      expect(g[saver].class_type).toBe("H3SaveShot");
      const loader = oneNode(g, "H3ShotListLoader");
      expect(loader.inputs).toMatchObject({
        root: "/shows/s",
        shotlist: "e01/renders_proxy/sh010/sh010_t03.shotlist.json",
        index: 0,
      });
      expect(g[saver].inputs).toMatchObject({
        root: "/shows/s",
        subfolder: "e01/renders_proxy/sh010",
        take: 3,
        sidecar: "e01/renders_proxy/sh010/sh010_t03.json",
        ref_info: [nodesOf(g, "H3ShotListLoader")[0], 15],
      });
      // Steps and seed stay with the loader (via: loader); the review copy is gone.
      const loaderId = nodesOf(g, "H3ShotListLoader")[0];
      expect(oneNode(g, "RandomNoise").inputs.noise_seed).toEqual([loaderId, 13]);
      expect(oneNode(g, "BasicScheduler").inputs.steps).toEqual([loaderId, 12]);
      expect(nodesOf(g, "SaveVideo")).toEqual([]);
      expect(nodesOf(g, "CreateVideo")).toEqual([]);
      const ref = oneNode(g, "MiniMaxH3ReferenceToVideo");
      expect(ref.inputs.prompt).toEqual([loaderId, 1]);
      expect(ref.inputs["ref_images.ref_image_3"]).toEqual([loaderId, 5]);
      expect(ref.inputs["ref_audios.ref_audio_0"]).toEqual([loaderId, 6]);
    }
    const { graph: g } = patchGraph(spec, graph, job({ model: "ref.safetensors", ref_image_size: "match" }));
    expect(oneNode(g, "UNETLoader").inputs.unet_name).toBe("ref.safetensors");
    expect(oneNode(g, "MiniMaxH3ReferenceToVideo").inputs.ref_image_size).toBe("match");
  });

  it("names the project's pack for the classes ComfyUI does not ship, which it can do without", async () => {
    const { spec, graph } = await shippedTarget("minimax_h3_ref2va");
    const all = targetClasses(spec, graph);
    expect(all).toEqual(
      expect.arrayContaining(["H3ShotListLoader", "H3SaveShot", "MiniMaxH3ReferenceToVideo"]),
    );
    // The pack is optional (the core path renders without it): only a class core lacks makes it not ready.
    const stock = [...targetClasses(spec, graph, { variant: "core" }), "LoadImage", "LoadAudio"];
    const r = await readiness(spec, { objectInfo: stock, models: {} }, { graph });
    expect(r.status).toBe("degraded");
    expect(r.nodes_missing).toEqual(["H3SaveShot", "H3ShotListLoader"]);
    const bare = await readiness(
      spec,
      { objectInfo: stock.filter((c) => c !== "MiniMaxH3ReferenceToVideo"), models: {} },
      { graph },
    );
    expect(bare.status).toBe("not_ready");
    expect(bare.nodes_missing).toContain("MiniMaxH3ReferenceToVideo");
    const feature = buildCatalog(registry).find((f) => f.id === "minimax_h3_ref2va");
    expect(feature?.restart).toBe(true);
    const pack = feature?.items.find((i) => i.kind === "pack" && i.name === "h3pipe");
    // Optional (the core path renders without it), the project's own, and never sent to ComfyUI-Manager.
    expect(pack).toMatchObject({
      kind: "pack",
      classes: ["H3ShotListLoader", "H3SaveShot"],
      tier: "optional",
      own: true,
    });
    const note = pack ? notInstallable(pack) : null;
    expect(note).toMatch(/h3pipe is the project's own node pack and is not shipped here/);
    expect(note).not.toMatch(/ComfyUI-Manager/);
    // The tier follows the target: a target that needs the pack's classes makes the pack required.
    const strict = structuredClone(spec);
    strict.id = "h3_strict";
    strict.nodes = { H3ShotListLoader: { tier: "required", pack: "h3pipe", own: true } };
    const view = { ids: (k?: string) => (k === "video" ? ["h3_strict"] : []), get: () => strict };
    const strictPack = buildCatalog(view as never)[0]?.items.find(
      (i) => i.kind === "pack" && i.name === "h3pipe",
    );
    expect(strictPack?.tier).toBe("required");
    expect(strictPack ? notInstallable(strictPack) : null).not.toMatch(/renders without it/);
    expect(feature?.items.find((i) => i.name === "comfyui-obvpm-timeline")?.tier).toBe("optional");
  });

  it("builds a core-only graph for an engine without the pack, valid in every job shape", async () => {
    const { spec, graph } = await shippedTarget("minimax_h3_ref2va");
    // A stock ComfyUI: every class the core path sends (LoadImage and LoadAudio for the references), no H3 pack.
    const core = new Set([...targetClasses(spec, graph, { variant: "core" }), "LoadImage", "LoadAudio"]);
    expect([...core].filter((c) => c.startsWith("H3"))).toEqual([]);
    expect(loaderVariant(spec, core)).toBe("core");
    expect(loaderVariant(spec, new Set([...core, "H3ShotListLoader", "H3SaveShot"]))).toBe("pack");
    expect(loaderVariant(spec, null)).toBe("pack");
    const pics = (n: number) => Array.from({ length: n }, (_, i) => `/show/refs/p${i}.png`);
    const voices = (n: number) => Array.from({ length: n }, (_, i) => `/show/voices/v${i}.wav`);
    // 0..3 subject pictures, each with and without the plate (the 4th picture), and 0..3 voices.
    const shapes: PatchInputs[] = [];
    for (let n = 0; n <= 3; n++)
      for (const plate of [0, 1]) shapes.push({ pictures: pics(n + plate), voices: voices(n) });
    for (const inputs of shapes) {
      const values = job({ model: "ref.safetensors", ref_image_size: "match", audio_policy: "clone" });
      const { graph: g, saver } = patchGraph(spec, graph, values, inputs, {
        variant: "core",
        saverValues: packValues,
      });
      const label = JSON.stringify(inputs);
      expect(schemaErrors(g), label).toEqual([]);
      expect(
        Object.values(g).filter((n) => n.class_type.startsWith("H3")),
        label,
      ).toEqual([]);
      expect(g[saver], label).toMatchObject({
        class_type: "SaveVideo",
        inputs: { filename_prefix: "studio/e01/sh010_t01" },
      });
      const ref = oneNode(g, "MiniMaxH3ReferenceToVideo");
      expect(ref.inputs, label).toMatchObject({
        prompt: "Ada turns to the window.\n\nRain on the glass.",
        width: 1344,
        height: 768,
        length: 124,
        ref_image_size: "match",
      });
      const wired = (prefix: string) =>
        Object.keys(ref.inputs)
          .filter((k) => k.startsWith(prefix))
          .sort()
          .map((k) => linkSource(g, ref, k).inputs);
      expect(wired("ref_images."), label).toEqual((inputs.pictures ?? []).map((image) => ({ image })));
      expect(wired("ref_audios."), label).toEqual((inputs.voices ?? []).map((audio) => ({ audio })));
      expect(oneNode(g, "RandomNoise").inputs.noise_seed).toBe(18446744073709551615n);
      expect(oneNode(g, "BasicScheduler").inputs.steps).toBe(8);
      expect(linkSource(g, g[saver], "video")).toMatchObject({
        class_type: "CreateVideo",
        inputs: { fps: 24 },
      });
    }
    // The engine's catalogue decides: readiness on core nodes alone is not blocked by the pack.
    const r = await readiness(spec, { objectInfo: [...core], models: {} }, { graph });
    expect(r.nodes_missing).toEqual(["H3SaveShot", "H3ShotListLoader"]);
    expect(r.features_off).toContain("the h3pipe shot-list path (the frozen shot list read by the pack)");
    expect(r.status).not.toBe("not_ready");
    expect(
      (
        await readiness(
          spec,
          { objectInfo: [...core].filter((c) => c !== "LoadAudio"), models: {} },
          { graph },
        )
      ).status,
    ).toBe("not_ready");
  });

  it("refuses a workflow without its one loader, naming the class", async () => {
    const { spec, graph } = await shippedTarget("minimax_h3_ref2va");
    const broken = structuredClone(graph);
    delete broken[nodesOf(graph, "H3ShotListLoader")[0]];
    expect(() => patchGraph(spec, broken, job())).toThrow(/H3ShotListLoader matched 0 nodes/);
  });

  it("records download sources in words, with no address it cannot vouch for", () => {
    for (const id of ["minimax_h3_ref2va", "minimax_h3_fl2va"]) {
      const downloads = (registry.get(id)?.downloads ?? {}) as Record<string, Record<string, unknown>>;
      const files = Object.keys(downloads).filter((k) => !k.startsWith("_"));
      expect(files.length).toBeGreaterThan(0);
      for (const f of files) {
        expect(downloads[f].url).toBeUndefined();
        expect(String(downloads[f].source)).toMatch(/Hugging Face/);
      }
    }
  });
});

describe("the core path's uploads", () => {
  it("takes the recorded subject pictures in slot order, then the plate, then the voices, leaving out what is not there", async () => {
    const t = await makeTestEnv();
    try {
      const show = path.join(t.dir, "show");
      const ep = path.join(show, "e01");
      const files = [
        "refs/ada.png",
        "refs/bo.png",
        "refs/_bg/kitchen.png",
        "voices/ada.wav",
        "voices/bo.wav",
      ];
      for (const f of files) {
        await mkdir(path.dirname(path.join(show, f)), { recursive: true });
        await writeFile(path.join(show, f), f);
      }
      await mkdir(ep, { recursive: true });
      const refs = [
        { slot: "Audio 2", role: "voice", path: "voices/bo.wav" },
        { slot: "Picture 4", role: "plate", path: "refs/_bg/kitchen.png" },
        { slot: "Picture 2", role: "subject", path: "refs/bo.png" },
        { slot: "Picture 3", role: "subject", path: "refs/cy.png" },
        { slot: "Picture 1", role: "subject", path: "refs/ada.png" },
        { slot: "Audio 1", role: "voice", path: "voices/ada.wav" },
        { slot: "Audio 1", role: "recording", path: "audio/e01_dialogue.wav" },
      ];
      const spec = registry.get("minimax_h3_ref2va");
      if (!spec) throw new Error("no minimax_h3_ref2va");
      const vi = { ep, home: show, caches: t.services.caches } as unknown as ViewInputs;
      const out = await h3CoreRefs(vi, spec, { refs } as Sidecar);
      const at = (f: string) => path.join(show, f);
      expect(out.inputs).toEqual({
        ref_image_0: at("refs/ada.png"),
        ref_image_1: at("refs/bo.png"),
        ref_image_2: at("refs/_bg/kitchen.png"),
        ref_audio_0: at("voices/ada.wav"),
        ref_audio_1: at("voices/bo.wav"),
      });
      expect(coreUploads(out.inputs)).toEqual({
        pictures: [at("refs/ada.png"), at("refs/bo.png"), at("refs/_bg/kitchen.png")],
        voices: [at("voices/ada.wav"), at("voices/bo.wav")],
      });
      expect(out.notes).toEqual([
        "the core path leaves out what is not there: Picture 3 (refs/cy.png)",
        "the core path takes no recording to dub: the sound is generated with the voice samples alone",
      ]);
    } finally {
      await t.cleanup();
    }
  });
});

describe("a dub's dialogue slice", () => {
  it("cuts the shot's window of the track to <stem>_dub.wav for FL2VA, and nothing for other policies or targets", async () => {
    const t = await makeTestEnv();
    try {
      const media = t.services.media;
      const ep = path.join(t.dir, "show", "e01");
      await mkdir(ep, { recursive: true });
      const track = path.join(t.dir, "show", "dialogue.wav");
      const { ffmpeg } = await mediaTools(media);
      await makeTone(ffmpeg, track, 4, 440);
      const job = {
        ep,
        stem: "sh010_t01",
        audio: { path: track, start: 1, end: 2.5 },
        workDir: path.join(ep, "renders_proxy", "sh010", ".work"),
      };
      const fl2va = registry.get("minimax_h3_fl2va");
      const out = await dubSlice(media, fl2va, { audio_policy: "dub" } as Entry, job);
      expect(out).toBe(path.join(job.workDir, "sh010_t01_dub.wav"));
      const info = await probe(String(out), media);
      expect(info.duration).toBeCloseTo(1.5, 1);
      expect(info.audio?.channels).toBe(1);
      expect(await dubSlice(media, fl2va, { audio_policy: "generate" } as Entry, job)).toBeNull();
      expect(
        await dubSlice(media, fl2va, { audio_policy: "dub" } as Entry, { ...job, audio: null }),
      ).toBeNull();
      // Ref2VA reads its voices from the shot list; it anchors no recording.
      const ref2va = registry.get("minimax_h3_ref2va");
      expect(await dubSlice(media, ref2va, { audio_policy: "dub" } as Entry, job)).toBeNull();
    } finally {
      await t.cleanup();
    }
  });
});
