// API-format graphs shaped like the ltx2, flux2_klein, flux2_klein_edit and ltx2_voice targets (targets
// 2.2–2.4) after patching, with either the core savers or the project's H3 savers, for tests of the double
// and of clients.
import type { Graph } from "./types.ts";

export interface Ltx2GraphOptions {
  /** Render size; the base-stage latent gets half of it (binding scale 0.5). */
  width?: number;
  height?: number;
  length?: number;
  fps?: number;
  seed?: number;
  prompt?: string;
  saver?: "core" | "h3";
  shotId?: string;
  model?: string;
}

const node = (class_type: string, inputs: Record<string, unknown>, title?: string) => ({
  class_type,
  inputs,
  _meta: { title: title ?? class_type },
});

export function ltx2Graph(o: Ltx2GraphOptions = {}): Graph {
  const width = o.width ?? 768;
  const height = o.height ?? 512;
  const length = o.length ?? 121;
  const fps = o.fps ?? 24;
  const seed = o.seed ?? 42;
  const g: Graph = {
    "1": node("UNETLoader", {
      unet_name: o.model ?? "ltx-2.5-22b-distilled-transformer-comfy-int8-convrot.safetensors",
      weight_dtype: "default",
    }),
    "2": node("CLIPLoader", {
      clip_name: "gemma4-12b-with-proj-ltx-2.5-comfy-int8-convrot.safetensors",
      type: "ltxv",
    }),
    "3": node(
      "CLIPTextEncode",
      { text: o.prompt ?? "A lighthouse at dusk.", clip: ["2", 0] },
      "Positive prompt",
    ),
    "4": node("CLIPTextEncode", { text: "worst quality, blurry", clip: ["2", 0] }, "Negative prompt"),
    "5": node("LTXVConditioning", { positive: ["3", 0], negative: ["4", 0], frame_rate: fps }),
    "6": node("VAELoader", { vae_name: "ltx-2.5-video-vae-bf16.safetensors" }),
    "7": node("VAELoader", { vae_name: "ltx-2.5-audio-vae-bf16.safetensors" }),
    "8": node("EmptyLTXVLatentVideo", { width: width / 2, height: height / 2, length, batch_size: 1 }),
    "9": node("LTXVEmptyLatentAudio", {
      frames_number: length,
      frame_rate: fps,
      batch_size: 1,
      audio_vae: ["7", 0],
    }),
    "10": node("LTXVConcatAVLatent", { video_latent: ["8", 0], audio_latent: ["9", 0] }),
    "11": node("RandomNoise", { noise_seed: seed }),
    "12": node("KSamplerSelect", { sampler_name: "euler_ancestral" }),
    "13": node("ManualSigmas", {
      sigmas: "1.0, 0.99375, 0.9875, 0.98125, 0.975, 0.909375, 0.725, 0.421875, 0.0",
    }),
    "14": node("LTXVDualCFGGuider", {
      model: ["1", 0],
      positive: ["5", 0],
      negative: ["5", 1],
      video_cfg: 1,
      audio_cfg: 1,
    }),
    "15": node("SamplerCustomAdvanced", {
      noise: ["11", 0],
      guider: ["14", 0],
      sampler: ["12", 0],
      sigmas: ["13", 0],
      latent_image: ["10", 0],
    }),
    "16": node("LTXVSeparateAVLatent", { av_latent: ["15", 0] }),
    "17": node("LatentUpscaleModelLoader", {
      model_name: "ltx-2.5-latent-spatial-upscaler-x2-bf16-1.0.safetensors",
    }),
    "18": node("LTXVLatentUpsampler", { samples: ["16", 0], upscale_model: ["17", 0], vae: ["6", 0] }),
    "19": node("LTXVConcatAVLatent", { video_latent: ["18", 0], audio_latent: ["16", 1] }),
    "20": node("RandomNoise", { noise_seed: seed }),
    "21": node("ManualSigmas", { sigmas: "0.85, 0.7250, 0.4219, 0.0" }),
    "22": node("LTXVDualCFGGuider", {
      model: ["1", 0],
      positive: ["5", 0],
      negative: ["5", 1],
      video_cfg: 1,
      audio_cfg: 1,
    }),
    "23": node("SamplerCustomAdvanced", {
      noise: ["20", 0],
      guider: ["22", 0],
      sampler: ["12", 0],
      sigmas: ["21", 0],
      latent_image: ["19", 0],
    }),
    "24": node("LTXVSeparateAVLatent", { av_latent: ["23", 0] }),
    "25": node("VAEDecodeTiled", {
      samples: ["24", 0],
      vae: ["6", 0],
      tile_size: 512,
      overlap: 64,
      temporal_size: 64,
      temporal_overlap: 8,
    }),
    "26": node("LTXVAudioVAEDecode", { samples: ["24", 1], audio_vae: ["7", 0] }),
  };
  if (o.saver === "h3") {
    g.h3_saver = node(
      "H3SaveShot",
      {
        images: ["25", 0],
        audio: ["26", 0],
        fps,
        shot_id: o.shotId ?? "sh010",
        audio_policy: "generate",
        take: 1,
        subfolder: `renders/${o.shotId ?? "sh010"}`,
        save_frames: false,
      },
      "H3SaveShot (h3pipe)",
    );
  } else {
    g["27"] = node("CreateVideo", { images: ["25", 0], audio: ["26", 0], fps });
    g["28"] = node("SaveVideo", {
      video: ["27", 0],
      filename_prefix: "video/ltx2",
      format: "auto",
      codec: "auto",
    });
  }
  return g;
}

