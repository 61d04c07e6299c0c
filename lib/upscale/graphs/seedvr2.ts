// SeedVR2 restoration through the ComfyUI-SeedVR2_VideoUpscaler pack: its DiT and VAE loaders (files in
// models/SEEDVR2) feed its video upscaler, which sizes frames by their short edge; the frames are then brought to
// the exact delivered size and saved with the take's sound.
import { fitTo, GraphBuilder, loadVideo, out, saveVideo } from "./build.ts";
import type { BuiltGraph, OutputSize, Seedvr2UpscaleRequest, SourceVideo } from "./types.ts";

export const SEEDVR2_PACK = "ComfyUI-SeedVR2_VideoUpscaler";
export const SEEDVR2_FOLDER = "SEEDVR2";
export const SEEDVR2_VAE = "ema_vae_fp16.safetensors";
const SEEDVR2_MODELS: Record<string, string> = {
  "7b": "seedvr2_ema_7b_fp16.safetensors",
  "3b": "seedvr2_ema_3b_fp16.safetensors",
};

/** The DiT file a `seedvr2_model` setting names: `7b`/`3b`, else the value taken as a file name. */
export function seedvr2ModelFile(model: string): string {
  return SEEDVR2_MODELS[model.toLowerCase()] ?? model;
}

/** The short edge SeedVR2 is asked for, so that fitting to `size` afterwards only crops, pads or trims a pixel. */
export function seedvr2Resolution(source: Pick<SourceVideo, "width" | "height">, size: OutputSize): number {
  const sx = size.width / source.width;
  const sy = size.height / source.height;
  const scale = size.fit === "pad" ? Math.min(sx, sy) : Math.max(sx, sy);
  const short = Math.min(source.width, source.height) * scale;
  return Math.max(16, Math.ceil(short / 2) * 2);
}

/** Frames per batch: a 4n+1 count (≥ 5) as asked, or with 0 the whole take rounded up to 4n+1. */
export function seedvr2Batch(frames: number, chunk: number | undefined): number {
  if (chunk && chunk > 0) {
    if (chunk < 5 || (chunk - 1) % 4 !== 0)
      throw new Error(`SeedVR2 chunk ${chunk} is not a 4n+1 count of 5 or more`);
    return chunk;
  }
  return Math.max(5, Math.ceil((Math.max(1, frames) - 1) / 4) * 4 + 1);
}

/** The SeedVR2 upscaler over `images`; answers its frames. */
export function seedvr2Frames(
  b: GraphBuilder,
  images: [string, number],
  opts: { model: string; seed: number; resolution: number; batch: number; overlap?: number },
): [string, number] {
  const file = seedvr2ModelFile(opts.model);
  const overlap = opts.overlap ?? 2;
  if (!Number.isInteger(overlap) || overlap < 0 || overlap > 16)
    throw new Error(`SeedVR2 overlap ${overlap} is not a whole number of frames from 0 to 16`);
  const dit = b.add("SeedVR2LoadDiTModel", { model: file, device: "cuda:0" }, SEEDVR2_PACK);
  const vae = b.add("SeedVR2LoadVAEModel", { model: SEEDVR2_VAE, device: "cuda:0" }, SEEDVR2_PACK);
  b.model({ folder: SEEDVR2_FOLDER, file });
  b.model({ folder: SEEDVR2_FOLDER, file: SEEDVR2_VAE });
  const up = b.add(
    "SeedVR2VideoUpscaler",
    {
      image: images,
      dit: out(dit),
      vae: out(vae),
      // The pack's seed input stops at 2^32 - 1.
      seed: ((opts.seed % 2 ** 32) + 2 ** 32) % 2 ** 32,
      resolution: opts.resolution,
      max_resolution: 0,
      batch_size: opts.batch,
      uniform_batch_size: false,
      temporal_overlap: overlap,
      color_correction: "lab",
    },
    SEEDVR2_PACK,
  );
  return out(up);
}

export function seedvr2UpscaleGraph(req: Seedvr2UpscaleRequest): BuiltGraph {
  const b = new GraphBuilder();
  const take = loadVideo(b, req.source);
  const restored = seedvr2Frames(b, take.images, {
    model: req.model,
    seed: req.seed,
    resolution: seedvr2Resolution(req.source, req.out),
    batch: seedvr2Batch(req.source.frames, req.chunk),
    overlap: req.overlap,
  });
  const sized = fitTo(b, restored, req.out);
  return b.built(saveVideo(b, sized, take.audio, take.fps, req.prefix));
}
