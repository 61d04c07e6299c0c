// Patching the shipped ComfyUI graphs for a job, workflow resolution (first candidate that loads wins) and
// canvas → API conversion (targets 3.12, 6.1, 6.3).
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ApiGraph,
  GraphError,
  graphJson,
  isLink,
  jobClasses,
  nodesOf,
  type PatchValues,
  patchGraph,
  targetClasses,
} from "../lib/targets/graph.ts";
import { shippedRegistry, type TargetSpec } from "../lib/targets/registry.ts";
import { canvasToApi, graphFrom, resolveWorkflow, workflowShotErrors } from "../lib/targets/workflow.ts";

const ROOT = path.join(import.meta.dirname, "..", "lib", "targets");

async function target(id: string): Promise<{ spec: TargetSpec; graph: ApiGraph }> {
  const spec = shippedRegistry().get(id)!;
  const file = path.join(ROOT, spec.kind, id, "workflow.json");
  return { spec, graph: JSON.parse(await readFile(file, "utf8")) as ApiGraph };
}

/** The single node of a class (optionally by title) in a patched graph. */
function one(g: ApiGraph, cls: string, title?: string): [string, ApiGraph[string]] {
  const ids = nodesOf(g, cls).filter((id) => title === undefined || g[id]._meta?.title === title);
  expect(ids, `${cls}${title ? ` "${title}"` : ""}`).toHaveLength(1);
  return [ids[0], g[ids[0]]];
}

const src = (v: unknown) => (isLink(v) ? v[0] : null);

/** Every link points at a node that exists, and every node leads to the saver (pruned). */
function expectPrunedTo(g: ApiGraph, saver: string) {
  const reach = new Set<string>();
  const stack = [saver];
  while (stack.length) {
    const id = stack.pop()!;
    if (reach.has(id)) continue;
    reach.add(id);
    for (const v of Object.values(g[id].inputs)) {
      if (isLink(v)) {
        expect(g[v[0]], `link ${id} → ${v[0]}`).toBeDefined();
        stack.push(v[0]);
      }
    }
  }
  expect(new Set(Object.keys(g))).toEqual(reach);
}

const SEED = 2n ** 64n - 7n;

