// Model files at queue time (targets 4): resolving a wanted file, header identification, the accelerator
// fallback to `base`, and readiness.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiGraph } from "../lib/targets/graph.ts";
import {
  identify,
  parseSafetensorsHeader,
  readSafetensorsHeader,
  relation,
  type SafetensorsHeader,
} from "../lib/targets/modelid.ts";
import {
  type Listing,
  type ModelSpec,
  modelFolder,
  precisionOf,
  readiness,
  resolveFile,
  resolveModels,
  wantedFiles,
} from "../lib/targets/models.ts";
import { shippedRegistry, type TargetSpec } from "../lib/targets/registry.ts";

const ROOT = path.join(import.meta.dirname, "..", "lib", "targets");
const workflow = async (spec: TargetSpec): Promise<ApiGraph> =>
  JSON.parse(await readFile(path.join(ROOT, spec.kind, spec.id, "workflow.json"), "utf8"));

const LTX = {
  model: "ltx-2.5-22b-distilled-transformer-comfy-int8-convrot.safetensors",
  dev: "ltx-2.5-22b-dev-transformer-comfy-int8-convrot.safetensors",
  te: "gemma4-12b-with-proj-ltx-2.5-comfy-int8-convrot.safetensors",
  vvae: "ltx-2.5-video-vae-bf16.safetensors",
  avae: "ltx-2.5-audio-vae-bf16.safetensors",
  up: "ltx-2.5-latent-spatial-upscaler-x2-bf16-1.0.safetensors",
  head: "ltx-2.5-duration-head-bf16.safetensors",
  ic: "ltx-2.5-22b-ic-lora-ingredients-0.9.safetensors",
};
const KLEIN = {
  kv: "flux-2-klein-9b-kv.safetensors",
  base: "flux-2-klein-base-9b-fp8.safetensors",
  te: "qwen_3_8b_fp8mixed.safetensors",
  small: "full_encoder_small_decoder.safetensors",
  vae: "flux2-vae.safetensors",
};

/** A header with the given tensors (leading dims only matter) and metadata. */
function header(tensors: Record<string, number[]>, metadata: Record<string, string> = {}): SafetensorsHeader {
  const t: SafetensorsHeader["tensors"] = {};
  for (const [k, shape] of Object.entries(tensors)) t[k] = { dtype: "BF16", shape };
  return { metadata, tensors: t };
}

const KLEIN_TENSORS = {
  "img_in.weight": [4096, 128],
  "txt_in.weight": [4096, 12288],
  "double_stream_modulation_img.lin.weight": [1],
  "single_stream_modulation.lin.weight": [1],
  "double_blocks.7.img_attn.qkv.weight": [1],
  "single_blocks.23.linear1.weight": [1],
};

