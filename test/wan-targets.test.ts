// The Wan 2.2 video targets' shipped workflows: each validates against the node schemas of a current ComfyUI as
// shipped and as patched for its jobs (keyframes, LoRAs, the base preset, the pack saver), the job's values reach the
// nodes the binding names, the two experts split the steps, and readiness names the files and nodes it needs.
import { describe, expect, it } from "vitest";
import {
  type ApiGraph,
  GraphError,
  nodesOf,
  type PatchValues,
  patchGraph,
  targetClasses,
} from "../lib/targets/graph.ts";
import { readiness } from "../lib/targets/models.ts";
import type { TargetSpec } from "../lib/targets/registry.ts";
import { linkSource, oneNode, schemaErrors, shippedTarget } from "./support/comfy-schemas.ts";

/** Every job shape, patched with its saver, passes the node schemas (the pack saver is not a core class). */
function expectShapesValid(
  spec: TargetSpec,
  graph: ApiGraph,
  shapes: [PatchValues, Parameters<typeof patchGraph>[3], "core" | "pack"][],
): void {
  for (const [values, inputs, saver] of shapes) {
    const { graph: g } = patchGraph(spec, graph, values, inputs, {
      saver,
      saverValues: { project_root: "/show", subfolder: "e01/renders/sh010", take: 1, save_latent: true },
    });
    const core = Object.fromEntries(Object.entries(g).filter(([, n]) => n.class_type !== "H3SaveShot"));
    expect(schemaErrors(core), JSON.stringify({ inputs, saver })).toEqual([]);
  }
}

const job = (over: PatchValues = {}): PatchValues => ({
  prompt: "Ada turns to the window.",
  negative: "blurry",
  seed: 18446744073709551615n,
  steps: 4,
  width: 640,
  height: 352,
  length: 49,
  fps: 24,
  cfg: 1,
  sampler: "euler",
  shift: 5,
  split: 0.5,
  model: "high.safetensors",
  model_low: "low.safetensors",
  text_encoder: "umt5.safetensors",
  vae: "vae.safetensors",
  prefix: "studio/e01/sh010_t01",
  ...over,
});