describe("ltx2", () => {
  const shot: PatchValues = {
    prompt: ["A lighthouse keeper climbs the stairs.", "Wind howls outside."],
    negative: "blurry",
    seed: SEED,
    steps: 8,
    width: 768,
    height: 512,
    length: 97,
    fps: 25,
    model: "ltx-2.5-22b-distilled-transformer-comfy-int8-convrot.safetensors",
    text_encoder: "te.safetensors",
    video_vae: "video-vae.safetensors",
    audio_vae: "audio-vae.safetensors",
    upscaler: "up.safetensors",
    loras: [
      { name: "style.safetensors", strength: 0.6 },
      { name: "detail.safetensors", strength: 0.3 },
    ],
    prefix: "studio/sh010/sh010_t01",
    shot_id: "sh010",
  };

  it("puts every bound value into the right input, wires both keyframes and prunes to SaveVideo", async () => {
    const { spec, graph } = await target("ltx2");
    const before = JSON.stringify(graph);
    const {
      graph: g,
      saver,
      notes,
    } = patchGraph(spec, graph, shot, { first: "h3pipe/first.png", last: "h3pipe/last.png" });
    expect(JSON.stringify(graph)).toBe(before); // the shipped graph is untouched

    const [, pos] = one(g, "CLIPTextEncode", "Positive prompt");
    expect(pos.inputs.text).toBe("A lighthouse keeper climbs the stairs.\n\nWind howls outside.");
    expect(one(g, "CLIPTextEncode", "Negative prompt")[1].inputs.text).toBe("blurry");
    const noises = nodesOf(g, "RandomNoise");
    expect(noises).toHaveLength(2);
    for (const id of noises) expect(g[id].inputs.noise_seed).toBe(SEED);
    // width/height at half size (scale 0.5): the base stage renders half, the upsampler doubles it.
    const [, latent] = one(g, "EmptyLTXVLatentVideo");
    expect(latent.inputs).toMatchObject({ width: 384, height: 256, length: 97 });
    expect(one(g, "LTXVEmptyLatentAudio")[1].inputs).toMatchObject({ frames_number: 97, frame_rate: 25 });
    expect(one(g, "LTXVConditioning")[1].inputs.frame_rate).toBe(25);
    expect(one(g, "CreateVideo")[1].inputs.fps).toBe(25);
    const [unetId, unet] = one(g, "UNETLoader");
    expect(unet.inputs.unet_name).toBe(shot.model);
    expect(one(g, "CLIPLoader")[1].inputs.clip_name).toBe("te.safetensors");
    expect(one(g, "VAELoader", "Load video VAE")[1].inputs.vae_name).toBe("video-vae.safetensors");
    expect(one(g, "VAELoader", "Load audio VAE")[1].inputs.vae_name).toBe("audio-vae.safetensors");
    expect(one(g, "LatentUpscaleModelLoader")[1].inputs.model_name).toBe("up.safetensors");
    expect(notes).toContain("steps 8 is recorded but unused: LTX-2 has a fixed schedule");

    // LoRA chain inserted after the UNETLoader; both guiders read the last LoRA.
    const loras = nodesOf(g, "LoraLoaderModelOnly");
    expect(loras).toHaveLength(2);
    const [l1, l2] = loras.map((id) => g[id]);
    expect(l1.inputs).toMatchObject({
      model: [unetId, 0],
      lora_name: "style.safetensors",
      strength_model: 0.6,
    });
    expect(l2.inputs).toMatchObject({
      model: [loras[0], 0],
      lora_name: "detail.safetensors",
      strength_model: 0.3,
    });
    for (const id of nodesOf(g, "LTXVDualCFGGuider")) expect(g[id].inputs.model).toEqual([loras[1], 0]);

    // First frame: the single LoadImage, both in-place nodes on (0.7 base stage, 1.0 refine stage).
    const loads = nodesOf(g, "LoadImage");
    expect(loads.map((id) => g[id].inputs.image).sort()).toEqual(["h3pipe/first.png", "h3pipe/last.png"]);
    const i2v = nodesOf(g, "LTXVImgToVideoInplace").map((id) => g[id]);
    expect(i2v).toHaveLength(2);
    const baseI2v = i2v.find((n) => g[src(n.inputs.latent)!].class_type === "EmptyLTXVLatentVideo")!;
    const refineI2v = i2v.find((n) => g[src(n.inputs.latent)!].class_type === "LTXVLatentUpsampler")!;
    expect(baseI2v.inputs).toMatchObject({ strength: 0.7, bypass: false });
    expect(refineI2v.inputs).toMatchObject({ strength: 1, bypass: false });

    // Last frame: h3_last_load1 → LTXVPreprocess → one LTXVAddGuide per stage (frame −1) on the guider's
    // conditioning and the stage's video latent; a crop after each stage feeds the upsampler / the decoder.
    expect(g.h3_last_load1.inputs.image).toBe("h3pipe/last.png");
    const guides = nodesOf(g, "LTXVAddGuide");
    expect(guides).toHaveLength(2);
    for (const id of guides) {
      expect(g[id].inputs).toMatchObject({ frame_idx: -1, strength: 1 });
      expect(g[src(g[id].inputs.image)!]).toMatchObject({
        class_type: "LTXVPreprocess",
        inputs: { image: ["h3_last_load1", 0] },
      });
    }
    for (const gid of nodesOf(g, "LTXVDualCFGGuider")) {
      const guide = src(g[gid].inputs.positive)!;
      expect(guides).toContain(guide);
      expect(g[gid].inputs.negative).toEqual([guide, 1]);
    }
    for (const cid of nodesOf(g, "LTXVConcatAVLatent")) {
      expect(guides).toContain(src(g[cid].inputs.video_latent));
    }
    const crops = nodesOf(g, "LTXVCropGuides");
    expect(crops).toHaveLength(2);
    expect(one(g, "LTXVLatentUpsampler")[1].inputs.samples).toEqual([crops[0], 2]);
    expect(one(g, "VAEDecodeTiled")[1].inputs.samples).toEqual([crops[1], 2]);

    expect(saver).toBe(one(g, "SaveVideo")[0]);
    expect(g[saver].inputs.filename_prefix).toBe("studio/sh010/sh010_t01");
    expectPrunedTo(g, saver);
    // The seed reaches ComfyUI exactly (a JS number would round it).
    expect(graphJson(g)).toContain(`"noise_seed":${SEED}`);
  });

  it("renders text to video without keyframes: the in-place nodes are spliced out and the LoadImage pruned", async () => {
    const { spec, graph } = await target("ltx2");
    const { graph: g, saver } = patchGraph(spec, graph, { prompt: "p", seed: 1 });
    expect(nodesOf(g, "LTXVImgToVideoInplace")).toEqual([]);
    expect(nodesOf(g, "LoadImage")).toEqual([]);
    expect(nodesOf(g, "LTXVPreprocess")).toEqual([]);
    const concats = nodesOf(g, "LTXVConcatAVLatent").map(
      (id) => g[src(g[id].inputs.video_latent)!].class_type,
    );
    expect(concats.sort()).toEqual(["EmptyLTXVLatentVideo", "LTXVLatentUpsampler"]);
    expect(nodesOf(g, "LTXVAddGuide")).toEqual([]);
    expectPrunedTo(g, saver);
  });

  it("keys the keyframe wiring on the binding, not the id: a copy of ltx2 under another id gets the same", async () => {
    const { spec, graph } = await target("ltx2");
    const copy = { ...structuredClone(spec), id: "ltx2_turbo", short: "LTX-2 turbo" };
    const inputs = { first: "first.png", last: "last.png" };
    const own = patchGraph(spec, graph, { prompt: "p", seed: 1 }, inputs).graph;
    const copied = patchGraph(copy, graph, { prompt: "p", seed: 1 }, inputs).graph;
    expect(copied).toEqual(own);
    const images = nodesOf(copied, "LoadImage").map((id) => copied[id].inputs.image);
    expect(images.sort()).toEqual(["first.png", "last.png"]);
    expect(nodesOf(copied, "LTXVAddGuide").length).toBeGreaterThan(0);
  });

  it("with the saver pack, H3SaveShot replaces CreateVideo and takes fps, shot id and the take's paths", async () => {
    const { spec, graph } = await target("ltx2");
    const { graph: g, saver } = patchGraph(
      spec,
      graph,
      shot,
      {},
      {
        saver: "pack",
        saverValues: {
          project_root: "/show",
          subfolder: "renders/sh010",
          take: 1,
          sidecar: "renders/sh010/sh010_t01.json",
          save_latent: true,
        },
      },
    );
    expect(saver).toBe("h3_saver");
    expect(nodesOf(g, "CreateVideo")).toEqual([]);
    expect(nodesOf(g, "SaveVideo")).toEqual([]);
    expect(g.h3_saver).toMatchObject({
      class_type: "H3SaveShot",
      inputs: {
        fps: 25,
        shot_id: "sh010",
        save_frames: false,
        root: "/show",
        take: 1,
        subfolder: "renders/sh010",
      },
    });
    expect(src(g.h3_saver.inputs.images)).toBe(one(g, "VAEDecodeTiled")[0]);
    expect(src(g.h3_saver.inputs.audio)).toBe(one(g, "LTXVAudioVAEDecode")[0]);
    // The kept latent is the refine stage's (the sampler nearest above the images).
    expect(g.h3_saver.inputs.latent).toEqual([one(g, "SamplerCustomAdvanced", "Stage 2 sample")[0], 0]);
    expectPrunedTo(g, saver);
  });

  it("lists the classes a job sends (for readiness)", async () => {
    const { spec, graph } = await target("ltx2");
    const classes = jobClasses(spec, graph);
    expect(classes).toContain("SaveVideo");
    expect(classes).toContain("LTXVLatentUpsampler");
    expect(classes).not.toContain("LoadImage"); // only with a first frame
    // Every class the target can send: with keyframes and with a LoRA chain too.
    const all = targetClasses(spec, graph);
    for (const cls of [
      "LoadImage",
      "LTXVImgToVideoInplace",
      "LTXVAddGuide",
      "LTXVCropGuides",
      "LoraLoaderModelOnly",
    ])
      expect(all).toContain(cls);
    expect(all).toEqual(expect.arrayContaining(classes));
  });
});

