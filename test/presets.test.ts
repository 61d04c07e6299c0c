// The presets routes through their handlers: the shipped presets read off the targets, own presets saved, replaced
// and deleted in the settings folder, pictures from a path, an upload or a real sample render on the built-in card
// (a `preset` job run by a worker pool), and every refusal.
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { StudioFunction } from "../functions/fn.ts";
import type { JobStore } from "../lib/jobs/types.ts";
import { idFromLabel } from "../lib/presets/edit.ts";
import { picturePath, presetsFile } from "../lib/presets/store.ts";
import { answerRequest } from "../runtime/app.ts";
import { jobKinds } from "../workers/jobs/index.ts";
import type { WorkerPool } from "../workers/pool.ts";
import { jobEnded, startTestPool } from "./support/jobs.ts";
import { makeStudio, refusal, routeFor, type Studio } from "./support/studio-episode.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

let s: Studio;
let store: JobStore;
let pool: WorkerPool;
let pics: string;

beforeAll(async () => {
  s = await makeStudio({ outside: true });
  store = await s.env.services.jobs();
  pool = startTestPool(s.env.services, store, jobKinds);
  pics = path.join(s.root, "pics");
  await mkdir(pics, { recursive: true });
  await sharp({ create: { width: 2048, height: 1024, channels: 3, background: "#336699" } })
    .jpeg()
    .toFile(path.join(pics, "wide.jpg"));
  await writeFile(path.join(pics, "not-a-picture.png"), "plain text");
});
afterAll(async () => {
  await pool.stop({ graceful: false, timeoutMs: 2_000 });
  await store.close();
  await s.cleanup();
});
beforeEach(() => {
  s.env.events.length = 0;
});

const home = () => s.env.home;
const own = (body: Record<string, unknown>) => s.call("POST", "/presets/own", body);
const list = (q: Record<string, unknown> = {}) => s.call("GET", "/presets", q);
const presetEvents = () => s.env.events.filter((e) => e.type === "studio.presets").map((e) => e.data);

async function upload(fields: Record<string, string>, file?: { name: string; data: Buffer }) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (file) form.append("file", new Blob([new Uint8Array(file.data)]), file.name);
  const { fn } = routeFor("POST", "/presets/own/picture");
  const request = new Request("http://127.0.0.1/studio/presets/own/picture", {
    method: "POST",
    body: form,
    duplex: "half",
  } as RequestInit);
  const res = await answerRequest(fn as StudioFunction, s.env.services, {
    request,
    remoteAddress: "127.0.0.1",
    params: {},
    label: "test",
  });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as Any };
}

describe("GET /studio/presets", () => {
  it("lists the shipped presets of every video and image target, read-only, with no picture", async () => {
    const got = await list();
    expect(got.status).toBe(200);
    const byId = new Map(got.body.presets.map((p: Any) => [p.id, p]));
    expect(byId.get("animatic/final")).toEqual({
      id: "animatic/final",
      label: expect.stringContaining("final"),
      kind: "video",
      target: "animatic",
      pass: "final",
      model: null,
      loras: [],
      steps: 1,
      size: "1344x768",
      note: null,
      own: false,
      picture: null,
    });
    expect(byId.get("animatic/proxy")).toMatchObject({ size: "448x256", pass: "proxy" });
    expect(byId.get("card/final")).toMatchObject({ kind: "image", size: "1024x1024" });
    expect(byId.has("card/proxy")).toBe(false);
    // A preset's single LoRA string reads as the list a user would apply.
    const h3 = byId.get("minimax_h3_ref2va/final") as Any;
    expect(h3.loras).toEqual([{ name: expect.stringMatching(/turbo/), strength: 1 }]);
    // Audio targets have no presets here.
    expect(got.body.presets.some((p: Any) => p.target === "speech")).toBe(false);
    const images = await list({ kind: "image" });
    expect(images.body.presets.every((p: Any) => p.kind === "image")).toBe(true);
    expect(images.body.presets.some((p: Any) => p.id === "card/final")).toBe(true);
  });

  it("refuses a kind that is not video or image", async () => {
    refusal(await list({ kind: "audio" }), 400, 'kind must be video or image (got "audio")');
  });
});

