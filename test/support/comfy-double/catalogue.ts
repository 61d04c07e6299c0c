// The node catalogue behind /object_info and validation: the core classes the ltx2, flux2_klein,
// flux2_klein_edit and ltx2_voice graphs use (targets 2.2–2.4), the project's H3 savers, common save/preview
// nodes, and loader combos filled from the configured model lists. Both combo encodings occur: legacy classes
// carry the option list as the type, v3 classes use "COMBO" + `options`.
// The classes of the shipped image and Wan video workflows come from the node schema table read from ComfyUI's
// source (test/fixtures/comfy-node-schemas.json): its inputs, types, bounds, option lists and outputs win over the
// hand-written entries here, which only add what the table leaves out (category, display name, defaults).
import schemaTable from "../../fixtures/comfy-node-schemas.json" with { type: "json" };
import type { Profile } from "./types.ts";

export type Scalar = "INT" | "FLOAT" | "STRING" | "BOOLEAN";
export type InputDef =
  | { t: "scalar"; type: Scalar; opts: Record<string, unknown> }
  | { t: "link"; type: string; opts?: Record<string, unknown> }
  | { t: "combo"; options: string[]; v3: boolean; opts?: Record<string, unknown> }
  | { t: "models"; folder: string; v3: boolean; opts?: Record<string, unknown> }
  | { t: "files"; kind: "image" | "audio" | "video" | "latent"; opts?: Record<string, unknown> };

/** What running a node does in the double. */
export type Behaviour =
  | "sampler"
  | "save_image"
  | "preview_image"
  | "save_video"
  | "save_webm"
  | "save_audio"
  | "preview_audio"
  | "vhs_combine"
  | "preview_any"
  | "h3_shot"
  | "h3_ref_take"
  | "h3_ref_audio"
  | "extra_output";

export interface NodeDef {
  category: string;
  module: string;
  display?: string;
  description?: string;
  required?: Record<string, InputDef>;
  optional?: Record<string, InputDef>;
  hidden?: Record<string, string>;
  output?: string[];
  outputName?: string[];
  outputNode?: boolean;
  behaviour?: Behaviour;
  /** Inputs checked by a VALIDATE_INPUTS-style function instead of the combo list (LoadImage, LoadAudio). */
  customValidate?: string[];
  experimental?: boolean;
}

const MAX_RES = 16384;
const SEED_MAX = 2 ** 64 - 1;

const int = (
  def: number,
  min: number,
  max: number,
  step = 1,
  extra: Record<string, unknown> = {},
): InputDef => ({
  t: "scalar",
  type: "INT",
  opts: { default: def, min, max, step, ...extra },
});
const float = (
  def: number,
  min: number,
  max: number,
  step = 0.01,
  extra: Record<string, unknown> = {},
): InputDef => ({
  t: "scalar",
  type: "FLOAT",
  opts: { default: def, min, max, step, ...extra },
});
const str = (def = "", multiline = false, extra: Record<string, unknown> = {}): InputDef => ({
  t: "scalar",
  type: "STRING",
  opts: { default: def, multiline, ...extra },
});
const bool = (def: boolean): InputDef => ({ t: "scalar", type: "BOOLEAN", opts: { default: def } });
const link = (type: string, opts?: Record<string, unknown>): InputDef => ({ t: "link", type, opts });
const combo = (options: string[], v3 = false, opts?: Record<string, unknown>): InputDef => ({
  t: "combo",
  options,
  v3,
  opts: { default: options[0], ...opts },
});
const models = (folder: string, v3 = false, opts?: Record<string, unknown>): InputDef => ({
  t: "models",
  folder,
  v3,
  opts,
});

/** One input of the schema table: a link type, a widget type, or COMBO with options or a model folder. */
interface TableInput {
  type: string;
  options?: string[] | "samplers" | "schedulers";
  files?: string;
  min?: number;
  max?: number;
  step?: number;
}
interface TableNode {
  source: string;
  required: Record<string, TableInput>;
  optional?: Record<string, TableInput>;
  outputs: string[];
}
const TABLE = schemaTable as unknown as {
  samplers: string[];
  schedulers: string[];
  nodes: Record<string, TableNode>;
};

export const SAMPLERS: string[] = [...TABLE.samplers];
export const SCHEDULERS: string[] = [...TABLE.schedulers];
const SAVE_HIDDEN = { prompt: "PROMPT", extra_pnginfo: "EXTRA_PNGINFO" };
const LTX = "comfy_extras.nodes_lt";
/** The IC-LoRA nodes are not core ComfyUI: they come from the ComfyUI-LTXVideo node pack. */
const LTX_PACK = "custom_nodes.ComfyUI-LTXVideo.iclora";
const H3 = "custom_nodes.h3pipe";
const H3_SAVER_COMMON: Record<string, InputDef> = {
  root: str(""),
  project_root: str(""),
  subfolder: str(""),
  take: int(1, 0, 9999),
  sidecar: str(""),
};