describe("flux2_klein", () => {
  it("puts every bound value into the right input and inserts a LoRA after the UNETLoader", async () => {
    const { spec, graph } = await target("flux2_klein");
    const { graph: g, saver } = patchGraph(spec, graph, {
      prompt: "a red door, three-quarter view",
      negative: "text",
      seed: 123456789,
      steps: 6,
      width: 1344,
      height: 768,
      cfg: 1.5,
      sampler: "euler_ancestral",
      model: "flux-2-klein-9b-kv-fp8.safetensors",
      text_encoder: "qwen.safetensors",
      vae: "vae.safetensors",
      loras: [{ name: "look.safetensors", strength: 0.8 }],
      prefix: "studio/refs/ada",
    });
    expect(one(g, "CLIPTextEncode", "Positive prompt")[1].inputs.text).toBe("a red door, three-quarter view");
    expect(one(g, "CLIPTextEncode", "Negative prompt")[1].inputs.text).toBe("text");
    expect(one(g, "EmptyFlux2LatentImage")[1].inputs).toMatchObject({ width: 1344, height: 768 });
    expect(one(g, "Flux2Scheduler")[1].inputs).toEqual({ steps: 6, width: 1344, height: 768 });
    expect(one(g, "RandomNoise")[1].inputs.noise_seed).toBe(123456789);
    expect(one(g, "CFGGuider")[1].inputs.cfg).toBe(1.5);
    expect(one(g, "KSamplerSelect")[1].inputs.sampler_name).toBe("euler_ancestral");
    const [unetId, unet] = one(g, "UNETLoader");
    expect(unet.inputs.unet_name).toBe("flux-2-klein-9b-kv-fp8.safetensors");
    expect(one(g, "CLIPLoader")[1].inputs.clip_name).toBe("qwen.safetensors");
    expect(one(g, "VAELoader")[1].inputs.vae_name).toBe("vae.safetensors");
    const [loraId, lora] = one(g, "LoraLoaderModelOnly");
    expect(lora.inputs).toEqual({ model: [unetId, 0], lora_name: "look.safetensors", strength_model: 0.8 });
    expect(lora._meta?.title).toBe("LoRA 1 (h3jobs)");
    expect(one(g, "CFGGuider")[1].inputs.model).toEqual([loraId, 0]);
    expect(g[saver]).toMatchObject({
      class_type: "SaveImage",
      inputs: { filename_prefix: "studio/refs/ada" },
    });
    expectPrunedTo(g, saver);
  });

  it("sets an existing loader's strength to 0 without LoRAs, and removes it under the base preset", async () => {
    const { spec, graph } = await target("flux2_klein");
    const withLoader: ApiGraph = structuredClone(graph);
    withLoader["50"] = {
      class_type: "LoraLoaderModelOnly",
      inputs: { model: ["1", 0], lora_name: "turbo.safetensors", strength_model: 1 },
      _meta: { title: "LoRA" },
    };
    withLoader["6"].inputs.model = ["50", 0];
    const off = patchGraph(spec, withLoader, { loras: [] }).graph;
    expect(off["50"].inputs.strength_model).toBe(0);
    const { graph: base, notes } = patchGraph(spec, withLoader, { loras: [], base: true, steps: 20, cfg: 5 });
    expect(nodesOf(base, "LoraLoaderModelOnly")).toEqual([]);
    expect(base["6"].inputs).toMatchObject({ model: ["1", 0], cfg: 5 });
    expect(notes.join("\n")).toMatch(/removed 1 LoRA loader/);
    // One existing loader and two LoRAs: the first fills it, the second is chained and the guider re-pointed.
    const two = patchGraph(spec, withLoader, {
      loras: [
        { name: "a.safetensors", strength: 1 },
        { name: "b.safetensors", strength: 0.5 },
      ],
    }).graph;
    expect(two["50"].inputs.lora_name).toBe("a.safetensors");
    const chained = nodesOf(two, "LoraLoaderModelOnly").find((id) => id !== "50")!;
    expect(two[chained].inputs).toMatchObject({ model: ["50", 0], lora_name: "b.safetensors" });
    expect(two["6"].inputs.model).toEqual([chained, 0]);
  });

  it("prunes nodes the saver does not need", async () => {
    const { spec, graph } = await target("flux2_klein");
    const extra: ApiGraph = structuredClone(graph);
    extra["90"] = { class_type: "PreviewImage", inputs: { images: ["12", 0] }, _meta: { title: "Preview" } };
    extra["91"] = {
      class_type: "CLIPTextEncode",
      inputs: { text: "unused", clip: ["2", 0] },
      _meta: { title: "Scratch" },
    };
    const { graph: g, saver } = patchGraph(spec, extra, { prompt: "p" });
    expect(g["90"]).toBeUndefined();
    expect(g["91"]).toBeUndefined();
    expectPrunedTo(g, saver);
  });
});

