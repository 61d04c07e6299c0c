// POST /studio/refs/from-frame with real ffmpeg: the frame cut is the one asked for (each frame of the source video has
// its own grey level, read back from the PNG), from a shot's take by index or from a kept video by time; the view
// defaults to a character's three-quarter view; pick follows the rule; the sidecar says where the frame came from;
// a video outside refs/_videos/ and the other refusals are 4xx.
import { copyFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import sharp from "sharp";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { mediaTools } from "../lib/media/ffmpeg.ts";
import { frameView, otherViews, timeIndex } from "../lib/refs/from-frame.ts";
import { afterAnswerSettled } from "../lib/refs/list-after.ts";
import { type Answer, SCRIPT, useStudio } from "./support/studio-episode.ts";

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

const FRAMES = 24;
const Y0 = 16;
const STEP = 8;

/** A 24-frame 24 fps video whose frame n has luma 16 + 8n. */
async function video(file: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await execa(ffmpeg, [
    "-v",
    "error",
    "-y",
    "-f",
    "lavfi",
    "-i",
    `color=black:s=64x48:r=24:d=1,format=yuv420p,geq=lum=${Y0}+${STEP}*N:cb=128:cr=128`,
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

/** The frame index a picture shows, from its grey level (limited-range luma to full-range RGB). */
async function frameShown(file: string): Promise<number> {
  const { data, info } = await sharp(file).raw().toBuffer({ resolveWithObject: true });
  const i = (Math.floor(info.height / 2) * info.width + Math.floor(info.width / 2)) * info.channels;
  const y = (data[i] * 219) / 255 + 16;
  return Math.round((y - Y0) / STEP);
}

async function episode() {
  const ep = await s.episode(SCRIPT);
  lastEp = ep;
  const stem = await s.take(ep, "proxy", "sh010", 1, { frames: FRAMES, sidecar: { width: 64, height: 48 } });
  await video(path.join(ep, "renders_proxy", "sh010", `${stem}.mp4`));
  s.env.events.length = 0;
  return ep;
}

/** A refusal as [status, message]. */
const refusal = async (answer: Promise<Answer>): Promise<[number, string]> => {
  const a = await answer;
  return [a.status, String(a.body?.error)];
};

const events = () =>
  s.env.events.map((e) => {
    const d = e.data as { status?: string; ref?: string; take?: number | null; view?: string | null };
    return e.type === "studio.ref" ? `ref:${d.ref}:${d.view ?? "-"}:${d.status}:${d.take}` : e.type;
  });

describe("from-frame pieces", () => {
  it("a character's frame is its three-quarter view unless named; others take none; voices refuse", () => {
    const ada = { ref: { id: "subject:ada" }, kind: "character", views: [{}, {}, {}, {}] } as never;
    const kitchen = { ref: { id: "location:kitchen" }, kind: "location", views: [] } as never;
    expect(frameView(ada, null)).toBe("01_threequarter");
    expect(frameView(ada, "03_back")).toBe("03_back");
    expect(() => frameView(ada, "sheet")).toThrow(/one view of subject:ada/);
    expect(frameView(kitchen, null)).toBeNull();
    expect(() => frameView(kitchen, "02_side")).toThrow(/has no views/);
    expect(() => frameView({ ref: { id: "voice:ada" }, kind: "voice", views: [] } as never, null)).toThrow(
      /is a voice/,
    );
  });

  it("times map to the nearest frame; outside the video is refused", () => {
    expect(timeIndex(0, 24, 24, "v")).toBe(0);
    expect(timeIndex(0.5, 24, 24, "v")).toBe(12);
    expect(timeIndex(0.958, 24, 24, "v")).toBe(23);
    expect(() => timeIndex(1, 24, 24, "v.mp4")).toThrow(
      /outside v.mp4: it has 24 frames at 24 fps \(0 to 0.958 s\)/,
    );
  });

  it("the other views: the three not made, or those asked without the made one", () => {
    expect(otherViews("01_threequarter", null)).toEqual(["02_side", "03_back", "04_face"]);
    expect(otherViews("02_side", ["02_side", "04_face", "04_face"])).toEqual(["04_face"]);
  });
});

describe("POST /studio/refs/from-frame", () => {
  it("cuts frame n of a take into a character's three-quarter view, picked when asked", async () => {
    const ep = await episode();
    const res = await s.call("POST", "/refs/from-frame", {
      ep,
      pass: "proxy",
      shot: "sh010",
      take: 1,
      frame: 7,
      ref: "subject:ada",
      pick: true,
      note: "from the door",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ edits: [], step: null });
    expect(res.body.frame).toMatchObject({
      take: 1,
      view: "01_threequarter",
      source: "frame",
      usable: true,
      note: "from the door",
      width: 64,
      height: 48,
      from: { shot: "sh010", take: 1, pass: "proxy", frame: 7, frames: FRAMES },
    });
    const dir = path.join(ep, "refs/_takes/subject__ada");
    expect(await frameShown(path.join(dir, "subject__ada_01_threequarter_t01.png"))).toBe(7);
    const sidecar = (await s.readJson(path.join(dir, "subject__ada_01_threequarter_t01.json"))) as Record<
      string,
      unknown
    >;
    expect(sidecar).toMatchObject({
      source: "frame",
      source_shot: "sh010",
      source_take: 1,
      source_pass: "proxy",
      source_frame: 7,
      source_frames: FRAMES,
      source_mp4: "renders_proxy/sh010/sh010_t01.mp4",
    });
    expect(sidecar.source_sha1).toMatch(/^[0-9a-f]{40}$/);
    expect(events()).toEqual([
      "ref:subject:ada:01_threequarter:ok:1",
      "ref:subject:ada:01_threequarter:picked:1",
      "studio.episode",
    ]);
    const listed = await s.call("GET", "/refs", { ep });
    const ada = listed.body.refs.find((r: { id: string }) => r.id === "subject:ada");
    expect(ada.views.find((v: { view: string }) => v.view === "01_threequarter").picked).toBe(1);
  });

  it("a location gets the frame as a candidate; frame names and negatives count; pick false leaves it unpicked", async () => {
    const ep = await episode();
    const one = await s.call("POST", "/refs/from-frame", {
      ep,
      shot: "sh010",
      take: 1,
      frame: -2,
      ref: "location:street",
      pick: false,
    });
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    expect(one.body.frame).toMatchObject({ take: 1, view: null, from: { frame: FRAMES - 2 } });
    expect(events()).toEqual(["ref:location:street:-:ok:1", "studio.episode"]);
    const dir = path.join(ep, "refs/_takes/location__street");
    expect(await frameShown(path.join(dir, "location__street_t01.png"))).toBe(FRAMES - 2);
    const two = await s.call("POST", "/refs/from-frame", {
      ep,
      shot: "sh010",
      take: 1,
      frame: "last",
      ref: "location:street",
      pick: false,
    });
    expect(two.body.frame.take).toBe(2);
    expect(await frameShown(path.join(dir, "location__street_t02.png"))).toBe(FRAMES - 1);
    const listed = await s.call("GET", "/refs", { ep });
    expect(listed.body.refs.find((r: { id: string }) => r.id === "location:street").exists).toBe(false);
  });

  it("cuts a kept video at a time; pick left out picks when nothing is live", async () => {
    const ep = await episode();
    const kept = await s.call("POST", "/refs/video", {
      ep,
      source_path: "renders_proxy/sh010/sh010_t01.mp4",
    });
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    s.env.events.length = 0;
    const res = await s.call("POST", "/refs/from-frame", {
      ep,
      video: kept.body.path,
      time: 0.5,
      ref: "subject:kettle",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.frame).toMatchObject({ take: 1, view: null, source: "frame" });
    expect(await frameShown(path.join(ep, "refs/_takes/subject__kettle/subject__kettle_t01.png"))).toBe(12);
    const sidecar = (await s.readJson(
      path.join(ep, "refs/_takes/subject__kettle/subject__kettle_t01.json"),
    )) as Record<string, unknown>;
    expect(sidecar).toMatchObject({ source_video: kept.body.path, source_time: 0.5, source_frame: 12 });
    expect(await frameShown(path.join(ep, "refs/props/kettle.png"))).toBe(12);
    expect(events()).toEqual([
      "ref:subject:kettle:-:ok:1",
      "ref:subject:kettle:-:picked:1",
      "studio.episode",
    ]);

    // Past the end, and a kept video that is not there.
    expect(
      await refusal(
        s.call("POST", "/refs/from-frame", { ep, video: kept.body.path, time: 1.5, ref: "subject:kettle" }),
      ),
    ).toEqual([400, expect.stringMatching(/time 1.5 is outside/)]);
    expect(
      (
        await s.call("POST", "/refs/from-frame", {
          ep,
          video: "refs/_videos/none.mp4",
          time: 0,
          ref: "subject:kettle",
        })
      ).status,
    ).toBe(404);
  });

  it("a video outside refs/_videos/ is 400, even a real one in the episode", async () => {
    const ep = await episode();
    await copyFile(path.join(ep, "renders_proxy/sh010/sh010_t01.mp4"), path.join(ep, "loose.mp4"));
    for (const video of [
      "loose.mp4",
      "renders_proxy/sh010/sh010_t01.mp4",
      "refs/_videos/../../loose.mp4",
      "refs/_videos/sub/x.mp4",
      path.join(ep, "loose.mp4"),
      "refs/_videos/_videos.json/../../loose.mp4",
    ]) {
      const [status, message] = await refusal(
        s.call("POST", "/refs/from-frame", { ep, video, time: 0, ref: "location:street" }),
      );
      expect([status, video]).toEqual([400, video]);
      expect(message).toMatch(/kept in the show's refs\/_videos\//);
    }
  });

  it("refuses both sources, neither, a take that is not there or not finished, a frame outside, a bad view", async () => {
    const ep = await episode();
    await s.take(ep, "proxy", "sh020", 1, { status: "queued" });
    const call = (body: Record<string, unknown>) =>
      refusal(s.call("POST", "/refs/from-frame", { ep, ref: "subject:ada", ...body }));
    expect(await call({ shot: "sh010", take: 1, video: "refs/_videos/x.mp4", time: 0 })).toEqual([
      400,
      expect.stringMatching(/not both/),
    ]);
    expect(await call({})).toEqual([400, expect.stringMatching(/give a take/)]);
    expect(await call({ shot: "sh010" })).toEqual([400, expect.stringMatching(/needs shot and take/)]);
    expect(await call({ shot: "sh010", take: 5 })).toEqual([404, expect.stringMatching(/no take 5/)]);
    expect(await call({ shot: "sh099", take: 1 })).toEqual([404, expect.stringMatching(/in no build/)]);
    expect(await call({ shot: "sh020", take: 1 })).toEqual([409, expect.stringMatching(/not usable/)]);
    expect(await call({ shot: "sh010", take: 1, frame: 24 })).toEqual([
      400,
      expect.stringMatching(/outside the take/),
    ]);
    expect(await call({ shot: "sh010", take: 1, view: "sheet" })).toEqual([
      400,
      expect.stringMatching(/one view/),
    ]);
    expect(await call({ shot: "sh010", take: 1, ref: "voice:ada" })).toEqual([
      400,
      expect.stringMatching(/voice/),
    ]);
    expect(s.env.events).toEqual([]);
  });
});
