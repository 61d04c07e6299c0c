// Shipped image targets: every workflow (as shipped, and as patched for jobs with LoRAs and reference pictures)
// validates against the node schemas of a current ComfyUI (test/fixtures/comfy-node-schemas.json), and each target's
// patched graph carries the job's prompt, seed, size, steps and model names to the nodes that use them and ends in
// the saver the engine collects from.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type ApiGraph, isLink, nodesOf, type PatchValues, patchGraph } from "../lib/targets/graph.ts";
import { shippedRegistry, type TargetSpec } from "../lib/targets/registry.ts";
import { schemaErrors } from "./support/comfy-schemas.ts";

const ROOT = path.join(import.meta.dirname, "..", "lib", "targets");
const registry = shippedRegistry();

async function target(id: string): Promise<{ spec: TargetSpec; graph: ApiGraph }> {
  const spec = registry.get(id);
  if (!spec) throw new Error(`no shipped target ${id}`);
  const file = path.join(ROOT, spec.kind, id, "workflow.json");
  return { spec, graph: JSON.parse(await readFile(file, "utf8")) as ApiGraph };
}

const imageTargets = registry
  .ids("image")
  .filter((id) => registry.get(id)?.backend !== "builtin")
  .sort();

/** The one node of a class (and title) in a graph. */
function one(g: ApiGraph, cls: string, title?: string): [string, ApiGraph[string]] {
  const ids = nodesOf(g, cls).filter((id) => title === undefined || g[id]._meta?.title === title);
  expect(ids, `${cls}${title ? ` "${title}"` : ""}`).toHaveLength(1);
  return [ids[0], g[ids[0]]];
}

/** Nodes the saver reads from, directly or not. */
function upstream(g: ApiGraph, root: string): Set<string> {
  const seen = new Set<string>();
  const stack = [root];
  while (stack.length) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    for (const v of Object.values(g[id].inputs)) if (isLink(v)) stack.push(v[0]);
  }
  return seen;
}

describe("the node schemas the workflows are checked against", () => {
  it("refuse what ComfyUI would refuse", () => {
    const bad: ApiGraph = {
      "1": {
        class_type: "KSampler",
        inputs: { seed: 1.5, sampler_name: "fastest", extra: 1, model: ["9", 0] },
      },
      "2": { class_type: "NoSuchNode", inputs: {} },
      "3": { class_type: "VAEDecode", inputs: { samples: ["4", 1], vae: ["4", 0] } },
      "4": { class_type: "UNETLoader", inputs: { unet_name: "m.safetensors", weight_dtype: "default" } },
    };
    const errors = schemaErrors(bad).join("\n");
    expect(errors).toMatch(/node 1 \(KSampler\): required input steps missing/);
    expect(errors).toMatch(/KSampler\)\.seed: wants a whole number/);
    expect(errors).toMatch(/sampler_name: "fastest" is not one of/);
    expect(errors).toMatch(/unknown input extra/);
    expect(errors).toMatch(/model: reads node 9, which does not exist/);
    expect(errors).toMatch(/NoSuchNode\): class unknown/);
    expect(errors).toMatch(/samples: reads output 1 of UNETLoader, which has 1/);
    expect(errors).toMatch(/vae: wants VAE, linked to UNETLoader output 0 \(MODEL\)/);
  });
});

describe.each(imageTargets)("%s", (id) => {
  it("ships a workflow that validates against ComfyUI's node schemas", async () => {
    const { graph } = await target(id);
    expect(schemaErrors(graph)).toEqual([]);
  });

  it("validates as patched for a job with a LoRA and with as many reference pictures as it reads", async () => {
    const { spec, graph } = await target(id);
    const max = typeof spec.capabilities.max_refs === "number" ? spec.capabilities.max_refs : 0;
    const shapes: { references: string[] }[] = [{ references: [] }];
    if (max > 0)
      shapes.push({ references: Array.from({ length: Math.min(max, 3) }, (_, i) => `ref_${i + 1}.png`) });
    for (const inputs of shapes) {
      // The panorama target needs its canvas: a job without a picture is refused, as its note says.
      if (spec.capabilities.mode === "pano" && inputs.references.length === 0) continue;
      const values: PatchValues = {
        prompt: "a lighthouse at dusk",
        seed: 42,
        steps: 9,
        loras: [{ name: "style.safetensors", strength: 0.7 }],
        prefix: "studio/refs/test",
      };
      const { graph: g, saver } = patchGraph(spec, graph, values, inputs);
      expect(schemaErrors(g), `${id} with ${inputs.references.length} reference(s)`).toEqual([]);
      expect(g[saver].class_type).toBe("SaveImage");
      expect(g[saver].inputs.filename_prefix).toBe("studio/refs/test");
    }
  });
});

