// Upscales of ComfyUI takes against the ComfyUI double: the options route's readiness (ready, missing pieces named
// by pack and models folder, unknown when ComfyUI is silent), a pixel upscale run through the engine on the take's
// backend (the take uploaded, scaled by the double as ComfyUI's nodes size it, the take's audio copied back bit for
// bit, the prompt id and the graph's notes in the record), the 409 and 502 refusals, a cancel of a waiting and of a
// running job closing the record "canceled", and a retry queueing the record again.
import path from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { mediaTools, probe } from "../lib/media/ffmpeg.ts";
import { CORE_FINISH_NOTE } from "../lib/upscale/graphs/pixel.ts";
import { queueUpscales } from "../lib/upscale/queue.ts";
import { upscaleJob } from "../workers/jobs/upscale.ts";
import { DEFAULT_MODELS } from "./support/comfy-double/index.ts";
import { useComfyStudio } from "./support/comfy-studio.ts";
import { jobEnded, waitFor } from "./support/jobs.ts";
import { seriesS } from "./support/series-s.ts";
import { SCRIPT } from "./support/studio-episode.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

const c = useComfyStudio({ ...DEFAULT_MODELS, upscale_models: ["RealESRGAN_x2.pth", "4x-UltraSharp.pth"] });
const kinds = { upscale: upscaleJob };

/** A real 0.5 s 320x192 take with a tone, rendered on ltx2 by the local ComfyUI as far as its sidecar says. */
async function comfyTake(ep: string, shot: string, take: number): Promise<string> {
  const stem = await c.s.take(ep, "final", shot, take, {
    frames: 12,
    sidecar: { target: "ltx2", backend: "local", width: 320, height: 192 },
  });
  const { ffmpeg } = await mediaTools(c.s.env.services.media);
  await execa(ffmpeg, [
    ...["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x192:rate=24", "-f", "lavfi"],
    ...["-i", "sine=frequency=330:sample_rate=48000", "-frames:v", "12", "-t", "0.5"],
    ...["-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"],
    path.join(ep, "renders", shot, `${stem}.mp4`),
  ]);
  return stem;
}

const upJson = (ep: string, shot: string, stem: string) => path.join(ep, "renders", shot, `${stem}.up.json`);

async function audioMd5(file: string): Promise<string> {
  const { ffmpeg } = await mediaTools(c.s.env.services.media);
  return (await execa(ffmpeg, ["-v", "error", "-i", file, "-map", "0:a", "-c", "copy", "-f", "md5", "-"]))
    .stdout;
}