describe("resolveFile", () => {
  const model: ModelSpec = {
    family: "ltx2.5",
    patterns: ["ltx-2.5*", "*ltx*2.5*", "*ltx*2_5*"],
    keep: ["(?<![a-z])(distilled|dev)(?![a-z])"],
    exclude: ["*lora*"],
  };

  it("finds the exact file in any subfolder, case and separators aside", async () => {
    expect(
      await resolveFile(
        LTX.model,
        model,
        ["other.safetensors", `LTX-2.5\\${LTX.model.toUpperCase()}`],
        "diffusion_models",
      ),
    ).toEqual({
      using: `LTX-2.5\\${LTX.model.toUpperCase()}`,
      how: "exact",
    });
  });

  it("takes a family member by name, keeping the distilled/dev word and skipping excluded files", async () => {
    const files = [
      LTX.dev,
      "ltx-2.5-22b-ic-lora-distilled.safetensors",
      "ltx-2.5-22b-distilled-fp8.safetensors",
      "unrelated-distilled.safetensors",
    ];
    expect(await resolveFile(LTX.model, model, files, "diffusion_models")).toEqual({
      using: "ltx-2.5-22b-distilled-fp8.safetensors",
      how: "family",
      match: "name",
    });
    // No distilled file: the dev transformer never stands in (it needs another schedule).
    expect(await resolveFile(LTX.model, model, [LTX.dev], "diffusion_models")).toBeNull();
  });

  it("prefers the wanted precision, then the shortest name, then ComfyUI's order", async () => {
    const files = [
      "ltx-2.5-22b-distilled-transformer-fp8-long-name.safetensors",
      "ltx-2.5-distilled-bf16.safetensors",
      "ltx-2.5-22b-distilled-int8-b.safetensors",
      "ltx-2.5-22b-distilled-int8-a.safetensors",
    ];
    expect((await resolveFile(LTX.model, model, files, "diffusion_models"))?.using).toBe(
      "ltx-2.5-22b-distilled-int8-b.safetensors",
    );
    expect((await resolveFile(LTX.model, model, files.slice(0, 2), "diffusion_models"))?.using).toBe(
      "ltx-2.5-distilled-bf16.safetensors",
    );
    expect(precisionOf(LTX.model)).toBe("int8");
    expect(precisionOf("qwen_3_8b_fp8mixed.safetensors")).toBe("fp8");
    expect(precisionOf(KLEIN.kv)).toBeNull();
  });

  it("keeps scale words of upscalers and uses series family globs", async () => {
    const up: ModelSpec = {
      family: "ltx2.5-latent-upscaler",
      patterns: ["*ltx*2.5*upscal*"],
      keep: ["(spatial|temporal)", "[_-](x\\d+(?:\\.\\d+)?)"],
    };
    const files = [
      "ltx-2.5-latent-temporal-upscaler-x2.safetensors",
      "ltx-2.5-latent-spatial-upscaler-x1.5.safetensors",
    ];
    expect(await resolveFile(LTX.up, up, files, "latent_upscale_models")).toBeNull();
    expect(
      (
        await resolveFile(
          LTX.up,
          up,
          [...files, "ltx-2.5-spatial-upscaler-x2.safetensors"],
          "latent_upscale_models",
        )
      )?.using,
    ).toBe("ltx-2.5-spatial-upscaler-x2.safetensors");
    const fam: ModelSpec = { family: "flux2-vae", patterns: [] };
    expect(
      await resolveFile(KLEIN.vae, fam, ["my-vae.safetensors"], "vae", {
        familyGlobs: { "flux2-vae": ["my-*"] },
      }),
    ).toEqual({
      using: "my-vae.safetensors",
      how: "family",
      match: "name",
    });
  });

  it("identifies a renamed file by its header when no name matches (never for LoRAs)", async () => {
    const klein: ModelSpec = {
      family: "flux2-klein-9b",
      patterns: ["flux-2-klein-9b*", "*flux*2*klein*9b*"],
      exclude: ["*base*", "*lora*"],
    };
    const headers: Record<string, SafetensorsHeader> = {
      "mystery.safetensors": header(KLEIN_TENSORS),
      "other.safetensors": header({ "img_in.weight": [3072, 64] }),
    };
    const headerOf = async (_folder: string, file: string) => headers[file] ?? null;
    expect(
      await resolveFile(KLEIN.kv, klein, ["other.safetensors", "mystery.safetensors"], "diffusion_models", {
        headerOf,
      }),
    ).toEqual({
      using: "mystery.safetensors",
      how: "family",
      match: "fingerprint",
    });
    expect(await resolveFile(KLEIN.kv, klein, ["mystery.safetensors"], "loras", { headerOf })).toBeNull();
    expect(await resolveFile(KLEIN.kv, klein, ["mystery.safetensors"], "diffusion_models")).toBeNull();
  });
});

