// ltx2_ingredients' shipped workflow: it validates against ComfyUI's node schemas as shipped and as patched for
// every job shape (a sheet or none, LoRAs, the base preset, the pack saver); the sheet reaches the LoadImage feeding
// RepeatImageBatch and every length and size widget the binding names; without a sheet the guides and the IC-LoRA
// go (text only), panels on disk without a staged sheet are refused, and a sheet whose IC-LoRA the job lost gets it
// back with a note.
import { describe, expect, it } from "vitest";
import {
  type ApiGraph,
  GraphError,
  isLink,
  nodesOf,
  type PatchInputs,
  type PatchValues,
  patchGraph,
  targetClasses,
} from "../lib/targets/graph.ts";
import { readiness } from "../lib/targets/models.ts";
import { oneNode, schemaErrors, shippedTarget } from "./support/comfy-schemas.ts";

const { spec, graph } = await shippedTarget("ltx2_ingredients");

const IC = "ltx-2.3-22b-ic-lora-ingredients-0.9.safetensors";
const CKPT = "ltx-2.3-22b-distilled-fp8.safetensors";

const job = (over: PatchValues = {}): PatchValues => ({
  prompt: ["Reference sheet: Ada (left), the kitchen (right).", "Ada pours the tea."],
  negative: "blurry",
  seed: 18446744073709551615n,
  steps: 8,
  cfg: 1,
  width: 768,
  height: 448,
  length: 97,
  fps: 24,
  model: CKPT,
  text_encoder: "gemma_3_12B_it_fp4_mixed.safetensors",
  loras: [{ name: IC, strength: 1 }],
  prefix: "studio/e01/sh010_t01",
  ...over,
});

const from = (g: ApiGraph, v: unknown) => (isLink(v) ? g[v[0]] : undefined);

describe("ltx2_ingredients workflow", () => {
  it("ships a workflow that validates against ComfyUI's node schemas", () => {
    expect(schemaErrors(graph)).toEqual([]);
  });

  it("validates as patched for every job shape: sheet or none, LoRAs, the base preset, the pack saver", () => {
    const shapes: [string, PatchValues, PatchInputs, "core" | "pack"][] = [
      ["sheet", job(), { sheet: "sheet.png" }, "core"],
      ["no sheet", job(), {}, "core"],
      ["sheet, IC-LoRA removed", job({ loras: [] }), { sheet: "sheet.png" }, "core"],
      [
        "sheet, two LoRAs",
        job({
          loras: [
            { name: IC, strength: 1 },
            { name: "ink.safetensors", strength: 0.4 },
          ],
        }),
        { sheet: "s.png" },
        "core",
      ],
      [
        "base",
        job({
          base: true,
          model: "ltx-2.3-22b-dev-fp8.safetensors",
          loras: [{ name: IC, strength: 1.4 }],
          steps: 30,
          cfg: 4,
        }),
        { sheet: "s.png" },
        "pack",
      ],
      ["base, no sheet", job({ base: true, loras: [{ name: IC, strength: 1.4 }] }), {}, "pack"],
    ];
    for (const [name, values, inputs, saver] of shapes) {
      const { graph: g } = patchGraph(spec, graph, values, inputs, {
        saver,
        saverValues: { project_root: "/show", subfolder: "e01/renders/sh010", take: 1, save_latent: true },
      });
      const core = Object.fromEntries(Object.entries(g).filter(([, n]) => n.class_type !== "H3SaveShot"));
      expect(schemaErrors(core), name).toEqual([]);
    }
  });

  it("carries the sheet and the job's values to the nodes its binding names", () => {
    const { graph: g, saver, notes } = patchGraph(spec, graph, job(), { sheet: "studio/abc.png" });
    const ckpt = oneNode(g, "CheckpointLoaderSimple");
    expect(ckpt.inputs.ckpt_name).toBe(CKPT);
    expect(oneNode(g, "LTXVAudioVAELoader").inputs.ckpt_name).toBe(CKPT);
    expect(oneNode(g, "LTXAVTextEncoderLoader").inputs).toMatchObject({
      ckpt_name: CKPT,
      text_encoder: "gemma_3_12B_it_fp4_mixed.safetensors",
    });
    expect(oneNode(g, "KSampler").inputs).toMatchObject({ seed: 18446744073709551615n, steps: 8, cfg: 1 });
    expect(oneNode(g, "EmptyLTXVLatentVideo").inputs).toMatchObject({ width: 768, height: 448, length: 97 });
    const repeat = oneNode(g, "RepeatImageBatch");
    expect(repeat.inputs.amount).toBe(97);
    const pad = from(g, repeat.inputs.image)!;
    expect(pad.inputs).toMatchObject({ target_width: 768, target_height: 448, padding_color: "black" });
    expect(from(g, pad.inputs.image)!.inputs.image).toBe("studio/abc.png");
    expect(oneNode(g, "LTXVEmptyLatentAudio").inputs).toMatchObject({ frames_number: 97, frame_rate: 24 });
    expect(oneNode(g, "LoraLoaderModelOnly").inputs).toMatchObject({ lora_name: IC, strength_model: 1 });
    expect(oneNode(g, "LTXVAddGuide").inputs).toMatchObject({ frame_idx: 0 });
    expect(from(g, oneNode(g, "KSampler").inputs.positive)!.class_type).toBe("LTXVAddGuide");
    expect(from(g, oneNode(g, "VAEDecode").inputs.samples)!.class_type).toBe("LTXVCropGuides");
    expect(g[saver]).toMatchObject({
      class_type: "SaveVideo",
      inputs: { filename_prefix: "studio/e01/sh010_t01" },
    });
    expect(notes).toEqual([]);
  });
});

