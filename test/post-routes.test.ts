// The post routes on real files: takes and their upscales made with ffmpeg, posts queued by POST /studio/post and run
// by a worker pool on the built-in lane (motion blur by frame blending, measured in the pixels; the upscale's audio
// copied bit for bit), every per-take error and skip, the recipe with a shot's override merged, DELETE, the options,
// and bad input.
import { mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { JobStore } from "../lib/jobs/types.ts";
import { mediaTools } from "../lib/media/ffmpeg.ts";
import { sidecarText } from "../lib/render/sidecar.ts";
import { sourceStamp } from "../lib/upscale/fresh.ts";
import { postJob } from "../workers/jobs/post.ts";
import { renderJob } from "../workers/jobs/render.ts";
import { upscaleJob } from "../workers/jobs/upscale.ts";
import type { WorkerPool } from "../workers/pool.ts";
import { jobEnded, startTestPool } from "./support/jobs.ts";
import { makeStudio, refusal, SCRIPT, type Studio } from "./support/studio-episode.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

let s: Studio;
let store: JobStore;
let ffmpeg: string;
let ffprobe: string;
const pools: WorkerPool[] = [];

beforeAll(async () => {
  s = await makeStudio();
  store = await s.env.services.jobs();
  ({ ffmpeg, ffprobe } = await mediaTools(s.env.services.media));
  // Nothing answers here: a take rendered on ComfyUI meets a silent engine.
  s.env.services.env.STUDIO_LOCAL_URL = "http://127.0.0.1:9";
});
afterAll(async () => {
  await store.close();
  await s.cleanup();
});
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.stop({ graceful: false, timeoutMs: 2_000 });
});

function startPool(): void {
  pools.push(startTestPool(s.env.services, store, { post: postJob, render: renderJob, upscale: upscaleJob }));
}

const ended = async (id: string): Promise<string> => (await jobEnded(store, id)).status;

const dirOf = (ep: string, shot: string) => path.join(ep, "renders", shot);
const stemOf = (shot: string, take: number) => `${shot}_t${String(take).padStart(2, "0")}`;

// Frames alternate dark and light (luma 16 and 235), so a blend with the previous frame shows in every frame's mean.
const FLICKER = "nullsrc=s=64x48:r=24:d=1,format=gray,geq=lum='if(mod(N\\,2)\\,235\\,16)',format=yuv420p";