describe("safetensors headers", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "studio-st-"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const bytes = (json: unknown) => {
    const body = new TextEncoder().encode(JSON.stringify(json));
    const out = new Uint8Array(8 + body.length + 16);
    new DataView(out.buffer).setBigUint64(0, BigInt(body.length), true);
    out.set(body, 8);
    return out;
  };

  it("reads the header (and only the header) of a file", async () => {
    const json = {
      __metadata__: { model_version: "2.5.0" },
      "model.diffusion_model.patchify_proj.weight": {
        dtype: "BF16",
        shape: [4096, 128],
        data_offsets: [0, 8],
      },
    };
    const file = path.join(dir, "m.safetensors");
    await writeFile(file, bytes(json));
    const h = await readSafetensorsHeader(file);
    expect(h.metadata).toEqual({ model_version: "2.5.0" });
    expect(h.tensors["model.diffusion_model.patchify_proj.weight"].shape).toEqual([4096, 128]);
    expect(parseSafetensorsHeader(bytes(json))).toEqual(h);
    expect(() => parseSafetensorsHeader(new Uint8Array(8))).toThrow(/implausible header length/);
  });

  it("identifies families, variants, versions and name-told children", () => {
    expect(identify(header(KLEIN_TENSORS))).toMatchObject({
      family: "flux2-klein-9b",
      confidence: "tensors",
    });
    const ltx = {
      "model.diffusion_model.patchify_proj.weight": [1],
      "audio_patchify_proj.weight": [1],
      "adaln_single.linear.weight": [1],
      "av_ca_a2v_gate_adaln_single.linear.weight": [1],
      "transformer_blocks.0.audio_ff.net.0.proj.weight": [1],
    };
    expect(identify(header({ ...ltx, keyframes_abs_pos_embedding: [1] })).family).toBe("ltx2.5");
    expect(identify(header({ ...ltx, "transformer_blocks.0.ff.net.0.proj.bias": [1] })).family).toBe(
      "ltx2.3",
    );
    expect(identify(header(ltx, { model_version: "2.5" }))).toMatchObject({
      family: "ltx2.5",
      confidence: "metadata",
    });
    const h3 = {
      adaln_t_table: [1],
      "video_patch_proj.weight": [1],
      "audio_patch_proj.weight": [1],
      "condition_proj.weight": [1],
      "token_refiner.final_norm.weight": [1],
      "final_layer.video_out.weight": [1],
      "blocks.0.attn.weight": [1],
    };
    expect(identify(header(h3), "minimax_h3_fl2va_x.safetensors")).toMatchObject({
      family: "minimax-h3-fl2va",
      base: "minimax-h3",
      confidence: "name",
    });
    expect(identify(header({ a: [1] }))).toMatchObject({
      family: null,
      detail: "no signature matched (1 tensor)",
    });
    expect(relation("ltx2.5", "ltx2")).toBe("variant");
    expect(relation("ltx2", "ltx2.5")).toBe("ambiguous");
    expect(relation("ltx2.3", "ltx2.5")).toBe("different");
    expect(relation("flux2-klein-9b-base", "flux2-klein-9b")).toBe("unregistered");
  });
});

describe("wantedFiles", () => {
  it("takes the pass preset's files, else final's, else the param's default", async () => {
    const ltx = shippedRegistry().get("ltx2")!;
    const proxy = wantedFiles(ltx, "proxy");
    expect(proxy.files).toMatchObject({
      model: LTX.model, // proxy has no model: final's
      text_encoder: LTX.te,
      duration_head: LTX.head,
      quality_model: LTX.dev, // not in any preset: the param's default
      reference_lora: LTX.ic,
    });
    expect(proxy.loras).toEqual([]);
    expect(modelFolder(ltx, "upscaler")).toBe("latent_upscale_models");
    expect(modelFolder(ltx, "video_vae")).toBe("vae");
    expect(modelFolder(ltx, "duration_head")).toBe("model_patches");
    const klein = shippedRegistry().get("flux2_klein")!;
    expect(wantedFiles(klein, "final")).toEqual({
      files: { model: KLEIN.kv, text_encoder: KLEIN.te, vae: KLEIN.small },
      loras: [],
      loraSlot: [],
    });
  });
});

const LTX_INSTALLED: Listing = {
  diffusion_models: [LTX.model, LTX.dev],
  text_encoders: [LTX.te],
  vae: [LTX.vvae, LTX.avae],
  latent_upscale_models: [LTX.up],
  model_patches: [LTX.head],
  loras: [LTX.ic],
};