describe("flux2_klein_edit reference chains", () => {
  const values: PatchValues = {
    prompt: "image 1 stands in the doorway of image 2",
    seed: 7,
    width: 1024,
    height: 768,
  };

  it("reads one reference through chain 1", async () => {
    const { spec, graph } = await target("flux2_klein_edit");
    const { graph: g, saver } = patchGraph(spec, graph, values, { references: ["h3pipe/ada.png"] });
    expect(one(g, "LoadImage", "Reference 1")[1].inputs.image).toBe("h3pipe/ada.png");
    expect(nodesOf(g, "ReferenceLatent")).toHaveLength(2);
    const [, guider] = one(g, "CFGGuider");
    expect(g[src(guider.inputs.positive)!]._meta?.title).toBe("Reference 1 positive");
    expect(g[src(guider.inputs.negative)!]._meta?.title).toBe("Reference 1 negative");
    expect(one(g, "CLIPTextEncode", "Positive prompt")[1].inputs.text).toBe(values.prompt);
    expect(one(g, "EmptyFlux2LatentImage")[1].inputs).toMatchObject({ width: 1024, height: 768 });
    expectPrunedTo(g, saver);
  });

  it("chains four references, each reading the previous chain's conditioning", async () => {
    const { spec, graph } = await target("flux2_klein_edit");
    const names = ["a.png", "b.png", "c.png", "d.png"];
    const { graph: g, saver } = patchGraph(spec, graph, values, { references: names });
    expect(
      nodesOf(g, "LoadImage")
        .map((id) => g[id].inputs.image)
        .sort(),
    ).toEqual(names);
    expect(g.h3ref4.inputs.image).toBe("d.png");
    expect(g.h3ref4._meta?.title).toBe("Reference 4");
    for (const i of [2, 3, 4]) {
      const prevPos =
        i === 2 ? one(g, "ReferenceLatent", "Reference 1 positive")[0] : `h3ref${i - 1}_positive`;
      const prevNeg =
        i === 2 ? one(g, "ReferenceLatent", "Reference 1 negative")[0] : `h3ref${i - 1}_negative`;
      expect(g[`h3ref${i}_positive`].inputs).toEqual({
        conditioning: [prevPos, 0],
        latent: [`h3ref${i}_encode`, 0],
      });
      expect(g[`h3ref${i}_negative`].inputs).toEqual({
        conditioning: [prevNeg, 0],
        latent: [`h3ref${i}_encode`, 0],
      });
      expect(g[`h3ref${i}_encode`].inputs.pixels).toEqual([`h3ref${i}_scale`, 0]);
      expect(g[`h3ref${i}_scale`].inputs.image).toEqual([`h3ref${i}`, 0]);
      expect(g[`h3ref${i}_positive`]._meta?.title).toBe(`Reference ${i} positive`);
    }
    expect(one(g, "CFGGuider")[1].inputs).toMatchObject({
      positive: ["h3ref4_positive", 0],
      negative: ["h3ref4_negative", 0],
    });
    expectPrunedTo(g, saver);
  });

  it("cuts the chain out without references (text to image) and refuses more than max_refs", async () => {
    const { spec, graph } = await target("flux2_klein_edit");
    const { graph: g } = patchGraph(spec, graph, values, { references: [] });
    expect(nodesOf(g, "LoadImage")).toEqual([]);
    expect(nodesOf(g, "ReferenceLatent")).toEqual([]);
    const [, guider] = one(g, "CFGGuider");
    expect(g[src(guider.inputs.positive)!].class_type).toBe("CLIPTextEncode");
    expect(g[src(guider.inputs.negative)!].class_type).toBe("ConditioningZeroOut");
    expect(() => patchGraph(spec, graph, values, { references: ["1", "2", "3", "4", "5"] })).toThrow(
      "flux2_klein_edit: 5 reference images, but Klein edit reads at most 4",
    );
  });

  it("names the missing chain head", async () => {
    const { spec, graph } = await target("flux2_klein_edit");
    const g: ApiGraph = structuredClone(graph);
    g["7"]._meta = { title: "Ref" };
    expect(() => patchGraph(spec, g, values, { references: ["a.png"] })).toThrow(
      'references: a node titled "Reference 1" matched 0 nodes, expected exactly one',
    );
  });
});