/** The double's own entries; the schema table is laid over them (NODE_DEFS). */
const OWN_DEFS: Record<string, NodeDef> = {
  // --- loaders ---
  CheckpointLoaderSimple: {
    category: "loaders",
    module: "nodes",
    display: "Load Checkpoint",
    required: { ckpt_name: models("checkpoints") },
    output: ["MODEL", "CLIP", "VAE"],
  },
  UNETLoader: {
    category: "advanced/loaders",
    module: "nodes",
    display: "Load Diffusion Model",
    required: {
      unet_name: models("diffusion_models"),
      weight_dtype: combo(["default", "fp8_e4m3fn", "fp8_e4m3fn_fast", "fp8_e5m2"]),
    },
    output: ["MODEL"],
  },
  CLIPLoader: {
    category: "advanced/loaders",
    module: "nodes",
    display: "Load CLIP",
    required: { clip_name: models("text_encoders") },
    optional: { device: combo(["default", "cpu"], false, { advanced: true }) },
    output: ["CLIP"],
  },
  VAELoader: {
    category: "loaders",
    module: "nodes",
    display: "Load VAE",
    required: { vae_name: models("vae") },
    output: ["VAE"],
  },
  LoraLoaderModelOnly: {
    category: "loaders",
    module: "nodes",
    display: "LoraLoaderModelOnly",
    required: { model: link("MODEL"), lora_name: models("loras"), strength_model: float(1, -100, 100) },
    output: ["MODEL"],
  },
  LoraLoader: {
    category: "loaders",
    module: "nodes",
    display: "Load LoRA",
    required: {
      model: link("MODEL"),
      clip: link("CLIP"),
      lora_name: models("loras"),
      strength_model: float(1, -100, 100),
      strength_clip: float(1, -100, 100),
    },
    output: ["MODEL", "CLIP"],
  },
  UpscaleModelLoader: {
    category: "loaders",
    module: "comfy_extras.nodes_upscale_model",
    display: "Load Upscale Model",
    required: { model_name: models("upscale_models") },
    output: ["UPSCALE_MODEL"],
  },
  LatentUpscaleModelLoader: {
    category: "loaders",
    module: "comfy_extras.nodes_hunyuan",
    display: "Load Latent Upscale Model",
    required: { model_name: models("latent_upscale_models", true) },
    output: ["LATENT_UPSCALE_MODEL"],
  },
  ModelPatchLoader: {
    category: "advanced/loaders",
    module: "comfy_extras.nodes_model_patch",
    display: "ModelPatchLoader",
    required: { name: models("model_patches") },
    output: ["MODEL_PATCH"],
  },
  // --- conditioning / text ---
  CLIPTextEncode: {
    category: "conditioning",
    module: "nodes",
    display: "CLIP Text Encode (Prompt)",
    required: { text: str("", true, { dynamicPrompts: true }), clip: link("CLIP") },
    output: ["CONDITIONING"],
  },
  ConditioningZeroOut: {
    category: "advanced/conditioning",
    module: "nodes",
    required: { conditioning: link("CONDITIONING") },
    output: ["CONDITIONING"],
  },
  ReferenceLatent: {
    category: "advanced/conditioning/edit_models",
    module: "comfy_extras.nodes_edit_model",
    required: { conditioning: link("CONDITIONING") },
    optional: { latent: link("LATENT") },
    output: ["CONDITIONING"],
  },
  // --- latents and images ---
  EmptyLatentImage: {
    category: "latent",
    module: "nodes",
    display: "Empty Latent Image",
    required: {
      width: int(512, 16, MAX_RES, 8),
      height: int(512, 16, MAX_RES, 8),
      batch_size: int(1, 1, 4096),
    },
    output: ["LATENT"],
  },
  EmptySD3LatentImage: {
    category: "latent/sd3",
    module: "comfy_extras.nodes_sd3",
    required: {
      width: int(1024, 16, MAX_RES, 16),
      height: int(1024, 16, MAX_RES, 16),
      batch_size: int(1, 1, 4096),
    },
    output: ["LATENT"],
  },
  EmptyFlux2LatentImage: {
    category: "latent",
    module: "comfy_extras.nodes_flux",
    display: "Empty Flux 2 Latent",
    required: {
      width: int(1024, 16, MAX_RES, 16),
      height: int(1024, 16, MAX_RES, 16),
      batch_size: int(1, 1, 4096),
    },
    output: ["LATENT"],
  },
  EmptyImage: {
    category: "image",
    module: "nodes",
    required: {
      width: int(512, 1, MAX_RES),
      height: int(512, 1, MAX_RES),
      batch_size: int(1, 1, 4096),
      color: int(0, 0, 0xffffff, 1, { display: "color" }),
    },
    output: ["IMAGE"],
  },
  LoadImage: {
    category: "image",
    module: "nodes",
    display: "Load Image",
    required: { image: { t: "files", kind: "image", opts: { image_upload: true } } },
    output: ["IMAGE", "MASK"],
    customValidate: ["image"],
  },
  ImageScaleToTotalPixels: {
    category: "image/upscaling",
    module: "nodes",
    required: {
      image: link("IMAGE"),
      upscale_method: combo(["nearest-exact", "bilinear", "area", "bicubic", "lanczos"]),
      megapixels: float(1, 0.01, 16),
    },
    output: ["IMAGE"],
  },
  RepeatImageBatch: {
    category: "image/batch",
    module: "comfy_extras.nodes_images",
    required: { image: link("IMAGE"), amount: int(1, 1, 4096) },
    output: ["IMAGE"],
  },
  ResizeAndPadImage: {
    category: "image/transform",
    module: "comfy_extras.nodes_images",
    required: {
      image: link("IMAGE"),
      target_width: int(512, 1, MAX_RES),
      target_height: int(512, 1, MAX_RES),
      padding_color: combo(["white", "black"], true),
      interpolation: combo(["area", "bicubic", "nearest-exact", "bilinear", "lanczos"], true),
    },
    output: ["IMAGE"],
  },
  VAEDecode: {
    category: "latent",
    module: "nodes",
    display: "VAE Decode",
    required: { samples: link("LATENT"), vae: link("VAE") },
    output: ["IMAGE"],
  },
  VAEDecodeTiled: {
    category: "_for_testing",
    module: "nodes",
    display: "VAE Decode (Tiled)",
    required: {
      samples: link("LATENT"),
      vae: link("VAE"),
      tile_size: int(512, 64, 4096, 32),
      overlap: int(64, 0, 4096, 32),
      temporal_size: int(64, 8, 4096, 4),
      temporal_overlap: int(8, 4, 4096, 4),
    },
    output: ["IMAGE"],
  },
  VAEEncode: {
    category: "latent",
    module: "nodes",
    display: "VAE Encode",
    required: { pixels: link("IMAGE"), vae: link("VAE") },
    output: ["LATENT"],
  },
  // --- sampling ---
  KSampler: {
    category: "sampling",
    module: "nodes",
    required: {
      model: link("MODEL"),
      seed: int(0, 0, SEED_MAX, 1, { control_after_generate: true }),
      steps: int(20, 1, 10000),
      cfg: float(8, 0, 100, 0.1, { round: 0.01 }),
      sampler_name: combo(SAMPLERS),
      scheduler: combo(SCHEDULERS),
      positive: link("CONDITIONING"),
      negative: link("CONDITIONING"),
      latent_image: link("LATENT"),
      denoise: float(1, 0, 1),
    },
    output: ["LATENT"],
    behaviour: "sampler",
  },
  RandomNoise: {
    category: "sampling/custom_sampling/noise",
    module: "comfy_extras.nodes_custom_sampler",
    required: { noise_seed: int(0, 0, SEED_MAX, 1, { control_after_generate: true }) },
    output: ["NOISE"],
  },
  KSamplerSelect: {
    category: "sampling/custom_sampling/samplers",
    module: "comfy_extras.nodes_custom_sampler",
    required: { sampler_name: combo(SAMPLERS) },
    output: ["SAMPLER"],
  },
  BasicScheduler: {
    category: "sampling/custom_sampling/schedulers",
    module: "comfy_extras.nodes_custom_sampler",
    required: {
      model: link("MODEL"),
      scheduler: combo(SCHEDULERS),
      steps: int(20, 1, 10000),
      denoise: float(1, 0, 1),
    },
    output: ["SIGMAS"],
  },
  ManualSigmas: {
    category: "_for_testing/custom_sampling",
    module: "comfy_extras.nodes_custom_sampler",
    required: { sigmas: str("1, 0.5") },
    output: ["SIGMAS"],
  },
  CFGGuider: {
    category: "sampling/custom_sampling/guiders",
    module: "comfy_extras.nodes_custom_sampler",
    required: {
      model: link("MODEL"),
      positive: link("CONDITIONING"),
      negative: link("CONDITIONING"),
      cfg: float(8, 0, 100, 0.1, { round: 0.01 }),
    },
    output: ["GUIDER"],
  },
  SamplerCustomAdvanced: {
    category: "sampling/custom_sampling",
    module: "comfy_extras.nodes_custom_sampler",
    required: {
      noise: link("NOISE"),
      guider: link("GUIDER"),
      sampler: link("SAMPLER"),
      sigmas: link("SIGMAS"),
      latent_image: link("LATENT"),
    },
    output: ["LATENT", "LATENT"],
    outputName: ["output", "denoised_output"],
    behaviour: "sampler",
  },
  // --- FLUX.2 ---
  Flux2Scheduler: {
    category: "sampling/custom_sampling/schedulers",
    module: "comfy_extras.nodes_flux",
    required: { steps: int(20, 1, 4096), width: int(1024, 16, MAX_RES), height: int(1024, 16, MAX_RES) },
    output: ["SIGMAS"],
  },
  FluxKVCache: {
    category: "advanced/model",
    module: "comfy_extras.nodes_flux",
    required: { model: link("MODEL") },
    output: ["MODEL"],
    experimental: true,
  },
  // --- LTX ---
  EmptyLTXVLatentVideo: {
    category: "latent/video/ltxv",
    module: LTX,
    required: {
      width: int(768, 64, MAX_RES, 32),
      height: int(512, 64, MAX_RES, 32),
      length: int(97, 1, MAX_RES, 8),
      batch_size: int(1, 1, 4096),
    },
    output: ["LATENT"],
  },
  LTXVConditioning: {
    category: "conditioning/video_models",
    module: LTX,
    required: {
      positive: link("CONDITIONING"),
      negative: link("CONDITIONING"),
      frame_rate: float(25, 0, 1000),
    },
    output: ["CONDITIONING", "CONDITIONING"],
    outputName: ["positive", "negative"],
  },
  LTXVImgToVideoInplace: {
    category: "conditioning/video_models",
    module: LTX,
    required: {
      vae: link("VAE"),
      image: link("IMAGE"),
      latent: link("LATENT"),
      strength: float(1, 0, 1),
      bypass: bool(false),
    },
    output: ["LATENT"],
  },
  LTXVAddGuide: {
    category: "conditioning/video_models",
    module: LTX,
    required: {
      positive: link("CONDITIONING"),
      negative: link("CONDITIONING"),
      vae: link("VAE"),
      latent: link("LATENT"),
      image: link("IMAGE"),
      frame_idx: int(0, -9999, 9999),
      strength: float(1, 0, 1),
    },
    output: ["CONDITIONING", "CONDITIONING", "LATENT"],
    outputName: ["positive", "negative", "latent"],
  },
  LTXVCropGuides: {
    category: "conditioning/video_models",
    module: LTX,
    required: { positive: link("CONDITIONING"), negative: link("CONDITIONING"), latent: link("LATENT") },
    output: ["CONDITIONING", "CONDITIONING", "LATENT"],
    outputName: ["positive", "negative", "latent"],
  },
  LTXVPreprocess: {
    category: "image",
    module: LTX,
    required: { image: link("IMAGE"), img_compression: int(35, 0, 100) },
    output: ["IMAGE"],
    outputName: ["output_image"],
  },
  LTXVScheduler: {
    category: "sampling/custom_sampling/schedulers",
    module: LTX,
    required: {
      steps: int(20, 1, 10000),
      max_shift: float(2.05, 0, 100),
      base_shift: float(0.95, 0, 100),
      stretch: bool(true),
      terminal: float(0.1, 0, 0.99),
    },
    optional: { latent: link("LATENT") },
    output: ["SIGMAS"],
  },
  LTXVDualCFGGuider: {
    category: "sampling/custom_sampling/guiders",
    module: LTX,
    required: { model: link("MODEL"), positive: link("CONDITIONING"), negative: link("CONDITIONING") },
    optional: { video_cfg: float(1, 0, 100, 0.1), audio_cfg: float(1, 0, 100, 0.1) },
    output: ["GUIDER"],
  },
  LTXVEmptyLatentAudio: {
    category: "latent/audio",
    module: LTX,
    required: {
      frames_number: int(97, 1, 1000),
      frame_rate: int(25, 1, 1000),
      batch_size: int(1, 1, 4096),
      audio_vae: link("VAE"),
    },
    output: ["LATENT"],
    outputName: ["Latent"],
  },
  LTXVConcatAVLatent: {
    category: "latent/video/ltxv",
    module: LTX,
    required: { video_latent: link("LATENT"), audio_latent: link("LATENT") },
    output: ["LATENT"],
    outputName: ["latent"],
  },
  LTXVSeparateAVLatent: {
    category: "latent/video/ltxv",
    module: LTX,
    required: { av_latent: link("LATENT") },
    output: ["LATENT", "LATENT"],
    outputName: ["video_latent", "audio_latent"],
  },
  LTXVAudioVAEDecode: {
    category: "audio",
    module: LTX,
    required: { samples: link("LATENT"), audio_vae: link("VAE") },
    output: ["AUDIO"],
    outputName: ["Audio"],
  },
  LTXVAudioVAEEncode: {
    category: "audio",
    module: LTX,
    required: { audio: link("AUDIO"), audio_vae: link("VAE") },
    output: ["LATENT"],
  },
  LTXVLatentUpsampler: {
    category: "latent/video",
    module: LTX,
    required: {
      samples: link("LATENT"),
      upscale_model: link("LATENT_UPSCALE_MODEL"),
      vae: link("VAE"),
    },
    output: ["LATENT"],
  },
  LTXICLoRALoaderModelOnly: {
    category: "Lightricks/LTXV/Loaders",
    module: LTX_PACK,
    required: { model: link("MODEL"), lora_name: models("loras", true), strength_model: float(1, -100, 100) },
    output: ["MODEL", "INT"],
    outputName: ["model", "latent_downscale_factor"],
  },
  LTXAddVideoICLoRAGuide: {
    category: "Lightricks/LTXV/Guidance",
    module: LTX_PACK,
    required: {
      positive: link("CONDITIONING"),
      negative: link("CONDITIONING"),
      vae: link("VAE"),
      latent: link("LATENT"),
      image: link("IMAGE"),
      frame_idx: int(0, -9999, 9999),
      strength: float(1, 0, 1),
    },
    optional: {
      latent_downscale_factor: int(1, 1, 16),
      crop: combo(["disabled", "center"], true),
      use_tiled_encode: bool(false),
      tile_size: int(256, 64, 2048, 32),
      tile_overlap: int(64, 0, 512, 32),
    },
    output: ["CONDITIONING", "CONDITIONING", "LATENT"],
    outputName: ["positive", "negative", "latent"],
  },
  LTXVDurationPredictor: {
    category: "conditioning/video_models",
    module: LTX,
    required: { model: link("MODEL"), positive: link("CONDITIONING"), duration_head: link("MODEL_PATCH") },
    optional: {
      frame_rate: float(24, 1, 1000),
      min_seconds: float(1, 0.1, 60, 0.1),
      max_seconds: float(20, 0.1, 60, 0.1),
    },
    output: ["INT", "FLOAT"],
    outputName: ["num_frames", "seconds"],
  },
  LTXVAudioOnlyModel: {
    category: "advanced/model",
    module: LTX,
    required: { model: link("MODEL") },
    output: ["MODEL"],
  },
  LTXVAudioOnlyEmptyVideoLatent: {
    category: "latent/video/ltxv",
    module: LTX,
    optional: { length: int(97, 1, MAX_RES, 8), batch_size: int(1, 1, 4096) },
    output: ["LATENT"],
  },
  LTXVReferenceAudio: {
    category: "conditioning/audio",
    module: LTX,
    required: {
      model: link("MODEL"),
      positive: link("CONDITIONING"),
      negative: link("CONDITIONING"),
      audio_vae: link("VAE"),
      reference_audio: link("AUDIO"),
    },
    optional: {
      identity_guidance_scale: float(3, 0, 100, 0.1),
      start_percent: float(0, 0, 1),
      end_percent: float(1, 0, 1),
    },
    output: ["MODEL", "CONDITIONING", "CONDITIONING"],
    outputName: ["model", "positive", "negative"],
  },
  TextGenerateLTX2Prompt: {
    category: "text",
    module: LTX,
    required: { clip: link("CLIP"), prompt: str("", true) },
    output: ["STRING"],
  },
  // --- video / audio assembly ---
  CreateVideo: {
    category: "image/video",
    module: "comfy_extras.nodes_video",
    display: "Create Video",
    required: { images: link("IMAGE"), fps: float(30, 1, 120, 1) },
    optional: { audio: link("AUDIO") },
    output: ["VIDEO"],
  },
  LoadAudio: {
    category: "audio",
    module: "comfy_extras.nodes_audio",
    display: "Load Audio",
    required: { audio: { t: "files", kind: "audio", opts: { audio_upload: true } } },
    output: ["AUDIO"],
    customValidate: ["audio"],
  },
  // --- outputs ---
  SaveImage: {
    category: "image",
    module: "nodes",
    display: "Save Image",
    description: "Saves the input images to your ComfyUI output directory.",
    required: { images: link("IMAGE"), filename_prefix: str("ComfyUI") },
    hidden: SAVE_HIDDEN,
    outputNode: true,
    behaviour: "save_image",
  },
  PreviewImage: {
    category: "image",
    module: "nodes",
    display: "Preview Image",
    required: { images: link("IMAGE") },
    hidden: SAVE_HIDDEN,
    outputNode: true,
    behaviour: "preview_image",
  },
  SaveVideo: {
    category: "image/video",
    module: "comfy_extras.nodes_video",
    display: "Save Video",
    required: {
      video: link("VIDEO"),
      filename_prefix: str("video/ComfyUI"),
      format: combo(["auto", "mp4"], true),
      codec: combo(["auto", "h264"], true),
    },
    hidden: SAVE_HIDDEN,
    outputNode: true,
    behaviour: "save_video",
  },
  SaveWEBM: {
    category: "image/video",
    module: "comfy_extras.nodes_video",
    display: "SaveWEBM",
    required: {
      images: link("IMAGE"),
      filename_prefix: str("ComfyUI"),
      codec: combo(["vp9", "av1"], true),
      fps: float(24, 0.01, 1000),
      crf: float(32, 0, 63, 1),
    },
    hidden: SAVE_HIDDEN,
    outputNode: true,
    behaviour: "save_webm",
  },
  SaveAudio: {
    category: "audio",
    module: "comfy_extras.nodes_audio",
    display: "Save Audio (FLAC)",
    required: { audio: link("AUDIO"), filename_prefix: str("audio/ComfyUI") },
    hidden: SAVE_HIDDEN,
    outputNode: true,
    behaviour: "save_audio",
  },
  PreviewAudio: {
    category: "audio",
    module: "comfy_extras.nodes_audio",
    display: "Preview Audio",
    required: { audio: link("AUDIO") },
    hidden: SAVE_HIDDEN,
    outputNode: true,
    behaviour: "preview_audio",
  },
  PreviewAny: {
    category: "utils",
    module: "comfy_extras.nodes_preview_any",
    display: "Preview Any",
    required: { source: link("*") },
    outputNode: true,
    behaviour: "preview_any",
  },
  PrimitiveInt: {
    category: "utils/primitive",
    module: "comfy_extras.nodes_primitive",
    display: "Int",
    required: { value: int(0, -(2 ** 63), 2 ** 63 - 1) },
    output: ["INT"],
  },
  PrimitiveFloat: {
    category: "utils/primitive",
    module: "comfy_extras.nodes_primitive",
    display: "Float",
    required: { value: float(0, -Number.MAX_VALUE, Number.MAX_VALUE) },
    output: ["FLOAT"],
  },
  PrimitiveString: {
    category: "utils/primitive",
    module: "comfy_extras.nodes_primitive",
    display: "String",
    required: { value: str("") },
    output: ["STRING"],
  },
  VHS_VideoCombine: {
    category: "Video Helper Suite 🎥🅥🅗🅢",
    module: "custom_nodes.ComfyUI-VideoHelperSuite",
    display: "Video Combine 🎥🅥🅗🅢",
    required: {
      images: link("IMAGE"),
      frame_rate: float(8, 1, 1000, 1),
      loop_count: int(0, 0, 100),
      filename_prefix: str("AnimateDiff"),
      format: combo(["image/gif", "image/webp", "video/h264-mp4", "video/webm"]),
      pingpong: bool(false),
      save_output: bool(true),
    },
    optional: { audio: link("AUDIO") },
    hidden: { ...SAVE_HIDDEN, unique_id: "UNIQUE_ID" },
    output: ["VHS_FILENAMES"],
    outputName: ["Filenames"],
    outputNode: true,
    behaviour: "vhs_combine",
  },
  // --- the project's node pack (targets, appendix A) ---
  H3SaveShot: {
    category: "h3pipe",
    module: H3,
    display: "H3 Save Shot",
    required: { images: link("IMAGE") },
    optional: {
      audio: link("AUDIO"),
      latent: link("LATENT"),
      fps: float(24, 1, 240, 0.001),
      shot_id: str(""),
      audio_policy: combo(["generate", "dub", "dub_keep_foley", "clone"]),
      save_frames: bool(false),
      ref_info: str(""),
      ...H3_SAVER_COMMON,
    },
    outputNode: true,
    behaviour: "h3_shot",
  },
  // Reads one shot of a frozen shot list; the double's H3SaveShot reads the same file for the take's size and length.
  H3ShotListLoader: {
    category: "h3pipe",
    module: H3,
    display: "H3 Shot List Loader",
    required: {
      root: str(""),
      shotlist: str(""),
      index: int(0, 0, 9999),
      panel_mode: combo(["auto", "full", "pair", "face", "body"]),
      fps: float(24, 1, 240, 0.001),
    },
    optional: { resolution_override: str("") },
    outputName: [
      "shot_id",
      "prompt",
      "ref_1",
      "ref_2",
      "ref_3",
      "ref_bg",
      "ref_audio_1",
      "ref_audio_2",
      "ref_audio_3",
      "width",
      "height",
      "length",
      "steps",
      "seed",
      "audio_policy",
      "info",
      "shot_count",
    ],
  },
  H3SaveRefTake: {
    category: "h3pipe",
    module: H3,
    display: "H3 Save Ref Take",
    required: { images: link("IMAGE") },
    optional: { ...H3_SAVER_COMMON },
    outputNode: true,
    behaviour: "h3_ref_take",
  },
  H3SaveRefAudio: {
    category: "h3pipe",
    module: H3,
    display: "H3 Save Ref Audio",
    required: { audio: link("AUDIO") },
    optional: { ...H3_SAVER_COMMON },
    outputNode: true,
    behaviour: "h3_ref_audio",
  },
  // --- finishing: the take's video read back (comfy_extras/nodes_video.py) ---
  LoadVideo: {
    category: "image/video",
    module: "comfy_extras.nodes_video",
    display: "Load Video",
    required: { file: { t: "files", kind: "video", opts: { video_upload: true } } },
    output: ["VIDEO"],
    customValidate: ["file"],
  },
  // --- finishing packs, offered only when a test names them (FINISHING_PACK_NODES) ---
  // ComfyUI-SeedVR2_VideoUpscaler (src/interfaces/*.py): the pack's model combos also list its own download names;
  // the double lists only the files in models/SEEDVR2, as a server without network can load only those.
  SeedVR2LoadDiTModel: {
    category: "SEEDVR2",
    module: "custom_nodes.ComfyUI-SeedVR2_VideoUpscaler",
    display: "SeedVR2 (Down)Load DiT Model",
    required: { model: models("SEEDVR2", true), device: combo(["cuda:0", "cpu"], true) },
    optional: {
      blocks_to_swap: int(0, 0, 36),
      swap_io_components: bool(false),
      offload_device: combo(["none", "cpu", "cuda:0"], true),
      cache_model: bool(false),
      attention_mode: combo(["sdpa", "flash_attn_2", "flash_attn_3", "sageattn_2", "sageattn_3"], true),
      torch_compile_args: link("TORCH_COMPILE_ARGS"),
    },
    output: ["SEEDVR2_DIT"],
  },
  SeedVR2LoadVAEModel: {
    category: "SEEDVR2",
    module: "custom_nodes.ComfyUI-SeedVR2_VideoUpscaler",
    display: "SeedVR2 (Down)Load VAE Model",
    required: { model: models("SEEDVR2", true), device: combo(["cuda:0", "cpu"], true) },
    optional: {
      encode_tiled: bool(false),
      encode_tile_size: int(1024, 64, 2 ** 63 - 1, 32),
      encode_tile_overlap: int(128, 0, 2 ** 63 - 1, 32),
      decode_tiled: bool(false),
      decode_tile_size: int(1024, 64, 2 ** 63 - 1, 32),
      decode_tile_overlap: int(128, 0, 2 ** 63 - 1, 32),
      tile_debug: combo(["false", "encode", "decode"], true),
      offload_device: combo(["none", "cpu", "cuda:0"], true),
      cache_model: bool(false),
      torch_compile_args: link("TORCH_COMPILE_ARGS"),
    },
    output: ["SEEDVR2_VAE"],
  },
  SeedVR2VideoUpscaler: {
    category: "SEEDVR2",
    module: "custom_nodes.ComfyUI-SeedVR2_VideoUpscaler",
    display: "SeedVR2 Video Upscaler",
    required: {
      image: link("IMAGE"),
      dit: link("SEEDVR2_DIT"),
      vae: link("SEEDVR2_VAE"),
      seed: int(42, 0, 2 ** 32 - 1),
      resolution: int(1080, 16, MAX_RES, 2),
      max_resolution: int(0, 0, MAX_RES, 2),
      batch_size: int(5, 1, MAX_RES, 4),
      uniform_batch_size: bool(false),
      color_correction: combo(["lab", "wavelet", "wavelet_adaptive", "hsv", "adain", "none"], true),
    },
    optional: {
      temporal_overlap: int(0, 0, 16),
      prepend_frames: int(0, 0, 32),
      input_noise_scale: float(0, 0, 1, 0.001),
      latent_noise_scale: float(0, 0, 1, 0.001),
      offload_device: combo(["none", "cpu", "cuda:0"], true),
      enable_debug: bool(false),
    },
    output: ["IMAGE"],
  },
  // ComfyUI-SUPIR (nodes.py, the one-node SUPIR_Upscale).
  SUPIR_Upscale: {
    category: "SUPIR",
    module: "custom_nodes.ComfyUI-SUPIR",
    required: {
      supir_model: models("checkpoints"),
      sdxl_model: models("checkpoints"),
      image: link("IMAGE"),
      seed: int(123, 0, SEED_MAX),
      resize_method: combo(["nearest-exact", "bilinear", "area", "bicubic", "lanczos"], false, {
        default: "lanczos",
      }),
      scale_by: float(1, 0.01, 20),
      steps: int(45, 3, 4096),
      restoration_scale: float(-1, -1, 6, 1),
      cfg_scale: float(7.5, 0, 20),
      a_prompt: str("high quality, detailed", true),
      n_prompt: str("bad quality, blurry, messy", true),
      s_churn: int(5, 0, 40),
      s_noise: float(1.003, 1, 1.1, 0.001),
      control_scale: float(1, 0, 1, 0.05),
      cfg_scale_start: float(0, 0, 9, 0.05),
      control_scale_start: float(0, 0, 1, 0.05),
      color_fix_type: combo(["None", "AdaIn", "Wavelet"]),
      keep_model_loaded: bool(true),
      use_tiled_vae: bool(true),
      encoder_tile_size_pixels: int(512, 64, 8192, 64),
      decoder_tile_size_latent: int(64, 64, 8192, 64),
    },
    optional: {
      diffusion_dtype: combo(["fp16", "bf16", "fp32", "auto"], false, { default: "auto" }),
      encoder_dtype: combo(["bf16", "fp32", "auto"], false, { default: "auto" }),
    },
    output: ["IMAGE"],
  },
  // The project's node pack (targets, appendix A): the finishing nodes a graph of this service sends.
  H3MotionBlur: {
    category: "h3pipe",
    module: H3,
    display: "H3 Motion Blur",
    required: {
      images: link("IMAGE"),
      fps: float(24, 1, 240, 0.001),
      amount: float(0.5, 0, 1),
      flow_model: models("optical_flow"),
    },
    output: ["IMAGE"],
  },
  H3HoldAudio: {
    category: "h3pipe",
    module: H3,
    display: "H3 Hold Audio",
    required: { latent: link("LATENT") },
    output: ["LATENT"],
  },
  H3LoadTakeLatent: {
    category: "h3pipe",
    module: H3,
    display: "H3 Load Take Latent",
    required: { path: str("") },
    output: ["LATENT"],
  },
  // The project pack's latent-chain hold (targets 5.4): the previous take's latent written into the head of the
  // new one; `previous_latent` given, it reads nothing from the project itself.
  H3ChainLatent: {
    category: "h3pipe",
    module: H3,
    display: "H3 Chain Latent",
    required: {
      latent: link("LATENT"),
      project_root: str(""),
      shot: str(""),
      pass_: combo(["final", "proxy"]),
      overlap: int(39, 5, 360, 17),
      hold_audio: bool(true),
    },
    optional: {
      video_vae: link("VAE"),
      audio_vae: link("VAE"),
      sidecar: str(""),
      fps: int(24, 1, 240),
      previous_latent: link("LATENT"),
    },
    output: ["LATENT"],
  },
  // nodes.py LoadLatent: `.latent` files (safetensors) at the top of the input folder; VALIDATE_INPUTS checks the
  // annotated path exists, so an uploaded `studio/<name>.latent` loads too.
  LoadLatent: {
    category: "_for_testing",
    module: "nodes",
    display: "Load Latent",
    required: { latent: { t: "files", kind: "latent" } },
    output: ["LATENT"],
    customValidate: ["latent"],
  },
  // --- a stand-in custom node whose UI output uses a key core never emits (engines A.8) ---
  ComfyDoubleVideos: {
    category: "_double",
    module: "custom_nodes.comfy_double",
    display: "Double: outputs under 'videos'",
    required: { images: link("IMAGE") },
    optional: { fps: float(24, 1, 240) },
    outputNode: true,
    behaviour: "extra_output",
  },
};

