// POST /studio/refs/video and GET /studio/refs/videos with real videos made by ffmpeg: kept by path or upload,
// same bytes reuse their name, another file under a taken name gets -2, non-videos are refused by probing,
// uploads over 64 MB are refused early or as they stream, and nothing is left in the uploads folder.
import { mkdir, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import sharp from "sharp";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { StudioFunction } from "../functions/fn.ts";
import video from "../functions/refs/video.post.ts";
import videos from "../functions/refs/videos.get.ts";
import { mediaTools } from "../lib/media/ffmpeg.ts";
import { answerRequest } from "../runtime/app.ts";
import { type Answer, callFunction, refusal } from "./support/call.ts";
import { hostMedia, makeTestEnv, type TestEnv } from "./support/ctx.ts";

let t: TestEnv;
let shows: string;
let ep: string;

async function makeVideo(file: string, source = "testsrc=size=64x48:rate=10", seconds = 1): Promise<string> {
  const { ffmpeg } = await mediaTools(hostMedia);
  await mkdir(path.dirname(file), { recursive: true });
  await execa(ffmpeg, [
    "-v",
    "error",
    "-y",
    "-f",
    "lavfi",
    "-i",
    `${source}:duration=${seconds}`,
    "-c:v",
    "libx264",
    "-preset",
    "ultrafast",
    "-pix_fmt",
    "yuv420p",
    file,
  ]);
  return file;
}

beforeEach(async () => {
  t = await makeTestEnv();
  shows = path.join(t.dir, "shows");
  ep = path.join(shows, "show", "ep01");
  await mkdir(ep, { recursive: true });
  await writeFile(path.join(ep, "series.json"), JSON.stringify({ look: "x", subjects: {}, locations: {} }));
  t.services.env.STUDIO_ROOTS = shows;
});
afterEach(() => t.cleanup());

/** A multipart form sent to a route the way a page sends it. */
async function upload(fn: StudioFunction, form: RequestInit["body"], headers: Record<string, string> = {}) {
  const request = new Request("http://127.0.0.1/studio/refs/video", {
    method: "POST",
    body: form,
    headers,
    duplex: "half",
  } as RequestInit);
  const res = await answerRequest(fn, t.services, {
    request,
    remoteAddress: "127.0.0.1",
    params: {},
    label: "test",
  });
  return { status: res.status, body: await res.json() } as Answer;
}

async function fileForm(fields: Record<string, string>, file?: { name: string; data: Buffer }) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (file) form.append("file", new Blob([new Uint8Array(file.data)]), file.name);
  return form;
}

const uploadsLeft = async () => readdir(path.join(t.home, "uploads")).catch(() => [] as string[]);
const videosDir = () => path.join(ep, "refs", "_videos");