/** A job's values on a target: every model file param it binds, plus the common ones. */
function jobValues(spec: TargetSpec): PatchValues {
  const values: PatchValues = {
    prompt: "Ada, three-quarter view, plain background",
    seed: 18446744073709551615n,
    steps: 7,
    width: 1344,
    height: 768,
    cfg: 1.5,
    sampler: "euler_ancestral",
    prefix: "studio/refs/ada_t03",
  };
  const params = spec.binding.params as Record<string, unknown>;
  for (const file of ["model", "text_encoder", "text_encoder_2", "vae"]) {
    if (file in params) values[file] = `${spec.id}_${file}.safetensors`;
  }
  if ("negative" in params) values.negative = "blurry";
  if ("scheduler" in params) values.scheduler = "karras";
  return values;
}

describe("each image target's patched graph carries the job", () => {
  it("krea2: prompt, negative, size, steps, seed, cfg, sampler and files reach their nodes", async () => {
    const { spec, graph } = await target("krea2");
    const v = jobValues(spec);
    const { graph: g, saver } = patchGraph(spec, graph, v);
    expect(one(g, "CLIPTextEncode", "Positive prompt")[1].inputs.text).toBe(v.prompt);
    expect(one(g, "CLIPTextEncode", "Negative prompt")[1].inputs.text).toBe("blurry");
    expect(one(g, "EmptyLatentImage")[1].inputs).toMatchObject({ width: 1344, height: 768 });
    expect(one(g, "KSampler")[1].inputs).toMatchObject({
      seed: 18446744073709551615n,
      steps: 7,
      cfg: 1.5,
      sampler_name: "euler_ancestral",
      scheduler: "karras",
    });
    expect(one(g, "UNETLoader")[1].inputs.unet_name).toBe("krea2_model.safetensors");
    expect(one(g, "CLIPLoader")[1].inputs).toMatchObject({
      clip_name: "krea2_text_encoder.safetensors",
      type: "krea2",
    });
    expect(one(g, "VAELoader")[1].inputs.vae_name).toBe("krea2_vae.safetensors");
    expect(g[saver].inputs.filename_prefix).toBe("studio/refs/ada_t03");
    expect(upstream(g, saver).size).toBe(Object.keys(g).length);
  });

  it("krea2: a LoRA is spliced after the diffusion model and the sampler reads it", async () => {
    const { spec, graph } = await target("krea2");
    const { graph: g } = patchGraph(spec, graph, { loras: [{ name: "ink.safetensors", strength: 0.6 }] });
    const [unet] = one(g, "UNETLoader");
    const [lora, loader] = one(g, "LoraLoaderModelOnly");
    expect(loader.inputs).toEqual({ model: [unet, 0], lora_name: "ink.safetensors", strength_model: 0.6 });
    expect(one(g, "KSampler")[1].inputs.model).toEqual([lora, 0]);
  });

  it("flux_kontext: both text encoders, the guidance and the reference chain", async () => {
    const { spec, graph } = await target("flux_kontext");
    const v = { ...jobValues(spec), guidance: 3 };
    const withRef = patchGraph(spec, graph, v, { references: ["h3pipe/composite.png"] }).graph;
    expect(one(withRef, "DualCLIPLoader")[1].inputs).toMatchObject({
      clip_name1: "flux_kontext_text_encoder.safetensors",
      clip_name2: "flux_kontext_text_encoder_2.safetensors",
      type: "flux",
    });
    expect(one(withRef, "LoadImage", "Reference 1")[1].inputs.image).toBe("h3pipe/composite.png");
    const [guidanceId, guidance] = one(withRef, "FluxGuidance");
    expect(guidance.inputs.guidance).toBe(3);
    expect(withRef[(guidance.inputs.conditioning as [string, number])[0]]._meta?.title).toBe(
      "Reference 1 positive",
    );
    const [, sampler] = one(withRef, "KSampler");
    expect(sampler.inputs).toMatchObject({ positive: [guidanceId, 0], seed: v.seed, steps: 7 });
    expect(one(withRef, "EmptySD3LatentImage")[1].inputs).toMatchObject({ width: 1344, height: 768 });
    // No picture: text to image, the chain cut out and the guidance reading the prompt itself.
    const t2i = patchGraph(spec, graph, v).graph;
    expect(nodesOf(t2i, "LoadImage")).toEqual([]);
    expect(nodesOf(t2i, "ReferenceLatent")).toEqual([]);
    const [promptId] = one(t2i, "CLIPTextEncode", "Positive prompt");
    expect(one(t2i, "FluxGuidance")[1].inputs.conditioning).toEqual([promptId, 0]);
  });

  it("qwen_image_21: prompt and negative on its encoder; pictures on images.image_i and the switch to their latent", async () => {
    const { spec, graph } = await target("qwen_image_21");
    const v = { ...jobValues(spec), resolution: 1024, denoise: 0.9 };
    const t2i = patchGraph(spec, graph, v).graph;
    const [encId, enc] = one(t2i, "TextEncodeQwenImage21");
    expect(enc.inputs).toMatchObject({ prompt: v.prompt, negative_prompt: "blurry", resolution: 1024 });
    expect(Object.keys(enc.inputs).filter((k) => k.startsWith("images."))).toEqual([]);
    const [, sw] = one(t2i, "ComfySwitchNode");
    expect(sw.inputs.switch).toBe(true);
    expect(one(t2i, "EmptyLatentImage")[1].inputs).toMatchObject({ width: 1344, height: 768 });
    expect(one(t2i, "KSampler")[1].inputs).toMatchObject({ denoise: 0.9, steps: 7, negative: [encId, 1] });

    const names = ["a.png", "b.png", "c.png"];
    const edit = patchGraph(spec, graph, v, { references: names }).graph;
    const [, enc2] = one(edit, "TextEncodeQwenImage21");
    names.forEach((name, n) => {
      const link = enc2.inputs[`images.image_${n + 1}`] as [string, number];
      expect(edit[link[0]]).toMatchObject({ class_type: "LoadImage", inputs: { image: name } });
      expect(edit[link[0]]._meta?.title).toBe(`Reference ${n + 1}`);
    });
    expect(one(edit, "ComfySwitchNode")[1].inputs.switch).toBe(false);
    expect(() =>
      patchGraph(spec, graph, v, { references: Array.from({ length: 17 }, (_, i) => `${i}.png`) }),
    ).toThrow(/reads at most 16/);
  });

  it("qwen_rapid_aio: the checkpoint, the prompt, and each picture on image<i> of both encoders", async () => {
    const { spec, graph } = await target("qwen_rapid_aio");
    const v = jobValues(spec);
    const { graph: g, saver } = patchGraph(spec, graph, v, { references: ["face.png", "plate.png"] });
    expect(one(g, "CheckpointLoaderSimple")[1].inputs.ckpt_name).toBe("qwen_rapid_aio_model.safetensors");
    expect(one(g, "TextEncodeQwenImageEditPlus", "Positive prompt")[1].inputs.prompt).toBe(v.prompt);
    for (const title of ["Positive prompt", "Negative prompt"]) {
      const [, enc] = one(g, "TextEncodeQwenImageEditPlus", title);
      expect(g[(enc.inputs.image1 as [string, number])[0]].inputs.image).toBe("face.png");
      expect(g[(enc.inputs.image2 as [string, number])[0]].inputs.image).toBe("plate.png");
      expect(enc.inputs.image3).toBeUndefined();
    }
    expect(one(g, "EmptySD3LatentImage")[1].inputs).toMatchObject({ width: 1344, height: 768 });
    expect(one(g, "KSampler")[1].inputs).toMatchObject({
      seed: v.seed,
      steps: 7,
      sampler_name: "euler_ancestral",
    });
    expect(upstream(g, saver).size).toBe(Object.keys(g).length);
    expect(() => patchGraph(spec, graph, v, { references: ["1", "2", "3", "4"] })).toThrow(/reads at most 3/);
  });

  it("z_image_turbo: the shift on ModelSamplingAuraFlow, which the sampler reads", async () => {
    const { spec, graph } = await target("z_image_turbo");
    const v = { ...jobValues(spec), shift: 4 };
    const { graph: g } = patchGraph(spec, graph, v);
    const [shiftId, shift] = one(g, "ModelSamplingAuraFlow");
    expect(shift.inputs.shift).toBe(4);
    expect(one(g, "KSampler")[1].inputs).toMatchObject({ model: [shiftId, 0], steps: 7, cfg: 1.5 });
    expect(one(g, "CLIPLoader")[1].inputs).toMatchObject({
      clip_name: "z_image_turbo_text_encoder.safetensors",
    });
    expect(one(g, "CLIPTextEncode", "Negative prompt")[1].inputs.text).toBe("blurry");
    expect(one(g, "EmptySD3LatentImage")[1].inputs).toMatchObject({ width: 1344, height: 768 });
  });

  it("klein_erp_360: the canvas is the sampled latent and both conditionings' reference; it is required", async () => {
    const { spec, graph } = await target("klein_erp_360");
    const v = jobValues(spec);
    const { graph: g } = patchGraph(spec, graph, v, { references: ["h3pipe/canvas.png"] });
    const [loadId, load] = one(g, "LoadImage", "Reference 1");
    expect(load.inputs.image).toBe("h3pipe/canvas.png");
    const [encodeId, encode] = one(g, "VAEEncode");
    expect(encode.inputs.pixels).toEqual([loadId, 0]);
    const [, sampler] = one(g, "KSampler");
    expect(sampler.inputs.latent_image).toEqual([encodeId, 0]);
    expect(g[(sampler.inputs.positive as [string, number])[0]]._meta?.title).toBe("Reference 1 positive");
    expect(g[(sampler.inputs.negative as [string, number])[0]]._meta?.title).toBe("Reference 1 negative");
    expect(sampler.inputs).toMatchObject({ steps: 7, scheduler: "karras", seed: v.seed });
    // The 360 LoRA of the preset fills the graph's own loader.
    const withLora = patchGraph(
      spec,
      graph,
      { loras: [{ name: "360.safetensors", strength: 0.9 }] },
      {
        references: ["c.png"],
      },
    ).graph;
    expect(one(withLora, "LoraLoaderModelOnly")[1].inputs).toMatchObject({ lora_name: "360.safetensors" });
    expect(() => patchGraph(spec, graph, v)).toThrow(/which is gone/);
  });
});

describe("image targets as listed", () => {
  it("declare the mode, reference count and template sizes the pickers rely on", () => {
    const caps = Object.fromEntries(
      imageTargets.map((id) => {
        const s = registry.get(id)!;
        return [id, [s.capabilities.mode, s.capabilities.max_refs, s.template.plate_size]];
      }),
    );
    expect(caps).toEqual({
      flux2_klein: ["t2i", 0, [1344, 768]],
      flux2_klein_edit: ["edit", 4, [1344, 768]],
      flux_kontext: ["edit", 1, [1344, 768]],
      klein_erp_360: ["pano", 1, [2048, 1024]],
      krea2: ["t2i", 0, [1344, 768]],
      qwen_image_21: ["edit", 16, [1344, 768]],
      qwen_rapid_aio: ["edit", 3, [1344, 768]],
      z_image_turbo: ["t2i", 0, [1344, 768]],
    });
    for (const id of imageTargets) {
      const s = registry.get(id)!;
      expect(s.template.view_size, id).toEqual([1024, 1024]);
      expect(s.template.object_size, id).toEqual([1024, 1024]);
    }
  });
});
