// Show files read and written through the guarded door: a folder or file that is a link leading out of the
// episode, the show or the roots is refused (4xx, or a render that fails saying so), and nothing outside is touched.
import { mkdir, readdir, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBuiltinEngine } from "../lib/engines/builtin/index.ts";
import { commit, discard } from "../lib/engines/builtin/work.ts";
import type { EngineJob, RunHooks } from "../lib/engines/types.ts";
import { FileProbe, hashFile, keyframeGate } from "../lib/episode/staleness.ts";
import { listTakes } from "../lib/episode/takes.ts";
import { StudioError } from "../lib/errors.ts";
import { mediaTools } from "../lib/media/ffmpeg.ts";
import { extractWav, makeStrip, makeThumbnail } from "../lib/media/take-media.ts";
import { thumbCacheDir, thumbnail } from "../lib/media/thumbs.ts";
import { createMediaTools } from "../lib/media/tools.ts";
import { episodeFence, listShowFiles, readListedJson, rootsFence, showFence } from "../lib/paths/guarded.ts";
import { cutLastFrame, frameOutdated } from "../lib/render/continuity.ts";
import { createCaches } from "../lib/store/caches.ts";
import type { TargetSpec } from "../lib/targets/registry.ts";
import { resolveWorkflow } from "../lib/targets/workflow.ts";
import { makeStudio, refusal, SCRIPT, type Studio } from "./support/studio-episode.ts";

let s: Studio;
let root: string; // the configured root, real
let outside: string; // a real folder outside the roots
let clip: string; // a short mp4 with sound, inside the root
let outsideClip: string;
let n = 0;

const media = createMediaTools(() => process.env);

/** A fresh empty folder outside the roots, to link to and to check that nothing landed in. */
async function outsideDir(): Promise<string> {
  const dir = path.join(outside, `o${++n}`);
  await mkdir(dir, { recursive: true });
  return dir;
}

/** A folder of `ep` at `rel` that is a link to a fresh folder outside the roots; answers that outside folder. */
async function linkedOut(ep: string, rel: string): Promise<string> {
  const target = await outsideDir();
  await mkdir(path.dirname(path.join(ep, rel)), { recursive: true });
  await symlink(target, path.join(ep, rel));
  return target;
}

async function makeClip(file: string): Promise<void> {
  const { ffmpeg } = await mediaTools(media);
  await execa(ffmpeg, [
    "-v",
    "error",
    "-f",
    "lavfi",
    "-i",
    "testsrc=size=64x48:rate=24:duration=0.5",
    "-f",
    "lavfi",
    "-i",
    "sine=frequency=440:sample_rate=48000:duration=0.5",
    "-c:v",
    "libx264",
    "-pix_fmt",
    "yuv420p",
    "-c:a",
    "aac",
    "-shortest",
    file,
  ]);
}

async function refused(work: Promise<unknown>, message: RegExp): Promise<void> {
  const err = await work.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, "the operation was not refused").toBeInstanceOf(StudioError);
  expect((err as StudioError).status).toBe(403);
  expect((err as StudioError).message).toMatch(message);
}

beforeAll(async () => {
  s = await makeStudio();
  root = await realpath(s.root);
  outside = path.join(await realpath(s.env.dir), "outside");
  await mkdir(outside, { recursive: true });
  clip = path.join(root, "clip.mp4");
  await makeClip(clip);
  outsideClip = path.join(outside, "clip.mp4");
  await makeClip(outsideClip);
});
afterAll(async () => {
  await s.cleanup();
});