describe("resolveModels", () => {
  it("falls back to the base preset when the accelerator is missing: base files required, base values applied", async () => {
    const klein = shippedRegistry().get("flux2_klein")!;
    const r = await resolveModels(klein, "final", {
      diffusion_models: [KLEIN.base],
      text_encoders: [KLEIN.te],
      vae: [KLEIN.small],
    });
    expect(r.blocked).toBe(false);
    expect(r.base).toBe(true);
    expect(r.files).toEqual({ model: KLEIN.base });
    expect(r.values).toEqual({ steps: 20, cfg: 5 });
    expect(r.params.model).toMatchObject({
      want: KLEIN.base,
      using: KLEIN.base,
      how: "base",
      tier: "required",
    });
    expect(r.missing).toEqual([
      expect.objectContaining({
        param: "model",
        tier: "accelerator",
        want: KLEIN.kv,
        family: "flux2-klein-9b",
        url: null,
      }),
    ]);
    expect(r.notes.join("\n")).toMatch(
      /accelerator flux-2-klein-9b-kv\.safetensors \(model\) is not installed: the slower base preset renders/,
    );
    // The base's own file missing too: blocked.
    const none = await resolveModels(klein, "final", {
      diffusion_models: [],
      text_encoders: [KLEIN.te],
      vae: [KLEIN.small],
    });
    expect(none.blocked).toBe(true);
    expect(none.missing.map((m) => [m.want, m.tier])).toEqual([
      [KLEIN.kv, "accelerator"],
      [KLEIN.base, "required"],
    ]);
  });

  it("a family member stands in for the accelerator without falling back", async () => {
    const klein = shippedRegistry().get("flux2_klein")!;
    const r = await resolveModels(klein, "final", {
      diffusion_models: [KLEIN.base, "flux-2-klein-9b-kv-fp8.safetensors"],
      text_encoders: [KLEIN.te],
      vae: [KLEIN.small],
    });
    expect(r.base).toBe(false);
    expect(r.files).toEqual({ model: "flux-2-klein-9b-kv-fp8.safetensors" }); // the base is excluded by *base*
    expect(r.params.model).toMatchObject({ how: "family", match: "name" });
  });

  it("blocks on a missing required file with where to get it", async () => {
    const klein = shippedRegistry().get("flux2_klein")!;
    const r = await resolveModels(klein, "final", {
      diffusion_models: [KLEIN.kv],
      text_encoders: ["qwen3vl_8b.safetensors"],
      vae: [KLEIN.small],
    });
    expect(r.blocked).toBe(true);
    expect(r.missing).toEqual([
      {
        param: "text_encoder",
        tier: "required",
        want: KLEIN.te,
        family: "qwen3-8b",
        folder: "text_encoders",
        url: "https://huggingface.co/Comfy-Org/flux2-klein-9B/resolve/main/split_files/text_encoders/qwen_3_8b_fp8mixed.safetensors",
        source: "recorded in the original tool's download list",
        label: `text_encoder: ${KLEIN.te} (models/text_encoders)`,
      },
    ]);
  });

  it("switches optional features off and leaves unlisted folders alone", async () => {
    const ltx = shippedRegistry().get("ltx2")!;
    const r = await resolveModels(ltx, "final", {
      diffusion_models: [LTX.model],
      text_encoders: [LTX.te],
      vae: [LTX.vvae, LTX.avae],
      latent_upscale_models: [LTX.up],
      model_patches: [],
      loras: null,
    });
    expect(r.blocked).toBe(false);
    expect(r.base).toBe(false);
    expect(r.params.duration_head).toMatchObject({ how: "off", tier: "optional" });
    expect(r.params.reference_lora).toMatchObject({ how: "unlisted" });
    // The distilled file never stands in for the dev one (`keep`), so the quality profile is off too.
    expect(r.params.quality_model).toMatchObject({ how: "off", tier: "optional" });
    expect(r.features_off).toEqual([
      "dur: model (duration head)",
      "the quality profile (LTX-2.5 dev transformer)",
    ]);
  });

  it("without a base preset a missing accelerator blocks; a job's own LoRA counts as required", async () => {
    const ltx = shippedRegistry().get("ltx2")!;
    const r = await resolveModels(ltx, "final", LTX_INSTALLED, {
      job: { loras: [{ name: "style.safetensors", strength: 1 }] },
    });
    expect(r.blocked).toBe(true);
    expect(r.missing).toEqual([
      expect.objectContaining({
        param: "loras",
        tier: "required",
        want: "style.safetensors",
        folder: "loras",
      }),
    ]);
  });
});

