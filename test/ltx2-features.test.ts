// ltx2's optional features on its shipped workflow: the reference sheet with the ingredients IC-LoRA (off without
// the IC-LoRA file or with `lora: none`), the sampling profiles chosen by the model file's name (distilled patches
// nothing, dev swaps in LTXVScheduler and the refine sigmas) and the duration head (`dur: model`) linked into every
// length, else the estimate with the reason noted. Every job shape validates against ComfyUI's node schemas.
import { describe, expect, it } from "vitest";
import {
  type ApiGraph,
  isLink,
  nodesOf,
  type PatchInputs,
  type PatchValues,
  patchGraph,
  targetClasses,
} from "../lib/targets/graph.ts";
import { readiness } from "../lib/targets/models.ts";
import { samplingProfile } from "../lib/targets/patches/ltx2.ts";
import { schemaErrors, schemas, shippedTarget } from "./support/comfy-schemas.ts";

const { spec, graph } = await shippedTarget("ltx2");

const DISTILLED = "ltx-2.5-22b-distilled-transformer-comfy-int8-convrot.safetensors";
const DEV = "ltx-2.5-22b-dev-transformer-comfy-int8-convrot.safetensors";
const IC = "ltx-2.5-22b-ic-lora-ingredients-0.9.safetensors";
const HEAD = "ltx-2.5-duration-head-bf16.safetensors";

const job = (over: PatchValues = {}): PatchValues => ({
  prompt: "The keeper climbs the stairs.",
  negative: "blurry",
  seed: 7,
  width: 768,
  height: 512,
  length: 121,
  fps: 24,
  model: DISTILLED,
  prefix: "studio/e01/sh010_t01",
  ...over,
});

const patch = (values: PatchValues, inputs: PatchInputs = {}) => patchGraph(spec, graph, values, inputs);

/** The nodes of a class, as nodes. */
const all = (g: ApiGraph, cls: string) => nodesOf(g, cls).map((id) => g[id]);
const linkTo = (v: unknown) => (isLink(v) ? v[0] : null);

/** The stage-1 and stage-2 samplers: stage 1's separated video feeds the upsampler. */
function stages(g: ApiGraph) {
  const samplers = nodesOf(g, "SamplerCustomAdvanced");
  const first = samplers.find((s) =>
    nodesOf(g, "LTXVSeparateAVLatent").some(
      (sep) =>
        linkTo(g[sep].inputs.av_latent) === s &&
        nodesOf(g, "LTXVLatentUpsampler").some((u) => {
          const from = linkTo(g[u].inputs.samples);
          return from === sep || (from !== null && linkTo(g[from].inputs.latent) === sep);
        }),
    ),
  )!;
  return [first, samplers.find((s) => s !== first)!].map((id) => ({
    sampler: g[id],
    guider: g[linkTo(g[id].inputs.guider)!],
    sigmas: g[linkTo(g[id].inputs.sigmas)!],
    select: g[linkTo(g[id].inputs.sampler)!],
  }));
}

describe("ltx2 job shapes", () => {
  it("validates against ComfyUI's node schemas for every shape: sheet or not, dev or distilled, predicted or not", () => {
    const sheets: [string, PatchInputs, PatchValues][] = [
      ["no sheet", {}, {}],
      ["sheet", { sheet: "sheet.png" }, { reference_lora: IC }],
      ["sheet + both keyframes", { sheet: "s.png", first: "f.png", last: "l.png" }, { reference_lora: IC }],
    ];
    const models = [DISTILLED, DEV];
    const durations: PatchValues[] = [
      {},
      { duration_predict: { min_seconds: 2, max_seconds: 9 }, duration_head: HEAD },
      { duration_predict: { min_seconds: 2, max_seconds: 9 } },
    ];
    for (const [name, inputs, extra] of sheets)
      for (const model of models)
        for (const dur of durations) {
          const { graph: g } = patch(job({ model, ...extra, ...dur }), inputs);
          expect(schemaErrors(g), `${name}, ${model}, ${JSON.stringify(dur)}`).toEqual([]);
        }
  });
});