/** What the schema table leaves out for the classes only it declares: ComfyUI's category, names and defaults. */
const TABLE_ONLY: Record<
  string,
  Omit<NodeDef, "module"> & { defaults?: Record<string, Record<string, unknown>> }
> = {
  DualCLIPLoader: {
    category: "advanced/loaders",
    display: "DualCLIPLoader",
    defaults: { device: { advanced: true } },
  },
  FluxGuidance: {
    category: "advanced/conditioning/flux",
    defaults: { guidance: { default: 3.5, step: 0.1 } },
  },
  FluxKontextImageScale: {
    category: "advanced/conditioning/flux",
    description: "This node resizes the image to one that is more optimal for flux kontext.",
  },
  ModelSamplingAuraFlow: {
    category: "advanced/model",
    defaults: { shift: { default: 1.73, step: 0.01 } },
  },
  TextEncodeQwenImageEditPlus: {
    category: "advanced/conditioning",
    defaults: { prompt: { multiline: true, dynamicPrompts: true } },
  },
  TextEncodeQwenImage21: {
    category: "model/conditioning/qwen image",
    display: "Text Encode Qwen Image 2.1",
    outputName: ["positive", "negative", "latent"],
    defaults: {
      prompt: { multiline: true, dynamicPrompts: true },
      negative_prompt: { multiline: true, dynamicPrompts: true },
      resolution: { default: 1024 },
    },
  },
  GetVideoComponents: {
    category: "image/video",
    display: "Extract frame",
    description: "Extracts all components from a video: frames, audio, and framerate.",
    outputName: ["images", "audio", "fps"],
  },
  UpscaleModelLoader: { category: "model/loaders", display: "Load Upscale Model" },
  ImageUpscaleWithModel: { category: "image/upscaling", display: "Upscale Image (using Model)" },
  ImageScale: { category: "image/upscaling", display: "Upscale Image" },
  ImageBlend: {
    category: "image/postprocessing",
    display: "Image Blend",
    defaults: { blend_factor: { default: 0.5 } },
  },
  KSamplerAdvanced: {
    category: "sampling",
    display: "KSampler (Advanced)",
    behaviour: "sampler",
    defaults: { cfg: { default: 8, step: 0.1, round: 0.01 }, end_at_step: { default: 10000 } },
  },
  ModelSamplingSD3: { category: "advanced/model", defaults: { shift: { default: 3 } } },
  WanImageToVideo: {
    category: "conditioning/video_models",
    outputName: ["positive", "negative", "latent"],
    defaults: { width: { default: 832 }, height: { default: 480 }, length: { default: 81 } },
  },
  WanFirstLastFrameToVideo: {
    category: "conditioning/video_models",
    outputName: ["positive", "negative", "latent"],
    defaults: { width: { default: 832 }, height: { default: 480 }, length: { default: 81 } },
  },
  Wan22ImageToVideoLatent: {
    category: "conditioning/inpaint",
    defaults: { width: { default: 1280 }, height: { default: 704 }, length: { default: 49 } },
  },
  WanVaceToVideo: {
    category: "conditioning/video_models",
    outputName: ["positive", "negative", "latent", "trim_latent"],
    defaults: {
      width: { default: 832 },
      height: { default: 480 },
      length: { default: 81 },
      strength: { default: 1 },
    },
  },
  TrimVideoLatent: { category: "latent/video", display: "Trim Video Latent" },
  ImageBatch: { category: "Legacy/image", display: "Batch Images" },
  ImageToMask: { category: "mask", display: "Convert Image to Mask" },
  LTXVAudioVAELoader: { category: "model/loaders", display: "Load LTXV Audio VAE" },
  LTXAVTextEncoderLoader: {
    category: "model/loaders",
    display: "Load LTXV Audio Text Encoder",
    defaults: { device: { advanced: true } },
  },
  BasicGuider: { category: "sampling/custom_sampling/guiders", display: "BasicGuider" },
  VAEDecodeAudio: { category: "latent/audio", display: "VAE Decode Audio" },
  MiniMaxH3ImageToVideo: {
    category: "model/conditioning/minimax",
    display: "MiniMax H3 Image to Video",
    outputName: ["positive", "LATENT"],
    defaults: {
      prompt: { multiline: true, dynamicPrompts: true },
      width: { default: 1344, step: 32 },
      height: { default: 768, step: 32 },
      length: { default: 124, step: 17 },
    },
  },
  MiniMaxH3AddGuide: {
    category: "model/conditioning/minimax",
    display: "MiniMax H3 Add Guide",
    outputName: ["positive"],
  },
  MiniMaxH3ReferenceToVideo: {
    category: "model/conditioning/minimax",
    display: "MiniMax H3 Reference to Video",
    outputName: ["positive", "LATENT"],
    defaults: {
      prompt: { multiline: true, dynamicPrompts: true },
      width: { default: 1344, step: 32 },
      height: { default: 768, step: 32 },
      length: { default: 124, step: 17 },
      ref_image_size: { default: "match" },
    },
  },
  ComfySwitchNode: {
    category: "logic",
    display: "Switch",
    outputName: ["output"],
    experimental: true,
  },
};