describe("POST /studio/presets/own", () => {
  it("creates a preset with an id made from its label, replaces it by id, keeps it in the settings folder", async () => {
    const made = await own({
      label: "Warm cards",
      kind: "image",
      target: "card",
      loras: "grain:0.6",
      steps: 4,
      size: "640x360",
      note: "a warm kitchen at dawn",
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(made.body.preset).toEqual({
      id: "warm-cards",
      label: "Warm cards",
      kind: "image",
      target: "card",
      pass: null,
      model: null,
      loras: [{ name: "grain", strength: 0.6 }],
      steps: 4,
      size: "640x360",
      note: "a warm kitchen at dawn",
      own: true,
      picture: null,
    });
    expect(made.body.presets.at(-1)).toEqual(made.body.preset);
    expect(presetEvents()).toEqual([{ id: "warm-cards", change: "saved" }]);
    const again = await own({ label: "Warm cards", kind: "video", target: "animatic" });
    expect(again.body.preset.id).toBe("warm-cards-2");
    const replaced = await own({
      id: "warm-cards-2",
      label: "Quick boards",
      kind: "video",
      target: "animatic",
      size: [448, 256],
    });
    expect(replaced.body.preset).toMatchObject({
      id: "warm-cards-2",
      label: "Quick boards",
      size: "448x256",
      loras: null,
    });
    const file = JSON.parse(await readFile(presetsFile(home()), "utf8"));
    expect(file.version).toBe(1);
    expect(file.presets.map((p: Any) => p.id)).toEqual(["warm-cards", "warm-cards-2"]);
    const listed = await list({ kind: "video" });
    expect(listed.body.presets.filter((p: Any) => p.own).map((p: Any) => p.label)).toEqual(["Quick boards"]);
  });

  it("refuses shipped ids, bad ids, unknown targets, a kind mismatch, bad loras, steps and size", async () => {
    const base = { label: "X", kind: "image", target: "card" };
    refusal(await own({ ...base, id: "card/final" }), 400, /is a shipped preset, which cannot be changed/);
    refusal(await own({ ...base, id: "../evil" }), 400, /^id: /);
    refusal(await own({ ...base, id: "a.b" }), 400, /must be letters, digits, _ and -/);
    refusal(
      await own({ ...base, target: "no_such" }),
      400,
      /target: "no_such" is not an installed target \(image targets: .*card/,
    );
    refusal(
      await own({ ...base, target: "animatic" }),
      400,
      "target: animatic is a video target, not an image target",
    );
    refusal(
      await own({ ...base, kind: "video", target: "card" }),
      400,
      "target: card is an image target, not a video target",
    );
    refusal(await own({ ...base, kind: "audio" }), 400, /kind/);
    refusal(await own({ ...base, loras: 5 }), 400, /^loras: /);
    refusal(await own({ ...base, steps: 0 }), 400, /steps/);
    refusal(await own({ ...base, size: "big" }), 400, /^size must be WxH/);
    refusal(await own({ ...base, label: "  " }), 400, /label/);
  });

  it("loses no preset when several are saved at once", async () => {
    const labels = ["P one", "P two", "P three", "P four", "P five"];
    const got = await Promise.all(labels.map((label) => own({ label, kind: "image", target: "card" })));
    expect(got.map((g) => g.status)).toEqual([200, 200, 200, 200, 200]);
    const file = JSON.parse(await readFile(presetsFile(home()), "utf8"));
    expect(file.presets.map((p: Any) => p.label)).toEqual(expect.arrayContaining(labels));
  });

  it("makes ids that stay file names", () => {
    expect(idFromLabel("Héllo / wörld!", new Set())).toBe("hello-world");
    expect(idFromLabel("???", new Set(["preset"]))).toBe("preset-2");
  });
});

describe("pictures", () => {
  it("takes a picture by path, made a PNG of at most 1024 px, served by GET /presets/image", async () => {
    await own({ id: "pic", label: "Pic", kind: "image", target: "card" });
    s.env.events.length = 0;
    const got = await s.call("POST", "/presets/own/picture", {
      id: "pic",
      source_path: path.join(pics, "wide.jpg"),
    });
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    expect(got.body.preset.picture).toMatch(/^\/studio\/presets\/image\?id=pic&v=\d+$/);
    expect(presetEvents()).toEqual([{ id: "pic", change: "picture" }]);
    const meta = await sharp(picturePath(home(), "pic")).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["png", 1024, 512]);
    const served = await s.call("GET", "/presets/image", { id: "pic", v: "1" });
    expect(served.status).toBe(200);
    expect(served.body.length).toBeGreaterThan(0);
    const listed = await list({ kind: "image" });
    expect(listed.body.presets.find((p: Any) => p.id === "pic").picture).toBe(got.body.preset.picture);
  });

  it("takes an uploaded picture and leaves nothing in the uploads folder", async () => {
    await own({ id: "upl", label: "Upl", kind: "video", target: "animatic" });
    const data = await sharp({ create: { width: 300, height: 200, channels: 3, background: "#aa3300" } })
      .png()
      .toBuffer();
    const got = await upload({ id: "upl" }, { name: "frame.png", data });
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    const meta = await sharp(picturePath(home(), "upl")).metadata();
    expect([meta.width, meta.height]).toEqual([300, 200]);
    expect(await readdir(path.join(home(), "uploads")).catch(() => [])).toEqual([]);
    const bad = await upload({ id: "upl" }, { name: "x.png", data: Buffer.from("nope") });
    refusal(bad, 400, /^"x\.png" is not a picture that can be read/);
    refusal(await upload({ id: "upl" }), 400, "file: the form has no file part");
    refusal(await upload({ id: "nobody" }, { name: "frame.png", data }), 404, 'no own preset "nobody"');
  });

  it("refuses pictures it cannot take and ids it has no picture for", async () => {
    const pic = (body: Record<string, unknown>) => s.call("POST", "/presets/own/picture", body);
    refusal(
      await pic({ id: "pic", source_path: path.join(pics, "not-a-picture.png") }),
      400,
      /is not a picture that can be read/,
    );
    refusal(
      await pic({ id: "pic", source_path: path.join(s.outside, "x.png") }),
      403,
      /outside the configured roots/,
    );
    refusal(await pic({ id: "pic", source_path: path.join(pics, "gone.png") }), 404, /no file at/);
    refusal(await pic({ id: "pic", source_path: pics }), 400, /is a folder, not a file/);
    refusal(await pic({ id: "pic", source_path: "wide.jpg" }), 400, /must be an absolute path/);
    refusal(await pic({ id: "pic" }), 400, /source_path is required/);
    refusal(await pic({ id: "pic", source_path: path.join(pics, "wide.jpg"), file: "x" }), 400, /multipart/);
    refusal(await pic({ id: "card/final", source_path: path.join(pics, "wide.jpg") }), 400, /shipped preset/);
    refusal(
      await pic({ id: "nobody", source_path: path.join(pics, "wide.jpg") }),
      404,
      'no own preset "nobody"',
    );
    const img = (id: string) => s.call("GET", "/presets/image", { id });
    await own({ id: "bare", label: "Bare", kind: "image", target: "card" });
    refusal(await img("bare"), 404, '"bare" has no picture yet');
    refusal(await img("nobody"), 404, 'no own preset "nobody"');
    refusal(await img("card/final"), 400, /shipped preset/);
    refusal(await img("../x"), 400, /^id: /);
  });
});

describe("POST /studio/presets/own/render", () => {
  const render = (body: Record<string, unknown>) => s.call("POST", "/presets/own/render", body);

  it("draws a sample on the built-in card and makes it the preset's picture", async () => {
    await own({
      id: "sample",
      label: "Sample",
      kind: "image",
      target: "card",
      size: "320x240",
      note: "a red kettle",
    });
    s.env.events.length = 0;
    const got = await render({ id: "sample" });
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    expect(got.body.job).toMatchObject({
      kind: "preset",
      lane: "builtin",
      info: { preset: "sample", target: "card" },
    });
    const ended = await jobEnded(store, got.body.job.id);
    expect(ended.status, ended.error ?? "").toBe("succeeded");
    const meta = await sharp(picturePath(home(), "sample")).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["png", 320, 240]);
    expect(presetEvents()).toEqual([{ id: "sample", change: "picture" }]);
    const listed = await list({ kind: "image" });
    expect(listed.body.presets.find((p: Any) => p.id === "sample").picture).toMatch(
      /^\/studio\/presets\/image\?id=sample&v=/,
    );
    // A retry draws the same picture again and keeps it anew.
    const before = listed.body.presets.find((p: Any) => p.id === "sample").picture;
    await new Promise((r) => setTimeout(r, 5));
    const retried = await s.call("POST", "/jobs/retry", { id: got.body.job.id });
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    const again = (await store.list()).jobs.find((j) => j.kind === "preset" && j.id !== got.body.job.id);
    expect((await jobEnded(store, again?.id ?? "none")).status).toBe("succeeded");
    const after = (await list({ kind: "image" })).body.presets.find((p: Any) => p.id === "sample").picture;
    expect(after).not.toBe(before);
    // No work folder is left beside the pictures.
    expect(
      (await readdir(path.dirname(picturePath(home(), "sample")))).filter((n) => n.startsWith(".")),
    ).toEqual([]);
  });

  it("keeps no picture for a preset deleted while its sample waited", async () => {
    await own({ id: "brief", label: "Brief", kind: "image", target: "card", size: "64x64" });
    await store.pause("builtin", true);
    const got = await render({ id: "brief" });
    expect(got.status).toBe(200);
    expect((await s.call("POST", "/presets/own/delete", { id: "brief" })).status).toBe(200);
    await store.pause("builtin", false);
    const ended = await jobEnded(store, got.body.job.id);
    expect(ended.status).toBe("succeeded");
    expect(ended.log.join("\n")).toMatch(/brief was deleted meanwhile: the sample is not kept/);
    await expect(readFile(picturePath(home(), "brief"))).rejects.toThrow(/ENOENT/);
    expect((await list({ kind: "image" })).body.presets.some((p: Any) => p.id === "brief")).toBe(false);
  });

  it("refuses video presets, shipped and unknown ids, backends that do not run the target", async () => {
    await own({ id: "vid", label: "Vid", kind: "video", target: "animatic" });
    refusal(
      await render({ id: "vid" }),
      400,
      /^vid is a video preset: a sample is drawn for image presets only/,
    );
    refusal(await render({ id: "card/final" }), 400, /shipped preset/);
    refusal(await render({ id: "nobody" }), 404, 'no own preset "nobody"');
    refusal(await render({ id: "../x" }), 400, /^id: /);
    await own({ id: "cardy", label: "Cardy", kind: "image", target: "card" });
    refusal(await render({ id: "cardy", backend: "local" }), 400, /drawn by the built-in engine only/);
    await own({ id: "krea", label: "Krea", kind: "image", target: "krea2" });
    refusal(await render({ id: "krea", backend: "builtin" }), 400, /the builtin backend does not run/);
    refusal(await render({ id: "krea", backend: "nowhere" }), 400, /^backend: /);
    await own({ id: "editor", label: "Editor", kind: "image", target: "flux2_klein_edit" });
    refusal(await render({ id: "editor" }), 400, /is an edit target: it needs the pictures it changes/);
    await own({ id: "pano", label: "Pano", kind: "image", target: "klein_erp_360" });
    refusal(await render({ id: "pano" }), 400, /is a pano target: it needs a canvas to outpaint/);
  });
});

describe("POST /studio/presets/own/delete", () => {
  it("removes the record and its picture; refuses shipped and unknown ids", async () => {
    await own({ id: "gone", label: "Gone", kind: "image", target: "card" });
    await s.call("POST", "/presets/own/picture", { id: "gone", source_path: path.join(pics, "wide.jpg") });
    s.env.events.length = 0;
    const got = await s.call("POST", "/presets/own/delete", { id: "gone" });
    expect(got.status).toBe(200);
    expect(got.body.presets.some((p: Any) => p.id === "gone")).toBe(false);
    expect(presetEvents()).toEqual([{ id: "gone", change: "deleted" }]);
    await expect(readFile(picturePath(home(), "gone"))).rejects.toThrow(/ENOENT/);
    refusal(await s.call("POST", "/presets/own/delete", { id: "gone" }), 404, 'no own preset "gone"');
    refusal(
      await s.call("POST", "/presets/own/delete", { id: "animatic/final" }),
      400,
      /shipped preset, which cannot be deleted/,
    );
    refusal(await s.call("POST", "/presets/own/delete", { id: "" }), 400, /^id/);
  });
});
