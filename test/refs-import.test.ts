// POST /studio/refs/import through the route table: pictures and sounds from a path (JSON) or an upload
// (multipart), the take file and sidecar on disk, picks with every form spelling, events in the contract's order,
// the partial success (imported, not picked), and every refusal — 413 early and while streaming, nothing left.
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import { afterAnswerSettled } from "../lib/refs/list-after.ts";
import { refusal } from "./support/call.ts";
import { routeFor, SCRIPT, useStudio } from "./support/studio-episode.ts";
import { postBody, uploadForm } from "./support/upload.ts";

const s = useStudio();
let lastEp: string | null = null;
afterEach(async () => {
  if (lastEp) await afterAnswerSettled(s.env.services, lastEp);
  lastEp = null;
});

async function episode() {
  lastEp = await s.episode(SCRIPT);
  return lastEp;
}

type Rgb = [number, number, number];

async function picture(file: string, rgb: Rgb, format: "png" | "jpeg" | "webp" = "png"): Promise<Buffer> {
  await mkdir(path.dirname(file), { recursive: true });
  const data = await sharp({
    create: { width: 30, height: 20, channels: 3, background: { r: rgb[0], g: rgb[1], b: rgb[2] } },
  })
    .toFormat(format)
    .toBuffer();
  await writeFile(file, data);
  return data;
}

/** A one-channel 16-bit wav of silence. */
function wav(samples = 800): Buffer {
  const b = Buffer.alloc(44 + samples * 2);
  b.write("RIFF", 0, "latin1");
  b.writeUInt32LE(36 + samples * 2, 4);
  b.write("WAVEfmt ", 8, "latin1");
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(1, 22);
  b.writeUInt32LE(8000, 24);
  b.writeUInt32LE(16000, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write("data", 36, "latin1");
  b.writeUInt32LE(samples * 2, 40);
  return b;
}

async function centre(file: string): Promise<number[]> {
  const { data, info } = await sharp(file).raw().toBuffer({ resolveWithObject: true });
  const i = (Math.floor(info.height / 2) * info.width + Math.floor(info.width / 2)) * info.channels;
  return [data[i], data[i + 1], data[i + 2]];
}

const route = () => routeFor("POST", "/refs/import").fn;

const post = (body: RequestInit["body"], headers: Record<string, string> = {}) =>
  postBody(route(), s.env.services, body, headers);

const json = (body: Record<string, unknown>) =>
  post(JSON.stringify(body), { "content-type": "application/json" });

const form = uploadForm;

const kinds = () =>
  s.env.events.map((e) => {
    const d = e.data as { status?: string; take?: number };
    return `${e.type}:${d.status ?? ""}${d.take ? `:${d.take}` : ""}`;
  });
const uploadsLeft = async () => readdir(path.join(s.env.home, "uploads")).catch(() => [] as string[]);
const takesDir = (ep: string, key: string) => path.join(ep, "refs", "_takes", key);

describe("POST /studio/refs/import (JSON source_path)", () => {
  it("adds an imported take keeping its extension, unpicked, and answers the ref as listed", async () => {
    const ep = await episode();
    const src = path.join(path.dirname(ep), "in", "Kettle Final.JPG");
    await picture(src, [200, 40, 40], "jpeg");
    const res = await json({ ep, ref: "subject:kettle", source_path: src, note: "  from the shoot " });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id: "subject:kettle", exists: false });
    const take = res.body.takes.find((t: { take: number }) => t.take === 1);
    expect(take).toMatchObject({ take: 1, status: "ok", source: "imported", note: "from the shoot" });
    expect(take.original_name ?? null).toBeNull();
    expect(await readdir(takesDir(ep, "subject__kettle"))).toEqual([
      "subject__kettle_t01.jpg",
      "subject__kettle_t01.json",
    ]);
    const sidecar = await s.readJson(path.join(takesDir(ep, "subject__kettle"), "subject__kettle_t01.json"));
    expect(sidecar).toMatchObject({
      version: 1,
      ref: "subject:kettle",
      view: null,
      take: 1,
      status: "ok",
      source: "imported",
      image: "subject__kettle_t01.jpg",
      width: 30,
      height: 20,
    });
    expect(kinds()).toEqual(["studio.ref:ok:1", "studio.episode:"]);
  });

  it("picks when asked: the live file is the imported picture; events ok, picked, episode", async () => {
    const ep = await episode();
    const src = path.join(ep, "incoming", "kettle.png");
    await picture(src, [20, 180, 60]);
    // An episode-relative source path.
    const res = await json({ ep, ref: "subject:kettle", source_path: "incoming/kettle.png", pick: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ exists: true, picked: 1 });
    expect(await centre(path.join(ep, "refs/props/kettle.png"))).toEqual([20, 180, 60]);
    expect(kinds()).toEqual(["studio.ref:ok:1", "studio.ref:picked:1", "studio.episode:"]);
  });

  it("refuses bad JSON requests with what was wrong", async () => {
    const ep = await episode();
    const src = path.join(path.dirname(ep), "in", "a.png");
    await picture(src, [1, 2, 3]);
    refusal(
      await json({ ep, ref: "subject:kettle", file: "a.png" }),
      400,
      "file must be sent as multipart/form-data",
    );
    refusal(await json({ ep, ref: "subject:kettle" }), 400, /source_path is required/);
    refusal(
      await json({ ep, ref: "subject:kettle", source_path: src, pick: "maybe" }),
      400,
      'pick must be true or false (a form sends "1" or "0")',
    );
    refusal(
      await json({ ep, ref: "subject:nobody", source_path: src }),
      404,
      /not a reference of this episode/,
    );
    refusal(await json({ ep, ref: "kettle", source_path: src }), 400, /reference id/);
    refusal(
      await json({ ep, ref: "subject:ada", source_path: src }),
      400,
      /is a character: import into one of its views/,
    );
    refusal(await json({ ep, ref: "subject:ada", view: "pano", source_path: src }), 400, /got pano/);
    refusal(
      await json({ ep, ref: "subject:kettle", view: "02_side", source_path: src }),
      400,
      /has no views/,
    );
    refusal(await json({ ep, ref: "voice:ada", source_path: src }), 400, /is a voice: it takes sound/);
    const txt = path.join(path.dirname(ep), "in", "notes.txt");
    await writeFile(txt, "words");
    refusal(
      await json({ ep, ref: "subject:kettle", source_path: txt }),
      400,
      /"notes\.txt" is not a file type a reference takes/,
    );
    refusal(
      await json({ ep, ref: "subject:kettle", source_path: "/etc/hostname" }),
      403,
      /outside the configured roots/,
    );
    refusal(await json({ ep, ref: "subject:kettle", source_path: "in/gone.png" }), 404, /no file/);
    refusal(
      await json({ ep, ref: "subject:kettle", source_path: src, note: "x".repeat(4001) }),
      400,
      /^note: /,
    );
    refusal(await json({ ep: "/nowhere/ep01", ref: "subject:kettle", source_path: src }), 403, /roots/);
    refusal(
      await post("ep=x", { "content-type": "application/x-www-form-urlencoded" }),
      400,
      /send JSON or multipart\/form-data/,
    );
    expect(await readdir(takesDir(ep, "subject__kettle")).catch(() => [])).toEqual([]);
    expect(s.env.events).toEqual([]);
  });
});