const SCALARS = new Set(["INT", "FLOAT", "STRING", "BOOLEAN"]);

/** `comfy_extras/nodes_qwen.py` → `comfy_extras.nodes_qwen`. */
const moduleOf = (source: string) => source.replace(/\.py$/, "").replace(/\//g, ".");

/** One table input as the double declares it; `own` (the hand-written entry) keeps its defaults and encoding. */
function tableInput(
  name: string,
  t: TableInput,
  own: InputDef | undefined,
  v3: boolean,
  extra: Record<string, unknown> = {},
): InputDef {
  const bounds: Record<string, unknown> = {};
  for (const k of ["min", "max", "step"] as const) if (t[k] !== undefined) bounds[k] = t[k];
  const ownOpts: Record<string, unknown> = own?.opts ?? {};
  if (SCALARS.has(t.type)) {
    const type = t.type as Scalar;
    const fallback =
      type === "STRING"
        ? ""
        : type === "BOOLEAN"
          ? false
          : Math.max(typeof t.min === "number" ? t.min : 0, 0);
    return { t: "scalar", type, opts: { default: fallback, ...ownOpts, ...extra, ...bounds } };
  }
  if (t.type !== "COMBO") return own?.t === "link" ? own : link(t.type);
  if (t.files === "input") {
    if (own?.t === "files") return own;
    return { t: "files", kind: "image", opts: { image_upload: true } };
  }
  if (t.files) {
    return { t: "models", folder: t.files, v3: own?.t === "models" ? own.v3 : v3, opts: own?.opts ?? extra };
  }
  const options =
    t.options === "samplers" ? SAMPLERS : t.options === "schedulers" ? SCHEDULERS : [...(t.options ?? [])];
  if (options.length === 0) throw new Error(`schema table: ${name} is a COMBO without options`);
  const isV3 = own?.t === "combo" ? own.v3 : v3;
  const opts = { ...ownOpts, ...extra };
  return {
    t: "combo",
    options,
    v3: isV3,
    opts: { ...opts, default: options.includes(opts.default as string) ? opts.default : options[0] },
  };
}

/**
 * The catalogue: every class of the schema table with the table's inputs (in its order) and outputs, the
 * double's own entry supplying metadata and defaults; classes the table does not cover stay as written. Output
 * nodes keep their own outputs (none): the table lists SaveImage's input type where ComfyUI returns nothing.
 */
function withSchemaTable(own: Record<string, NodeDef>): Record<string, NodeDef> {
  const out: Record<string, NodeDef> = { ...own };
  for (const [name, t] of Object.entries(TABLE.nodes)) {
    const mine = own[name];
    const facts = TABLE_ONLY[name];
    if (!mine && !facts)
      throw new Error(`schema table: ${name} has no entry in the double (add it to TABLE_ONLY)`);
    const v3 = t.source.startsWith("comfy_extras/");
    const section = (inputs: Record<string, TableInput> | undefined) => {
      if (!inputs || Object.keys(inputs).length === 0) return undefined;
      const ownOf = (k: string) => mine?.required?.[k] ?? mine?.optional?.[k];
      return Object.fromEntries(
        Object.entries(inputs).map(([k, i]) => [
          k,
          tableInput(`${name}.${k}`, i, ownOf(k), v3, facts?.defaults?.[k]),
        ]),
      );
    };
    const { defaults: _defaults, ...meta } = facts ?? { category: "" };
    out[name] = {
      ...(mine ?? { ...meta, module: moduleOf(t.source) }),
      required: section(t.required) ?? {},
      optional: section(t.optional),
      output: mine?.outputNode ? mine.output : [...t.outputs],
    };
    if (out[name].optional === undefined) delete out[name].optional;
  }
  return out;
}

/** Every class the double knows; `nodes` in the options narrows this. */
export const NODE_DEFS: Record<string, NodeDef> = withSchemaTable(OWN_DEFS);

/** Custom-node packs of the finishing graphs: known to the double, offered only when `nodes` names them. */
export const FINISHING_PACK_NODES: Readonly<Record<string, readonly string[]>> = {
  "ComfyUI-SeedVR2_VideoUpscaler": ["SeedVR2LoadDiTModel", "SeedVR2LoadVAEModel", "SeedVR2VideoUpscaler"],
  "ComfyUI-SUPIR": ["SUPIR_Upscale"],
  h3pipe: ["H3MotionBlur", "H3HoldAudio", "H3LoadTakeLatent", "H3ChainLatent"],
};

/** The classes offered when the options name none: every class but the finishing packs'. */
export const DEFAULT_NODES: readonly string[] = (() => {
  const packs = new Set(Object.values(FINISHING_PACK_NODES).flat());
  return Object.keys(NODE_DEFS).filter((n) => !packs.has(n));
})();

/** Folder keys of `GET /models` (0.3.64 list) — configured folders are added. */
export const MODEL_FOLDERS = [
  "checkpoints",
  "configs",
  "loras",
  "vae",
  "text_encoders",
  "diffusion_models",
  "clip_vision",
  "style_models",
  "embeddings",
  "diffusers",
  "vae_approx",
  "controlnet",
  "gligen",
  "upscale_models",
  "custom_nodes",
  "hypernetworks",
  "photomaker",
  "classifiers",
  "model_patches",
  "audio_encoders",
  "latent_upscale_models",
];

/** The files the ltx2, flux2_klein, flux2_klein_edit and ltx2_voice targets want (targets 2.5). */
export const DEFAULT_MODELS: Record<string, string[]> = {
  diffusion_models: [
    "ltx-2.5-22b-distilled-transformer-comfy-int8-convrot.safetensors",
    "ltx-2.5-22b-dev-transformer-comfy-int8-convrot.safetensors",
    "flux-2-klein-9b-kv.safetensors",
    "flux-2-klein-base-9b-fp8.safetensors",
  ],
  text_encoders: [
    "gemma4-12b-with-proj-ltx-2.5-comfy-int8-convrot.safetensors",
    "qwen_3_8b_fp8mixed.safetensors",
  ],
  vae: [
    "ltx-2.5-video-vae-bf16.safetensors",
    "ltx-2.5-audio-vae-bf16.safetensors",
    "full_encoder_small_decoder.safetensors",
    "flux2-vae.safetensors",
  ],
  latent_upscale_models: ["ltx-2.5-latent-spatial-upscaler-x2-bf16-1.0.safetensors"],
  model_patches: ["ltx-2.5-duration-head-bf16.safetensors"],
  loras: ["ltx-2.5-22b-ic-lora-ingredients-0.9.safetensors"],
  checkpoints: [],
  upscale_models: [],
};

export interface CatalogueContext {
  profile: Profile;
  models: Record<string, string[]>;
  /** Top-level files of the input folder, by kind (LoadImage / LoadAudio options). */
  inputFiles: (kind: "image" | "audio" | "video" | "latent") => string[];
}

/** One input as the wire shows it: `[type, options?]`. */
export function wireSpec(def: InputDef, ctx: CatalogueContext): unknown[] {
  switch (def.t) {
    case "scalar":
      return [def.type, def.opts];
    case "link":
      return def.opts ? [def.type, def.opts] : [def.type];
    case "combo":
      return def.v3
        ? ["COMBO", { ...def.opts, multiselect: false, options: def.options }]
        : [def.options, def.opts ?? {}];
    case "models": {
      const options = [...(ctx.models[def.folder] ?? [])].sort();
      return def.v3 ? ["COMBO", { ...def.opts, multiselect: false, options }] : [options, def.opts ?? {}];
    }
    case "files":
      return [ctx.inputFiles(def.kind), def.opts ?? {}];
  }
}

/** The `/object_info` record of one class. */
export function nodeInfo(name: string, def: NodeDef, ctx: CatalogueContext): Record<string, unknown> {
  const input: Record<string, Record<string, unknown>> = {};
  const order: Record<string, string[]> = {};
  for (const section of ["required", "optional"] as const) {
    const inputs = def[section];
    if (!inputs) continue;
    input[section] = Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, wireSpec(v, ctx)]));
    order[section] = Object.keys(inputs);
  }
  if (!def.required) {
    input.required = input.required ?? {};
    order.required = order.required ?? [];
  }
  if (def.hidden) {
    input.hidden = { ...def.hidden };
    order.hidden = Object.keys(def.hidden);
  }
  const output = def.output ?? [];
  const info: Record<string, unknown> = {
    input,
    input_order: order,
    output,
    output_is_list: output.map(() => false),
    output_name: def.outputName ?? output,
    name,
    display_name: def.display ?? name,
    description: def.description ?? "",
    python_module: def.module,
    category: def.category,
    output_node: def.outputNode === true,
  };
  if (def.experimental) info.experimental = true;
  if (def.module.startsWith("comfy_api_nodes")) info.api_node = true;
  if (ctx.profile === "new") {
    info.is_input_list = false;
    info.has_intermediate_output = false;
    info.search_aliases = [];
  }
  return info;
}