describe("the built-in engine", () => {
  const engine = createBuiltinEngine(media);

  function job(ep: string, over: Partial<EngineJob>): EngineJob {
    return {
      kind: "video",
      target: "animatic",
      ep,
      pass: "proxy",
      subject: "sh010",
      take: 1,
      stem: "sh010_t01",
      width: 64,
      height: 48,
      fps: 24,
      frames: 6,
      seed: 1n,
      prompt: "A yard.",
      negative: null,
      entry: {},
      inputs: {},
      captions: [],
      workDir: path.join(ep, "renders_proxy", "sh010", ".work"),
      ...over,
    };
  }

  async function run(j: EngineJob) {
    const hooks: RunHooks = { signal: new AbortController().signal, onProgress: () => {} };
    const prepared = await engine.prepare(j, hooks);
    return engine.collect(j, await engine.submit(j, prepared, hooks), hooks);
  }

  it("renders nothing into a take folder linked out of the episode (video, picture and sound)", async () => {
    const ep = await s.episode(SCRIPT, { build: false });
    const out = await linkedOut(ep, "renders_proxy/sh010");
    const jobs: EngineJob[] = [
      job(ep, {}),
      job(ep, { kind: "image", target: "card", frames: 0 }),
      job(ep, { kind: "audio", target: "silence", frames: 24 }),
    ];
    for (const j of jobs) await refused(run(j), /leads outside the episode folder/);
    expect(await readdir(out)).toEqual([]);
  });

  it("never reads a keyframe or plate that is a link out of the show folder: the animatic drops it with a note", async () => {
    const ep = await s.episode(SCRIPT, { build: false });
    const out = await outsideDir();
    const secret = path.join(out, "secret.png");
    await sharp({ create: { width: 8, height: 8, channels: 3, background: "#ff0000" } })
      .png()
      .toFile(secret);
    await mkdir(path.join(ep, "refs", "shots"), { recursive: true });
    const linked = path.join(ep, "refs", "shots", "sh010_first.png");
    await symlink(secret, linked);
    const hooks: RunHooks = { signal: new AbortController().signal, onProgress: () => {} };
    const prepared = await engine.prepare(job(ep, { inputs: { first: linked } }), hooks);
    expect(prepared.inputs).toEqual({});
    expect(prepared.notes.join("\n")).toMatch(
      /input first .* is missing or outside the show folder; not used/,
    );
  });

  it("commit and discard refuse a take file whose folder leads out, and leave what is there alone", async () => {
    const ep = await s.episode(SCRIPT, { build: false });
    const fence = episodeFence(ep);
    const tmp = path.join(ep, "renders_proxy", "sh020", ".sh020_t01.tmp.mp4");
    await mkdir(path.dirname(tmp), { recursive: true });
    await writeFile(tmp, "rendered");
    const out = await linkedOut(ep, "renders_proxy/sh030");
    await writeFile(path.join(out, "sh030_t01.mp4"), "kept");
    await refused(
      commit(fence, [[tmp, path.join(ep, "renders_proxy", "sh030", "sh030_t01.mp4")]]),
      /leads outside the episode folder/,
    );
    expect(await readFile(path.join(out, "sh030_t01.mp4"), "utf8")).toBe("kept");
    expect(await readFile(tmp, "utf8")).toBe("rendered");
    await refused(
      discard(fence, [path.join(ep, "renders_proxy", "sh030", "sh030_t01.mp4")]),
      /leads outside the episode folder/,
    );
    expect(await readdir(out)).toEqual(["sh030_t01.mp4"]);
    // Inside the episode both still work.
    const final = path.join(ep, "renders_proxy", "sh020", "sh020_t01.mp4");
    await commit(fence, [[tmp, final]]);
    expect(await readFile(final, "utf8")).toBe("rendered");
    await discard(fence, [final]);
    expect(await readdir(path.dirname(final))).toEqual([]);
  });
});

describe("take listings", () => {
  it("reads a sidecar only as a regular file of the checked folder: one linked out is never read", async () => {
    const ep = await s.episode(SCRIPT, { build: false });
    const dir = path.join(ep, "renders_proxy", "sh010");
    await mkdir(dir, { recursive: true });
    const out = await outsideDir();
    await writeFile(path.join(out, "secret.json"), JSON.stringify({ status: "ok", prompt: "SECRET" }));
    await symlink(path.join(out, "secret.json"), path.join(dir, "sh010_t01.json"));
    await writeFile(path.join(dir, "sh010_t02.json"), JSON.stringify({ status: "failed", prompt: "own" }));
    const takes = await listTakes({ caches: createCaches() }, ep, "proxy", "sh010");
    expect(takes.map((t) => t.take)).toEqual([2]);
    expect(JSON.stringify(takes)).not.toContain("SECRET");
    const listing = await listShowFiles(episodeFence(ep), dir);
    expect(listing?.files).toEqual(["sh010_t02.json"]);
    await expect(
      readListedJson({ caches: createCaches() }, listing!, "sh010_t01.json", "take sidecar"),
    ).rejects.toThrow(/not a file of the listed/);
  });
});