describe("ltx2_voice", () => {
  it("puts every bound value into the right input", async () => {
    const { spec, graph } = await target("ltx2_voice");
    const { graph: g, saver } = patchGraph(spec, graph, {
      prompt: "A calm woman in her forties says: the tide is coming in.",
      negative: "music",
      seed: 99n,
      steps: 30,
      cfg: 6,
      sampler: "euler",
      length: 193,
      fps: 24,
      model: "ltx-2.5-22b-dev-transformer-comfy-int8-convrot.safetensors",
      text_encoder: "te.safetensors",
      audio_vae: "avae.safetensors",
      prefix: "studio/voices/ada",
    });
    expect(one(g, "CLIPTextEncode", "Positive prompt")[1].inputs.text).toMatch(/tide/);
    expect(one(g, "CLIPTextEncode", "Negative prompt")[1].inputs.text).toBe("music");
    expect(one(g, "LTXVScheduler")[1].inputs.steps).toBe(30);
    expect(one(g, "RandomNoise")[1].inputs.noise_seed).toBe(99n);
    expect(one(g, "LTXVDualCFGGuider")[1].inputs).toMatchObject({ audio_cfg: 6, video_cfg: 1 });
    expect(one(g, "KSamplerSelect")[1].inputs.sampler_name).toBe("euler");
    expect(one(g, "LTXVEmptyLatentAudio")[1].inputs).toMatchObject({ frames_number: 193, frame_rate: 24 });
    expect(one(g, "LTXVConditioning")[1].inputs.frame_rate).toBe(24);
    expect(one(g, "UNETLoader")[1].inputs.unet_name).toMatch(/dev-transformer/);
    expect(one(g, "CLIPLoader")[1].inputs.clip_name).toBe("te.safetensors");
    expect(one(g, "VAELoader")[1].inputs.vae_name).toBe("avae.safetensors");
    expect(g[saver]).toMatchObject({
      class_type: "SaveAudio",
      inputs: { filename_prefix: "studio/voices/ada" },
    });
    expectPrunedTo(g, saver);
    expect(graphJson(g)).toContain('"noise_seed":99');
  });
});

describe("binding errors a person can act on", () => {
  it("names the class, the filter and the count when a spec matches no node or several", async () => {
    const { spec, graph } = await target("flux2_klein");
    const noTitle: ApiGraph = structuredClone(graph);
    noTitle["4"]._meta = { title: "Prompt" };
    expect(() => patchGraph(spec, noTitle, { prompt: "p" })).toThrow(
      `flux2_klein: param 'prompt': CLIPTextEncode titled "Positive prompt" matched 0 nodes, expected exactly one`,
    );
    const twoNoises: ApiGraph = structuredClone(graph);
    twoNoises["99"] = { class_type: "RandomNoise", inputs: { noise_seed: 1 }, _meta: { title: "Noise 2" } };
    expect(() => patchGraph(spec, twoNoises, { seed: 5 })).toThrow(
      "param 'seed': RandomNoise matched 2 nodes (9, 99), expected exactly one",
    );
    const { spec: ltx, graph: lg } = await target("ltx2");
    const noFeed: ApiGraph = structuredClone(lg);
    noFeed["99"] = {
      class_type: "ConditioningZeroOut",
      inputs: { conditioning: ["6", 0] },
      _meta: { title: "Zero" },
    };
    noFeed["8"].inputs.negative = ["99", 0];
    expect(() => patchGraph(ltx, noFeed, { negative: "x" })).toThrow(
      "param 'negative': CLIPTextEncode feeding LTXVConditioning.negative matched 0 nodes, expected exactly one",
    );
    const noSeed: ApiGraph = structuredClone(lg);
    for (const id of nodesOf(noSeed, "RandomNoise")) noSeed[id].class_type = "DisableNoise";
    expect(() => patchGraph(ltx, noSeed, { seed: 1 })).toThrow(
      "param 'seed': RandomNoise matched 0 nodes, expected at least one",
    );
  });

  it("refuses several LoRAs on a binding that does not chain, and a graph without its saver", async () => {
    const { spec, graph } = await target("flux2_klein");
    const noChain = structuredClone(spec);
    (noChain.binding.params as Record<string, Record<string, unknown>>).loras.chain = false;
    const two = [
      { name: "a", strength: 1 },
      { name: "b", strength: 1 },
    ];
    expect(() => patchGraph(noChain, graph, { loras: two })).toThrow(GraphError);
    const noSave: ApiGraph = structuredClone(graph);
    delete noSave["13"];
    expect(() => patchGraph(spec, noSave, {})).toThrow("saver: SaveImage matched 0 nodes");
  });
});

