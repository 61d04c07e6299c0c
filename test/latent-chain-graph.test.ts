// The latent chain's pure parts: how many frames a hold takes on a target's grid and what that is in latent steps
// (H3's 17k+5 clips, LTX's 8k+1), and the hold node spliced into a graph in front of the first-stage sampler.
import { describe, expect, it } from "vitest";
import { holdFrames, holdInGraph, holdRecord, videoSteps } from "../lib/render/chain.ts";
import type { ApiGraph } from "../lib/targets/graph.ts";
import type { TargetSpec } from "../lib/targets/registry.ts";

const h3 = {
  id: "h3",
  template: { frames: { step: 17, base: 5, max: 3592 } },
  continuous: { modes: ["latent"], latent: { overlap: 39, hold_audio: true } },
} as unknown as TargetSpec;

const ltx = {
  id: "ltx",
  template: { frames: { step: 8, base: 1, max: 481 } },
  continuous: {
    modes: ["latent"],
    latent: {
      overlap: 17,
      hold_audio: false,
      video_vae: { class_type: "VAELoader", output: 0, title: "video" },
    },
  },
} as unknown as TargetSpec;

describe("hold sizes", () => {
  it("rounds the overlap up to the grid and never holds more than the previous take has", () => {
    expect(holdFrames(h3, null)).toBe(39);
    expect(holdFrames(h3, null, 30)).toBe(39);
    expect(holdFrames(h3, null, 40)).toBe(56);
    expect(holdFrames(h3, 22)).toBe(22);
    expect(holdFrames(ltx, null)).toBe(17);
    expect(holdFrames(ltx, null, 20)).toBe(25);
  });

  it("counts latent steps on the target's grid (17k+5 frames = 5k+2 steps; 8k+1 frames = k+1)", () => {
    expect(videoSteps(h3, 39)).toBe(12);
    expect(videoSteps(h3, 5)).toBe(2);
    expect(videoSteps(ltx, 17)).toBe(3);
  });

  it("records the hold, with 40 sound steps a second when the target holds sound", () => {
    const src = {
      shot: "sh010",
      take: 3,
      pass: "final" as const,
      via: "latent" as const,
      file: "/x",
      frames: 120,
    };
    expect(holdRecord(h3, src, 24)).toEqual({
      hold: 39,
      continued_from: {
        shot: "sh010",
        take: 3,
        pass: "final",
        via: "latent",
        overlap: 39,
        video_steps: 12,
        audio_steps: 65,
      },
    });
    expect(holdRecord(ltx, { ...src, via: "frames" }, 24).continued_from).not.toHaveProperty("audio_steps");
  });
});

/** Two stages: stage 2's sampler reads stage 1's output through an upsampler. */
const twoStage = (): ApiGraph => ({
  "1": { class_type: "EmptyLatentImage", inputs: { width: 64, height: 64, batch_size: 1 } },
  "2": { class_type: "VAELoader", inputs: { vae_name: "v.safetensors" }, _meta: { title: "video" } },
  "3": { class_type: "VAELoader", inputs: { vae_name: "a.safetensors" }, _meta: { title: "audio" } },
  "4": { class_type: "SamplerCustomAdvanced", inputs: { latent_image: ["1", 0] } },
  "5": { class_type: "LatentUpscale", inputs: { samples: ["4", 0] } },
  "6": { class_type: "SamplerCustomAdvanced", inputs: { latent_image: ["5", 0] } },
});

describe("holdInGraph", () => {
  const hold = { file: "/ep/prev.latent", shot: "sh010", pass: "proxy" as const, overlap: 17, fps: 24 };

  it("puts the hold node between the first stage's sampler and its latent, fed by LoadLatent", () => {
    const g = holdInGraph(ltx, twoStage(), { ...hold, via: "latent" });
    const holder = g[(g["4"].inputs.latent_image as [string, number])[0]];
    expect(holder.class_type).toBe("H3ChainLatent");
    expect(holder.inputs).toMatchObject({ latent: ["1", 0], overlap: 17, hold_audio: false, shot: "sh010" });
    const load = g[(holder.inputs.previous_latent as [string, number])[0]];
    expect(load).toMatchObject({ class_type: "LoadLatent", inputs: { latent: "/ep/prev.latent" } });
    expect(g["6"].inputs.latent_image).toEqual(["5", 0]);
  });

  it("encodes frames through the VAE the target names, and refuses when it cannot tell which", () => {
    const g = holdInGraph(ltx, twoStage(), { ...hold, via: "frames" });
    const holder = g[(g["4"].inputs.latent_image as [string, number])[0]];
    const encode = g[(holder.inputs.previous_latent as [string, number])[0]];
    expect(encode.class_type).toBe("VAEEncode");
    expect(encode.inputs.vae).toEqual(["2", 0]);
    expect(() => holdInGraph(h3, twoStage(), { ...hold, via: "frames" })).toThrow(
      /continuous.latent.video_vae: not declared/,
    );
  });
});
