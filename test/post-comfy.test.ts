// Posts of takes rendered on ComfyUI, against the ComfyUI double: readiness refuses what the server lacks (409 naming
// the pack and the model file) before anything is written, and a pixel-model enhance runs as a graph of core nodes,
// giving a post of the upscale's size and frame count with the upscale's audio copied back bit for bit.
import { stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { mediaTools } from "../lib/media/ffmpeg.ts";
import { sidecarText } from "../lib/render/sidecar.ts";
import { sourceStamp } from "../lib/upscale/fresh.ts";
import { postJob } from "../workers/jobs/post.ts";
import { DEFAULT_MODELS } from "./support/comfy-double/index.ts";
import { jobEnded, useComfyStudio } from "./support/comfy-studio.ts";
import { refusal, SCRIPT } from "./support/studio-episode.ts";

// biome-ignore lint/suspicious/noExplicitAny: records are checked field by field
type Any = any;

const c = useComfyStudio({ ...structuredClone(DEFAULT_MODELS), upscale_models: ["RealESRGAN_x2.pth"] });

/** A take rendered on the local ComfyUI and its upscale (2×, audio copied), as the upscale job leaves them. */
async function takeAndUpscale(ep: string): Promise<string> {
  const { ffmpeg } = await mediaTools(c.s.env.services.media);
  const stem = await c.s.take(ep, "final", "sh010", 1, {
    mp4: false,
    frames: 24,
    sidecar: { backend: "local", target: "ltx2", mp4: "sh010_t01.mp4" },
  });
  const dir = path.join(ep, "renders", "sh010");
  await execa(ffmpeg, [
    ...["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=64x48:r=24:d=1", "-f", "lavfi"],
    ...[
      "-i",
      "sine=frequency=440:duration=1",
      "-c:v",
      "libx264",
      "-pix_fmt",
      "yuv420p",
      "-c:a",
      "aac",
      "-shortest",
    ],
    path.join(dir, `${stem}.mp4`),
  ]);
  await execa(ffmpeg, [
    ...["-v", "error", "-y", "-i", path.join(dir, `${stem}.mp4`), "-vf", "scale=128:96", "-c:v", "libx264"],
    ...["-pix_fmt", "yuv420p", "-c:a", "copy", path.join(dir, `${stem}.up.mp4`)],
  ]);
  const record = {
    shot: "sh010",
    take: 1,
    status: "ok",
    method: "pixel",
    width: 128,
    height: 96,
    quality: "review",
    mp4: `${stem}.up.mp4`,
    audio: "copied",
    ...(await sourceStamp(ep, path.join(dir, `${stem}.mp4`))),
  };
  await writeFile(path.join(dir, `${stem}.up.json`), sidecarText(record));
  return dir;
}

async function audioHash(file: string): Promise<string> {
  const { ffmpeg } = await mediaTools(c.s.env.services.media);
  const { stdout } = await execa(ffmpeg, [
    "-v",
    "error",
    "-i",
    file,
    "-map",
    "0:a",
    "-c",
    "copy",
    "-f",
    "md5",
    "-",
  ]);
  return stdout.trim();
}

describe("posts on the ComfyUI double", () => {
  it("refuses with 409 what the server lacks, naming the pack and the model file, and writes nothing", async () => {
    const ep = await c.s.episode(SCRIPT);
    const dir = await takeAndUpscale(ep);
    const blur = await c.s.call("POST", "/post", { ep, shots: ["sh010"], enhance: "draft", blur: 0.5 });
    refusal(blur, 409, /^this ComfyUI can't run these posts: /);
    expect(blur.body.error).toMatch(/H3MotionBlur/);
    expect(blur.body.error).toMatch(
      /raft_large_C_T_SKHT_V2-ff5fadd5\.pth is missing from models\/optical_flow\//,
    );
    const supir = await c.s.call("POST", "/post", { ep, shots: ["sh010"], enhance: "cinematic" });
    refusal(supir, 409, /install the ComfyUI-SUPIR node pack/);
    await expect(stat(path.join(dir, "sh010_t01.post.json"))).rejects.toThrow();
    const options = await c.s.call("GET", "/post/options");
    const tiers = Object.fromEntries(options.body.tiers.map((t: Any) => [t.id, t.readiness.status]));
    expect(tiers).toEqual({ draft: "ready", production: "not_ready", cinematic: "not_ready" });
    expect(options.body.blur.readiness.status).toBe("not_ready");
  });

  it("runs a pixel-model enhance at 1× as core nodes: same size and frames, the upscale's audio copied back", async () => {
    const ep = await c.s.episode(SCRIPT);
    const dir = await takeAndUpscale(ep);
    const res = await c.s.call("POST", "/post", { ep, shots: ["sh010"], enhance: "draft" });
    expect(res.body.errors).toEqual([]);
    expect(res.body.queued).toEqual([
      expect.objectContaining({
        shot: "sh010",
        width: 128,
        height: 96,
        what: expect.stringMatching(/^enhance draft/),
      }),
    ]);
    c.pool({ post: postJob });
    const job = await jobEnded(c.store, res.body.queued[0].prompt_id);
    expect(job.status, job.error ?? "").toBe("succeeded");
    const rec: Any = await c.s.readJson(path.join(dir, "sh010_t01.post.json"));
    expect(rec).toMatchObject({
      status: "ok",
      width: 128,
      height: 96,
      frames: 24,
      audio: "copied",
      mp4: "sh010_t01.post.mp4",
      recipe: { size: [128, 96], enhance: { method: "pixel", pixel_model: "RealESRGAN_x2.pth" } },
    });
    expect(rec.comfy_prompt_id).toEqual(expect.any(String));
    expect(rec.motion_blur_method).toBeUndefined();
    expect(await audioHash(path.join(dir, "sh010_t01.post.mp4"))).toBe(
      await audioHash(path.join(dir, "sh010_t01.up.mp4")),
    );
    // ComfyUI got the graph of core nodes: the upscale loaded, the model at its own factor, scaled back, saved.
    const body = c.double.prompts.at(-1)?.body as Any;
    const graph = Object.values(body?.prompt ?? {}) as Any[];
    expect(graph.map((n) => n.class_type)).toEqual(
      expect.arrayContaining([
        "LoadVideo",
        "UpscaleModelLoader",
        "ImageUpscaleWithModel",
        "ImageScale",
        "SaveVideo",
      ]),
    );
  });
});