describe("take media", () => {
  it("makes no thumbnail, strip or wav in a folder linked out of the episode", async () => {
    const ep = await s.episode(SCRIPT, { build: false });
    const fence = episodeFence(ep);
    const mp4 = path.join(ep, "renders_proxy", "sh010", "sh010_t01.mp4");
    await mkdir(path.dirname(mp4), { recursive: true });
    await writeFile(mp4, await readFile(clip));
    const out = await linkedOut(ep, "renders_proxy/sh020");
    const dir = path.join(ep, "renders_proxy", "sh020");
    await refused(
      makeThumbnail(fence, mp4, path.join(dir, "x.jpg"), media),
      /leads outside the episode folder/,
    );
    await refused(
      makeStrip(fence, mp4, path.join(dir, "x_strip.jpg"), media),
      /leads outside the episode folder/,
    );
    await refused(extractWav(fence, mp4, path.join(dir, "x.wav"), media), /leads outside the episode folder/);
    expect(await readdir(out)).toEqual([]);
    // The same clip makes all three inside the episode.
    const own = path.dirname(mp4);
    await makeThumbnail(fence, mp4, path.join(own, "sh010_t01.jpg"), media);
    await makeStrip(fence, mp4, path.join(own, "sh010_t01_strip.jpg"), media);
    await extractWav(fence, mp4, path.join(own, "sh010_t01_h3.wav"), media);
    expect((await readdir(own)).sort()).toEqual([
      "sh010_t01.jpg",
      "sh010_t01.mp4",
      "sh010_t01_h3.wav",
      "sh010_t01_strip.jpg",
    ]);
  });

  it("never reads a clip that is a link out of the episode", async () => {
    const ep = await s.episode(SCRIPT, { build: false });
    const fence = episodeFence(ep);
    const dir = path.join(ep, "renders_proxy", "sh010");
    await mkdir(dir, { recursive: true });
    const link = path.join(dir, "sh010_t01.mp4");
    await symlink(outsideClip, link);
    await refused(makeThumbnail(fence, link, path.join(dir, "sh010_t01.jpg"), media), /leads outside/);
    await refused(extractWav(fence, link, path.join(dir, "sh010_t01_h3.wav"), media), /leads outside/);
    expect(await readdir(dir)).toEqual(["sh010_t01.mp4"]);
  });
});

