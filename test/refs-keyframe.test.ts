// POST /studio/refs/keyframe with real ffmpeg: the frame cut is the one asked for (each frame of the source videos
// has its own grey level, read back from the PNG), the defaults come from the cut, pick follows the rule, the
// sidecar records its source, events come in the contract's order, and every refusal is what the contract lists.
import path from "node:path";
import { execa } from "execa";
import sharp from "sharp";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { mediaTools } from "../lib/media/ffmpeg.ts";
import { frameIndex } from "../lib/refs/keyframe-cut.ts";
import { afterAnswerSettled } from "../lib/refs/list-after.ts";
import { refusal, SCRIPT, useStudio } from "./support/studio-episode.ts";

const s = useStudio();
let ffmpeg = "ffmpeg";
let lastEp: string | null = null;

beforeAll(async () => {
  ffmpeg = (await mediaTools(s.env.services.media)).ffmpeg;
});
afterEach(async () => {
  if (lastEp) await afterAnswerSettled(s.env.services, lastEp);
  lastEp = null;
});

// Each shot's video steps its luma by 8 a frame from its own base (up or down), so a grey level names one frame.
const BASE: Record<string, { y0: number; step: number }> = {
  sh010: { y0: 16, step: 8 },
  sh020: { y0: 200, step: -8 },
  sh030: { y0: 30, step: 6 },
};
const FRAMES = 24;

async function video(file: string, shot: string): Promise<void> {
  const { y0, step } = BASE[shot];
  await execa(ffmpeg, [
    "-v",
    "error",
    "-y",
    "-f",
    "lavfi",
    "-i",
    `color=black:s=64x48:r=24:d=1,format=yuv420p,geq=lum=${y0}+${step}*N:cb=128:cr=128`,
    "-frames:v",
    String(FRAMES),
    "-c:v",
    "libx264",
    "-qp",
    "0",
    "-pix_fmt",
    "yuv420p",
    "-f",
    "mp4",
    file,
  ]);
}

/** The frame index a cut picture shows, from its grey level (limited-range luma to full-range RGB). */
async function frameShown(file: string, shot: string): Promise<number> {
  const { data, info } = await sharp(file).raw().toBuffer({ resolveWithObject: true });
  const i = (Math.floor(info.height / 2) * info.width + Math.floor(info.width / 2)) * info.channels;
  const y = (data[i] * 219) / 255 + 16;
  const { y0, step } = BASE[shot];
  return Math.round((y - y0) / step);
}

/** A built episode whose shots have real video takes. */
async function episode(takes: Record<string, number[]> = { sh010: [1], sh020: [1], sh030: [1] }) {
  const ep = await s.episode(SCRIPT);
  lastEp = ep;
  for (const [shot, numbers] of Object.entries(takes)) {
    for (const n of numbers) {
      const stem = await s.take(ep, "proxy", shot, n, { frames: FRAMES, sidecar: { width: 64, height: 48 } });
      await video(path.join(ep, "renders_proxy", shot, `${stem}.mp4`), shot);
    }
  }
  s.env.events.length = 0;
  return ep;
}

const events = () =>
  s.env.events.map((e) => {
    const d = e.data as { status?: string; ref?: string; take?: number | null };
    return e.type === "studio.ref" ? `ref:${d.ref}:${d.status}:${d.take}` : e.type;
  });

const takeFile = (ep: string, shot: string, which: string, take: number) =>
  path.join(
    ep,
    "refs/_takes",
    `shot__${shot}__${which}`,
    `shot__${shot}__${which}_t${String(take).padStart(2, "0")}.png`,
  );

describe("frameIndex", () => {
  it("reads indexes, negatives and the names, and refuses what lies outside", () => {
    expect(frameIndex(0, 24)).toBe(0);
    expect(frameIndex(-1, 24)).toBe(23);
    expect(frameIndex(-24, 24)).toBe(0);
    expect(frameIndex("first", 24)).toBe(0);
    expect(frameIndex("last", 24)).toBe(23);
    expect(() => frameIndex(24, 24)).toThrow(/outside the take: it has 24 frames/);
    expect(() => frameIndex(-25, 24)).toThrow(/outside/);
  });
});

