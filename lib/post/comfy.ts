// A post's settings as the ComfyUI post graph takes them: the enhance step with its model, derived seed and chunk
// resolved (SeedVR2 "fit" sized from the picture), the upscale as the source video, and the saver's prefix.

import { derivedSeed } from "../upscale/comfy.ts";
import type { PostEnhance, PostGraphRequest, SourceVideo } from "../upscale/graphs/types.ts";
import type { Enhance } from "./recipe.ts";
import { fitChunk } from "./recipe.ts";

export function graphEnhance(
  e: Enhance | null,
  seed: string | null,
  width: number,
  height: number,
): PostEnhance | null {
  if (!e) return null;
  if (e.method === "pixel") return { method: "pixel", model: e.pixel_model ?? "RealESRGAN_x2.pth" };
  if (e.method === "seedvr2") {
    const chunk = e.chunk === "fit" ? fitChunk(width, height) : e.chunk;
    return {
      method: "seedvr2",
      model: e.seedvr2_model ?? "7b",
      seed: derivedSeed(seed),
      ...(chunk ? { chunk } : {}),
      ...(e.overlap !== undefined ? { overlap: e.overlap } : {}),
    };
  }
  return {
    method: "supir",
    strength: e.strength ?? 0.2,
    seed: derivedSeed(seed),
    ...(e.supir_model ? { supir_model: e.supir_model } : {}),
    ...(e.checkpoint ? { checkpoint: e.checkpoint } : {}),
    ...(e.steps !== undefined ? { steps: e.steps } : {}),
    ...(e.cfg !== undefined ? { cfg: e.cfg } : {}),
    ...(e.restore_cfg !== undefined ? { restore_cfg: e.restore_cfg } : {}),
    ...(e.prompt ? { prompt: e.prompt } : {}),
  };
}

export function postGraphRequest(
  s: { enhance: Enhance | null; motion_blur: number },
  source: SourceVideo,
  seed: string | null,
  stem: string,
): PostGraphRequest {
  return {
    source,
    prefix: `studio/${stem}.post`,
    enhance: graphEnhance(s.enhance, seed, source.width, source.height),
    motion_blur: s.motion_blur > 0 ? s.motion_blur : null,
  };
}