describe("wan22_i2v", () => {
  it("ships a workflow that validates against ComfyUI's node schemas", async () => {
    const { graph } = await shippedTarget("wan22_i2v");
    expect(schemaErrors(graph)).toEqual([]);
  });

  it("validates as patched for every job shape: first frame, first and last, LoRAs, the base preset, the pack saver", async () => {
    const { spec, graph } = await shippedTarget("wan22_i2v");
    const shapes: [PatchValues, { first: string; last?: string }, "core" | "pack"][] = [
      [job(), { first: "first.png" }, "core"],
      [job(), { first: "first.png", last: "last.png" }, "core"],
      [job({ loras: [{ name: "ink.safetensors", strength: 0.5 }] }), { first: "first.png" }, "core"],
      [job({ loras: [], base: true, steps: 20, cfg: 3.5 }), { first: "first.png" }, "pack"],
    ];
    expectShapesValid(spec, graph, shapes);
  });

  it("carries the job's values to the nodes its binding names", async () => {
    const { spec, graph } = await shippedTarget("wan22_i2v");
    const { graph: g, saver } = patchGraph(spec, graph, job(), { first: "h3pipe/sh010_first.png" });
    expect(oneNode(g, "UNETLoader", "Wan high noise model").inputs.unet_name).toBe("high.safetensors");
    expect(oneNode(g, "UNETLoader", "Wan low noise model").inputs.unet_name).toBe("low.safetensors");
    expect(oneNode(g, "CLIPLoader").inputs).toMatchObject({ clip_name: "umt5.safetensors", type: "wan" });
    expect(oneNode(g, "VAELoader").inputs.vae_name).toBe("vae.safetensors");
    expect(oneNode(g, "CLIPTextEncode", "Positive prompt").inputs.text).toBe("Ada turns to the window.");
    expect(oneNode(g, "CLIPTextEncode", "Negative prompt").inputs.text).toBe("blurry");
    const i2v = oneNode(g, "WanImageToVideo");
    expect(i2v.inputs).toMatchObject({ width: 640, height: 352, length: 49 });
    expect(linkSource(g, i2v, "start_image").inputs.image).toBe("h3pipe/sh010_first.png");
    for (const id of nodesOf(g, "KSamplerAdvanced")) {
      expect(g[id].inputs).toMatchObject({
        noise_seed: 18446744073709551615n,
        steps: 4,
        cfg: 1,
        sampler_name: "euler",
      });
    }
    for (const id of nodesOf(g, "ModelSamplingSD3")) expect(g[id].inputs.shift).toBe(5);
    expect(oneNode(g, "CreateVideo").inputs.fps).toBe(24);
    expect(g[saver]).toMatchObject({
      class_type: "SaveVideo",
      inputs: { filename_prefix: "studio/e01/sh010_t01" },
    });
  });

  it("splits the steps between the high and the low noise expert, within 1..steps-1", async () => {
    const { spec, graph } = await shippedTarget("wan22_i2v");
    const range = (values: PatchValues) => {
      const { graph: g } = patchGraph(spec, graph, job(values), { first: "f.png" });
      const high = oneNode(g, "KSamplerAdvanced", "Wan high noise sampler").inputs;
      const low = oneNode(g, "KSamplerAdvanced", "Wan low noise sampler").inputs;
      expect(linkSource(g, oneNode(g, "KSamplerAdvanced", "Wan low noise sampler"), "latent_image")).toBe(
        oneNode(g, "KSamplerAdvanced", "Wan high noise sampler"),
      );
      return [high.start_at_step, high.end_at_step, low.start_at_step, low.end_at_step];
    };
    expect(range({ steps: 4 })).toEqual([0, 2, 2, 10000]);
    expect(range({ steps: 20, split: 0.3 })).toEqual([0, 6, 6, 10000]);
    expect(range({ steps: 4, split: 0.99 })).toEqual([0, 3, 3, 10000]);
    expect(range({ steps: 4, split: 0.01 })).toEqual([0, 1, 1, 10000]);
    expect(range({ steps: 1 })).toEqual([0, 1, 1, 10000]);
  });

  it("refuses a job without a first frame with the target's own reason", async () => {
    const { spec, graph } = await shippedTarget("wan22_i2v");
    const run = () => patchGraph(spec, graph, job(), {});
    expect(run).toThrow(GraphError);
    expect(run).toThrow(/no first frame: Wan I2V starts every shot from its first frame/);
  });

  it("switches to WanFirstLastFrameToVideo with a last frame, both frames loaded", async () => {
    const { spec, graph } = await shippedTarget("wan22_i2v");
    const { graph: g } = patchGraph(spec, graph, job(), { first: "a.png", last: "b.png" });
    expect(nodesOf(g, "WanImageToVideo")).toEqual([]);
    const fl = oneNode(g, "WanFirstLastFrameToVideo", "Wan first/last frame to video (h3pipe)");
    expect(fl.inputs).toMatchObject({ width: 640, height: 352, length: 49, batch_size: 1 });
    expect(linkSource(g, fl, "start_image").inputs.image).toBe("a.png");
    expect(linkSource(g, fl, "end_image").inputs.image).toBe("b.png");
    expect(nodesOf(g, "LoadImage").sort()).toEqual(["11", "h3_last_frame_1"]);
    // The samplers still read the conditioning and latent of the (switched) node.
    const high = oneNode(g, "KSamplerAdvanced", "Wan high noise sampler");
    expect(linkSource(g, high, "positive")).toBe(fl);
    expect(linkSource(g, high, "latent_image")).toBe(fl);
  });

  it("puts each stage's LoRAs on its own expert and removes the loaders under the base preset", async () => {
    const { spec, graph } = await shippedTarget("wan22_i2v");
    const loras = [
      { name: "wan2.2_i2v_lightx2v_4steps_lora_v1_high_noise.safetensors", strength: 1, stage: "high" },
      { name: "wan2.2_i2v_lightx2v_4steps_lora_v1_low_noise.safetensors", strength: 1, stage: "low" },
      { name: "style.safetensors", strength: 0.6 },
    ];
    const { graph: g } = patchGraph(spec, graph, job({ loras }), { first: "f.png" });
    const chainOf = (stage: "high" | "low") => {
      const names: unknown[] = [];
      let node = linkSource(g, oneNode(g, "KSamplerAdvanced", `Wan ${stage} noise sampler`), "model");
      node = linkSource(g, node, "model"); // ModelSamplingSD3 → the last loader
      while (node.class_type === "LoraLoaderModelOnly") {
        names.unshift(node.inputs.lora_name);
        node = linkSource(g, node, "model");
      }
      expect(node._meta?.title).toBe(`Wan ${stage} noise model`);
      return names;
    };
    expect(chainOf("high")).toEqual([loras[0].name, "style.safetensors"]);
    expect(chainOf("low")).toEqual([loras[1].name, "style.safetensors"]);

    const base = patchGraph(spec, graph, job({ loras: [], base: true }), { first: "f.png" }).graph;
    expect(nodesOf(base, "LoraLoaderModelOnly")).toEqual([]);
    const shift = linkSource(base, oneNode(base, "KSamplerAdvanced", "Wan high noise sampler"), "model");
    expect(linkSource(base, shift, "model")._meta?.title).toBe("Wan high noise model");
  });

  it("keeps the low noise sampler's latent with the pack saver", async () => {
    const { spec, graph } = await shippedTarget("wan22_i2v");
    const { graph: g, saver } = patchGraph(
      spec,
      graph,
      job(),
      { first: "f.png" },
      {
        saver: "pack",
        saverValues: { project_root: "/show", subfolder: "e01/renders/sh010", take: 3, save_latent: true },
      },
    );
    expect(g[saver].class_type).toBe("H3SaveShot");
    expect(g[saver].inputs).toMatchObject({ root: "/show", take: 3, fps: 24, save_frames: false });
    expect(linkSource(g, g[saver], "latent")._meta?.title).toBe("Wan low noise sampler");
    expect(nodesOf(g, "SaveVideo")).toEqual([]);
  });

  it("needs the first/last node and names every file it renders with, with where to download it", async () => {
    const { spec, graph } = await shippedTarget("wan22_i2v");
    expect(targetClasses(spec, graph)).toEqual(
      expect.arrayContaining([
        "KSamplerAdvanced",
        "LoadImage",
        "WanFirstLastFrameToVideo",
        "WanImageToVideo",
      ]),
    );
    const classes = targetClasses(spec, graph);
    const r = await readiness(
      spec,
      {
        objectInfo: classes.filter((c) => c !== "WanFirstLastFrameToVideo"),
        models: { diffusion_models: [] },
      },
      { graph },
    );
    expect(r.status).toBe("not_ready");
    expect(r.nodes_missing).toEqual(["WanFirstLastFrameToVideo"]);
    const want = r.missing.map((m) => [m.param, m.want, m.folder, m.url]);
    expect(want).toEqual(
      expect.arrayContaining([
        [
          "model",
          "wan2.2_i2v_high_noise_14B_fp8_scaled.safetensors",
          "diffusion_models",
          "https://huggingface.co/Comfy-Org/Wan_2.2_ComfyUI_Repackaged/resolve/main/split_files/diffusion_models/wan2.2_i2v_high_noise_14B_fp8_scaled.safetensors",
        ],
        [
          "model_low",
          "wan2.2_i2v_low_noise_14B_fp8_scaled.safetensors",
          "diffusion_models",
          "https://huggingface.co/Comfy-Org/Wan_2.2_ComfyUI_Repackaged/resolve/main/split_files/diffusion_models/wan2.2_i2v_low_noise_14B_fp8_scaled.safetensors",
        ],
      ]),
    );
  });
});