describe("graphJson", () => {
  it("writes bigints as bare numbers and everything else as JSON does", () => {
    const text = graphJson({ a: 1n << 63n, b: [1, "x", null, { c: true }], d: undefined });
    expect(text).toBe('{"a":9223372036854775808,"b":[1,"x",null,{"c":true}]}');
  });
});

// ─── workflow resolution ────────────────────────────────────────────────────────────────────────────────────

describe("resolveWorkflow", () => {
  let dir: string;
  const apiGraph = { "1": { class_type: "SaveImage", inputs: { filename_prefix: "x" } } };
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "studio-wf-"));
    await writeFile(path.join(dir, "env.json"), JSON.stringify(apiGraph));
    await writeFile(path.join(dir, "broken.json"), "{ not json");
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const answer = (status: number, body: unknown) => async () => ({
    status,
    text: async () => (typeof body === "string" ? body : JSON.stringify(body)),
  });

  it("takes the env variable's file first", async () => {
    const spec = shippedRegistry().get("flux2_klein")!;
    const r = await resolveWorkflow(spec, {
      env: { H3_FLUX2_KLEIN_WORKFLOW: path.join(dir, "env.json") },
      fetch: answer(200, { "9": { class_type: "X", inputs: {} } }),
    });
    expect(r).toMatchObject({ ok: true, source: "env", graph: apiGraph, format: "api" });
  });

  it("then the copy saved in ComfyUI (a canvas is converted), asked for by its saved name", async () => {
    const spec = shippedRegistry().get("flux2_klein")!;
    const routes: string[] = [];
    const r = await resolveWorkflow(spec, {
      env: { H3_FLUX2_KLEIN_WORKFLOW: path.join(dir, "missing.json") },
      fetch: async (route) => {
        routes.push(route);
        return answer(200, CANVAS)();
      },
    });
    expect(routes).toEqual(["/api/userdata/workflows%2Fh3pipe_flux2_klein_t2i.json"]);
    expect(r.ok && r.source).toBe("comfy");
    expect(r.ok && r.format).toBe("canvas");
    expect(r.ok && r.graph["3"].class_type).toBe("KSampler");
    expect(r.tried[0]).toMatch(/\$H3_FLUX2_KLEIN_WORKFLOW .*not there/);
  });

  it("then the shipped copy when ComfyUI has none (404) or does not answer", async () => {
    const spec = shippedRegistry().get("flux2_klein")!;
    for (const fetch of [
      answer(404, ""),
      async () => {
        throw new Error("ECONNREFUSED");
      },
    ]) {
      const r = await resolveWorkflow(spec, { env: {}, fetch });
      expect(r.ok && r.source).toBe("repo");
      expect(r.ok && r.where).toBe(path.join(ROOT, "image", "flux2_klein", "workflow.json"));
      expect(r.ok && nodesOf(r.graph, "Flux2Scheduler")).toHaveLength(1);
    }
  });

  it("an unreadable candidate is an error for each of the target's shots, not a silent fallback", async () => {
    const spec = shippedRegistry().get("ltx2")!;
    const r = await resolveWorkflow(spec, { env: { H3_LTX2_WORKFLOW: path.join(dir, "broken.json") } });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatch(
      /^target ltx2: workflow from \$H3_LTX2_WORKFLOW .*broken\.json\) is unreadable: not valid JSON/,
    );
    expect(workflowShotErrors(r, ["sh010", "sh020"]).map((e) => e.shot)).toEqual(["sh010", "sh020"]);
    const bad = await resolveWorkflow(spec, { env: {}, fetch: answer(200, { nodes: 1 }) });
    expect(!bad.ok && bad.error).toMatch(/copy saved in ComfyUI .*neither an API graph/);
    const down = await resolveWorkflow(spec, { env: {}, fetch: answer(500, "boom") });
    expect(!down.ok && down.error).toMatch(/cannot be read: ComfyUI answered 500/);
    const ok = await resolveWorkflow(spec, { env: {}, fetch: answer(404, "") });
    expect(workflowShotErrors(ok, ["sh010"])).toEqual([]);
  });

  it("an audio target prefers the shipped copy over $COMFYUI_PATH's; video the other way round", async () => {
    const comfy = path.join(dir, "comfy");
    const wfDir = path.join(comfy, "user", "default", "workflows");
    await import("node:fs/promises").then((fs) => fs.mkdir(wfDir, { recursive: true }));
    await writeFile(path.join(wfDir, "h3pipe_ltx2_voice.json"), JSON.stringify(apiGraph));
    await writeFile(path.join(wfDir, "h3pipe_ltx2_5.json"), JSON.stringify(apiGraph));
    const voice = await resolveWorkflow(shippedRegistry().get("ltx2_voice")!, {
      env: { COMFYUI_PATH: comfy },
    });
    expect(voice.ok && voice.source).toBe("repo");
    const video = await resolveWorkflow(shippedRegistry().get("ltx2")!, { env: { COMFYUI_PATH: comfy } });
    expect(video.ok && video.source).toBe("saved");
  });

  it("an explicit file is the only candidate", async () => {
    const spec = shippedRegistry().get("ltx2")!;
    const r = await resolveWorkflow(spec, {
      explicit: path.join(dir, "nope.json"),
      fetch: answer(200, apiGraph),
    });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatch(/no workflow found \(the requested file .*: not there\)/);
  });
});