describe("POST /studio/refs/keyframe", () => {
  it("cuts the last frame of the shot before for a first frame, picks it when nothing is live, answers the ref", async () => {
    const ep = await episode();
    const res = await s.call("POST", "/refs/keyframe", { ep, pass: "proxy", shot: "sh020" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id: "shot:sh020:first", exists: true, picked: 1, kind: "keyframe" });
    expect(res.body.takes[0]).toMatchObject({
      take: 1,
      source: "frame",
      usable: true,
      width: 64,
      height: 48,
      from: { shot: "sh010", take: 1, pass: "proxy", frame: FRAMES - 1, frames: FRAMES },
    });
    expect(await frameShown(takeFile(ep, "sh020", "first", 1), "sh010")).toBe(FRAMES - 1);
    expect(await frameShown(path.join(ep, "refs/shots/sh020/first.png"), "sh010")).toBe(FRAMES - 1);
    const sidecar = (await s.readJson(
      takeFile(ep, "sh020", "first", 1).replace(/\.png$/, ".json"),
    )) as Record<string, unknown>;
    expect(sidecar).toMatchObject({
      source: "frame",
      source_shot: "sh010",
      source_take: 1,
      source_pass: "proxy",
      source_frame: FRAMES - 1,
      source_frames: FRAMES,
      source_mp4: "renders_proxy/sh010/sh010_t01.mp4",
      status: "ok",
    });
    expect(sidecar.source_sha1).toMatch(/^[0-9a-f]{40}$/);
    expect(events()).toEqual([
      "ref:shot:sh020:first:ok:1",
      "ref:shot:sh020:first:picked:1",
      "studio.episode",
    ]);
  });

  it("cuts the exact index asked for (also from the end and by name); pick null leaves a live file alone", async () => {
    const ep = await episode();
    const cut = async (frame: unknown, pick?: unknown) => {
      const res = await s.call("POST", "/refs/keyframe", { ep, pass: "proxy", shot: "sh020", frame, pick });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.takes.at(-1).take as number;
    };
    const t1 = await cut(5);
    expect(await frameShown(takeFile(ep, "sh020", "first", t1), "sh010")).toBe(5);
    s.env.events.length = 0;
    const t2 = await cut(-3);
    expect(await frameShown(takeFile(ep, "sh020", "first", t2), "sh010")).toBe(FRAMES - 3);
    expect(events()).toEqual([`ref:shot:sh020:first:ok:${t2}`, "studio.episode"]);
    const t3 = await cut("first", false);
    expect(await frameShown(takeFile(ep, "sh020", "first", t3), "sh010")).toBe(0);
    // Still the first cut live.
    expect(await frameShown(path.join(ep, "refs/shots/sh020/first.png"), "sh010")).toBe(5);
    const t4 = await cut(12, true);
    expect(await frameShown(path.join(ep, "refs/shots/sh020/first.png"), "sh010")).toBe(12);
    expect([t1, t2, t3, t4]).toEqual([1, 2, 3, 4]);
  });

  it("takes a last frame from the next shot's first frame, and keeps a note", async () => {
    const ep = await episode();
    const res = await s.call("POST", "/refs/keyframe", {
      ep,
      shot: "sh010",
      which: "last",
      note: "  door  ",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id: "shot:sh010:last", picked: 1 });
    expect(res.body.takes[0]).toMatchObject({ note: "door", from: { shot: "sh020", frame: 0 } });
    expect(await frameShown(takeFile(ep, "sh010", "last", 1), "sh020")).toBe(0);
  });

  it("follows the cut: its order for the neighbour and its take for the source", async () => {
    const ep = await episode({ sh010: [1, 2], sh020: [1], sh030: [1] });
    // sh030 moved before sh020 and sh010 playing take 1 (the newest usable is 2).
    const put = await s.call("PUT", "/cut", {
      ep,
      pass: "proxy",
      entries: [{ shot: "sh010", take: 1 }, { shot: "sh030" }, { shot: "sh020" }],
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    let res = await s.call("POST", "/refs/keyframe", { ep, shot: "sh020" });
    expect(res.body.takes[0].from).toMatchObject({ shot: "sh030", take: 1 });
    expect(await frameShown(takeFile(ep, "sh020", "first", 1), "sh030")).toBe(FRAMES - 1);
    res = await s.call("POST", "/refs/keyframe", { ep, shot: "sh030" });
    expect(res.body.takes[0].from).toMatchObject({ shot: "sh010", take: 1 });
    res = await s.call("POST", "/refs/keyframe", { ep, shot: "sh030", source_shot: "sh010", source_take: 2 });
    expect(res.body.takes[1].from).toMatchObject({ shot: "sh010", take: 2 });
    // Without a cut entry's take, the newest usable one.
    await s.call("PUT", "/cut", {
      ep,
      pass: "proxy",
      entries: [{ shot: "sh010" }, { shot: "sh020" }, { shot: "sh030" }],
    });
    res = await s.call("POST", "/refs/keyframe", { ep, shot: "sh020" });
    expect(res.body.takes.at(-1).from).toMatchObject({ shot: "sh010", take: 2 });
  });

  it("refuses as the contract lists", async () => {
    const ep = await episode({ sh010: [1], sh020: [1] });
    await s.take(ep, "proxy", "sh030", 1, { status: "failed" });
    const call = (body: Record<string, unknown>) => s.call("POST", "/refs/keyframe", { ep, ...body });
    refusal(await call({ shot: "sh010" }), 400, /sh010 opens the proxy cut: no shot before it/);
    refusal(await call({ shot: "sh030", which: "last" }), 400, /sh030 ends the proxy cut/);
    refusal(await call({ shot: "sh020", which: "middle" }), 400, /which/);
    refusal(await call({ shot: "sh020", frame: "middle" }), 400, /frame/);
    refusal(await call({ shot: "sh020", frame: 1.5 }), 400, /frame/);
    refusal(await call({ shot: "sh020", pick: "yes" }), 400, /pick/);
    refusal(
      await call({ shot: "sh020", frame: FRAMES }),
      400,
      /frame 24 is outside the take: it has 24 frames/,
    );
    refusal(await call({ shot: "sh020", frame: -FRAMES - 1 }), 400, /outside the take/);
    refusal(await call({ shot: "sh999" }), 404, /sh999 is in no build of the proxy pass/);
    refusal(await call({ shot: "sh020", source_shot: "sh999" }), 404, /sh999 is in no build/);
    refusal(await call({ shot: "sh020", source_take: 7 }), 404, /sh010 has no take 7/);
    refusal(await call({ shot: "sh020", which: "last" }), 409, /sh030 has no usable take/);
    refusal(await call({ shot: "sh030", source_take: 1, source_shot: "sh030" }), 409, /not usable/);
    // A finished take whose file is no video.
    await s.take(ep, "proxy", "sh030", 2);
    refusal(await call({ shot: "sh020", which: "last" }), 409, /sh030 t02's video could not be read/);
    await s.call("PUT", "/cut", {
      ep,
      pass: "proxy",
      entries: [{ shot: "sh010" }, { shot: "sh020" }, { shot: "sh030", take: 1 }],
    });
    refusal(
      await call({ shot: "sh020", which: "last" }),
      409,
      /sh030's take in the cut \(t01\) is not usable/,
    );
    refusal(await call({ shot: "sh020", pass: "final" }), 409, /sh010 has no usable take in the final pass/);
    // Nothing was written by a refusal.
    const listed = await s.call("GET", "/refs", { ep });
    const kf = listed.body.refs.filter(
      (r: { kind: string; takes: unknown[] }) => r.kind === "keyframe" && r.takes.length,
    );
    expect(kf).toEqual([]);
  });

  it("answers 500 without media tools, writing nothing", async () => {
    const ep = await episode({ sh010: [1] });
    const saved = { ...s.env.services.env };
    Object.assign(s.env.services.env, { FFMPEG_PATH: path.join(s.root, "no-ffmpeg"), PATH: "" });
    try {
      refusal(await s.call("POST", "/refs/keyframe", { ep, shot: "sh020" }), 500, /no media tools/);
    } finally {
      for (const k of ["FFMPEG_PATH", "PATH"]) s.env.services.env[k] = saved[k];
    }
    const listed = await s.call("GET", "/refs", { ep });
    const kf = listed.body.refs.find((r: { id: string }) => r.id === "shot:sh020:first");
    expect(kf.takes).toEqual([]);
  });
});