describe("continuity", () => {
  it("cuts no first frame into a keyframe folder linked out, and reads no clip linked out", async () => {
    const ep = await s.episode(SCRIPT, { build: false });
    const fence = episodeFence(ep);
    const video = path.join(ep, "renders_proxy", "sh010", "sh010_t01.mp4");
    await mkdir(path.dirname(video), { recursive: true });
    await writeFile(video, await readFile(clip));
    const out = await linkedOut(ep, "refs/shots/sh020");
    const frame = path.join(ep, "refs", "shots", "sh020", "first.png");
    await refused(frameOutdated(fence, frame, video), /leads outside the episode folder/);
    await refused(cutLastFrame(fence, video, frame, media), /leads outside the episode folder/);
    expect(await readdir(out)).toEqual([]);

    const linkedVideo = path.join(ep, "renders_proxy", "sh010", "sh010_t02.mp4");
    await symlink(outsideClip, linkedVideo);
    const own = path.join(ep, "refs", "shots", "sh030", "first.png");
    await refused(cutLastFrame(fence, linkedVideo, own, media), /leads outside the episode folder/);
    expect(await readdir(path.dirname(own)).catch(() => [])).toEqual([]);
    // A clip and a folder inside the episode still give the frame.
    expect(await frameOutdated(fence, own, video)).toBe("missing");
    await cutLastFrame(fence, video, own, media);
    expect((await sharp(own).metadata()).width).toBe(64);
  });

  it("a render whose first frame folder is linked out answers a clear per-shot error and writes nothing there", async () => {
    const ep = await s.episode(SCRIPT.replace("## sh020\n", "## sh020\ncontinuous: first\n"));
    await s.take(ep, "proxy", "sh010", 1);
    await writeFile(path.join(ep, "renders_proxy", "sh010", "sh010_t01.mp4"), await readFile(clip));
    const out = await linkedOut(ep, "refs/shots/sh020");
    const res = await s.call("POST", "/render", { ep, pass: "proxy", shots: ["sh020"] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(JSON.stringify(res.body.errors)).toMatch(/leads outside the episode folder/);
    expect(await readdir(out)).toEqual([]);
  });
});

describe("thumbnails", () => {
  it("never reads a picture linked out of the roots, and caches nothing for it", async () => {
    const pic = path.join(outside, "secret.png");
    await sharp({ create: { width: 40, height: 30, channels: 3, background: "#00ff00" } })
      .png()
      .toFile(pic);
    const ep = await s.episode(SCRIPT, { build: false });
    const link = path.join(ep, "pic.png");
    await symlink(pic, link);
    const fence = rootsFence([root]);
    await refused(thumbnail(s.env.services, fence, link, 128), /leads outside the configured roots/);
    const cached = await readdir(thumbCacheDir(s.env.home)).catch(() => []);
    expect(cached).toEqual([]);
    // A picture inside the roots is made small and cached.
    const own = path.join(ep, "own.png");
    await sharp({ create: { width: 40, height: 30, channels: 3, background: "#0000ff" } })
      .png()
      .toFile(own);
    const made = await thumbnail(s.env.services, fence, own, 128);
    expect(made && path.dirname(made)).toBe(thumbCacheDir(s.env.home));
  });
});

describe("staleness inputs", () => {
  it("counts a reference or keyframe folder linked out of the show as missing, never stats or hashes it", async () => {
    const ep = await s.episode(SCRIPT, { build: false });
    const out = await outsideDir();
    await writeFile(path.join(out, "dean.png"), "outside picture");
    await mkdir(path.join(ep, "refs"), { recursive: true });
    const ref = path.join(ep, "refs", "dean.png");
    await symlink(path.join(out, "dean.png"), ref);
    const own = path.join(ep, "refs", "mara.png");
    await writeFile(own, "own picture");
    const keyOut = await linkedOut(ep, "refs/shots");
    await mkdir(path.join(keyOut, "sh010"), { recursive: true });
    await writeFile(path.join(keyOut, "sh010", "first.png"), "outside keyframe");

    const probe = new FileProbe({ caches: createCaches() }, showFence(ep), [keyframeGate(ep)]);
    expect(await probe.exists(ref)).toBe(false);
    expect(await probe.sha1(ref)).toBeNull();
    expect(await probe.exists(path.join(ep, "refs", "shots", "sh010", "first.png"))).toBe(false);
    expect(await probe.exists(own)).toBe(true);
    expect(await probe.sha1(own)).toMatch(/^[0-9a-f]{40}$/);
    expect(await hashFile(showFence(ep), ref)).toBeNull();
    expect(await hashFile(showFence(ep), own)).toBe(await probe.sha1(own));
  });
});

describe("a show's own targets", () => {
  const target = (id: string) =>
    JSON.stringify({ id, kind: "video", label: `Outside ${id}`, template: {}, presets: { final: {} } });

  it("GET /targets refuses a targets/ folder linked out of the show, and never lists what is there", async () => {
    const ep = await s.episode(SCRIPT, { build: false });
    const out = await linkedOut(ep, "targets");
    await mkdir(path.join(out, "outside_t"), { recursive: true });
    await writeFile(path.join(out, "outside_t", "target.json"), target("outside_t"));
    const res = await s.call("GET", "/targets", { ep });
    refusal(res, 403, /targets.* leads outside the show folder through a symbolic link/);
    // A build goes on with the shipped targets (never a 500), reading nothing there.
    const built = await s.call("POST", "/build", { ep });
    expect(built.status, JSON.stringify(built.body)).toBe(200);
    expect(built.body.ok, JSON.stringify(built.body)).toBe(true);
  });

  it("skips a target.json linked out of the show and lists the show's other targets", async () => {
    const ep = await s.episode(SCRIPT, { build: false });
    const out = await outsideDir();
    await writeFile(path.join(out, "target.json"), target("linked_t"));
    await mkdir(path.join(ep, "targets", "linked_t"), { recursive: true });
    await symlink(path.join(out, "target.json"), path.join(ep, "targets", "linked_t", "target.json"));
    await mkdir(path.join(ep, "targets", "own_t"), { recursive: true });
    await writeFile(path.join(ep, "targets", "own_t", "target.json"), target("own_t"));
    const res = await s.call("GET", "/targets", { ep, kind: "video" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const ids = res.body.targets.map((t: { id: string }) => t.id);
    expect(ids).toContain("own_t");
    expect(ids).not.toContain("linked_t");
  });

  it("reads a show target's workflow only from inside the show folder", async () => {
    const ep = await s.episode(SCRIPT, { build: false });
    const out = await outsideDir();
    await writeFile(path.join(out, "wf.json"), JSON.stringify({ "1": { class_type: "Secret", inputs: {} } }));
    const spec = (workflow: string) =>
      ({ id: "own_wf", kind: "video", custom: true, binding: { workflow } }) as unknown as TargetSpec;
    const dir = path.join(ep, "targets", "own_wf");
    await mkdir(dir, { recursive: true });
    const climbing = await resolveWorkflow(spec(path.relative(dir, path.join(out, "wf.json"))), {
      targetDir: dir,
    });
    expect(climbing.ok).toBe(false);
    expect(climbing.ok ? "" : climbing.error).toMatch(/leads outside the show folder/);
    await symlink(path.join(out, "wf.json"), path.join(dir, "workflow.json"));
    const linked = await resolveWorkflow(spec("workflow.json"), { targetDir: dir });
    expect(linked.ok ? "" : linked.error).toMatch(/leads outside the show folder/);
  });

  it("GET /models refuses a series config linked out of the episode", async () => {
    const ep = await s.episode(SCRIPT, { build: false });
    const out = await outsideDir();
    const config = path.join(ep, "series.json");
    const text = await readFile(config, "utf8");
    await writeFile(path.join(out, "series.json"), text);
    await rm(config);
    await symlink(path.join(out, "series.json"), config);
    const res = await s.call("GET", "/models", { ep, target: "ltx2", param: "model" });
    refusal(res, 403, /series\.json.* leads outside the episode folder through a symbolic link/);
  });
});