/** A finished final take whose mp4 is 24 flickering frames with a tone, rendered on `backend`. */
async function takeWithVideo(ep: string, shot: string, take: number, backend = "builtin"): Promise<string> {
  const stem = stemOf(shot, take);
  await s.take(ep, "final", shot, take, { mp4: false, frames: 24, sidecar: { backend, mp4: `${stem}.mp4` } });
  await execa(ffmpeg, [
    ...[
      "-v",
      "error",
      "-y",
      "-f",
      "lavfi",
      "-i",
      FLICKER,
      "-f",
      "lavfi",
      "-i",
      "sine=frequency=440:duration=1",
    ],
    ...["-c:v", "libx264", "-g", "1", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"],
    path.join(dirOf(ep, shot), `${stem}.mp4`),
  ]);
  return stem;
}

/** The upscale the upscale job would leave: the take scaled 2×, its audio copied, the record stamped `ok`. */
async function upscaleOf(ep: string, shot: string, take: number, over: Record<string, unknown> = {}) {
  const stem = stemOf(shot, take);
  const dir = dirOf(ep, shot);
  await execa(ffmpeg, [
    ...["-v", "error", "-y", "-i", path.join(dir, `${stem}.mp4`), "-map", "0:v", "-map", "0:a"],
    ...[
      "-vf",
      "scale=128:96:flags=neighbor",
      "-c:v",
      "libx264",
      "-g",
      "1",
      "-crf",
      "1",
      "-pix_fmt",
      "yuv420p",
    ],
    ...["-c:a", "copy", path.join(dir, `${stem}.up.mp4`)],
  ]);
  const stamp = await sourceStamp(ep, path.join(dir, `${stem}.mp4`));
  const record = {
    shot,
    take,
    status: "ok",
    target: "animatic",
    route: "resample",
    method: "resample",
    mode: "lanczos",
    scale: 2,
    width: 128,
    height: 96,
    frames: await frameCount(path.join(dir, `${stem}.up.mp4`)),
    quality: "review",
    mp4: `${stem}.up.mp4`,
    audio: "copied",
    ...stamp,
    ...over,
  };
  await writeFile(path.join(dir, `${stem}.up.json`), sidecarText(record));
}

/** Mean luma of each frame of a video. */
async function lumaMeans(file: string): Promise<number[]> {
  const { stdout } = await execa(ffprobe, [
    ...["-v", "error", "-f", "lavfi", `movie=${file.replace(/([\\:'])/g, "\\$1")},signalstats`],
    ...["-show_entries", "frame_tags=lavfi.signalstats.YAVG", "-of", "csv=p=0"],
  ]);
  return stdout
    .trim()
    .split("\n")
    .map((l) => Number.parseFloat(l));
}

/** The audio stream's packets hashed (stream copy, no decode). */
async function audioHash(file: string): Promise<string> {
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

async function frameCount(file: string): Promise<number> {
  const { stdout } = await execa(ffprobe, [
    ...["-v", "error", "-select_streams", "v:0", "-count_packets"],
    ...["-show_entries", "stream=nb_read_packets,width,height", "-of", "json", file],
  ]);
  return Number(JSON.parse(stdout).streams[0].nb_read_packets);
}

const postEvents = () => s.env.events.filter((e: Any) => e.type === "studio.post").map((e: Any) => e.data);

describe("POST /studio/post on the built-in engine", () => {
  let ep: string;
  beforeAll(async () => {
    ep = await s.episode(SCRIPT);
    await takeWithVideo(ep, "sh010", 1);
    await upscaleOf(ep, "sh010", 1);
  });

  it("blends each frame with the one before by the shutter, keeps size, frames and the upscale's audio, and records it honestly", async () => {
    const res = await s.call("POST", "/post", { ep, takes: [{ shot: "sh010", take: 1 }], blur: 0.5 });
    expect(res.status).toBe(200);
    expect(res.body.errors).toEqual([]);
    expect(res.body.queued).toEqual([
      {
        shot: "sh010",
        take: 1,
        what: "motion blur 0.5 (180° shutter)",
        width: 128,
        height: 96,
        prompt_id: expect.stringMatching(/^j_/),
      },
    ]);
    const dir = dirOf(ep, "sh010");
    const queued = (await s.readJson(path.join(dir, "sh010_t01.post.json"))) as Any;
    expect(queued).toMatchObject({
      shot: "sh010",
      take: 1,
      status: "queued",
      comfy_prompt_id: null,
      recipe: { size: [128, 96], motion_blur: 0.5 },
      recipe_hash: expect.stringMatching(/^[0-9a-f]{12}$/),
      encoder_asked: "auto",
      quality: "review",
      width: 128,
      height: 96,
      job: res.body.queued[0].prompt_id,
    });
    expect(postEvents()).toEqual([{ ep, shot: "sh010", take: 1, status: "queued" }]);

    startPool();
    expect(await ended(res.body.queued[0].prompt_id)).toBe("succeeded");
    const rec = (await s.readJson(path.join(dir, "sh010_t01.post.json"))) as Any;
    expect(rec).toMatchObject({
      status: "ok",
      frames: 24,
      width: 128,
      height: 96,
      mp4: "sh010_t01.post.mp4",
      audio: "copied",
      encoder: "libx264",
      recipe_hash: queued.recipe_hash,
      motion_blur_method: expect.stringMatching(/frame blending.*not optical flow/),
    });
    expect(rec.save_notes).toMatch(/mp4 written \(libx264\); the upscale's audio copied/);
    expect(rec.save_ms.total).toBeGreaterThanOrEqual(rec.save_ms.mp4);
    const up = await stat(path.join(dir, "sh010_t01.up.mp4"), { bigint: true });
    expect(BigInt(rec.source_size)).toBe(up.size);
    expect(typeof rec.finished).toBe("string");
    expect(postEvents().at(-1)).toEqual({ ep, shot: "sh010", take: 1, status: "ok" });

    const post = path.join(dir, "sh010_t01.post.mp4");
    expect(await frameCount(post)).toBe(24);
    expect(await audioHash(post)).toBe(await audioHash(path.join(dir, "sh010_t01.up.mp4")));
    // Dark and light alternate: a quarter of the frame before is mixed in (180° shutter), the first frame is alone.
    const before = await lumaMeans(path.join(dir, "sh010_t01.up.mp4"));
    const after = await lumaMeans(post);
    expect(after).toHaveLength(24);
    expect(before[1] - before[0]).toBeGreaterThan(150);
    expect(Math.abs(after[1] - (0.75 * before[1] + 0.25 * before[0]))).toBeLessThan(6);
    expect(Math.abs(after[2] - (0.75 * before[2] + 0.25 * before[1]))).toBeLessThan(6);
    expect(Math.abs(after[0] - before[0])).toBeLessThan(3);

    const episode = await s.call("GET", "/episode", { ep, pass: "final" });
    const take = episode.body.shots.find((x: Any) => x.shot === "sh010").takes.find((t: Any) => t.take === 1);
    expect(take.post).toMatchObject({ status: "ok", fresh: true, width: 128, height: 96 });
  });

  it("skips a fresh post with the same settings, redoes it with redo or other settings", async () => {
    const again = await s.call("POST", "/post", { ep, takes: [{ shot: "sh010", take: 1 }], blur: 0.5 });
    expect(again.body).toEqual({
      queued: [],
      skipped: [{ shot: "sh010", take: 1, reason: "a fresh post with these settings" }],
      errors: [],
    });
    const other = await s.call("POST", "/post", { ep, takes: [{ shot: "sh010", take: "1" }], blur: 0.25 });
    expect(other.body.queued).toHaveLength(1);
    startPool();
    expect(await ended(other.body.queued[0].prompt_id)).toBe("succeeded");
    const redo = await s.call("POST", "/post", {
      ep,
      takes: [{ shot: "sh010", take: 1 }],
      blur: 0.25,
      redo: true,
    });
    expect(redo.body.queued).toHaveLength(1);
    expect(await ended(redo.body.queued[0].prompt_id)).toBe("succeeded");
  });

  it("is nothing to do with blur 0, and says so per take", async () => {
    const res = await s.call("POST", "/post", { ep, shots: ["sh010"], blur: 0 });
    expect(res.body).toEqual({
      queued: [],
      skipped: [],
      errors: [{ shot: "sh010", take: 1, error: "nothing to do (no enhance, no motion blur)" }],
    });
  });

  it("uses the recipe when neither enhance nor blur is given, and answers 409 when the series has none", async () => {
    refusal(await s.call("POST", "/post", { ep }), 409, "the series config has no post.master recipe");
    refusal(await s.call("POST", "/post", { ep, enhance: null }), 409, /no post.master recipe/);
    refusal(await s.call("POST", "/post", { ep, recipe: true, blur: 0.5 }), 409, /no post.master recipe/);
  });

  it("refuses enhance on the built-in engine per take, and bad settings per take", async () => {
    const res = await s.call("POST", "/post", { ep, shots: ["sh010"], enhance: "draft" });
    expect(res.body.errors).toEqual([
      {
        shot: "sh010",
        take: 1,
        error: expect.stringMatching(/^the built-in engine has no enhance step \(pixel runs on ComfyUI\)/),
      },
    ]);
    const bad = await s.call("POST", "/post", { ep, shots: ["sh010"], blur: 1.5 });
    expect(bad.body.errors[0].error).toMatch(/motion blur must be a number from 0 to 1/);
    const badEnhance = await s.call("POST", "/post", {
      ep,
      shots: ["sh010"],
      enhance: { method: "supir", strength: 2 },
    });
    expect(badEnhance.body.errors[0].error).toMatch(/strength must be from 0.05 to 0.5/);
  });

  it("walks the whole cut when no shots are named: a shot with no take or no upscale is said per shot", async () => {
    await takeWithVideo(ep, "sh020", 1);
    const res = await s.call("POST", "/post", { ep, blur: 0.25 });
    expect(res.body.skipped).toEqual(
      expect.arrayContaining([
        { shot: "sh010", take: 1, reason: "a fresh post with these settings" },
        { shot: "sh030", reason: "sh030 has no usable final take" },
      ]),
    );
    expect(res.body.errors).toEqual([
      { shot: "sh020", take: 1, error: "no upscale yet (a post is made from the upscale: upscale first)" },
    ]);
    // The last post of sh010 (above) was made with blur 0.25. An empty list is not the whole cut.
    expect((await s.call("POST", "/post", { ep, shots: [], blur: 0.25 })).body).toEqual({
      queued: [],
      skipped: [],
      errors: [],
    });
    const missing = await s.call("POST", "/post", { ep, takes: [{ shot: "sh010", take: 9 }], blur: 0.25 });
    expect(missing.body.skipped).toEqual([{ shot: "sh010", reason: "final take 9 of sh010 doesn't exist" }]);
  });

  it("leaves out shots marked out and the cut's placeholders from the other pass", async () => {
    await s.call("PUT", "/cut", {
      ep,
      pass: "final",
      entries: [{ shot: "sh010", out: true }, { shot: "sh020", pass: "proxy", take: 1 }, { shot: "sh030" }],
    });
    const res = await s.call("POST", "/post", { ep, blur: 0.25 });
    expect(res.body.skipped).toEqual([
      { shot: "sh020", reason: "the cut uses its proxy take" },
      { shot: "sh030", reason: "sh030 has no usable final take" },
    ]);
    // Named, an `out` shot is done.
    const named = await s.call("POST", "/post", { ep, shots: ["sh010"], blur: 0.25 });
    expect(named.body.skipped).toEqual([
      { shot: "sh010", take: 1, reason: "a fresh post with these settings" },
    ]);
    await s.call("PUT", "/cut", { ep, pass: "final", entries: [] });
  });

  it("turns stale with its upscale: a re-rendered take makes the post stale and a new post an error", async () => {
    const ep2 = await s.episode(SCRIPT);
    await takeWithVideo(ep2, "sh010", 1);
    await upscaleOf(ep2, "sh010", 1);
    const res = await s.call("POST", "/post", { ep: ep2, shots: ["sh010"], blur: 0.5 });
    startPool();
    expect(await ended(res.body.queued[0].prompt_id)).toBe("succeeded");
    // The same take number rendered again: other bytes.
    await execa(ffmpeg, [
      ...["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=64x48:r=24:d=1", "-f", "lavfi"],
      ...["-i", "sine=frequency=220:duration=1", "-c:v", "libx264", "-c:a", "aac", "-shortest"],
      path.join(dirOf(ep2, "sh010"), "sh010_t01.mp4"),
    ]);
    const episode = await s.call("GET", "/episode", { ep: ep2, pass: "final" });
    const take = episode.body.shots.find((x: Any) => x.shot === "sh010").takes[0];
    expect(take.post).toMatchObject({ status: "ok", fresh: false });
    const again = await s.call("POST", "/post", { ep: ep2, shots: ["sh010"], blur: 0.5 });
    expect(again.body.errors).toEqual([
      {
        shot: "sh010",
        take: 1,
        error: "its upscale is stale or unfinished (it was made from an older take: upscale it again)",
      },
    ]);
  });

  it("says an upscale still being made or failed is unfinished", async () => {
    const ep3 = await s.episode(SCRIPT);
    await takeWithVideo(ep3, "sh010", 1);
    await upscaleOf(ep3, "sh010", 1, { status: "queued" });
    await takeWithVideo(ep3, "sh020", 1);
    await upscaleOf(ep3, "sh020", 1, { status: "failed" });
    const res = await s.call("POST", "/post", { ep: ep3, shots: ["sh010", "sh020"], blur: 0.5 });
    expect(res.body.errors.map((e: Any) => e.error)).toEqual([
      "its upscale is stale or unfinished (it is still being made: post it once it is done)",
      "its upscale is stale or unfinished (its last upscale failed: upscale it again)",
    ]);
  });
});

describe("an animatic episode from render to post", () => {
  it("blurs the upscale the upscale route made of a take the built-in engine rendered", async () => {
    const series = (await import("./support/series-s.ts")).seriesS();
    series.series.width = 448;
    series.series.height = 256;
    const ep = await s.episode(SCRIPT, { series });
    startPool();
    const render = await s.call("POST", "/render", {
      ep,
      pass: "final",
      shots: ["sh020"],
      target: "animatic",
    });
    expect(render.body.queued).toHaveLength(1);
    expect(await ended(render.body.queued[0].prompt_id)).toBe("succeeded");
    const up = await s.call("POST", "/upscale", { ep, shots: ["sh020"], deliver: "896x512" });
    expect(up.body.queued).toHaveLength(1);
    expect(await ended(up.body.queued[0].prompt_id)).toBe("succeeded");
    const post = await s.call("POST", "/post", { ep, shots: ["sh020"], blur: 0.5 });
    expect(post.body.queued).toEqual([expect.objectContaining({ shot: "sh020", width: 896, height: 512 })]);
    expect(await ended(post.body.queued[0].prompt_id)).toBe("succeeded");
    const dir = dirOf(ep, "sh020");
    const upRec = (await s.readJson(path.join(dir, "sh020_t01.up.json"))) as Any;
    const rec = (await s.readJson(path.join(dir, "sh020_t01.post.json"))) as Any;
    expect(rec).toMatchObject({ status: "ok", frames: upRec.frames, width: 896, height: 512 });
    expect(await frameCount(path.join(dir, "sh020_t01.post.mp4"))).toBe(upRec.frames);
    expect(rec.audio).toBe(upRec.audio);
    if (rec.audio === "copied")
      expect(await audioHash(path.join(dir, "sh020_t01.post.mp4"))).toBe(
        await audioHash(path.join(dir, "sh020_t01.up.mp4")),
      );
    const episode = await s.call("GET", "/episode", { ep, pass: "final" });
    const take = episode.body.shots.find((x: Any) => x.shot === "sh020").takes[0];
    expect(take.upscale).toMatchObject({ status: "ok", fresh: true });
    expect(take.post).toMatchObject({ status: "ok", fresh: true, width: 896, height: 512 });
  }, 120_000);
});

describe("the post recipe", () => {
  it("merges each shot's overrides.json post entry over series post.master and records the merged recipe", async () => {
    const series = (await import("./support/series-s.ts")).seriesS();
    series.post = { master: { motion_blur: 0.3 } };
    const ep = await s.episode(SCRIPT, { series });
    await writeFile(
      path.join(ep, "overrides.json"),
      JSON.stringify({ post: { sh020: { motion_blur: 0.6 } } }),
    );
    for (const shot of ["sh010", "sh020"]) {
      await takeWithVideo(ep, shot, 1);
      await upscaleOf(ep, shot, 1);
    }
    const res = await s.call("POST", "/post", { ep, shots: ["sh010", "sh020"] });
    expect(res.body.queued.map((q: Any) => [q.shot, q.what])).toEqual([
      ["sh010", "motion blur 0.3 (108° shutter)"],
      ["sh020", "motion blur 0.6 (216° shutter)"],
    ]);
    const rec = (await s.readJson(path.join(dirOf(ep, "sh020"), "sh020_t01.post.json"))) as Any;
    expect(rec.recipe).toEqual({ size: [128, 96], motion_blur: 0.6 });

    const options = await s.call("GET", "/post/options", { ep });
    expect(options.body.recipe).toEqual({
      fields: { motion_blur: 0.3 },
      text: "motion blur 0.3 (108° shutter)",
      shots: { sh020: { fields: { motion_blur: 0.6 }, text: "motion blur 0.6 (216° shutter)" } },
      problems: [],
    });
    // The request's own settings stand instead of the recipe.
    const own = await s.call("POST", "/post", { ep, shots: ["sh010"], blur: 0.5 });
    expect(own.body.queued[0].what).toBe("motion blur 0.5 (180° shutter)");
    for (const id of [...res.body.queued, ...own.body.queued].map((q: Any) => q.prompt_id))
      await store.cancel(id);
  });
});

describe("posts on ComfyUI", () => {
  it("answers 502 when the ComfyUI a take was rendered on does not answer, writing nothing", async () => {
    const ep = await s.episode(SCRIPT);
    await takeWithVideo(ep, "sh010", 1, "local");
    await upscaleOf(ep, "sh010", 1);
    const res = await s.call("POST", "/post", { ep, shots: ["sh010"], enhance: "production" });
    refusal(res, 502, /didn't answer/);
    await expect(stat(path.join(dirOf(ep, "sh010"), "sh010_t01.post.json"))).rejects.toThrow();
  });
});

describe("DELETE /studio/post", () => {
  it("removes the post's files, refuses while its job waits, and says what is missing", async () => {
    const ep = await s.episode(SCRIPT);
    await takeWithVideo(ep, "sh010", 1);
    await upscaleOf(ep, "sh010", 1);
    refusal(
      await s.call("DELETE", "/post", { ep, shot: "sh010", take: 1 }),
      404,
      "final take 1 of sh010 has no post-process",
    );
    refusal(
      await s.call("DELETE", "/post", { ep, shot: "sh010", take: 4 }),
      404,
      "final take 4 of sh010 doesn't exist",
    );
    refusal(await s.call("DELETE", "/post", { ep, shot: "sh010", take: "x" }), 400, /take/);
    const q = await s.call("POST", "/post", { ep, shots: ["sh010"], blur: 0.5 });
    const id = q.body.queued[0].prompt_id;
    refusal(
      await s.call("DELETE", "/post", { ep, shot: "sh010", take: 1 }),
      409,
      /still in the builtin queue/,
      ["job"],
    );
    await store.cancel(id);
    s.env.events.length = 0;
    const del = await s.call("DELETE", "/post", { ep, shot: "sh010", take: 1 });
    expect(del.body).toEqual({ shot: "sh010", take: 1, deleted: true });
    expect(postEvents()).toEqual([{ ep, shot: "sh010", take: 1, status: "deleted" }]);
    await expect(stat(path.join(dirOf(ep, "sh010"), "sh010_t01.post.json"))).rejects.toThrow();
    // The proxy pass is only touched when asked for.
    refusal(
      await s.call("DELETE", "/post", { ep, shot: "sh010", take: 1, pass: "proxy" }),
      404,
      /proxy take 1/,
    );
  });

  it("a post canceled before it ran has its record closed 'canceled'; a retry queues it again and runs", async () => {
    const ep = await s.episode(SCRIPT);
    await takeWithVideo(ep, "sh010", 1);
    await upscaleOf(ep, "sh010", 1);
    const q = await s.call("POST", "/post", { ep, shots: ["sh010"], blur: 0.5 });
    const id = q.body.queued[0].prompt_id;
    s.env.events.length = 0;
    expect((await s.call("POST", "/jobs/cancel", { id })).status).toBe(200);
    const rec = JSON.parse(await readFile(path.join(dirOf(ep, "sh010"), "sh010_t01.post.json"), "utf8"));
    expect(rec).toMatchObject({
      status: "failed",
      job: id,
      save_notes: "sh010_t01.post.mp4 failed: canceled",
    });
    expect(typeof rec.finished).toBe("string");
    expect(postEvents()).toEqual([{ ep, shot: "sh010", take: 1, status: "failed" }]);
    // A retry queues the record again under the new job, which then makes the post.
    const retried = await s.call("POST", "/jobs/retry", { id });
    expect(retried.status).toBe(200);
    const next = (await store.list()).jobs.find(
      (j) => j.kind === "post" && j.status === "queued" && j.info.ep === ep,
    );
    expect(next?.id).toBeDefined();
    expect(next?.id).not.toBe(id);
    startPool();
    expect(await ended(next?.id ?? "")).toBe("succeeded");
    const done = JSON.parse(await readFile(path.join(dirOf(ep, "sh010"), "sh010_t01.post.json"), "utf8"));
    expect(done).toMatchObject({ status: "ok", job: next?.id, mp4: "sh010_t01.post.mp4", audio: "copied" });
    expect(done.save_notes).not.toMatch(/canceled/);
  });

  it("deletes a finished post's mp4 too", async () => {
    const ep = await s.episode(SCRIPT);
    await takeWithVideo(ep, "sh010", 1);
    await upscaleOf(ep, "sh010", 1);
    const q = await s.call("POST", "/post", { ep, shots: ["sh010"], blur: 0.5 });
    startPool();
    expect(await ended(q.body.queued[0].prompt_id)).toBe("succeeded");
    expect((await s.call("DELETE", "/post", { ep, shot: "sh010", take: "1" })).status).toBe(200);
    await expect(stat(path.join(dirOf(ep, "sh010"), "sh010_t01.post.mp4"))).rejects.toThrow();
  });
});

describe("GET /studio/post/options", () => {
  it("lists tiers, methods and ranges; readiness is unknown while ComfyUI does not answer; no recipe without ep", async () => {
    const res = await s.call("GET", "/post/options");
    expect(res.status).toBe(200);
    expect(res.body.tiers.map((t: Any) => t.id)).toEqual(["draft", "production", "cinematic"]);
    expect(res.body.tiers[1].enhance).toEqual({
      method: "seedvr2",
      seedvr2_model: "7b",
      chunk: "fit",
      overlap: 6,
    });
    for (const t of res.body.tiers) expect(t.readiness).toEqual({ status: "unknown", missing: [] });
    expect(res.body.methods).toEqual(["pixel", "seedvr2", "supir"]);
    expect(res.body.blur).toMatchObject({ min: 0, max: 1, default: 0.3, readiness: { status: "unknown" } });
    expect(res.body.blur.builtin.method).toMatch(/not optical flow/);
    expect(res.body.strength).toEqual({ min: 0.05, max: 0.5, default: 0.2 });
    expect(res.body.recipe).toBeNull();
    const ep = await s.episode(SCRIPT);
    expect((await s.call("GET", "/post/options", { ep })).body.recipe).toBeNull();
  });
});

describe("bad input", () => {
  it("is a 400 saying which field, before anything runs", async () => {
    const ep = await s.episode(SCRIPT);
    for (const body of [
      { ep, blur: "0.5" },
      { ep, quality: "best" },
      { ep, pass: "FINAL" },
      { ep, shots: "sh010" },
      { ep, takes: [{ shot: "sh010", take: "a" }] },
      { ep, takes: [{ shot: "sh010", take: 0 }] },
      { ep, takes: [{ take: 1 }] },
      { ep, enhance: 5 },
      { ep, redo: "yes" },
      { ep, recipe: 1 },
    ]) {
      const res = await s.call("POST", "/post", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    refusal(await s.call("POST", "/post", { ep: "relative/ep" }), 400, /absolute/);
    expect((await s.call("POST", "/post", { ep: path.join(s.root, "nope") })).status).toBe(404);
    expect((await s.call("DELETE", "/post", { ep, shot: "sh010" })).status).toBe(400);
    expect((await s.call("GET", "/post/options", { ep: "/etc" })).status).toBe(403);
  });

  it("answers 404 for a pass that is not built", async () => {
    const ep = await s.episode(SCRIPT, { build: false });
    await mkdir(path.join(ep, "renders"), { recursive: true });
    refusal(await s.call("POST", "/post", { ep, blur: 0.5 }), 404, /has no build/);
    await rm(path.join(ep, "renders"), { recursive: true });
    expect(await readFile(path.join(ep, "ep01.md"), "utf8")).toContain("sh010");
  });
});