describe("POST /studio/refs/video", () => {
  it("keeps a video by path, reuses the name for the same bytes, numbers another file under a taken name", async () => {
    const clip = await makeVideo(path.join(shows, "in", "clip.mp4"));
    const first = await callFunction(video, { ep, source_path: clip }, t.services);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ path: "refs/_videos/clip.mp4", name: "clip.mp4", copied: true });
    expect(first.body.size).toBe((await stat(clip)).size);
    expect(first.body.duration).toBeCloseTo(1, 1);
    expect(Date.parse(first.body.modified)).not.toBeNaN();
    expect((await readFile(path.join(videosDir(), "clip.mp4"))).equals(await readFile(clip))).toBe(true);

    const again = await callFunction(video, { ep, source_path: clip }, t.services);
    expect(again.body).toMatchObject({ path: "refs/_videos/clip.mp4", copied: false });

    // Another video that happens to be called clip.mp4 too.
    const other = await makeVideo(
      path.join(shows, "elsewhere", "clip.mp4"),
      "testsrc2=size=64x48:rate=10",
      2,
    );
    const second = await callFunction(video, { ep, source_path: other }, t.services);
    expect(second.body).toMatchObject({ path: "refs/_videos/clip-2.mp4", name: "clip-2.mp4", copied: true });
    expect(second.body.duration).toBeCloseTo(2, 1);
    const secondAgain = await callFunction(video, { ep, source_path: other }, t.services);
    expect(secondAgain.body).toMatchObject({ name: "clip-2.mp4", copied: false });

    // Episode-relative source paths work too.
    await makeVideo(path.join(ep, "footage", "walk.mp4"));
    const rel = await callFunction(video, { ep, source_path: "footage/walk.mp4" }, t.services);
    expect(rel.body).toMatchObject({ name: "walk.mp4", copied: true });
    expect((await readdir(videosDir())).sort()).toEqual([
      "_videos.json",
      "clip-2.mp4",
      "clip.mp4",
      "walk.mp4",
    ]);
  });

  it("keeps an uploaded video, reusing a kept file with the same bytes; the upload's temporary is gone", async () => {
    const clip = await makeVideo(path.join(shows, "in", "clip.mp4"));
    await callFunction(video, { ep, source_path: clip }, t.services);
    const same = await upload(
      video,
      await fileForm({ ep }, { name: "clip.mp4", data: await readFile(clip) }),
    );
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ name: "clip.mp4", copied: false });

    const fresh = await makeVideo(path.join(shows, "in", "run.mp4"), "testsrc2=size=64x48:rate=10");
    const made = await upload(
      video,
      await fileForm({ ep }, { name: "My run?.mp4", data: await readFile(fresh) }),
    );
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({ name: "My run_.mp4", path: "refs/_videos/My run_.mp4", copied: true });
    expect((await readFile(path.join(videosDir(), "My run_.mp4"))).equals(await readFile(fresh))).toBe(true);
    expect(await uploadsLeft()).toEqual([]);
    expect((await readdir(videosDir())).filter((n) => n.startsWith("."))).toEqual([]);
  });

  it("keeps videos in the show's refs/_videos/ when the series config is the show's", async () => {
    const show = path.dirname(ep);
    await writeFile(
      path.join(show, "series.json"),
      JSON.stringify({ look: "x", subjects: {}, locations: {} }),
    );
    await rm(path.join(ep, "series.json"));
    const clip = await makeVideo(path.join(shows, "in", "clip.mp4"));
    const kept = await callFunction(video, { ep, source_path: clip }, t.services);
    expect(kept.body).toMatchObject({ path: "../refs/_videos/clip.mp4", copied: true });
    expect((await stat(path.join(show, "refs", "_videos", "clip.mp4"))).isFile()).toBe(true);
    const listed = await callFunction(videos, { ep }, t.services);
    expect(listed.body.videos.map((v: { path: string }) => v.path)).toEqual(["../refs/_videos/clip.mp4"]);
  });

  it("refuses what is not a video, judged by probing", async () => {
    const png = path.join(shows, "in", "still.mp4");
    await mkdir(path.dirname(png), { recursive: true });
    await sharp({ create: { width: 8, height: 8, channels: 3, background: "red" } })
      .png()
      .toFile(png);
    refusal(
      await callFunction(video, { ep, source_path: png }, t.services),
      400,
      /"still\.mp4" is not a video/,
    );
    const text = path.join(shows, "in", "notes.mp4");
    await writeFile(text, "just some words");
    refusal(
      await callFunction(video, { ep, source_path: text }, t.services),
      400,
      /"notes\.mp4" is not a video: ffprobe could not read it/,
    );
    const up = await upload(video, await fileForm({ ep }, { name: "fake.mov", data: Buffer.from("nope") }));
    refusal(up, 400, /^"fake\.mov" is not a video: ffprobe could not read it \(Invalid data/);
    expect(await uploadsLeft()).toEqual([]);
    expect(await readdir(videosDir()).catch(() => [])).toEqual([]);
  });

  it("refuses bad requests with what was wrong", async () => {
    const clip = await makeVideo(path.join(shows, "in", "clip.mp4"));
    refusal(
      await callFunction(video, { ep, file: "clip.mp4" }, t.services),
      400,
      "file must be sent as multipart/form-data",
    );
    refusal(await callFunction(video, { ep }, t.services), 400, /source_path is required/);
    refusal(
      await callFunction(video, { ep, source_path: "/etc/hostname" }, t.services),
      403,
      /outside the configured roots/,
    );
    refusal(
      await callFunction(video, { ep, source_path: path.join(shows, "in", "gone.mp4") }, t.services),
      404,
      /no file/,
    );
    refusal(
      await callFunction(video, { ep, source_path: "../../in/clip.mp4" }, t.services),
      400,
      /leaves the episode/,
    );
    refusal(
      await callFunction(video, { ep, source_path: path.join(shows, "in") }, t.services),
      400,
      /is a folder/,
    );
    refusal(
      await callFunction(video, { ep: path.join(t.dir, "elsewhere"), source_path: clip }, t.services),
      403,
      /outside/,
    );
    refusal(
      await upload(video, "hello", { "content-type": "text/plain" }),
      400,
      /send JSON or multipart\/form-data \(got text\/plain\)/,
    );
    refusal(await upload(video, await fileForm({ ep })), 400, "file: the form has no file part");
    refusal(await upload(video, await fileForm({ ep, file: "clip.mp4" })), 400, /file must be a file/);
    refusal(
      await upload(video, await fileForm({}, { name: "clip.mp4", data: await readFile(clip) })),
      400,
      /^ep: /,
    );
    expect(await uploadsLeft()).toEqual([]);
  });

  it("refuses an upload over 64 MB: early from its declared length, else as it streams, leaving nothing", async () => {
    const boundary = "b0undary";
    const early = await upload(video, "x", {
      "content-type": `multipart/form-data; boundary=${boundary}`,
      "content-length": String(66 * 1024 * 1024),
    });
    refusal(early, 413, "upload: larger than 64 MB");
    const head = new TextEncoder().encode(
      `--${boundary}\r\nContent-Disposition: form-data; name="ep"\r\n\r\n${ep}\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.mp4"\r\n\r\n`,
    );
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(head);
        sent += 1024 * 1024;
        controller.enqueue(new Uint8Array(1024 * 1024));
        if (sent > 80 * 1024 * 1024) controller.close();
      },
    });
    const streamed = await upload(video, body, {
      "content-type": `multipart/form-data; boundary=${boundary}`,
    });
    refusal(streamed, 413, "upload: larger than 64 MB");
    expect(sent).toBeLessThan(70 * 1024 * 1024);
    expect(await uploadsLeft()).toEqual([]);
  });
});