export interface Flux2GraphOptions {
  width?: number;
  height?: number;
  seed?: number;
  prompt?: string;
  saver?: "core" | "h3";
  /** Uploaded reference names (edit target); each gets a "Reference i" chain. */
  references?: string[];
}

export function flux2KleinGraph(o: Flux2GraphOptions = {}): Graph {
  const width = o.width ?? 1024;
  const height = o.height ?? 1024;
  const refs = o.references ?? [];
  const edit = refs.length > 0;
  const g: Graph = {
    "1": node("UNETLoader", { unet_name: "flux-2-klein-9b-kv.safetensors", weight_dtype: "default" }),
    "2": node("CLIPLoader", { clip_name: "qwen_3_8b_fp8mixed.safetensors", type: "flux2" }),
    "3": node("VAELoader", {
      vae_name: edit ? "flux2-vae.safetensors" : "full_encoder_small_decoder.safetensors",
    }),
    "4": node(
      "CLIPTextEncode",
      { text: o.prompt ?? "A red bicycle against a white wall.", clip: ["2", 0] },
      "Positive prompt",
    ),
    "5": node("CLIPTextEncode", { text: "", clip: ["2", 0] }, "Negative prompt"),
    "6": node("CFGGuider", { model: ["1", 0], positive: ["4", 0], negative: ["5", 0], cfg: 1 }),
    "7": node("KSamplerSelect", { sampler_name: "euler" }),
    "8": node("Flux2Scheduler", { steps: 4, width, height }),
    "9": node("RandomNoise", { noise_seed: o.seed ?? 7 }),
    "10": node("EmptyFlux2LatentImage", { width, height, batch_size: 1 }),
    "11": node("SamplerCustomAdvanced", {
      noise: ["9", 0],
      guider: ["6", 0],
      sampler: ["7", 0],
      sigmas: ["8", 0],
      latent_image: ["10", 0],
    }),
    "12": node("VAEDecode", { samples: ["11", 0], vae: ["3", 0] }),
  };
  if (edit) {
    g["30"] = node("FluxKVCache", { model: ["1", 0] });
    g["31"] = node("ConditioningZeroOut", { conditioning: ["4", 0] });
    let pos: [string, number] = ["4", 0];
    let neg: [string, number] = ["31", 0];
    refs.forEach((name, i) => {
      const n = i + 1;
      const id = (role: string) => (n === 1 ? `r1_${role}` : `h3ref${n}_${role}`);
      g[id("load")] = node("LoadImage", { image: name }, `Reference ${n}`);
      g[id("scale")] = node(
        "ImageScaleToTotalPixels",
        { image: [id("load"), 0], upscale_method: "lanczos", megapixels: 1, resolution_steps: 1 },
        `Reference ${n} scale`,
      );
      g[id("encode")] = node(
        "VAEEncode",
        { pixels: [id("scale"), 0], vae: ["3", 0] },
        `Reference ${n} encode`,
      );
      g[id("positive")] = node(
        "ReferenceLatent",
        { conditioning: pos, latent: [id("encode"), 0] },
        `Reference ${n} positive`,
      );
      g[id("negative")] = node(
        "ReferenceLatent",
        { conditioning: neg, latent: [id("encode"), 0] },
        `Reference ${n} negative`,
      );
      pos = [id("positive"), 0];
      neg = [id("negative"), 0];
    });
    g["6"].inputs = { model: ["30", 0], positive: pos, negative: neg, cfg: 1 };
  }
  if (o.saver === "h3") {
    g.h3_saver = node(
      "H3SaveRefTake",
      {
        images: ["12", 0],
        subfolder: "refs/_takes/subject_ana",
        sidecar: "refs/_takes/subject_ana/ana_front_t01.json",
      },
      "H3SaveRefTake (h3pipe)",
    );
  } else {
    g["13"] = node("SaveImage", { images: ["12", 0], filename_prefix: "h3refs/tmp" });
  }
  return g;
}