describe("readiness", () => {
  const allNodes = (extra: string[] = []) => [
    "UNETLoader",
    "CLIPLoader",
    "VAELoader",
    "LatentUpscaleModelLoader",
    "CLIPTextEncode",
    "LTXVConditioning",
    "EmptyLTXVLatentVideo",
    "LoadImage",
    "LTXVPreprocess",
    "LTXVImgToVideoInplace",
    "LTXVEmptyLatentAudio",
    "LTXVConcatAVLatent",
    "RandomNoise",
    "KSamplerSelect",
    "ManualSigmas",
    "LTXVDualCFGGuider",
    "SamplerCustomAdvanced",
    "LTXVSeparateAVLatent",
    "LTXVLatentUpsampler",
    "VAEDecodeTiled",
    "LTXVAudioVAEDecode",
    "CreateVideo",
    "SaveVideo",
    "LTXVAddGuide",
    "LTXVCropGuides",
    "LoraLoaderModelOnly",
    ...extra,
  ];
  const OPTIONAL_NODES = [
    "ModelPatchLoader",
    "LTXVDurationPredictor",
    "LTXVScheduler",
    "LTXICLoRALoaderModelOnly",
    "LTXAddVideoICLoRAGuide",
    "RepeatImageBatch",
    "ResizeAndPadImage",
  ];

  it("ltx2 is ready with every file and node", async () => {
    const ltx = shippedRegistry().get("ltx2")!;
    const r = await readiness(
      ltx,
      { objectInfo: allNodes(OPTIONAL_NODES), models: LTX_INSTALLED },
      { graph: await workflow(ltx) },
    );
    expect(r).toMatchObject({ status: "ready", missing: [], features_off: [], nodes_missing: [] });
    expect(r.resolved.model).toMatchObject({ how: "exact", using: LTX.model });
    expect(Object.keys(r.by_pass)).toEqual(["final", "proxy"]);
  });

  it("ltx2 is degraded without optional files or nodes, not_ready without a required file or node", async () => {
    const ltx = shippedRegistry().get("ltx2")!;
    const graph = await workflow(ltx);
    const noHead = await readiness(
      ltx,
      {
        objectInfo: allNodes(OPTIONAL_NODES.filter((n) => n !== "LTXVDurationPredictor")),
        models: { ...LTX_INSTALLED, model_patches: [] },
      },
      { graph },
    );
    expect(noHead.status).toBe("degraded");
    expect(noHead.missing).toEqual([
      expect.objectContaining({
        param: "duration_head",
        tier: "optional",
        passes: ["final", "proxy"],
        feature: "dur: model (duration head)",
      }),
    ]);
    expect(noHead.features_off).toEqual(["dur: model (duration head)"]);
    expect(noHead.nodes_missing).toEqual(["LTXVDurationPredictor"]);

    const noVae = await readiness(
      ltx,
      { objectInfo: allNodes(OPTIONAL_NODES), models: { ...LTX_INSTALLED, vae: [LTX.vvae] } },
      { graph },
    );
    expect(noVae.status).toBe("not_ready");
    expect(noVae.missing).toEqual([
      expect.objectContaining({
        param: "audio_vae",
        tier: "required",
        want: LTX.avae,
        folder: "vae",
        passes: ["final", "proxy"],
        url: "https://huggingface.co/Lightricks/LTX-2.5/resolve/main/vae/ltx-2.5-audio-vae-bf16.safetensors",
      }),
    ]);

    const noGuide = await readiness(
      ltx,
      { objectInfo: allNodes(OPTIONAL_NODES).filter((n) => n !== "LTXVAddGuide"), models: LTX_INSTALLED },
      { graph },
    );
    expect(noGuide).toMatchObject({ status: "not_ready", nodes_missing: ["LTXVAddGuide"] });
    const noUpsampler = await readiness(
      ltx,
      {
        objectInfo: allNodes(OPTIONAL_NODES).filter((n) => n !== "LTXVLatentUpsampler"),
        models: LTX_INSTALLED,
      },
      { graph },
    );
    expect(noUpsampler).toMatchObject({ status: "not_ready", nodes_missing: ["LTXVLatentUpsampler"] });
  });

  it("ltx2 checks the classes only a keyframed or LoRA job sends, at the tier `nodes` gives them", async () => {
    const ltx = shippedRegistry().get("ltx2")!;
    const graph = await workflow(ltx);
    for (const cls of ["LTXVImgToVideoInplace", "LoraLoaderModelOnly"]) {
      const r = await readiness(
        ltx,
        { objectInfo: allNodes(OPTIONAL_NODES).filter((n) => n !== cls), models: LTX_INSTALLED },
        { graph },
      );
      expect(r, cls).toMatchObject({ status: "not_ready", nodes_missing: [cls] });
    }
    // A copy that declares the first-frame node optional renders plain shots: degraded, the feature named.
    const copy = structuredClone(ltx);
    copy.nodes = {
      ...(copy.nodes as object),
      LTXVImgToVideoInplace: { tier: "optional", feature: "first keyframe" },
    };
    const r = await readiness(
      copy,
      {
        objectInfo: allNodes(OPTIONAL_NODES).filter((n) => n !== "LTXVImgToVideoInplace"),
        models: LTX_INSTALLED,
      },
      { graph },
    );
    expect(r).toMatchObject({ status: "degraded", nodes_missing: ["LTXVImgToVideoInplace"] });
    expect(r.features_off).toEqual(["first keyframe"]);
  });

  it("is not_ready when a param binding selects several nodes, naming the param and the nodes", async () => {
    const ltx = shippedRegistry().get("ltx2")!;
    const graph = await workflow(ltx);
    graph["40"] = { class_type: "EmptyLTXVLatentVideo", inputs: { ...graph["9"].inputs } };
    const r = await readiness(
      ltx,
      { objectInfo: allNodes(OPTIONAL_NODES), models: LTX_INSTALLED },
      { graph },
    );
    expect(r.status).toBe("not_ready");
    expect(r.error).toMatch(/param 'width': EmptyLTXVLatentVideo matched 2 nodes \(9, 40\)/);
  });

  it("flux2_klein_edit is degraded on the base model alone and unknown when ComfyUI does not answer", async () => {
    const edit = shippedRegistry().get("flux2_klein_edit")!;
    const graph = await workflow(edit);
    // The workflow's classes and the LoRA loader a job with LoRAs inserts.
    const nodes = [...Object.values(graph).map((n) => n.class_type), "LoraLoaderModelOnly"];
    const models = { diffusion_models: [KLEIN.base], text_encoders: [KLEIN.te], vae: [KLEIN.vae] };
    const r = await readiness(edit, { objectInfo: nodes, models }, { graph });
    expect(r.status).toBe("degraded");
    expect(r.missing).toEqual([
      expect.objectContaining({ param: "model", tier: "accelerator", want: KLEIN.kv, passes: ["final"] }),
    ]);
    expect(r.by_pass.final?.base).toBe(true);
    expect(
      (
        await readiness(
          edit,
          { objectInfo: nodes, models: { ...models, diffusion_models: [KLEIN.kv] } },
          { graph },
        )
      ).status,
    ).toBe("ready");
    const down = await readiness(
      edit,
      { objectInfo: null, models: {}, error: "ComfyUI at http://x is down" },
      { graph },
    );
    expect(down).toMatchObject({ status: "unknown", error: "ComfyUI at http://x is down" });
  });

  it("ltx2_voice falls back to the dev transformer (base) and needs no optional node to render", async () => {
    const voice = shippedRegistry().get("ltx2_voice")!;
    const graph = await workflow(voice);
    // The workflow's classes and the LoRA loader a job with LoRAs inserts.
    const nodes = [...Object.values(graph).map((n) => n.class_type), "LoraLoaderModelOnly"];
    const r = await readiness(
      voice,
      {
        objectInfo: nodes,
        models: { diffusion_models: [LTX.dev], text_encoders: [LTX.te], vae: [LTX.avae] },
      },
      { graph },
    );
    expect(r.status).toBe("degraded");
    expect(r.by_pass.final).toMatchObject({
      base: true,
      files: { model: LTX.dev },
      values: { steps: 30, cfg: 6 },
      loras: [],
    });
    expect(r.nodes_missing).toEqual(["LTXVReferenceAudio", "LoadAudio"]);
    expect(r.features_off).toEqual(["voice cloning (LTXVReferenceAudio)"]);
  });
});