describe("ltx2 reference sheet", () => {
  it("loads the sheet, puts the IC-LoRA on stage 1's model and guides stage 1 at its own size for every frame", () => {
    const { graph: g, notes } = patch(job({ reference_lora: IC }), { sheet: "h3pipe/sh010_refsheet.png" });
    const [ic] = all(g, "LTXICLoRALoaderModelOnly");
    expect(ic.inputs).toMatchObject({ lora_name: IC, strength_model: 1 });
    expect(g[linkTo(ic.inputs.model)!].class_type).toBe("UNETLoader");
    const [s1, s2] = stages(g);
    expect(linkTo(s1.guider.inputs.model)).toBe("h3_iclora1");
    expect(g[linkTo(s2.guider.inputs.model)!].class_type).toBe("UNETLoader");
    const guides = all(g, "LTXAddVideoICLoRAGuide");
    expect(guides).toHaveLength(1);
    expect(guides[0].inputs).toMatchObject({
      frame_idx: 0,
      strength: 1,
      latent_downscale_factor: ["h3_iclora1", 1],
      crop: "disabled",
      use_tiled_encode: false,
    });
    expect(linkTo(s1.guider.inputs.positive)).toBe(linkTo(all(g, "LTXVCropGuides")[0].inputs.positive));
    const repeat = g[linkTo(guides[0].inputs.image)!];
    expect(repeat).toMatchObject({ class_type: "RepeatImageBatch", inputs: { amount: 121 } });
    const pad = g[linkTo(repeat.inputs.image)!];
    // Stage 1 renders at half size (the binding scales the empty latent by 0.5).
    expect(pad.inputs).toMatchObject({ target_width: 384, target_height: 256, padding_color: "black" });
    expect(g[linkTo(pad.inputs.image)!].inputs.image).toBe("h3pipe/sh010_refsheet.png");
    // The guide frames are cropped before the upsampler reads stage 1's video.
    const up = all(g, "LTXVLatentUpsampler")[0];
    expect(g[linkTo(up.inputs.samples)!].class_type).toBe("LTXVCropGuides");
    expect(notes.join("\n")).not.toMatch(/reference sheet/);
  });

  it("is off, noted, without the IC-LoRA file (optional tier) and with `lora: none`", () => {
    const missing = patch(job(), { sheet: "s.png" });
    expect(nodesOf(missing.graph, "LTXICLoRALoaderModelOnly")).toEqual([]);
    expect(nodesOf(missing.graph, "LTXAddVideoICLoRAGuide")).toEqual([]);
    expect(missing.notes.join("\n")).toMatch(
      /reference sheet unused: its IC-LoRA \(reference_lora\) is not installed/,
    );
    const none = patch(job({ reference_lora: IC, reference_sheet: false }), { sheet: "s.png" });
    expect(nodesOf(none.graph, "LTXAddVideoICLoRAGuide")).toEqual([]);
    expect(none.notes.join("\n")).toMatch(/reference sheet off: the shot's LoRA line says none/);
    expect(schemaErrors(none.graph)).toEqual([]);
  });

  it("stacks with a last frame: both guides feed the guider and one crop per stage cuts them", () => {
    const { graph: g } = patch(job({ reference_lora: IC }), { sheet: "s.png", last: "l.png" });
    expect(all(g, "LTXVAddGuide")).toHaveLength(2);
    expect(all(g, "LTXAddVideoICLoRAGuide")).toHaveLength(1);
    expect(all(g, "LTXVCropGuides")).toHaveLength(2);
    const [s1] = stages(g);
    const top = g[linkTo(s1.guider.inputs.positive)!];
    expect(top.class_type).toBe("LTXAddVideoICLoRAGuide");
    expect(g[linkTo(top.inputs.positive)!].class_type).toBe("LTXVAddGuide");
  });
});

describe("ltx2 sampling profiles", () => {
  it("chooses the profile by the model file's name, else the default", () => {
    expect(samplingProfile(spec, DISTILLED)?.name).toBe("distilled");
    expect(samplingProfile(spec, `models/${DEV}`)?.name).toBe("dev");
    expect(samplingProfile(spec, "my-ltx-2.5-finetune.safetensors")?.name).toBe("distilled");
    expect(samplingProfile(spec, null)?.name).toBe("distilled");
  });

  it("distilled keeps the workflow's fixed schedule and notes that the shot's steps are unused", () => {
    const plain = patch(job());
    const { graph: g, notes } = patch(job({ steps: 20 }));
    expect(g).toEqual(plain.graph);
    expect(notes.join("\n")).toMatch(/steps 20 is recorded but unused/);
    expect(all(g, "LTXVScheduler")).toEqual([]);
  });

  it("dev: LTXVScheduler for stage 1 fed its video latent, the refine sigmas for stage 2, samplers and cfg", () => {
    const { graph: g, notes } = patch(job({ model: DEV }));
    const [s1, s2] = stages(g);
    expect(s1.sigmas).toMatchObject({
      class_type: "LTXVScheduler",
      inputs: { steps: 30, max_shift: 2.05, base_shift: 0.95, stretch: true, terminal: 0.1 },
    });
    expect(g[linkTo(s1.sigmas.inputs.latent)!].class_type).toBe("EmptyLTXVLatentVideo");
    expect(s2.sigmas).toMatchObject({
      class_type: "ManualSigmas",
      inputs: { sigmas: "0.85, 0.7250, 0.4219, 0.0" },
    });
    expect(s1.guider.inputs).toMatchObject({ video_cfg: 4, audio_cfg: 4 });
    expect(s2.guider.inputs).toMatchObject({ video_cfg: 1, audio_cfg: 1 });
    expect(s1.select.inputs.sampler_name).toBe("euler_ancestral");
    expect(s2.select.inputs.sampler_name).toBe("euler_ancestral");
    expect(notes.join("\n")).toMatch(/sampling: the quality profile \(LTX-2.5 dev transformer\), 30 steps/);
    // A shot that set its steps keeps them.
    const own = patch(job({ model: DEV, steps: 12, steps_set: true }));
    expect(stages(own.graph)[0].sigmas.inputs.steps).toBe(12);
  });

  it("dev with a sheet takes the profile's with_sheet settings", () => {
    const { graph: g } = patch(job({ model: DEV, reference_lora: IC }), { sheet: "s.png" });
    const [s1, s2] = stages(g);
    expect(s1.guider.inputs).toMatchObject({ video_cfg: 3, audio_cfg: 3 });
    expect(s1.select.inputs.sampler_name).toBe("euler");
    expect(s2.select.inputs.sampler_name).toBe("euler");
    expect(s1.sigmas.class_type).toBe("LTXVScheduler");
  });
});

describe("ltx2 duration head (dur: model)", () => {
  const predict = { duration_predict: { min_seconds: 2, max_seconds: 9 } };

  it("links the predictor into every length widget and says the length is predicted", () => {
    const r = patch(job({ ...predict, duration_head: HEAD, reference_lora: IC }), { sheet: "s.png" });
    const g = r.graph;
    expect(r.length_source).toBe("predicted");
    expect(g.h3_duration_head).toMatchObject({ class_type: "ModelPatchLoader", inputs: { name: HEAD } });
    expect(g.h3_duration.inputs).toMatchObject({
      duration_head: ["h3_duration_head", 0],
      frame_rate: 24,
      min_seconds: 2,
      max_seconds: 9,
    });
    expect(g[linkTo(g.h3_duration.inputs.model)!].class_type).toBe("UNETLoader");
    expect(g[linkTo(g.h3_duration.inputs.positive)!].class_type).toBe("CLIPTextEncode");
    expect(all(g, "EmptyLTXVLatentVideo")[0].inputs.length).toEqual(["h3_duration", 0]);
    expect(all(g, "LTXVEmptyLatentAudio")[0].inputs.frames_number).toEqual(["h3_duration", 0]);
    expect(all(g, "RepeatImageBatch")[0].inputs.amount).toEqual(["h3_duration", 0]);
    expect(schemaErrors(g)).toEqual([]);
  });

  it("renders the estimate with the reason named: no head in the preset, file missing, node missing", () => {
    const reason = (values: PatchValues, known?: string[]) => {
      const r = patchGraph(
        spec,
        graph,
        job({ ...predict, ...values }),
        {},
        known ? { known: new Set(known) } : {},
      );
      expect(r.length_source).toBeUndefined();
      expect(r.graph.h3_duration).toBeUndefined();
      expect(all(r.graph, "EmptyLTXVLatentVideo")[0].inputs.length).toBe(121);
      return r.notes.join("\n");
    };
    expect(reason({})).toMatch(
      /dur: model renders the estimate \(121 frames\): the preset names no duration head/,
    );
    expect(reason({ duration_head: null })).toMatch(/the duration head file is missing on ComfyUI/);
    expect(reason({ duration_head: HEAD }, ["ModelPatchLoader"])).toMatch(
      /ComfyUI lacks the node LTXVDurationPredictor/,
    );
    // A shot without `dur: model` says nothing about it.
    expect(patch(job({ duration_head: HEAD })).notes.join("\n")).not.toMatch(/dur: model/);
  });
});

describe("ltx2 readiness", () => {
  it("lists the sheet's classes among what jobs may send, optional for the feature", async () => {
    const classes = targetClasses(spec, graph);
    for (const cls of [
      "LTXICLoRALoaderModelOnly",
      "LTXAddVideoICLoRAGuide",
      "RepeatImageBatch",
      "ResizeAndPadImage",
    ])
      expect(classes).toContain(cls);
    const known = classes.filter((c) => c !== "LTXICLoRALoaderModelOnly" && c !== "LTXAddVideoICLoRAGuide");
    const r = await readiness(spec, { objectInfo: known, models: {} }, { graph });
    expect(r.nodes_missing).toEqual(
      expect.arrayContaining(["LTXAddVideoICLoRAGuide", "LTXICLoRALoaderModelOnly"]),
    );
    expect(r.features_off).toContain("reference sheets");
    // They come from a node pack, which the target and the schema table both name.
    const nodes = spec.nodes as Record<string, { pack?: string }>;
    const table = schemas.nodes as unknown as Record<string, { pack?: string }>;
    for (const cls of ["LTXICLoRALoaderModelOnly", "LTXAddVideoICLoRAGuide"]) {
      expect(nodes[cls].pack).toBe("ComfyUI-LTXVideo");
      expect(table[cls].pack).toBe("ComfyUI-LTXVideo");
    }
    expect(r.status).not.toBe("unknown");
  });
});
