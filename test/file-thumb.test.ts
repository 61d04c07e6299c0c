// GET /studio/file and /studio/thumb through the app: streaming, ranges, conditionals, climb-out rules, thumbnails.
import { mkdir, readdir, readFile, realpath, stat, symlink, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { functions } from "../functions/index.ts";
import { Semaphore, THUMB_WIDTHS, thumbCacheDir, thumbWidth } from "../lib/media/thumbs.ts";
import { createApp } from "../runtime/app.ts";
import { makeTestEnv, type TestEnv } from "./support/ctx.ts";

let env: TestEnv;
let app: ReturnType<typeof createApp>;
let root: string;
let outside: string;
let epA1: string; // showA/ep01: the series config sits in showA
let epB1: string; // showB/e1: its own config names ../refs and ../audio
let epC: string; // showC/c1: its own config naming nothing above
const BYTES = Buffer.from(Array.from({ length: 100 }, (_, i) => i));

async function put(file: string, data: string | Uint8Array = "x"): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, data);
}

const png = (width: number, height: number, alpha = 1) =>
  sharp({ create: { width, height, channels: 4, background: { r: 200, g: 0, b: 0, alpha } } })
    .png()
    .toBuffer();

beforeAll(async () => {
  env = await makeTestEnv();
  const base = await realpath(env.dir);
  root = path.join(base, "root");
  outside = path.join(base, "outside");
  env.services.env.STUDIO_ROOTS = root;
  app = createApp(env.services, functions);
  await put(path.join(outside, "secret.txt"), "secret");

  const showA = path.join(root, "showA");
  await put(path.join(showA, "series.json"), JSON.stringify({ series: { id: "a" } }));
  await put(path.join(showA, "notes.txt"), "show notes");
  await put(path.join(showA, "refs", "dean.png"), await png(40, 20));
  epA1 = path.join(showA, "ep01");
  await put(path.join(epA1, "ep01.md"), "= ep01  One\n");
  await put(path.join(epA1, "clip.mp4"), BYTES);
  await put(path.join(epA1, "data.json"), "{}");
  await put(path.join(epA1, "blob.xyz"), "?");
  await put(path.join(epA1, "empty.txt"), "");
  await mkdir(path.join(epA1, "sub", "deeper"), { recursive: true });
  await put(path.join(showA, "ep02", "ep02.md"), "= ep02\n");
  await put(path.join(showA, "ep02", "renders", "sh010", "sh010_t01.mp4"), BYTES);
  await put(path.join(showA, "ep02", "refs", "_takes", "k", "k_t01.png"), await png(10, 10));

  const showB = path.join(root, "showB");
  await put(path.join(showB, "notes.txt"), "show notes");
  await put(path.join(showB, "refs", "dean.png"), await png(40, 20));
  await put(path.join(showB, "audio", "track.wav"), "RIFF");
  epB1 = path.join(showB, "e1");
  await put(
    path.join(epB1, "series.json"),
    JSON.stringify({ series: { id: "b" }, subjects: { dean: { name: "Dean", sheet: "../refs/dean.png" } } }),
  );
  await put(path.join(epB1, "e1.md"), "= e1\n");
  await put(path.join(epB1, "cut.json"), "{}");
  await symlink(path.join(outside, "secret.txt"), path.join(epB1, "link.txt"));
  await put(
    path.join(showB, "e2", "refs", "_takes", "subject__dean", "subject__dean_t01.png"),
    await png(10, 10),
  );
  await put(path.join(showB, "e2", "renders", "sh010", "sh010_t01.mp4"), BYTES);
  await put(path.join(showB, "e2", "renders_proxy", "sh010", "sh010_t01.mp4"), BYTES);

  const showC = path.join(root, "showC");
  await put(path.join(showC, "refs", "dean.png"), await png(40, 20));
  epC = path.join(showC, "c1");
  await put(path.join(epC, "series.json"), JSON.stringify({ series: { id: "c" } }));
  await put(path.join(epC, "c1.md"), "= c1\n");

  // Pictures for thumbnails.
  await put(path.join(epA1, "pics", "wide.png"), await png(2000, 1000));
  await put(path.join(epA1, "pics", "small.png"), await png(300, 150));
  await put(path.join(epA1, "pics", "clear.png"), await png(400, 200, 0));
  await put(
    path.join(epA1, "pics", "photo.jpg"),
    await sharp(await png(700, 350))
      .jpeg()
      .toBuffer(),
  );
  await put(path.join(epA1, "pics", "fake.png"), "not a picture at all");
  await put(path.join(epA1, "pics", "changing.png"), await png(600, 300));
});
afterAll(() => env.cleanup());