const ti2vJob = (over: PatchValues = {}): PatchValues => ({
  prompt: "Ada turns to the window.",
  negative: "blurry",
  seed: 18446744073709551615n,
  steps: 12,
  width: 640,
  height: 352,
  length: 49,
  fps: 24,
  cfg: 5,
  sampler: "uni_pc",
  shift: 8,
  model: "ti2v.safetensors",
  text_encoder: "umt5.safetensors",
  vae: "vae22.safetensors",
  prefix: "studio/e01/sh010_t01",
  ...over,
});

describe("wan22_ti2v", () => {
  it("ships a workflow that validates against ComfyUI's node schemas", async () => {
    const { graph } = await shippedTarget("wan22_ti2v");
    expect(schemaErrors(graph)).toEqual([]);
  });

  it("validates as patched for every job shape: with and without a first frame, LoRAs, the pack saver", async () => {
    const { spec, graph } = await shippedTarget("wan22_ti2v");
    const shapes: [PatchValues, { first?: string }, "core" | "pack"][] = [
      [ti2vJob(), {}, "core"],
      [ti2vJob(), { first: "first.png" }, "core"],
      [ti2vJob({ loras: [{ name: "ink.safetensors", strength: 0.5 }] }), {}, "core"],
      [ti2vJob(), { first: "first.png" }, "pack"],
    ];
    expectShapesValid(spec, graph, shapes);
  });

  it("carries the job's values to the nodes its binding names", async () => {
    const { spec, graph } = await shippedTarget("wan22_ti2v");
    const { graph: g, saver } = patchGraph(spec, graph, ti2vJob(), { first: "h3pipe/sh010_first.png" });
    expect(oneNode(g, "UNETLoader").inputs.unet_name).toBe("ti2v.safetensors");
    expect(oneNode(g, "CLIPLoader").inputs).toMatchObject({ clip_name: "umt5.safetensors", type: "wan" });
    expect(oneNode(g, "VAELoader").inputs.vae_name).toBe("vae22.safetensors");
    expect(oneNode(g, "CLIPTextEncode", "Positive prompt").inputs.text).toBe("Ada turns to the window.");
    expect(oneNode(g, "CLIPTextEncode", "Negative prompt").inputs.text).toBe("blurry");
    const latent = oneNode(g, "Wan22ImageToVideoLatent");
    expect(latent.inputs).toMatchObject({ width: 640, height: 352, length: 49 });
    expect(linkSource(g, latent, "start_image").inputs.image).toBe("h3pipe/sh010_first.png");
    const sampler = oneNode(g, "KSampler");
    expect(sampler.inputs).toMatchObject({
      seed: 18446744073709551615n,
      steps: 12,
      cfg: 5,
      sampler_name: "uni_pc",
    });
    expect(linkSource(g, sampler, "latent_image")).toBe(latent);
    expect(oneNode(g, "ModelSamplingSD3").inputs.shift).toBe(8);
    expect(oneNode(g, "CreateVideo").inputs.fps).toBe(24);
    expect(g[saver]).toMatchObject({
      class_type: "SaveVideo",
      inputs: { filename_prefix: "studio/e01/sh010_t01" },
    });
  });

  it("renders from the prompt alone without a first frame: the input and its loader go", async () => {
    const { spec, graph } = await shippedTarget("wan22_ti2v");
    const { graph: g, notes } = patchGraph(spec, graph, ti2vJob(), {});
    expect(oneNode(g, "Wan22ImageToVideoLatent").inputs).not.toHaveProperty("start_image");
    expect(nodesOf(g, "LoadImage")).toEqual([]);
    expect(notes).toEqual([]);
    const withLast = patchGraph(spec, graph, ti2vJob(), { first: "a.png", last: "b.png" });
    expect(nodesOf(withLast.graph, "LoadImage")).toHaveLength(1);
    expect(withLast.notes.join(" ")).toMatch(/takes no last frame/);
  });

  it("puts LoRAs between the model and the shift, and keeps the sampler's latent with the pack saver", async () => {
    const { spec, graph } = await shippedTarget("wan22_ti2v");
    const loras = [
      { name: "a.safetensors", strength: 0.6 },
      { name: "b.safetensors", strength: 1 },
    ];
    const { graph: g } = patchGraph(spec, graph, ti2vJob({ loras }), {});
    const names: unknown[] = [];
    let node = linkSource(g, oneNode(g, "ModelSamplingSD3"), "model");
    while (node.class_type === "LoraLoaderModelOnly") {
      names.unshift(node.inputs.lora_name);
      node = linkSource(g, node, "model");
    }
    expect(node.class_type).toBe("UNETLoader");
    expect(names).toEqual(["a.safetensors", "b.safetensors"]);

    const pack = patchGraph(
      spec,
      graph,
      ti2vJob(),
      {},
      {
        saver: "pack",
        saverValues: { project_root: "/show", subfolder: "e01/renders/sh010", take: 2, save_latent: true },
      },
    );
    const saver = pack.graph[pack.saver];
    expect(saver.class_type).toBe("H3SaveShot");
    expect(saver.inputs).toMatchObject({ root: "/show", take: 2, fps: 24, save_frames: false });
    expect(linkSource(pack.graph, saver, "latent").class_type).toBe("KSampler");
    expect(nodesOf(pack.graph, "SaveVideo")).toEqual([]);
  });

  it("needs LoadImage for a first frame and names every file it renders with, with where to download it", async () => {
    const { spec, graph } = await shippedTarget("wan22_ti2v");
    const classes = targetClasses(spec, graph);
    expect(classes).toEqual(expect.arrayContaining(["KSampler", "LoadImage", "Wan22ImageToVideoLatent"]));
    const r = await readiness(
      spec,
      {
        objectInfo: classes.filter((c) => c !== "Wan22ImageToVideoLatent"),
        models: { diffusion_models: [], vae: [], text_encoders: [] },
      },
      { graph },
    );
    expect(r.status).toBe("not_ready");
    expect(r.nodes_missing).toEqual(["Wan22ImageToVideoLatent"]);
    expect(r.missing.map((m) => [m.param, m.want, m.folder, m.url])).toEqual(
      expect.arrayContaining([
        [
          "model",
          "wan2.2_ti2v_5B_fp16.safetensors",
          "diffusion_models",
          "https://huggingface.co/Comfy-Org/Wan_2.2_ComfyUI_Repackaged/resolve/main/split_files/diffusion_models/wan2.2_ti2v_5B_fp16.safetensors",
        ],
        [
          "vae",
          "wan2.2_vae.safetensors",
          "vae",
          "https://huggingface.co/Comfy-Org/Wan_2.2_ComfyUI_Repackaged/resolve/main/split_files/vae/wan2.2_vae.safetensors",
        ],
        [
          "text_encoder",
          "umt5_xxl_fp8_e4m3fn_scaled.safetensors",
          "text_encoders",
          "https://huggingface.co/Comfy-Org/Wan_2.1_ComfyUI_repackaged/resolve/main/split_files/text_encoders/umt5_xxl_fp8_e4m3fn_scaled.safetensors",
        ],
      ]),
    );
  });
});