export function flux2KleinEditGraph(o: Flux2GraphOptions & { references: string[] }): Graph {
  return flux2KleinGraph(o);
}

export interface VoiceGraphOptions {
  seconds?: number;
  fps?: number;
  steps?: number;
  prompt?: string;
  saver?: "core" | "h3";
}

export function ltx2VoiceGraph(o: VoiceGraphOptions = {}): Graph {
  const fps = o.fps ?? 24;
  const frames = Math.round(((o.seconds ?? 2) * fps) / 8) * 8 + 1;
  const g: Graph = {
    "1": node("UNETLoader", {
      unet_name: "ltx-2.5-22b-distilled-transformer-comfy-int8-convrot.safetensors",
      weight_dtype: "default",
    }),
    "2": node("LTXVAudioOnlyModel", { model: ["1", 0] }),
    "3": node("CLIPLoader", {
      clip_name: "gemma4-12b-with-proj-ltx-2.5-comfy-int8-convrot.safetensors",
      type: "ltxv",
    }),
    "4": node(
      "CLIPTextEncode",
      { text: o.prompt ?? "A calm adult voice says: hello there.", clip: ["3", 0] },
      "Positive prompt",
    ),
    "5": node("CLIPTextEncode", { text: "music, noise", clip: ["3", 0] }, "Negative prompt"),
    "6": node("LTXVConditioning", { positive: ["4", 0], negative: ["5", 0], frame_rate: fps }),
    "7": node("VAELoader", { vae_name: "ltx-2.5-audio-vae-bf16.safetensors" }),
    "8": node("LTXVAudioOnlyEmptyVideoLatent", { length: frames, batch_size: 1 }),
    "9": node("LTXVEmptyLatentAudio", {
      frames_number: frames,
      frame_rate: fps,
      batch_size: 1,
      audio_vae: ["7", 0],
    }),
    "10": node("LTXVConcatAVLatent", { video_latent: ["8", 0], audio_latent: ["9", 0] }),
    "11": node("LTXVDualCFGGuider", {
      model: ["2", 0],
      positive: ["6", 0],
      negative: ["6", 1],
      video_cfg: 1,
      audio_cfg: 1,
    }),
    "12": node("LTXVScheduler", {
      steps: o.steps ?? 8,
      max_shift: 2.05,
      base_shift: 0.95,
      stretch: true,
      terminal: 0.1,
      latent: ["10", 0],
    }),
    "13": node("RandomNoise", { noise_seed: 11 }),
    "14": node("KSamplerSelect", { sampler_name: "euler_ancestral" }),
    "15": node("SamplerCustomAdvanced", {
      noise: ["13", 0],
      guider: ["11", 0],
      sampler: ["14", 0],
      sigmas: ["12", 0],
      latent_image: ["10", 0],
    }),
    "16": node("LTXVSeparateAVLatent", { av_latent: ["15", 0] }),
    "17": node("LTXVAudioVAEDecode", { samples: ["16", 1], audio_vae: ["7", 0] }),
  };
  if (o.saver === "h3") {
    g.h3_saver = node(
      "H3SaveRefAudio",
      {
        audio: ["17", 0],
        subfolder: "refs/_takes/voice_ana",
        sidecar: "refs/_takes/voice_ana/voice_ana_t01.json",
      },
      "H3SaveRefAudio (h3pipe)",
    );
  } else {
    g["18"] = node("SaveAudio", { audio: ["17", 0], filename_prefix: "audio/voice" });
  }
  return g;
}

/** The smallest runnable graph: EmptyImage → SaveImage (no models, no sampler). */
export function tinyImageGraph(width = 64, height = 48): Graph {
  return {
    "1": node("EmptyImage", { width, height, batch_size: 1, color: 0 }),
    "2": node("SaveImage", { images: ["1", 0], filename_prefix: "tiny" }),
  };
}
