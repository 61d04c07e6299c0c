// Wan 2.2 I2V, TI2V and VACE render through the ComfyUI double: POST /studio/render on a Wan series, the job store, a
// WorkerPool and the local engine. The double accepts the patched graph against its catalogue (the node schemas read
// from ComfyUI's source), each shot's first frame is uploaded and loaded (TI2V renders from the prompt alone without
// one; VACE turns it into a control video), the experts split the steps, and the take has the shot's exact frame
// count.
import { stat } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { countFrames } from "../lib/media/ffmpeg.ts";
import {
  graphs,
  ofClass,
  png,
  renderQueued,
  takeSidecar as sidecar,
  TWO_SHOTS,
  targetModels,
  useComfyStudio,
} from "./support/comfy-studio.ts";
import { seriesS } from "./support/series-s.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

const c = useComfyStudio(targetModels(["wan22_i2v", "wan22_ti2v", "wan22_vace"]));

/**
 * A two-shot episode on `target` with the kitchen plate and the first frames given (shot → colour), rendered through
 * POST /studio/render and a worker pool; every job succeeded and the double refused no graph. Answers the episode
 * and how many graphs the double had before.
 */
async function renderEpisode(
  target: string,
  firsts: Record<string, string>,
): Promise<{ ep: string; before: number }> {
  const series = seriesS();
  series.series.target = target;
  const ep = await c.s.episode(TWO_SHOTS, { series });
  await png(path.join(path.dirname(ep), "refs", "_bg", "kitchen.png"), 64, 48, "#336699");
  await png(path.join(ep, "refs", "_bg", "kitchen.png"), 64, 48, "#336699");
  for (const [shot, colour] of Object.entries(firsts))
    await png(path.join(ep, "refs", "shots", shot, "first.png"), 64, 48, colour);
  const before = graphs(c.double).length;
  await renderQueued(c, { ep }, [
    ["sh010", target],
    ["sh020", target],
  ]);
  return { ep, before };
}

describe("wan22_i2v on the local ComfyUI", () => {
  it("renders each shot from its own first frame with exact frame counts", async () => {
    const { ep } = await renderEpisode("wan22_i2v", { sh010: "#336699", sh020: "#996633" });

    for (const shot of ["sh010", "sh020"]) {
      const sc = await sidecar(ep, shot);
      expect(sc).toMatchObject({ status: "ok", target: "wan22_i2v", backend: "local" });
      expect(sc.resolved.model).toMatchObject({
        want: "wan2.2_i2v_high_noise_14B_fp8_scaled.safetensors",
        how: "exact",
      });
      expect(sc.resolved.model_low).toMatchObject({
        want: "wan2.2_i2v_low_noise_14B_fp8_scaled.safetensors",
        how: "exact",
      });
      const mp4 = path.join(ep, "renders_proxy", shot, sc.mp4);
      expect((await stat(mp4)).size).toBeGreaterThan(0);
      expect(await countFrames(mp4, c.s.env.services.media)).toBe(sc.length);
      expect((sc.length - 5) % 4).toBe(0);
    }

    const first1 = (await sidecar(ep, "sh010")).inputs.first;
    const sc2 = await sidecar(ep, "sh020");
    expect(sc2.inputs.first).not.toBe(first1);
    const loads = (g: Record<string, Any>) => ofClass(g, "LoadImage").map((n: Any) => n.inputs.image);
    const g1 = graphs(c.double).find((g) => loads(g).includes(first1)) ?? {};
    const g2 = graphs(c.double).find((g) => loads(g).includes(sc2.inputs.first)) ?? {};
    const i2v = ofClass(g1, "WanImageToVideo");
    expect(i2v).toHaveLength(1);
    expect(g1[i2v[0].inputs.start_image[0]].inputs.image).toBe(first1);
    expect(i2v[0].inputs.length).toBe((await sidecar(ep, "sh010")).length);
    // The proxy preset's steps split between the experts, its shift and the accelerator LoRAs in place.
    const samplers = ofClass(g1, "KSamplerAdvanced").map((n: Any) => [
      n.inputs.start_at_step,
      n.inputs.end_at_step,
    ]);
    expect(samplers.sort()).toEqual([
      [0, 2],
      [2, 10000],
    ]);
    expect(ofClass(g1, "ModelSamplingSD3").map((n: Any) => n.inputs.shift)).toEqual([5, 5]);
    expect(ofClass(g1, "LoraLoaderModelOnly")).toHaveLength(2);

    expect(g2[ofClass(g2, "WanImageToVideo")[0].inputs.start_image[0]].inputs.image).toBe(sc2.inputs.first);
    const base = (n: string) => n.split("/").pop();
    for (const name of [first1, sc2.inputs.first])
      expect(c.double.uploads.map((u) => base(u.name))).toContain(base(name));
  });
});