describe("wan22_vace", () => {
  const vaceJob = (over: PatchValues = {}): PatchValues =>
    job({
      model: "vace_high.safetensors",
      model_low: "vace_low.safetensors",
      shift: 8,
      vace_strength: 0.8,
      ...over,
    });

  it("ships a workflow that validates against ComfyUI's node schemas", async () => {
    const { graph } = await shippedTarget("wan22_vace");
    expect(schemaErrors(graph)).toEqual([]);
  });

  it("validates as patched for every job shape: reference, keyframes, LoRAs, the base preset, the pack saver", async () => {
    const { spec, graph } = await shippedTarget("wan22_vace");
    const lightx = [
      { name: "wan2.2_t2v_lightx2v_4steps_lora_250928_high_noise.safetensors", strength: 1, stage: "high" },
      { name: "wan2.2_t2v_lightx2v_4steps_lora_250928_low_noise.safetensors", strength: 1, stage: "low" },
    ];
    const shapes: [PatchValues, { first?: string; last?: string; references?: string[] }, "core" | "pack"][] =
      [
        [vaceJob(), {}, "core"],
        [vaceJob(), { references: ["ref.png"] }, "core"],
        [vaceJob(), { first: "a.png" }, "core"],
        [vaceJob(), { last: "b.png" }, "core"],
        [vaceJob({ loras: lightx }), { first: "a.png", last: "b.png", references: ["ref.png"] }, "core"],
        [vaceJob({ loras: [], base: true, steps: 20, cfg: 3.5 }), { first: "a.png" }, "pack"],
      ];
    expectShapesValid(spec, graph, shapes);
  });

  it("carries the job's values to the nodes its binding names and splits the steps", async () => {
    const { spec, graph } = await shippedTarget("wan22_vace");
    const { graph: g } = patchGraph(spec, graph, vaceJob({ steps: 20, split: 0.3 }), {
      references: ["r.png"],
    });
    expect(oneNode(g, "UNETLoader", "Wan high noise model").inputs.unet_name).toBe("vace_high.safetensors");
    expect(oneNode(g, "UNETLoader", "Wan low noise model").inputs.unet_name).toBe("vace_low.safetensors");
    const vace = oneNode(g, "WanVaceToVideo");
    expect(vace.inputs).toMatchObject({ width: 640, height: 352, length: 49, strength: 0.8 });
    expect(linkSource(g, vace, "reference_image").inputs.image).toBe("r.png");
    expect(vace.inputs).not.toHaveProperty("control_video");
    for (const id of nodesOf(g, "ModelSamplingSD3")) expect(g[id].inputs.shift).toBe(8);
    const high = oneNode(g, "KSamplerAdvanced", "Wan high noise sampler").inputs;
    const low = oneNode(g, "KSamplerAdvanced", "Wan low noise sampler").inputs;
    expect([high.start_at_step, high.end_at_step, low.start_at_step, low.end_at_step]).toEqual([
      0, 6, 6, 10000,
    ]);
    // The decoder reads the low noise latent with the reference's leading frame trimmed.
    const trim = linkSource(g, oneNode(g, "VAEDecode"), "samples");
    expect(trim.class_type).toBe("TrimVideoLatent");
    expect(linkSource(g, trim, "samples")._meta?.title).toBe("Wan low noise sampler");
    expect(linkSource(g, trim, "trim_amount")).toBe(vace);
  });

  it("without a reference or keyframes renders from the prompt alone", async () => {
    const { spec, graph } = await shippedTarget("wan22_vace");
    const { graph: g } = patchGraph(spec, graph, vaceJob(), {});
    const vace = oneNode(g, "WanVaceToVideo");
    for (const input of ["reference_image", "control_video", "control_masks"])
      expect(vace.inputs).not.toHaveProperty(input);
    expect(nodesOf(g, "LoadImage")).toEqual([]);
  });

  it("turns the keyframes into a control video: scaled keyframes around grey frames, masked keep/generate", async () => {
    const { spec, graph } = await shippedTarget("wan22_vace");
    const { graph: g } = patchGraph(spec, graph, vaceJob({ length: 49 }), { first: "a.png", last: "b.png" });
    const vace = oneNode(g, "WanVaceToVideo");
    /** The frames an ImageBatch chain joins, in order, as [class, frames, colour or file]. */
    const frames = (node: ApiGraph[string]): unknown[][] => {
      if (node.class_type === "ImageBatch")
        return [...frames(linkSource(g, node, "image1")), ...frames(linkSource(g, node, "image2"))];
      if (node.class_type === "ImageScale") {
        expect(node.inputs).toMatchObject({
          width: 640,
          height: 352,
          upscale_method: "lanczos",
          crop: "center",
        });
        return [["key", 1, linkSource(g, node, "image").inputs.image]];
      }
      expect(node.class_type).toBe("EmptyImage");
      expect(node.inputs).toMatchObject({ width: 640, height: 352 });
      return [["plain", node.inputs.batch_size, node.inputs.color]];
    };
    expect(frames(linkSource(g, vace, "control_video"))).toEqual([
      ["key", 1, "a.png"],
      ["plain", 47, 0x7f7f7f],
      ["key", 1, "b.png"],
    ]);
    const mask = linkSource(g, vace, "control_masks");
    expect(mask.inputs.channel).toBe("red");
    expect(frames(linkSource(g, mask, "image"))).toEqual([
      ["plain", 1, 0],
      ["plain", 47, 0xffffff],
      ["plain", 1, 0],
    ]);
    for (const id of Object.keys(g).filter((k) => !/^\d+$/.test(k))) expect(id).toMatch(/^h3_vace_key_\d+$/);

    const lastOnly = patchGraph(spec, graph, vaceJob({ length: 9 }), { last: "b.png" }).graph;
    const v2 = oneNode(lastOnly, "WanVaceToVideo");
    const chain = linkSource(lastOnly, v2, "control_video");
    expect(linkSource(lastOnly, chain, "image1").inputs.batch_size).toBe(8);
    expect(linkSource(lastOnly, linkSource(lastOnly, chain, "image2"), "image").inputs.image).toBe("b.png");
  });

  it("refuses keyframes that leave no frame to generate", async () => {
    const { spec, graph } = await shippedTarget("wan22_vace");
    expect(() => patchGraph(spec, graph, vaceJob({ length: 2 }), { first: "a.png", last: "b.png" })).toThrow(
      /control video: 2 frames leave no frame between 2 keyframes/,
    );
  });

  it("inserts each stage's LoRAs after its own expert and keeps the trimmed latent with the pack saver", async () => {
    const { spec, graph } = await shippedTarget("wan22_vace");
    const loras = [
      { name: "wan2.2_t2v_lightx2v_4steps_lora_250928_high_noise.safetensors", strength: 1, stage: "high" },
      { name: "wan2.2_t2v_lightx2v_4steps_lora_250928_low_noise.safetensors", strength: 1, stage: "low" },
    ];
    const { graph: g } = patchGraph(spec, graph, vaceJob({ loras }), {});
    for (const [stage, lora] of [
      ["high", loras[0]],
      ["low", loras[1]],
    ] as const) {
      const shift = linkSource(g, oneNode(g, "KSamplerAdvanced", `Wan ${stage} noise sampler`), "model");
      const loader = linkSource(g, shift, "model");
      expect(loader.inputs.lora_name).toBe(lora.name);
      expect(linkSource(g, loader, "model")._meta?.title).toBe(`Wan ${stage} noise model`);
    }
    const pack = patchGraph(
      spec,
      graph,
      vaceJob(),
      {},
      { saver: "pack", saverValues: { project_root: "/show", subfolder: "x", take: 1, save_latent: true } },
    );
    expect(linkSource(pack.graph, pack.graph[pack.saver], "latent").class_type).toBe("TrimVideoLatent");
  });

  it("needs the control video nodes and names every file, with where to download it", async () => {
    const { spec, graph } = await shippedTarget("wan22_vace");
    const classes = targetClasses(spec, graph);
    expect(classes).toEqual(
      expect.arrayContaining([
        "EmptyImage",
        "ImageBatch",
        "ImageScale",
        "ImageToMask",
        "LoadImage",
        "TrimVideoLatent",
        "WanVaceToVideo",
      ]),
    );
    const r = await readiness(
      spec,
      {
        objectInfo: classes.filter((c) => c !== "ImageToMask"),
        models: { diffusion_models: [], loras: [], vae: [], text_encoders: [] },
      },
      { graph },
    );
    expect(r.status).toBe("not_ready");
    expect(r.nodes_missing).toEqual(["ImageToMask"]);
    const want = r.missing.map((m) => [m.param, m.want, m.folder, m.url]);
    expect(want).toEqual(
      expect.arrayContaining([
        ["model", "wan2.2_fun_vace_high_noise_14B_fp8_scaled.safetensors", "diffusion_models", null],
        ["model_low", "wan2.2_fun_vace_low_noise_14B_fp8_scaled.safetensors", "diffusion_models", null],
        [
          "vae",
          "wan_2.1_vae.safetensors",
          "vae",
          "https://huggingface.co/Comfy-Org/Wan_2.2_ComfyUI_Repackaged/resolve/main/split_files/vae/wan_2.1_vae.safetensors",
        ],
      ]),
    );
    const lora = r.missing.find(
      (m) => m.want === "wan2.2_t2v_lightx2v_4steps_lora_250928_high_noise.safetensors",
    );
    expect(lora?.url).toBe(
      "https://huggingface.co/lightx2v/Wan2.2-Lightning/resolve/main/Wan2.2-T2V-A14B-4steps-lora-250928/high_noise_model.safetensors",
    );
  });
});
