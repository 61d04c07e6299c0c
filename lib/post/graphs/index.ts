// The one entry the post job calls: the ComfyUI graph of a post of one upscale, at the upscale's own size and
// frame count: an optional enhance step (an upscale model at 1×, SeedVR2, or SUPIR blended by its strength), then
// an optional flow-based motion blur (the project's H3MotionBlur with RAFT-large weights), saved with the upscale's
// sound.
import { fitTo, GraphBuilder, loadVideo, out, saveVideo } from "../../upscale/graphs/build.ts";
import { H3_PACK } from "../../upscale/graphs/latent.ts";
import { CORE_FINISH_NOTE, upscaleWithModel } from "../../upscale/graphs/pixel.ts";
import { seedvr2Batch, seedvr2Frames } from "../../upscale/graphs/seedvr2.ts";
import type { BuiltGraph, PostGraphRequest } from "../../upscale/graphs/types.ts";

export const SUPIR_PACK = "ComfyUI-SUPIR";
export const SUPIR_MODEL = "SUPIR-v0F_fp16.safetensors";
export const SUPIR_CHECKPOINT = "sd_xl_base_1.0_0.9vae.safetensors";
export const OPTICAL_FLOW_FOLDER = "optical_flow";
export const RAFT_LARGE = "raft_large_C_T_SKHT_V2-ff5fadd5.pth";

export class PostGraphError extends Error {}

export function postGraph(req: PostGraphRequest): BuiltGraph {
  const blur = req.motion_blur ?? 0;
  if (!Number.isFinite(blur) || blur < 0 || blur > 1)
    throw new PostGraphError(`motion blur ${blur} is not between 0 and 1 of the frame interval`);
  if (!req.enhance && blur === 0) throw new PostGraphError("nothing to do (no enhance, no motion blur)");
  const b = new GraphBuilder();
  const upscale = loadVideo(b, req.source);
  const size = { width: req.source.width, height: req.source.height, fit: "stretch" as const };
  let frames: [string, number] = upscale.images;
  const e = req.enhance;
  if (e?.method === "pixel") {
    // The model's own factor, then back to the upscale's size: a 1× pass of its detail.
    frames = fitTo(b, upscaleWithModel(b, frames, e.model), size);
    b.notes.push(CORE_FINISH_NOTE);
  } else if (e?.method === "seedvr2") {
    const restored = seedvr2Frames(b, frames, {
      model: e.model,
      seed: e.seed,
      resolution: Math.min(req.source.width, req.source.height),
      batch: seedvr2Batch(req.source.frames, e.chunk),
      overlap: e.overlap,
    });
    frames = fitTo(b, restored, size);
  } else if (e?.method === "supir") {
    if (!(e.strength >= 0.05 && e.strength <= 0.5))
      throw new PostGraphError(`SUPIR strength ${e.strength} is not between 0.05 and 0.5`);
    const model = e.supir_model ?? SUPIR_MODEL;
    const checkpoint = e.checkpoint ?? SUPIR_CHECKPOINT;
    const restored = b.add(
      "SUPIR_Upscale",
      {
        supir_model: model,
        sdxl_model: checkpoint,
        image: frames,
        seed: e.seed,
        resize_method: "lanczos",
        scale_by: 1,
        steps: e.steps ?? 10,
        restoration_scale: e.restore_cfg ?? 4,
        cfg_scale: e.cfg ?? 4,
        a_prompt: e.prompt ?? "high quality, detailed",
        n_prompt: "bad quality, blurry, messy",
        s_churn: 5,
        s_noise: 1.003,
        control_scale: 1,
        cfg_scale_start: 0,
        control_scale_start: 0,
        color_fix_type: "Wavelet",
        keep_model_loaded: true,
        use_tiled_vae: true,
        encoder_tile_size_pixels: 512,
        decoder_tile_size_latent: 64,
      },
      SUPIR_PACK,
    );
    for (const file of [model, checkpoint])
      b.model({
        folder: "checkpoints",
        file,
        loader: { class_type: "SUPIR_Upscale", input: file === model ? "supir_model" : "sdxl_model" },
      });
    // SUPIR works on sides that are multiples of 64: back to the upscale's size, then blended over it by strength.
    const sized = fitTo(b, out(restored), size);
    frames = out(
      b.add("ImageBlend", { image1: frames, image2: sized, blend_factor: e.strength, blend_mode: "normal" }),
    );
  }
  if (blur > 0) {
    const blurred = b.add(
      "H3MotionBlur",
      { images: frames, fps: upscale.fps, amount: blur, flow_model: RAFT_LARGE },
      H3_PACK,
    );
    b.model({
      folder: OPTICAL_FLOW_FOLDER,
      file: RAFT_LARGE,
      loader: { class_type: "H3MotionBlur", input: "flow_model" },
    });
    frames = out(blurred);
  }
  return b.built(saveVideo(b, frames, upscale.audio, upscale.fps, req.prefix));
}