// ─── canvas → API ───────────────────────────────────────────────────────────────────────────────────────────

const w = (name: string, link: number | null = null, type = "COMBO") => ({
  name,
  type,
  link,
  widget: { name },
});
const s = (name: string, type: string, link: number | null) => ({ name, type, link });

/** A small saved canvas: a bypassed LoRA, a reroute, primitives, a note, a muted preview and a subgraph. */
const CANVAS = {
  last_node_id: 14,
  last_link_id: 13,
  version: 0.4,
  nodes: [
    {
      id: 1,
      type: "UNETLoader",
      mode: 0,
      inputs: [w("unet_name"), w("weight_dtype")],
      outputs: [{ name: "MODEL", type: "MODEL", links: [1] }],
      widgets_values: ["flux.safetensors", "default"],
    },
    {
      id: 2,
      type: "LoraLoaderModelOnly",
      mode: 4,
      inputs: [s("model", "MODEL", 1), w("lora_name"), w("strength_model", null, "FLOAT")],
      outputs: [{ name: "MODEL", type: "MODEL", links: [2] }],
      widgets_values: ["x.safetensors", 1],
    },
    {
      id: 3,
      type: "KSampler",
      mode: 0,
      title: "Sampler",
      inputs: [
        s("model", "MODEL", 2),
        s("positive", "CONDITIONING", 5),
        s("negative", "CONDITIONING", 7),
        s("latent_image", "LATENT", 9),
        w("seed", null, "INT"),
        w("steps", 10, "INT"),
        w("cfg", null, "FLOAT"),
        w("sampler_name"),
        w("scheduler"),
        w("denoise", null, "FLOAT"),
      ],
      outputs: [{ name: "LATENT", type: "LATENT", links: [11] }],
      widgets_values: [123, "randomize", 20, 1.0, "euler", "simple", 1.0],
    },
    {
      id: 4,
      type: "CLIPLoader",
      mode: 0,
      inputs: [w("clip_name"), w("type"), w("device")],
      outputs: [{ name: "CLIP", type: "CLIP", links: [3, 8] }],
      widgets_values: ["clip.safetensors", "flux2", "default"],
    },
    {
      id: 5,
      type: "CLIPTextEncode",
      mode: 0,
      inputs: [s("clip", "CLIP", 3), w("text", 6, "STRING")],
      outputs: [{ name: "CONDITIONING", type: "CONDITIONING", links: [4] }],
      widgets_values: ["old text"],
    },
    {
      id: 6,
      type: "Reroute",
      mode: 0,
      inputs: [s("", "*", 4)],
      outputs: [{ name: "", type: "CONDITIONING", links: [5] }],
    },
    {
      id: 7,
      type: "PrimitiveNode",
      mode: 0,
      outputs: [{ name: "STRING", type: "STRING", links: [6], widget: { name: "text" } }],
      widgets_values: ["a red door"],
    },
    {
      id: 8,
      type: "CLIPTextEncode",
      mode: 0,
      inputs: [s("clip", "CLIP", 8), w("text", null, "STRING")],
      outputs: [{ name: "CONDITIONING", type: "CONDITIONING", links: [7] }],
      widgets_values: ["blurry"],
    },
    {
      id: 9,
      type: "EmptyLatentImage",
      mode: 0,
      inputs: [w("width", null, "INT"), w("height", null, "INT"), w("batch_size", null, "INT")],
      outputs: [{ name: "LATENT", type: "LATENT", links: [9] }],
      widgets_values: [512, 512, 1],
    },
    {
      id: 10,
      type: "PrimitiveInt",
      mode: 0,
      inputs: [w("value", null, "INT")],
      outputs: [{ name: "INT", type: "INT", links: [10] }],
      widgets_values: [8, "fixed"],
    },
    { id: 11, type: "Note", mode: 0, widgets_values: ["remember to save"] },
    { id: 12, type: "PreviewImage", mode: 2, inputs: [s("images", "IMAGE", 12)], widgets_values: [] },
    {
      id: 13,
      type: "sg-decode",
      mode: 0,
      inputs: [s("samples", "LATENT", 11), w("vae_name", null)],
      outputs: [{ name: "IMAGE", type: "IMAGE", links: [12, 13] }],
      widgets_values: ["ae.safetensors"],
    },
    {
      id: 14,
      type: "SaveImage",
      mode: 0,
      inputs: [s("images", "IMAGE", 13), w("filename_prefix", null, "STRING")],
      widgets_values: ["out"],
    },
  ],
  links: [
    [1, 1, 0, 2, 0, "MODEL"],
    [2, 2, 0, 3, 0, "MODEL"],
    [3, 4, 0, 5, 0, "CLIP"],
    [4, 5, 0, 6, 0, "CONDITIONING"],
    [5, 6, 0, 3, 1, "CONDITIONING"],
    [6, 7, 0, 5, 1, "STRING"],
    [7, 8, 0, 3, 2, "CONDITIONING"],
    [8, 4, 0, 8, 0, "CLIP"],
    [9, 9, 0, 3, 3, "LATENT"],
    [10, 10, 0, 3, 5, "INT"],
    { id: 11, origin_id: 3, origin_slot: 0, target_id: 13, target_slot: 0, type: "LATENT" },
    [12, 13, 0, 12, 0, "IMAGE"],
    [13, 13, 0, 14, 0, "IMAGE"],
  ],
  definitions: {
    subgraphs: [
      {
        id: "sg-decode",
        name: "Decode",
        inputs: [
          { name: "samples", type: "LATENT" },
          { name: "vae_name", type: "COMBO" },
        ],
        outputs: [{ name: "IMAGE", type: "IMAGE" }],
        nodes: [
          {
            id: 1,
            type: "VAELoader",
            mode: 0,
            inputs: [w("vae_name", 2)],
            outputs: [{ name: "VAE", type: "VAE", links: [3] }],
            widgets_values: ["inner.safetensors"],
          },
          {
            id: 2,
            type: "VAEDecode",
            mode: 0,
            inputs: [s("samples", "LATENT", 1), s("vae", "VAE", 3)],
            outputs: [{ name: "IMAGE", type: "IMAGE", links: [4] }],
          },
        ],
        links: [
          [1, -10, 0, 2, 0, "LATENT"],
          [2, -10, 1, 1, 0, "COMBO"],
          [3, 1, 0, 2, 1, "VAE"],
          [4, 2, 0, -20, 0, "IMAGE"],
        ],
      },
    ],
  },
};