describe("GET /studio/refs/videos", () => {
  it("lists kept videos newest first with their durations; none before any is kept", async () => {
    expect((await callFunction(videos, { ep }, t.services)).body).toEqual({ videos: [] });
    const a = await makeVideo(path.join(shows, "in", "a.mp4"));
    const b = await makeVideo(path.join(shows, "in", "b.mp4"), "testsrc2=size=64x48:rate=10", 2);
    await callFunction(video, { ep, source_path: a }, t.services);
    await callFunction(video, { ep, source_path: b }, t.services);
    // a is made the newer one, whatever order the copies landed in.
    await utimes(path.join(videosDir(), "a.mp4"), new Date(), new Date(Date.now() + 60_000));
    await utimes(path.join(videosDir(), "b.mp4"), new Date(), new Date(Date.now() - 60_000));
    // A video placed by hand lists too, its duration unknown (listing never probes).
    await makeVideo(path.join(videosDir(), "hand.mp4"));
    await utimes(path.join(videosDir(), "hand.mp4"), new Date(), new Date(Date.now() - 120_000));
    const listed = await callFunction(videos, { ep }, t.services);
    expect(listed.status).toBe(200);
    const rows = listed.body.videos as {
      name: string;
      path: string;
      duration: number | null;
      size: number;
    }[];
    expect(rows.map((v) => v.name)).toEqual(["a.mp4", "b.mp4", "hand.mp4"]);
    expect(rows[0].duration).toBeCloseTo(1, 1);
    expect(rows[1].duration).toBeCloseTo(2, 1);
    expect(rows[2].duration).toBeNull();
    expect(rows[0]).toMatchObject({ path: "refs/_videos/a.mp4", size: (await stat(a)).size });
    expect(Object.keys(rows[0]).sort()).toEqual(["duration", "modified", "name", "path", "size"]);
  });
});