function url(route: string, query: Record<string, string>): string {
  return `/studio${route}?${new URLSearchParams(query)}`;
}

const file = (ep: string, p: string, headers: Record<string, string> = {}, method = "GET") =>
  app.request(url("/file", { ep, path: p }), { method, headers });

const thumb = (ep: string, p: string, w: string | undefined) =>
  app.request(url("/thumb", w === undefined ? { ep, path: p } : { ep, path: p, w }));

async function refused(res: Response | Promise<Response>, status: number): Promise<string> {
  const r = await res;
  expect(r.status).toBe(status);
  const body = (await r.json()) as Record<string, unknown>;
  expect(Object.keys(body)).toEqual(["error"]);
  expect(typeof body.error).toBe("string");
  return body.error as string;
}

const bytes = async (res: Response) => Buffer.from(await res.arrayBuffer());

describe("GET /studio/file: streaming", () => {
  it("answers 200 with the whole file, its type, no-cache, an ETag and byte ranges", async () => {
    const res = await file(epA1, "clip.mp4");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("video/mp4");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(res.headers.get("accept-ranges")).toBe("bytes");
    expect(res.headers.get("content-length")).toBe("100");
    expect(res.headers.get("etag")).toMatch(/^W\/"/);
    expect(res.headers.get("last-modified")).toBeTruthy();
    expect(await bytes(res)).toEqual(BYTES);
  });

  it("answers a range with 206 and exactly those bytes", async () => {
    const res = await file(epA1, "clip.mp4", { range: "bytes=10-19" });
    expect(res.status).toBe(206);
    expect(res.headers.get("content-range")).toBe("bytes 10-19/100");
    expect(res.headers.get("content-length")).toBe("10");
    expect(await bytes(res)).toEqual(BYTES.subarray(10, 20));
  });

  it("answers an open range and a suffix range", async () => {
    const open = await file(epA1, "clip.mp4", { range: "bytes=95-" });
    expect(open.status).toBe(206);
    expect(await bytes(open)).toEqual(BYTES.subarray(95));
    const suffix = await file(epA1, "clip.mp4", { range: "bytes=-10" });
    expect(suffix.status).toBe(206);
    expect(suffix.headers.get("content-range")).toBe("bytes 90-99/100");
    expect(await bytes(suffix)).toEqual(BYTES.subarray(90));
  });

  it("answers an unsatisfiable range with 416 and bytes */size", async () => {
    const res = await file(epA1, "clip.mp4", { range: "bytes=200-300" });
    expect(res.status).toBe(416);
    expect(res.headers.get("content-range")).toBe("bytes */100");
  });

  it("answers HEAD with the headers and no body", async () => {
    const res = await file(epA1, "clip.mp4", {}, "HEAD");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-length")).toBe("100");
    expect(res.headers.get("content-type")).toBe("video/mp4");
    expect((await bytes(res)).length).toBe(0);
  });

  it("answers If-None-Match with the current ETag by 304", async () => {
    const first = await file(epA1, "clip.mp4");
    const etag = first.headers.get("etag")!;
    const again = await file(epA1, "clip.mp4", { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect((await bytes(again)).length).toBe(0);
    const other = await file(epA1, "clip.mp4", { "if-none-match": 'W/"0-0"' });
    expect(other.status).toBe(200);
  });

  it("honours If-Range: a matching ETag or date keeps the range, anything else gets the whole file", async () => {
    const first = await file(epA1, "clip.mp4");
    const etag = first.headers.get("etag")!;
    const modified = first.headers.get("last-modified")!;
    const range = { range: "bytes=0-9" };

    const same = await file(epA1, "clip.mp4", { ...range, "if-range": etag });
    expect(same.status).toBe(206);
    expect((await bytes(same)).length).toBe(10);

    const stale = await file(epA1, "clip.mp4", { ...range, "if-range": 'W/"64-1"' });
    expect(stale.status).toBe(200);
    expect(stale.headers.get("content-range")).toBeNull();
    expect(await bytes(stale)).toEqual(BYTES);

    const sameDate = await file(epA1, "clip.mp4", { ...range, "if-range": modified });
    expect(sameDate.status).toBe(206);
    const oldDate = await file(epA1, "clip.mp4", { ...range, "if-range": new Date(0).toUTCString() });
    expect(oldDate.status).toBe(200);
    expect((await bytes(oldDate)).length).toBe(100);

    // A stale copy asking an impossible range gets the file, not a 416.
    const staleBad = await file(epA1, "clip.mp4", { range: "bytes=500-", "if-range": '"other"' });
    expect(staleBad.status).toBe(200);
  });

  it("takes the content type from the extension", async () => {
    const cases: [string, string, string][] = [
      [epA1, "ep01.md", "text/markdown; charset=utf-8"],
      [epA1, "data.json", "application/json"],
      [epA1, "pics/wide.png", "image/png"],
      [epA1, "pics/photo.jpg", "image/jpeg"],
      [epA1, "blob.xyz", "application/octet-stream"],
      [epB1, "../audio/track.wav", "audio/wav"],
    ];
    for (const [ep, p, type] of cases) {
      const res = await file(ep, p);
      expect(res.status, p).toBe(200);
      expect(res.headers.get("content-type"), p).toBe(type);
    }
  });

  it("serves an empty file as 200 with length 0", async () => {
    const res = await file(epA1, "empty.txt", { range: "bytes=0-10" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-length")).toBe("0");
  });
});

describe("GET /studio/file: where a path may lead", () => {
  it("opens the whole show folder when the series config sits there", async () => {
    const notes = await file(epA1, "../notes.txt");
    expect(notes.status).toBe(200);
    expect(await notes.text()).toBe("show notes");
    expect((await file(epA1, "../refs/dean.png")).status).toBe(200);
  });

  it("opens exactly ../refs and ../audio when the episode's own config names them", async () => {
    expect((await file(epB1, "../refs/dean.png")).status).toBe(200);
    expect((await file(epB1, "../audio/track.wav")).status).toBe(200);
    await refused(file(epB1, "../notes.txt"), 400);
  });

  it("opens nothing above an episode whose config names nothing there", async () => {
    const msg = await refused(file(epC, "../refs/dean.png"), 400);
    expect(msg).toMatch(/nothing above the episode/);
  });

  it("opens a sibling's reference candidates but never its renders", async () => {
    const takes = await file(epB1, "../e2/refs/_takes/subject__dean/subject__dean_t01.png");
    expect(takes.status).toBe(200);
    expect(takes.headers.get("content-type")).toBe("image/png");
    expect(await refused(file(epB1, "../e2/renders/sh010/sh010_t01.mp4"), 400)).toMatch(/renders/);
    await refused(file(epB1, "../e2/renders_proxy/sh010/sh010_t01.mp4"), 400);
    // Even when the show's config opens the show folder.
    await refused(file(epA1, "../ep02/renders/sh010/sh010_t01.mp4"), 400);
    expect((await file(epA1, "../ep02/refs/_takes/k/k_t01.png")).status).toBe(200);
  });

  it("refuses .. inside the episode with 400", async () => {
    const msg = await refused(file(epB1, "renders/../cut.json"), 400);
    expect(msg).toMatch(/must not use "\.\."/);
  });

  it("refuses absolute, drive, NUL and encoded paths with 400", async () => {
    for (const p of [
      "/etc/passwd",
      "C:/x",
      "a\0b",
      "%2e%2e/notes.txt",
      "..%2fnotes.txt",
      "a\\b",
      "//server/x",
    ]) {
      await refused(file(epA1, p), 400);
    }
  });

  it("refuses a symbolic link that leads out of the root with 403", async () => {
    expect(await refused(file(epB1, "link.txt"), 403)).toMatch(/link/);
  });

  it("answers 404 for a missing file and for a folder", async () => {
    await refused(file(epA1, "nope.mp4"), 404);
    expect(await refused(file(epA1, "sub"), 404)).toMatch(/folder/);
    await refused(file(epA1, "sub/deeper"), 404);
  });

  it("refuses a bad ep: relative 400, outside the roots 403, missing 404; missing fields 400", async () => {
    await refused(file("relative/ep", "x"), 400);
    await refused(file(path.join(outside, "ep"), "secret.txt"), 403);
    await refused(file(path.join(root, "showA", "nope"), "x"), 404);
    expect(await refused(app.request(url("/file", { ep: epA1 })), 400)).toBe("path: required");
    expect(await refused(app.request(url("/file", { path: "x" })), 400)).toBe("ep: required");
  });
});

describe("GET /studio/thumb", () => {
  const meta = async (res: Response) => sharp(await bytes(res)).metadata();

  it("rounds the width up to 128, 256, 512 or 1024 and caps it at 1024", async () => {
    expect(THUMB_WIDTHS).toEqual([128, 256, 512, 1024]);
    const cases: [string, number][] = [
      ["1", 128],
      ["128", 128],
      ["129", 256],
      ["256", 256],
      ["300", 512],
      ["512", 512],
      ["700", 1024],
      ["1024", 1024],
      ["5000", 1024],
    ];
    for (const [w, width] of cases) {
      expect(thumbWidth(Number(w))).toBe(width);
      const res = await thumb(epA1, "pics/wide.png", w);
      expect(res.status, w).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/jpeg");
      expect(res.headers.get("cache-control")).toBe("no-cache");
      const m = await meta(res);
      expect(m.format).toBe("jpeg");
      expect(m.width, w).toBe(width);
      expect(m.height, w).toBe(width / 2);
    }
  });

  it("never enlarges a picture smaller than the width asked", async () => {
    const m = await meta(await thumb(epA1, "pics/small.png", "1024"));
    expect(m.format).toBe("jpeg");
    expect(m.width).toBe(300);
  });

  it("shrinks a JPEG too", async () => {
    const m = await meta(await thumb(epA1, "pics/photo.jpg", "256"));
    expect(m.width).toBe(256);
  });

  it("puts a transparent picture on a white ground", async () => {
    const res = await thumb(epA1, "pics/clear.png", "128");
    const { data, info } = await sharp(await bytes(res))
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect(info.channels).toBe(3);
    const at = (x: number, y: number) => [
      ...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3),
    ];
    for (const [x, y] of [
      [0, 0],
      [64, 32],
      [127, 63],
    ]) {
      for (const c of at(x, y)) expect(c).toBeGreaterThanOrEqual(250);
    }
  });

  it("caches each thumbnail on disk and serves the cached file again without re-making it", async () => {
    const dir = thumbCacheDir(env.home);
    expect(dir).toBe(path.join(env.home, "cache", "thumbs"));
    const before = new Set(await readdir(dir).catch(() => []));
    const first = await thumb(epA1, "pics/changing.png", "512");
    expect(first.status).toBe(200);
    const made = (await readdir(dir)).filter((f) => !before.has(f));
    expect(made).toHaveLength(1);
    expect(made[0]).toMatch(/^[0-9a-f]{40}\.jpg$/);
    const cached = path.join(dir, made[0]);
    const firstStat = await stat(cached);
    expect(await bytes(first)).toEqual(await readFile(cached));

    await new Promise((r) => setTimeout(r, 30));
    const second = await thumb(epA1, "pics/changing.png", "512");
    expect(second.status).toBe(200);
    expect((await stat(cached)).mtimeMs).toBe(firstStat.mtimeMs);
    expect((await readdir(dir)).filter((f) => !before.has(f))).toEqual(made);
    // The same ETag, so a page's copy stays valid.
    expect(second.headers.get("etag")).toBe(first.headers.get("etag"));
    const notModified = await app.request(url("/thumb", { ep: epA1, path: "pics/changing.png", w: "512" }), {
      headers: { "if-none-match": first.headers.get("etag")! },
    });
    expect(notModified.status).toBe(304);
  });

  it("makes a new thumbnail when the picture changes", async () => {
    const dir = thumbCacheDir(env.home);
    const src = path.join(epA1, "pics", "changing.png");
    await thumb(epA1, "pics/changing.png", "256");
    const before = new Set(await readdir(dir));
    await writeFile(src, await png(800, 200));
    const later = new Date(Date.now() + 5000);
    await utimes(src, later, later);
    const res = await thumb(epA1, "pics/changing.png", "256");
    const added = (await readdir(dir)).filter((f) => !before.has(f));
    expect(added).toHaveLength(1);
    const m = await meta(res);
    expect([m.width, m.height]).toEqual([256, 64]);
  });

  it("serves what sharp cannot read as is", async () => {
    const video = await thumb(epA1, "clip.mp4", "128");
    expect(video.status).toBe(200);
    expect(video.headers.get("content-type")).toBe("video/mp4");
    expect(await bytes(video)).toEqual(BYTES);
    const text = await thumb(epA1, "ep01.md", "128");
    expect(text.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(await text.text()).toBe("= ep01  One\n");
    const fake = await thumb(epA1, "pics/fake.png", "128");
    expect(fake.status).toBe(200);
    expect(fake.headers.get("content-type")).toBe("image/png");
    expect(await fake.text()).toBe("not a picture at all");
    // Ranges still work on what is served as is.
    const part = await app.request(url("/thumb", { ep: epA1, path: "clip.mp4", w: "128" }), {
      headers: { range: "bytes=0-3" },
    });
    expect(part.status).toBe(206);
    expect(await bytes(part)).toEqual(BYTES.subarray(0, 4));
  });

  it("follows the same climb-out rules as /file", async () => {
    expect((await thumb(epA1, "../refs/dean.png", "128")).status).toBe(200);
    expect((await thumb(epB1, "../refs/dean.png", "128")).status).toBe(200);
    expect((await thumb(epB1, "../e2/refs/_takes/subject__dean/subject__dean_t01.png", "128")).status).toBe(
      200,
    );
    await refused(thumb(epB1, "../e2/renders/sh010/sh010_t01.mp4", "128"), 400);
    await refused(thumb(epB1, "../notes.txt", "128"), 400);
    await refused(thumb(epB1, "renders/../cut.json", "128"), 400);
    await refused(thumb(epC, "../refs/dean.png", "128"), 400);
  });

  it("refuses a missing or bad width with 400", async () => {
    expect(await refused(thumb(epA1, "pics/wide.png", undefined), 400)).toBe("w: required");
    for (const w of ["", "abc", "0", "-5", "1.5", "12px", "1e3"]) {
      expect(await refused(thumb(epA1, "pics/wide.png", w), 400), w).toMatch(/^w /);
    }
  });

  it("refuses every bad path as /file does", async () => {
    for (const p of ["/etc/passwd", "C:/x", "a\0b", "%2e%2e/x.png"])
      await refused(thumb(epA1, p, "128"), 400);
    await refused(thumb(epB1, "link.txt", "128"), 403);
    await refused(thumb(epA1, "nope.png", "128"), 404);
    await refused(thumb(epA1, "sub", "128"), 404);
    await refused(thumb("relative", "x.png", "128"), 400);
    await refused(thumb(path.join(outside, "ep"), "x.png", "128"), 403);
    await refused(thumb(path.join(root, "nope"), "x.png", "128"), 404);
    expect(await refused(app.request(url("/thumb", { ep: epA1, w: "128" })), 400)).toBe("path: required");
  });
});

describe("Semaphore (the two-at-a-time thumbnail queue)", () => {
  it("runs at most `limit` tasks at once and starts the waiting ones in arrival order", async () => {
    const gate = new Semaphore(2);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const release: (() => void)[] = [];
    const tasks = [0, 1, 2, 3, 4].map((i) =>
      gate.run(async () => {
        started.push(i);
        running++;
        peak = Math.max(peak, running);
        await new Promise<void>((r) => release.push(r));
        running--;
        return i * 10;
      }),
    );
    await new Promise((r) => setTimeout(r, 5));
    expect(started).toEqual([0, 1]);
    expect(gate.running).toBe(2);
    expect(gate.waiting).toBe(3);
    release.shift()!();
    await new Promise((r) => setTimeout(r, 5));
    expect(started).toEqual([0, 1, 2]);
    while (release.length || started.length < 5) {
      release.shift()?.();
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(await Promise.all(tasks)).toEqual([0, 10, 20, 30, 40]);
    expect(peak).toBe(2);
    expect(gate.running).toBe(0);
    expect(gate.waiting).toBe(0);
  });

  it("frees the slot when a task fails", async () => {
    const gate = new Semaphore(1);
    await expect(gate.run(async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await gate.run(async () => "next")).toBe("next");
    expect(gate.running).toBe(0);
  });

  it("needs a limit of at least one", () => {
    expect(() => new Semaphore(0)).toThrow(RangeError);
  });
});