describe("ltx2_ingredients without a sheet", () => {
  it("renders text-only: guides, crops and the IC-LoRA spliced out, other LoRAs kept, the sheet branch pruned", () => {
    const values = job({
      loras: [
        { name: IC, strength: 1 },
        { name: "ink.safetensors", strength: 0.4 },
      ],
    });
    const { graph: g, notes } = patchGraph(spec, graph, values, {});
    for (const cls of [
      "LTXVAddGuide",
      "LTXVCropGuides",
      "LoadImage",
      "ResizeAndPadImage",
      "RepeatImageBatch",
    ])
      expect(nodesOf(g, cls), cls).toEqual([]);
    const loras = nodesOf(g, "LoraLoaderModelOnly").map((id) => g[id].inputs.lora_name);
    expect(loras).toEqual(["ink.safetensors"]);
    const ks = oneNode(g, "KSampler");
    expect(from(g, ks.inputs.positive)!.class_type).toBe("LTXVConditioning");
    expect(from(g, ks.inputs.model)!.inputs.lora_name).toBe("ink.safetensors");
    expect(from(g, oneNode(g, "LTXVConcatAVLatent").inputs.video_latent)!.class_type).toBe(
      "EmptyLTXVLatentVideo",
    );
    expect(from(g, oneNode(g, "VAEDecode").inputs.samples)!.class_type).toBe("LTXVSeparateAVLatent");
    expect(notes.join("\n")).toMatch(/no reference pictures: the shot renders from the prompt alone/);
    expect(schemaErrors(g)).toEqual([]);
  });

  it("refuses a job whose shot has panel pictures on disk but no staged sheet", () => {
    const run = () => patchGraph(spec, graph, job(), { panels: 2 });
    expect(run).toThrow(GraphError);
    expect(run).toThrow(/reference sheet: 2 panel pictures on disk but no sheet was staged/);
  });

  it("notes keyframes it cannot read", () => {
    const { notes } = patchGraph(spec, graph, job(), { sheet: "s.png", first: "f.png" });
    expect(notes.join("\n")).toMatch(/reads no keyframes/);
  });
});

describe("ltx2_ingredients IC-LoRA", () => {
  it("puts the IC-LoRA back, with a note, when the job's LoRA list lost it while a sheet exists", () => {
    const { graph: g, notes } = patchGraph(spec, graph, job({ loras: [] }), { sheet: "s.png" });
    expect(oneNode(g, "LoraLoaderModelOnly").inputs).toMatchObject({ lora_name: IC, strength_model: 1 });
    expect(notes.join("\n")).toMatch(
      /needs its IC-LoRA: ltx-2.3-22b-ic-lora-ingredients-0.9.safetensors put back/,
    );
  });

  it("puts it back in front of the user's own LoRA when that one took the loader", () => {
    const { graph: g, notes } = patchGraph(
      spec,
      graph,
      job({ loras: [{ name: "ink.safetensors", strength: 0.5 }] }),
      {
        sheet: "s.png",
      },
    );
    const ks = oneNode(g, "KSampler");
    const ink = from(g, ks.inputs.model)!;
    expect(ink.inputs).toMatchObject({ lora_name: "ink.safetensors", strength_model: 0.5 });
    const ic = from(g, ink.inputs.model)!;
    expect(ic.inputs).toMatchObject({ lora_name: IC, strength_model: 1 });
    expect(from(g, ic.inputs.model)!.class_type).toBe("CheckpointLoaderSimple");
    expect(notes.join("\n")).toMatch(/put back/);
    expect(schemaErrors(g)).toEqual([]);
  });

  it("leaves a kept IC-LoRA as the job set it", () => {
    const { graph: g, notes } = patchGraph(spec, graph, job({ loras: [{ name: IC, strength: 0.8 }] }), {
      sheet: "s.png",
    });
    expect(oneNode(g, "LoraLoaderModelOnly").inputs.strength_model).toBe(0.8);
    expect(notes).toEqual([]);
  });
});

describe("ltx2_ingredients readiness", () => {
  it("needs only core classes, every one of them required", async () => {
    const classes = targetClasses(spec, graph);
    expect(classes).toEqual(
      expect.arrayContaining([
        "LTXVAddGuide",
        "LTXVCropGuides",
        "RepeatImageBatch",
        "ResizeAndPadImage",
        "LoadImage",
      ]),
    );
    const known = classes.filter((c) => c !== "RepeatImageBatch");
    const r = await readiness(spec, { objectInfo: known, models: {} }, { graph });
    expect(r.nodes_missing).toEqual(["RepeatImageBatch"]);
    expect(r.status).toBe("not_ready");
  });
});
