// What the finishing graph builders take and give: the request for one upscale or post of one take, and the built
// ComfyUI graph with the node classes and model files it needs (so readiness can name what is missing before a job
// is queued).
import type { ApiGraph } from "../../targets/graph.ts";

/** The video a graph reads: an absolute path (the engine uploads it and puts the uploaded name in its place). */
export interface SourceVideo {
  file: string;
  width: number;
  height: number;
  fps: number;
  frames: number;
}

/**
 * The size a graph delivers. `fit` says how frames of another aspect reach it: `crop` covers the size and cuts the
 * overflow at the centre, `pad` fits inside it with black bars, `stretch` (or none) scales to it exactly.
 */
export interface OutputSize {
  width: number;
  height: number;
  fit?: "crop" | "pad" | "stretch" | null;
}

interface RequestBase {
  source: SourceVideo;
  out: OutputSize;
  /** The core saver's `filename_prefix` (`studio/<stem>.up`). */
  prefix: string;
}

/** An upscale model over every frame (`UpscaleModelLoader` + `ImageUpscaleWithModel`), then scaled to `out`. */
export interface PixelUpscaleRequest extends RequestBase {
  method: "pixel";
  /** A file of models/upscale_models (`RealESRGAN_x2.pth`). */
  model: string;
}

/** SeedVR2 restoration (the ComfyUI-SeedVR2_VideoUpscaler pack) to `out`. */
export interface Seedvr2UpscaleRequest extends RequestBase {
  method: "seedvr2";
  /** `7b`, `3b`, or a file name of models/SEEDVR2. */
  model: string;
  seed: number;
  /** Frames per batch: 4n+1 (≥ 5), or 0 for the whole take in one batch rounded up to 4n+1. */
  chunk?: number;
  /** Frames shared by consecutive batches (0..16). */
  overlap?: number;
}

/** The LTX-2.5 upscale block of a target (`target.json` `upscale`). */
export interface SecondStageSpec {
  /** The upsampler's fixed scale (2). */
  scale: number;
}

/**
 * A latent re-sample on the take's own target. `second_stage` reuses the take's two-stage graph (as the render
 * patched it: `take_graph`) from its upsampler on, fed the take's frames re-encoded by the target's VAEs; the other
 * modes need the project's node pack.
 */
export interface LatentUpscaleRequest extends RequestBase {
  method: "latent";
  mode: "second_stage" | "resample" | "pixel_refine";
  /** The take's graph as its render patched it (prompt, seed, model files). */
  take_graph: ApiGraph;
  /** The schedule step the re-sample starts from (second_stage: the index into its sigma list). */
  start_step: number;
  seed: number | bigint;
  /** `latent`: the kept `<stem>.latent.safetensors` (absolute path); `vae`: the frames re-encoded. */
  route: "latent" | "vae";
  latent_file?: string | null;
  /** resample / pixel_refine: the latent upscaler or pixel model file. */
  upscaler?: string | null;
}

export type UpscaleGraphRequest = PixelUpscaleRequest | Seedvr2UpscaleRequest | LatentUpscaleRequest;

/** The enhance step of a post, settings already merged from its tier and recipe. */
export type PostEnhance =
  | { method: "pixel"; model: string }
  | { method: "seedvr2"; model: string; seed: number; chunk?: number; overlap?: number }
  | {
      method: "supir";
      /** 0.05..0.5: how much of SUPIR's restored picture is blended over the frame. */
      strength: number;
      seed: number;
      supir_model?: string;
      checkpoint?: string;
      steps?: number;
      cfg?: number;
      restore_cfg?: number;
      prompt?: string;
    };

/** A post of one upscale: same size and frame count, an optional enhance step then an optional motion blur. */
export interface PostGraphRequest {
  /** The upscale's mp4 (absolute path). */
  source: SourceVideo;
  prefix: string;
  enhance: PostEnhance | null;
  /** 0..1 of the frame interval (0.5 = a 180° shutter); 0 or null for none. */
  motion_blur?: number | null;
}

/** A node class a graph sends; `pack` names the custom-node pack that brings it (absent: ComfyUI itself). */
export interface NodeNeed {
  class_type: string;
  pack?: string;
}

/** A model file a graph loads, from the models folder its loader reads. */
export interface ModelNeed {
  folder: string;
  file: string;
  /** The loader input that lists the folder's files (checked when the folder list is not known). */
  loader?: { class_type: string; input: string };
}

export interface GraphNeeds {
  nodes: NodeNeed[];
  models: ModelNeed[];
}

export interface BuiltGraph {
  graph: ApiGraph;
  needs: GraphNeeds;
  /** Id of the node whose output is the finished video. */
  output: string;
  /** What this graph does not do that the request's settings might suggest (said in the record, never hidden). */
  notes: string[];
}