describe("canvasToApi", () => {
  it("converts a canvas: widgets named, bypass/reroute/primitives resolved, notes and muted nodes dropped, subgraph flattened", () => {
    const g = canvasToApi(CANVAS);
    expect(Object.keys(g).sort()).toEqual(["1", "13:1", "13:2", "14", "3", "4", "5", "8", "9"]);
    expect(g["3"]).toEqual({
      class_type: "KSampler",
      inputs: {
        model: ["1", 0], // through the bypassed LoRA loader
        positive: ["5", 0], // through the reroute
        negative: ["8", 0],
        latent_image: ["9", 0],
        seed: 123, // "randomize" is the seed's control word, not a widget
        steps: 8, // the server-side primitive feeding a widget is inlined
        cfg: 1,
        sampler_name: "euler",
        scheduler: "simple",
        denoise: 1,
      },
      _meta: { title: "Sampler" },
    });
    expect(g["5"].inputs).toEqual({ clip: ["4", 0], text: "a red door" }); // the frontend primitive's value
    expect(g["1"].inputs).toEqual({ unet_name: "flux.safetensors", weight_dtype: "default" });
    expect(g["13:1"]).toMatchObject({ class_type: "VAELoader", inputs: { vae_name: "ae.safetensors" } }); // promoted widget
    expect(g["13:2"].inputs).toEqual({ samples: ["3", 0], vae: ["13:1", 0] });
    expect(g["14"].inputs).toEqual({ images: ["13:2", 0], filename_prefix: "out" });
    expect(graphFrom(CANVAS).format).toBe("canvas");
  });

  it("refuses a bypassed subgraph, a promoted-widget count mismatch, and unnamed widgets without /object_info", () => {
    const bypassed = structuredClone(CANVAS);
    bypassed.nodes[12].mode = 4;
    expect(() => canvasToApi(bypassed)).toThrow(/subgraph node 13 is bypassed/);
    const mismatch = structuredClone(CANVAS);
    mismatch.nodes[12].widgets_values = ["a", "b"];
    expect(() => canvasToApi(mismatch)).toThrow(/2 promoted widget values for 1 widget inputs; re-save/);
    const old = {
      nodes: [
        { id: 1, type: "EmptyLatentImage", mode: 0, inputs: [], outputs: [], widgets_values: [64, 32, 1] },
      ],
      links: [],
    };
    expect(() => canvasToApi(old)).toThrow(/does not name its widgets/);
    const info = {
      EmptyLatentImage: {
        input: { required: { width: ["INT", {}], height: ["INT", {}], batch_size: ["INT", {}] } },
        input_order: { required: ["width", "height", "batch_size"] },
      },
    };
    expect(canvasToApi(old, info)["1"].inputs).toEqual({ width: 64, height: 32, batch_size: 1 });
    expect(() => graphFrom({ foo: 1 })).toThrow(/neither an API graph/);
  });
});