describe("wan22_ti2v on the local ComfyUI", () => {
  it("renders a shot from its first frame and one from the prompt alone, with exact frame counts", async () => {
    const { ep, before } = await renderEpisode("wan22_ti2v", { sh010: "#336699" });

    for (const shot of ["sh010", "sh020"]) {
      const sc = await sidecar(ep, shot);
      expect(sc).toMatchObject({ status: "ok", target: "wan22_ti2v", backend: "local" });
      expect(sc.resolved.model).toMatchObject({ want: "wan2.2_ti2v_5B_fp16.safetensors", how: "exact" });
      expect(sc.resolved.vae).toMatchObject({ want: "wan2.2_vae.safetensors", how: "exact" });
      const mp4 = path.join(ep, "renders_proxy", shot, sc.mp4);
      expect(await countFrames(mp4, c.s.env.services.media)).toBe(sc.length);
      expect((sc.length - 5) % 4).toBe(0);
    }

    const first = (await sidecar(ep, "sh010")).inputs.first;
    expect(first).toBeTruthy();
    const mine = graphs(c.double).slice(before);
    expect(mine).toHaveLength(2);
    const latentOf = (g: Record<string, Any>) => {
      const nodes = ofClass(g, "Wan22ImageToVideoLatent");
      expect(nodes).toHaveLength(1);
      return nodes[0];
    };
    const withFrame = mine.filter((g) => ofClass(g, "LoadImage").length > 0);
    expect(withFrame).toHaveLength(1);
    const g1 = withFrame[0];
    expect(g1[latentOf(g1).inputs.start_image[0]].inputs.image).toBe(first);
    expect(latentOf(g1).inputs.length).toBe((await sidecar(ep, "sh010")).length);
    // The proxy preset's steps, cfg, sampler and shift on the one sampler.
    expect(
      ofClass(g1, "KSampler").map((n: Any) => [n.inputs.steps, n.inputs.cfg, n.inputs.sampler_name]),
    ).toEqual([[12, 5, "uni_pc"]]);
    expect(ofClass(g1, "ModelSamplingSD3").map((n: Any) => n.inputs.shift)).toEqual([8]);
    const g2 = mine.find((g) => g !== g1) ?? {};
    expect(latentOf(g2).inputs).not.toHaveProperty("start_image");
    expect(latentOf(g2).inputs.length).toBe((await sidecar(ep, "sh020")).length);
  });
});

describe("wan22_vace on the local ComfyUI", () => {
  it("renders a shot with its first frame as a control video and one from the prompt alone", async () => {
    const { ep, before } = await renderEpisode("wan22_vace", { sh010: "#336699" });

    for (const shot of ["sh010", "sh020"]) {
      const sc = await sidecar(ep, shot);
      expect(sc).toMatchObject({ status: "ok", target: "wan22_vace", backend: "local" });
      expect(sc.resolved.model).toMatchObject({
        want: "wan2.2_fun_vace_high_noise_14B_fp8_scaled.safetensors",
        how: "exact",
      });
      const mp4 = path.join(ep, "renders_proxy", shot, sc.mp4);
      expect(await countFrames(mp4, c.s.env.services.media)).toBe(sc.length);
    }

    const first = (await sidecar(ep, "sh010")).inputs.first;
    const n = (await sidecar(ep, "sh010")).length;
    const mine = graphs(c.double).slice(before);
    expect(mine).toHaveLength(2);
    const vaceOf = (g: Record<string, Any>) => {
      const nodes = ofClass(g, "WanVaceToVideo");
      expect(nodes).toHaveLength(1);
      return nodes[0];
    };
    const g1 = mine.find((g) => ofClass(g, "LoadImage").some((l: Any) => l.inputs.image === first)) ?? {};
    const v1 = vaceOf(g1);
    expect(v1.inputs.length).toBe(n);
    // The first frame scaled to the render size, then n-1 grey frames to generate.
    const video = g1[v1.inputs.control_video[0]];
    expect(video.class_type).toBe("ImageBatch");
    const scaled = g1[video.inputs.image1[0]];
    expect(scaled.class_type).toBe("ImageScale");
    expect(g1[scaled.inputs.image[0]].inputs.image).toBe(first);
    expect(g1[video.inputs.image2[0]].inputs).toMatchObject({ batch_size: n - 1, color: 0x7f7f7f });
    expect(g1[v1.inputs.control_masks[0]].class_type).toBe("ImageToMask");
    expect(ofClass(g1, "LoraLoaderModelOnly")).toHaveLength(2);
    expect(ofClass(g1, "TrimVideoLatent")).toHaveLength(1);

    const g2 = mine.find((g) => g !== g1) ?? {};
    for (const input of ["control_video", "control_masks", "reference_image"])
      expect(vaceOf(g2).inputs).not.toHaveProperty(input);
  });
});