describe("GET /studio/upscale/options", () => {
  it("says what the local ComfyUI can run, naming what it lacks, and unknown when it is silent", async () => {
    const ep = await c.s.episode(SCRIPT, {
      series: {
        ...seriesS(),
        upscale: {
          master: {
            deliver: "1080p",
            targets: { "ltx*": { method: "pixel", pixel_model: "4x-UltraSharp.pth" }, animatic: {} },
          },
        },
      },
    });
    await c.s.call("PUT", "/upscale/recipe", { ep, shot: "sh020", recipe: { method: "seedvr2" } });
    const r = await c.s.call("GET", "/upscale/options", { ep });
    expect(r.status).toBe(200);
    const o: Any = r.body;
    expect(o.pixel).toEqual({
      status: "ready",
      missing: [],
      models: ["4x-UltraSharp.pth", "RealESRGAN_x2.pth"],
      default: "RealESRGAN_x2.pth",
    });
    expect(o.seedvr2.status).toBe("not_ready");
    expect(o.seedvr2.default).toBe("7b");
    expect(o.seedvr2.missing.join("\n")).toMatch(/install the ComfyUI-SeedVR2_VideoUpscaler node pack/);
    expect(o.seedvr2.missing.join("\n")).toMatch(/missing from models\/SEEDVR2\//);
    expect(o.latent.animatic).toBeNull();
    expect(o.latent.ltx2).toMatchObject({
      status: "not_ready",
      mode: "second_stage",
      align: 32,
      fixed_scale: 2,
    });
    expect(o.latent.ltx2.missing.join("\n")).toMatch(/H3HoldAudio/);
    expect(o.latent.wan22_i2v).toMatchObject({ mode: "pixel_refine", fixed_scale: null });
    expect(o.details).toEqual([0, 1, 2]);
    expect(o.max_scale).toBe(4);
    expect(o.encoders).toEqual(["auto", "nvenc", "x264"]);
    expect(o.precisions).toEqual(["fp16", "fp32"]);
    expect(o.fits).toEqual(["crop", "pad"]);
    expect(o.delivers[2]).toEqual({ id: "4k", width: 3840, height: 2160 });
    expect(o.recipe).toMatchObject({ deliver: "1080p", fit: "crop", quality: "review", encoder: "auto" });
    expect(o.recipe.targets.ltx2).toEqual({
      key: "ltx*",
      fields: { method: "pixel", pixel_model: "4x-UltraSharp.pth" },
      text: "pixel upscale with 4x-UltraSharp.pth",
    });
    expect(o.recipe.targets.wan22_i2v).toBeNull();
    expect(o.recipe.shots).toEqual({ sh020: { fields: { method: "seedvr2" }, text: "SeedVR2" } });
    expect((await c.s.call("GET", "/upscale/options")).body.recipe).toBeNull();

    await c.double.setRefusing(true);
    c.s.env.services.engines.lookups.clear();
    try {
      const down: Any = (await c.s.call("GET", "/upscale/options")).body;
      expect(down.pixel).toEqual({
        status: "unknown",
        missing: [],
        models: [],
        default: "RealESRGAN_x2.pth",
      });
      expect(down.seedvr2.status).toBe("unknown");
      expect(down.latent.ltx2).toMatchObject({ status: "unknown", missing: [] });
    } finally {
      await c.double.setRefusing(false);
      c.s.env.services.engines.lookups.clear();
    }
  });
});

describe("POST /studio/upscale on ComfyUI", () => {
  it("runs the pixel graph on the take's backend, copies the take's audio, records the prompt id and the notes", async () => {
    const ep = await c.s.episode(SCRIPT);
    const stem = await comfyTake(ep, "sh010", 1);
    const r = await c.s.call("POST", "/upscale", {
      ep,
      takes: [{ shot: "sh010", take: 1 }],
      method: "pixel",
      deliver: "640x360",
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.queued).toEqual([
      expect.objectContaining({
        route: "pixel",
        method: "pixel",
        pixel_model: "RealESRGAN_x2.pth",
        width: 640,
      }),
    ]);
    const jobId = r.body.queued[0].prompt_id;
    expect((await c.store.get(jobId))?.lane).toBe("local");
    const before = c.double.prompts.length;
    c.pool(kinds);
    const job = await jobEnded(c.store, jobId);
    expect(job.status, JSON.stringify(job.error ?? job.log)).toBe("succeeded");

    const sent: Any = c.double.prompts.slice(before).find((p) => p.status === 200)?.body;
    const nodes = Object.values(sent.prompt) as Any[];
    const load = nodes.find((n) => n.class_type === "LoadVideo");
    expect(load.inputs.file).toMatch(/^studio\//);
    expect(nodes.find((n) => n.class_type === "ImageScale").inputs).toMatchObject({
      width: 640,
      height: 360,
      crop: "center",
    });

    const rec: Any = await c.s.readJson(upJson(ep, "sh010", stem));
    expect(rec).toMatchObject({
      status: "ok",
      width: 640,
      height: 360,
      frames: 12,
      mp4: `${stem}.up.mp4`,
      audio: "copied",
      method: "pixel",
      route: "pixel",
    });
    expect(rec.comfy_prompt_id).toBe(sent.prompt_id ?? rec.comfy_prompt_id);
    expect(typeof rec.comfy_prompt_id).toBe("string");
    expect(rec.comfy_prompt_id).not.toBe(jobId);
    expect(rec.save_notes).toContain("take's audio copied");
    expect(rec.save_notes).toContain(CORE_FINISH_NOTE);
    expect(Object.keys(rec.save_ms).sort()).toEqual(["audio", "mp4", "total"]);
    const mp4 = path.join(ep, "renders", "sh010", `${stem}.up.mp4`);
    const info = await probe(mp4, c.s.env.services.media);
    expect([info.video?.width, info.video?.height]).toEqual([640, 360]);
    expect(await audioMd5(mp4)).toBe(await audioMd5(path.join(ep, "renders", "sh010", `${stem}.mp4`)));
    const epAnswer: Any = await c.s.call("GET", "/episode", { ep, pass: "final" });
    const t = epAnswer.body.shots.find((x: Any) => x.shot === "sh010").takes[0];
    expect(t.upscale).toMatchObject({ status: "ok", fresh: true, method: "pixel", recipe_match: null });
  });

  it("409 names the missing pack and model files; 502 when ComfyUI does not answer; nothing is written", async () => {
    const ep = await c.s.episode(SCRIPT);
    const stem = await comfyTake(ep, "sh010", 1);
    const missing = await c.s.call("POST", "/upscale", {
      ep,
      takes: [{ shot: "sh010", take: 1 }],
      method: "seedvr2",
    });
    expect(missing.status).toBe(409);
    expect(missing.body.error).toMatch(/^this ComfyUI can't run these upscales: /);
    expect(missing.body.error).toMatch(/install the ComfyUI-SeedVR2_VideoUpscaler node pack/);
    expect(missing.body.error).toMatch(/seedvr2_ema_7b_fp16\.safetensors is missing from models\/SEEDVR2\//);
    const noModel = await c.s.call("POST", "/upscale", {
      ep,
      takes: [{ shot: "sh010", take: 1 }],
      method: "pixel",
      pixel_model: "nope_x2.pth",
    });
    expect(noModel.status).toBe(409);
    expect(noModel.body.error).toMatch(/nope_x2\.pth is missing from models\/upscale_models\//);

    await c.double.setRefusing(true);
    c.s.env.services.engines.lookups.clear();
    try {
      const silent = await c.s.call("POST", "/upscale", {
        ep,
        takes: [{ shot: "sh010", take: 1 }],
        method: "pixel",
      });
      expect(silent.status).toBe(502);
      expect(silent.body.error).toMatch(/didn't answer/);
    } finally {
      await c.double.setRefusing(false);
      c.s.env.services.engines.lookups.clear();
    }
    await expect(c.s.readJson(upJson(ep, "sh010", stem))).rejects.toThrow(/ENOENT/);
  });

  it("a cancel closes the record 'canceled' (waiting or running); a retry queues it again and runs", async () => {
    const ep = await c.s.episode(SCRIPT);
    const stem = await comfyTake(ep, "sh010", 1);
    const ask = { ep, takes: [{ shot: "sh010", take: 1 }], method: "pixel" };

    // Waiting: no worker has it yet.
    const first = (await c.s.call("POST", "/upscale", ask)).body.queued[0].prompt_id;
    const canceled = await c.s.call("POST", "/jobs/cancel", { id: first });
    expect(canceled.status).toBe(200);
    expect(await c.s.readJson(upJson(ep, "sh010", stem))).toMatchObject({
      status: "failed",
      save_notes: `${stem}.up.mp4 failed: canceled`,
    });
    expect(c.s.env.events).toContainEqual({
      type: "studio.upscale",
      data: { ep, shot: "sh010", take: 1, status: "failed" },
    });

    // Retry: a new job and a new queued record, which then runs to the end.
    const retried = await c.s.call("POST", "/jobs/retry", { id: first });
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    const again: Any = await c.s.readJson(upJson(ep, "sh010", stem));
    expect(again.status).toBe("queued");
    expect(again.job).not.toBe(first);
    expect(again.save_notes).toBeUndefined();
    c.pool(kinds);
    expect((await jobEnded(c.store, again.job)).status).toBe("succeeded");
    expect(((await c.s.readJson(upJson(ep, "sh010", stem))) as Any).status).toBe("ok");

    // Running: ComfyUI holds the result back; the cancel stops the engine and closes the record.
    c.double.inject({ kind: "slow_http", ms: 20_000, path: "/view" });
    const running = (await c.s.call("POST", "/upscale", { ...ask, redo: true })).body.queued[0].prompt_id;
    await waitFor(
      async () =>
        typeof ((await c.s.readJson(upJson(ep, "sh010", stem))) as Any).comfy_prompt_id === "string" &&
        ((await c.s.readJson(upJson(ep, "sh010", stem))) as Any).job === running,
    );
    expect((await c.s.call("POST", "/jobs/cancel", { id: running })).status).toBe(200);
    expect((await jobEnded(c.store, running)).status).toBe("canceled");
    c.double.clearFaults();
    expect(await c.s.readJson(upJson(ep, "sh010", stem))).toMatchObject({
      status: "failed",
      mp4: null,
      save_notes: `${stem}.up.mp4 failed: canceled`,
    });
  });
});

describe("order: target (the master's queue)", () => {
  it("queues each model's takes together, each group where its first shot is, cut order inside", async () => {
    const series = seriesS();
    series.upscale = {
      master: { targets: { "ltx*": { method: "pixel", pixel_model: "RealESRGAN_x2.pth" } } },
    };
    const ep = await c.s.episode(SCRIPT, { series });
    for (const shot of ["sh010", "sh020", "sh030"]) await comfyTake(ep, shot, 1);
    await c.s.call("PUT", "/upscale/recipe", {
      ep,
      shot: "sh020",
      recipe: { method: "pixel", pixel_model: "4x-UltraSharp.pth" },
    });
    const services = c.s.env.services;
    const byCut = await queueUpscales(services, ep, "final", { recipe: true });
    expect(byCut.queued.map((q) => [q.shot, q.pixel_model])).toEqual([
      ["sh010", "RealESRGAN_x2.pth"],
      ["sh020", "4x-UltraSharp.pth"],
      ["sh030", "RealESRGAN_x2.pth"],
    ]);
    for (const q of byCut.queued) await c.s.call("POST", "/jobs/cancel", { id: q.prompt_id });

    const byTarget = await queueUpscales(services, ep, "final", { recipe: true, order: "target" });
    expect(byTarget.queued.map((q) => q.shot)).toEqual(["sh010", "sh030", "sh020"]);
    // The lane runs them in that order.
    const ids = byTarget.queued.map((q) => q.prompt_id);
    const lane = (await c.store.list()).jobs.filter((j) => ids.includes(j.id) && j.status === "queued");
    expect(lane.map((j) => j.info.shot)).toEqual(["sh010", "sh030", "sh020"]);
  });
});