describe("POST /studio/refs/import (multipart upload)", () => {
  it("imports an uploaded view of a character with its original name and picks it with pick=yes", async () => {
    const ep = await episode();
    const data = await picture(path.join(s.env.dir, "tmp", "ada side.png"), [10, 10, 250]);
    const res = await post(
      form(
        { ep, ref: "subject:ada", view: "02_side", pick: "yes", note: "" },
        { name: "ada side.png", data },
      ),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const side = res.body.views.find((v: { view: string }) => v.view === "02_side");
    expect(side.picked).toBe(1);
    expect(side.takes[0]).toMatchObject({ take: 1, source: "imported", original_name: "ada side.png" });
    const dir = takesDir(ep, "subject__ada");
    expect((await readFile(path.join(dir, "subject__ada_02_side_t01.png"))).equals(data)).toBe(true);
    expect(kinds()).toEqual(["studio.ref:ok:1", "studio.ref:picked:1", "studio.episode:"]);
    expect(await uploadsLeft()).toEqual([]);

    // A ready-made sheet goes in as the sheet pseudo-view.
    const sheet = await picture(path.join(s.env.dir, "tmp", "sheet.webp"), [9, 9, 9], "webp");
    const made = await post(
      form({ ep, ref: "subject:ada", view: "sheet" }, { name: "sheet.webp", data: sheet }),
    );
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(await readdir(dir)).toContain("subject__ada_sheet_t01.webp");
  });

  it("takes a voice's sound, and reads every spelling of pick a form may send", async () => {
    const ep = await episode();
    const res = await post(form({ ep, ref: "voice:ada", pick: "" }, { name: "ada.wav", data: wav() }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.takes.map((t: { take: number; audio?: string }) => [t.take, t.audio])).toEqual([
      [1, "refs/_takes/voice__ada/voice__ada_t01.wav"],
    ]);
    expect(kinds()).toEqual(["studio.ref:ok:1", "studio.episode:"]);
    const flags: [string, boolean][] = [
      ["1", true],
      ["true", true],
      ["YES", true],
      ["on", true],
      ["0", false],
      ["false", false],
      ["no", false],
      ["off", false],
    ];
    for (const [flag, picked] of flags) {
      s.env.events.length = 0;
      const data = await picture(path.join(s.env.dir, "tmp", `k${flag}.png`), [5, 5, 5]);
      const r = await post(form({ ep, ref: "subject:kettle", pick: flag }, { name: "k.png", data }));
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(kinds().includes(`studio.ref:picked:${r.body.takes.at(-1).take}`), flag).toBe(picked);
    }
  });

  it("refuses bad forms and unusable files, leaving no upload and no take behind", async () => {
    const ep = await episode();
    const png = await picture(path.join(s.env.dir, "tmp", "x.png"), [1, 1, 1]);
    refusal(
      await post(form({ ep, ref: "subject:kettle", pick: "maybe" }, { name: "x.png", data: png })),
      400,
      'pick must be true or false (a form sends "1" or "0")',
    );
    refusal(
      await post(form({ ep, ref: "subject:kettle" }, { name: "x.gif", data: png })),
      400,
      /"x\.gif" is not a file type a reference takes/,
    );
    refusal(
      await post(form({ ep, ref: "subject:kettle" }, { name: "noext", data: png })),
      400,
      /not a file type/,
    );
    refusal(await post(form({ ep, ref: "voice:ada" }, { name: "x.png", data: png })), 400, /is a voice/);
    refusal(
      await post(form({ ep, ref: "subject:kettle" }, { name: "x.mp3", data: wav() })),
      400,
      /takes a picture/,
    );
    refusal(await post(form({ ep, ref: "subject:kettle", file: "x.png" })), 400, /file must be a file/);
    refusal(await post(form({ ep, ref: "subject:kettle" })), 400, "file: the form has no file part");
    refusal(await post(form({ ref: "subject:kettle" }, { name: "x.png", data: png })), 400, /^ep: /);
    refusal(
      await post(form({ ep, ref: "subject:kettle", view: "sideways" }, { name: "x.png", data: png })),
      400,
      /^view: /,
    );
    refusal(await post("plain words", { "content-type": "text/plain" }), 400, /got text\/plain/);
    expect(await uploadsLeft()).toEqual([]);
    expect(await readdir(takesDir(ep, "subject__kettle")).catch(() => [])).toEqual([]);
    expect(await readdir(takesDir(ep, "voice__ada")).catch(() => [])).toEqual([]);
  });

  it("refuses an upload over 64 MB: early from the declared length, else as it streams", async () => {
    const ep = await episode();
    const boundary = "XyZ";
    const type = { "content-type": `multipart/form-data; boundary=${boundary}` };
    refusal(
      await post("x", { ...type, "content-length": String(65 * 1024 * 1024 + 1) }),
      413,
      "upload: larger than 64 MB",
    );
    const head = new TextEncoder().encode(
      [
        `--${boundary}\r\nContent-Disposition: form-data; name="ep"\r\n\r\n${ep}`,
        `--${boundary}\r\nContent-Disposition: form-data; name="ref"\r\n\r\nsubject:kettle`,
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.png"\r\n\r\n`,
      ].join("\r\n"),
    );
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(head);
        sent += 1 << 20;
        controller.enqueue(new Uint8Array(1 << 20));
        if (sent > 90 * (1 << 20)) controller.close();
      },
    });
    refusal(await post(body, type), 413, "upload: larger than 64 MB");
    expect(await uploadsLeft()).toEqual([]);
    expect(await readdir(takesDir(ep, "subject__kettle")).catch(() => [])).toEqual([]);
    expect(s.env.events).toEqual([]);
  });
});

describe("POST /studio/refs/import: imported but not picked", () => {
  it("answers 400 naming the take, keeps it, and tells the page the episode changed", async () => {
    const ep = await episode();
    // Something that is not a file stands where the live picture goes, so the copy into place fails.
    const live = path.join(ep, "refs/props/kettle.png");
    await mkdir(path.join(live, "blocker"), { recursive: true });
    const data = await picture(path.join(s.env.dir, "tmp", "k.png"), [3, 3, 3]);
    const res = await post(form({ ep, ref: "subject:kettle", pick: "1" }, { name: "k.png", data }));
    refusal(res, 400, /^imported as take 1, but not picked: /);
    expect(await readdir(takesDir(ep, "subject__kettle"))).toEqual([
      "subject__kettle_t01.json",
      "subject__kettle_t01.png",
    ]);
    expect(kinds()).toEqual(["studio.ref:ok:1", "studio.episode:"]);
    expect(await uploadsLeft()).toEqual([]);
    await rm(live, { recursive: true });
  });
});
