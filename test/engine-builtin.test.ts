// The built-in engine with real ffmpeg and sharp: exact animatic clips, cards, silence, cancel, and take media.
import { mkdtemp, readdir, readFile, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinModel, createBuiltinEngine } from "../lib/engines/builtin/index.ts";
import { wrapText } from "../lib/engines/builtin/text.ts";
import type { EngineJob, EngineOutputs, EngineProgress, RunHooks } from "../lib/engines/types.ts";
import { countFrames, mediaTools, probe } from "../lib/media/ffmpeg.ts";
import { extractWav, makeStrip, makeThumbnail } from "../lib/media/take-media.ts";
import { createMediaTools } from "../lib/media/tools.ts";
import { episodeFence, type Fence } from "../lib/paths/guarded.ts";

const media = createMediaTools(() => process.env);
const engine = createBuiltinEngine(media);
let root: string;
// The take media are made inside the test's folder, as a take's are inside its episode.
let fence: Fence;
let ffmpeg: string;
let red: string;
let blue: string;
let tone: string;
let n = 0;

beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), "studio-builtin-")));
  fence = episodeFence(root);
  ffmpeg = (await mediaTools(media)).ffmpeg;
  red = path.join(root, "red.png");
  blue = path.join(root, "blue.png");
  // A keyframe of another aspect than the frame, so scale-and-crop is exercised.
  await sharp({ create: { width: 300, height: 300, channels: 3, background: "#ff0000" } })
    .png()
    .toFile(red);
  await sharp({ create: { width: 640, height: 200, channels: 3, background: "#0000ff" } })
    .png()
    .toFile(blue);
  tone = path.join(root, "tone.wav");
  await execa(ffmpeg, [
    "-v",
    "error",
    "-f",
    "lavfi",
    "-i",
    "sine=frequency=1000:sample_rate=48000:duration=6",
    tone,
  ]);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function job(over: Partial<EngineJob> = {}): EngineJob {
  n++;
  return {
    kind: "video",
    target: "animatic",
    ep: root,
    pass: "proxy",
    subject: "sh010",
    take: n,
    stem: `sh010_t${String(n).padStart(2, "0")}`,
    width: 160,
    height: 96,
    fps: 24,
    frames: 24,
    seed: 7n,
    prompt: "Mara crosses the yard.",
    negative: null,
    entry: {},
    inputs: {},
    captions: [],
    workDir: path.join(root, `work${n}`),
    ...over,
  };
}

function hooks(signal = new AbortController().signal): RunHooks & { seen: EngineProgress[] } {
  const seen: EngineProgress[] = [];
  return { signal, seen, onProgress: (p) => seen.push(p) };
}

async function render(j: EngineJob, h = hooks()): Promise<EngineOutputs> {
  const prepared = await engine.prepare(j, h);
  const submitted = await engine.submit(j, prepared, h);
  expect(submitted.backendPromptId).toMatch(/^builtin-[0-9a-f]+$/);
  return engine.collect(j, submitted, h);
}

/** Frame `index` decoded as RGB. */
async function frameAt(file: string, index: number, w: number, h: number): Promise<Buffer> {
  const { stdout } = await execa(
    ffmpeg,
    [
      "-v",
      "error",
      "-i",
      file,
      "-vf",
      `select=eq(n\\,${index})`,
      "-frames:v",
      "1",
      "-f",
      "rawvideo",
      "-pix_fmt",
      "rgb24",
      "-",
    ],
    { encoding: "buffer" },
  );
  const buf = Buffer.from(stdout);
  expect(buf.length).toBe(w * h * 3);
  return buf;
}

function pixel(raw: Buffer, w: number, x: number, y: number): [number, number, number] {
  const i = (y * w + x) * 3;
  return [raw[i], raw[i + 1], raw[i + 2]];
}

async function loudness(file: string): Promise<{ mean: number; max: number }> {
  const { stderr } = await execa(ffmpeg, [
    "-hide_banner",
    "-nostats",
    "-i",
    file,
    "-map",
    "0:a",
    "-af",
    "volumedetect",
    "-f",
    "null",
    "-",
  ]);
  const read = (key: string) => {
    const m = new RegExp(`${key}:\\s*(-?[\\d.]+|-inf) dB`).exec(stderr);
    return m ? (m[1] === "-inf" ? -Infinity : Number(m[1])) : Number.NaN;
  };
  return { mean: read("mean_volume"), max: read("max_volume") };
}

async function streamDurations(file: string): Promise<Record<string, number>> {
  const { stdout } = await execa((await mediaTools(media)).ffprobe, [
    "-v",
    "error",
    "-show_entries",
    "stream=codec_type,duration",
    "-of",
    "csv=p=0",
    file,
  ]);
  const out: Record<string, number> = {};
  for (const line of stdout.trim().split("\n")) {
    const [type, duration] = line.split(",");
    out[type] = Number(duration);
  }
  return out;
}

/** Processes whose command line mentions `marker` (Linux /proc; empty elsewhere). */
async function processesWith(marker: string): Promise<number[]> {
  let entries: string[];
  try {
    entries = await readdir("/proc");
  } catch {
    return [];
  }
  const pids: number[] = [];
  for (const e of entries) {
    if (!/^\d+$/.test(e) || Number(e) === process.pid) continue;
    try {
      const cmd = (await readFile(`/proc/${e}/cmdline`)).toString();
      if (cmd.includes(marker)) pids.push(Number(e));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

describe("animatic", () => {
  it.each([
    [73, 24],
    [1, 24],
    [22, 24],
    [90, 30],
  ])("delivers exactly %i frames at %i fps, H.264 yuv420p with a sound track", async (frames, fps) => {
    const j = job({ frames, fps });
    const out = await render(j);
    expect(out.video).toBe(path.join(j.workDir, `${j.stem}.mp4`));
    expect(out.audio).toBe(path.join(j.workDir, `${j.stem}.wav`));
    expect(out.frames).toBe(frames);
    expect(await countFrames(out.video!, media)).toBe(frames);
    const info = await probe(out.video!, media);
    expect(info.video).toMatchObject({ codec: "h264", width: 160, height: 96, pixFmt: "yuv420p" });
    expect(info.video!.fps).toBeCloseTo(fps, 3);
    expect(info.audio).toMatchObject({ codec: "aac", sampleRate: 48000, channels: 2 });
    expect(info.duration!).toBeLessThanOrEqual(frames / fps + 1 / fps + 1e-6);
    expect(info.duration!).toBeGreaterThanOrEqual(frames / fps - 1 / fps);
    // The sound covers the whole picture (not cut short when the video ends).
    const streams = await streamDurations(out.video!);
    expect(streams.audio).toBeCloseTo(frames / fps, 2);
    expect(streams.video).toBeCloseTo(frames / fps, 3);
    const wav = await probe(out.audio!, media);
    expect(wav.audio).toMatchObject({ codec: "pcm_s16le", sampleRate: 48000 });
    expect(wav.duration!).toBeCloseTo(frames / fps, 3);
    // Only the outputs are left in the work folder (the stills drawn meanwhile): no temporaries, no scratch folder.
    expect(out.thumb).toBe(path.join(j.workDir, `${j.stem}.jpg`));
    expect(out.strip).toBe(path.join(j.workDir, `${j.stem}_strip.jpg`));
    expect((await readdir(j.workDir)).sort()).toEqual([
      `${j.stem}.jpg`,
      `${j.stem}.mp4`,
      `${j.stem}.wav`,
      `${j.stem}_strip.jpg`,
    ]);
  });

  it("draws the first keyframe, scaled and cropped to fill", async () => {
    const j = job({ inputs: { first: red, plate: blue } });
    const out = await render(j);
    const raw = await frameAt(out.video!, 12, 160, 96);
    const [r, g, b] = pixel(raw, 160, 80, 48);
    expect(r).toBeGreaterThan(200);
    expect(g).toBeLessThan(60);
    expect(b).toBeLessThan(60);
    // Filled to the edges (cover, not letterbox).
    expect(pixel(raw, 160, 2, 92)[0]).toBeGreaterThan(200);
    expect(out.notes.join("\n")).toMatch(/first keyframe/);
  });

  it("draws the plate when there is no keyframe", async () => {
    const out = await render(job({ inputs: { plate: blue } }));
    const [r, g, b] = pixel(await frameAt(out.video!, 5, 160, 96), 160, 80, 48);
    expect(b).toBeGreaterThan(200);
    expect(r).toBeLessThan(60);
    expect(g).toBeLessThan(60);
    expect(out.notes.join("\n")).toMatch(/location plate/);
  });

  it("draws a plain card without either (and skips a missing keyframe)", async () => {
    const out = await render(job({ inputs: { first: path.join(root, "nope.png") } }));
    const [r, g, b] = pixel(await frameAt(out.video!, 5, 160, 96), 160, 80, 48);
    expect(r).toBeLessThan(120);
    expect(Math.abs(r - g)).toBeLessThan(40);
    expect(b).toBeLessThan(120);
    expect(out.notes.join("\n")).toMatch(/plain card/);
  });

  it("shows captions only in their window", async () => {
    const captions = [
      { text: "Mara crosses the yard.", start: 0, end: 0.5 },
      {
        text: "MARA: Where is everyone? I thought the whole family would be here by now.",
        start: 0.5,
        end: 1,
      },
    ];
    const w = 320;
    const h = 180;
    const plain = await render(job({ width: w, height: h, captions: [] }));
    const captioned = await render(job({ width: w, height: h, captions }));
    const a0 = await frameAt(plain.video!, 6, w, h);
    const b0 = await frameAt(captioned.video!, 6, w, h);
    const b1 = await frameAt(captioned.video!, 18, w, h);
    expect(b0.equals(a0)).toBe(false);
    expect(b1.equals(b0)).toBe(false);
    expect(captioned.notes).toContain("captions: 2");
  });

  it("lays the track's window under the picture, silence otherwise", async () => {
    const withTone = await render(job({ frames: 48, audio: { path: tone, start: 1, end: 3 } }));
    const loud = await loudness(withTone.video!);
    expect(loud.mean).toBeGreaterThan(-30);
    expect((await loudness(withTone.audio!)).mean).toBeGreaterThan(-30);
    const quiet = await loudness((await render(job({ frames: 48 }))).video!);
    expect(quiet.max).toBeLessThanOrEqual(-90);
  });

  it("pads a short window with silence to the shot's length", async () => {
    const out = await render(job({ frames: 48, audio: { path: tone, start: 5.5, end: 6 } }));
    const info = await probe(out.audio!, media);
    expect(info.duration!).toBeCloseTo(2, 3);
  });

  it("reports progress ending at 1", async () => {
    const h = hooks();
    await render(job({ frames: 96, width: 320, height: 180 }), h);
    expect(h.seen.length).toBeGreaterThanOrEqual(1);
    expect(h.seen.at(-1)).toEqual({ progress: 1, step: "render" });
    for (const p of h.seen) expect(p.progress).toBeGreaterThanOrEqual(0);
    const values = h.seen.map((p) => p.progress);
    expect([...values].sort((a, b) => a - b)).toEqual(values);
  });

  it("cancel kills the ffmpeg child and collect rejects with 'canceled'", async () => {
    const j = job({ frames: 24 * 3600, width: 640, height: 360 });
    const h = hooks();
    const submitted = await engine.submit(j, await engine.prepare(j, h), h);
    let running: number[] = [];
    let cancel: Promise<void> | undefined;
    const first = new Promise<void>((resolve) => {
      h.onProgress = async () => {
        if (cancel) return;
        running = await processesWith(j.workDir);
        cancel = engine.cancel(j, submitted);
        resolve();
      };
    });
    const collected = engine.collect(j, submitted, h);
    await first;
    await expect(collected).rejects.toThrow(/^canceled$/);
    await cancel;
    if (process.platform === "linux") {
      expect(running.length).toBeGreaterThan(0);
      expect(await processesWith(j.workDir)).toEqual([]);
    }
    expect(await readdir(j.workDir)).toEqual([]);
  });

  it("aborting the caller's signal cancels too", async () => {
    const j = job({ frames: 24 * 3600, width: 640, height: 360 });
    const ac = new AbortController();
    const h = hooks(ac.signal);
    h.onProgress = () => ac.abort();
    const started = Date.now();
    await expect(render(j, h)).rejects.toThrow(/^canceled$/);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await processesWith(j.workDir)).toEqual([]);
  });

  it("refuses sizes H.264 yuv420p cannot hold and targets it does not render", async () => {
    await expect(engine.prepare(job({ width: 161 }), hooks())).rejects.toThrow(/even width/);
    await expect(engine.prepare(job({ target: "ltx2" }), hooks())).rejects.toThrow(
      /does not run on the built-in/,
    );
  });

  it("names its model", () => {
    expect(builtinModel("animatic")).toBe("animatic");
    expect(engine.model({ target: "animatic" })).toBe("animatic");
    expect(builtinModel("ltx2")).toBeNull();
  });
});

describe("card", () => {
  const card = (over: Partial<EngineJob> = {}) =>
    job({
      kind: "image",
      target: "card",
      subject: "mara",
      prompt: ["Mara, a tall woman in a green raincoat", "front view"],
      width: 512,
      height: 384,
      frames: 0,
      ...over,
    });

  it("writes a PNG of the job's size", async () => {
    const out = await render(card());
    expect(out.image).toMatch(/\.png$/);
    const meta = await sharp(out.image!).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["png", 512, 384]);
  });

  it("is the same picture for the same seed and another for another seed", async () => {
    const a = await readFile((await render(card({ seed: 42n }))).image!);
    const b = await readFile((await render(card({ seed: 42n }))).image!);
    const c = await readFile((await render(card({ seed: 43n }))).image!);
    expect(a.equals(b)).toBe(true);
    expect(a.equals(c)).toBe(false);
  });
});

describe("silence", () => {
  const voice = (over: Partial<EngineJob> = {}) =>
    job({ kind: "audio", target: "silence", width: 0, height: 0, ...over });

  it("lasts frames / fps seconds, 48 kHz mono, silent", async () => {
    const out = await render(voice({ frames: 60, fps: 24 }));
    const info = await probe(out.audio!, media);
    expect(info.audio).toMatchObject({ codec: "pcm_s16le", sampleRate: 48000, channels: 1 });
    expect(info.duration!).toBeCloseTo(2.5, 4);
    // volumedetect's floor for digital silence in 16 bits.
    expect((await loudness(out.audio!)).max).toBeLessThanOrEqual(-90);
  });

  it("lasts 3 s without frames", async () => {
    const out = await render(voice({ frames: 0 }));
    expect((await probe(out.audio!, media)).duration!).toBeCloseTo(3, 4);
  });
});

describe("take media", () => {
  let clip: string;

  beforeAll(async () => {
    const out = await render(
      job({ frames: 48, width: 640, height: 360, audio: { path: tone, start: 0, end: 2 } }),
    );
    clip = out.video!;
  });

  it("makes a thumbnail at most 512 px wide", async () => {
    const jpg = path.join(root, "thumb", "sh010_t01.jpg");
    await makeThumbnail(fence, clip, jpg, media);
    const meta = await sharp(jpg).metadata();
    expect(meta.format).toBe("jpeg");
    expect(meta.width).toBe(512);
    expect(meta.height).toBe(288);
  });

  it("keeps a small clip's own width", async () => {
    const small = (await render(job({ frames: 1 }))).video!;
    const jpg = path.join(root, "thumb", "small.jpg");
    await makeThumbnail(fence, small, jpg, media);
    expect((await sharp(jpg).metadata()).width).toBe(160);
  });

  it("makes an 8-cell strip", async () => {
    const jpg = path.join(root, "strip", "sh010_t01_strip.jpg");
    await makeStrip(fence, clip, jpg, media);
    const meta = await sharp(jpg).metadata();
    expect(meta.format).toBe("jpeg");
    const cell = meta.width! / 8;
    expect(Number.isInteger(cell)).toBe(true);
    expect(cell).toBeLessThanOrEqual(192);
    expect(cell).toBe(192);
    expect(meta.height).toBe(108);
    expect(await readdir(path.dirname(jpg))).toEqual(["sh010_t01_strip.jpg"]);
  });

  it("fills every cell of a clip shorter than the strip", async () => {
    const one = (await render(job({ frames: 3, inputs: { first: red } }))).video!;
    const jpg = path.join(root, "strip", "short_strip.jpg");
    await makeStrip(fence, one, jpg, media);
    const { data, info } = await sharp(jpg).raw().toBuffer({ resolveWithObject: true });
    expect(info.width).toBe(8 * 160);
    // The middle of the last cell is the red keyframe, not an empty tile.
    const i = (Math.floor(info.height / 2) * info.width + 7 * 160 + 80) * info.channels;
    expect(data[i]).toBeGreaterThan(200);
  });

  it("extracts the sound as a 48 kHz wav", async () => {
    const wav = path.join(root, "wav", "sh010_t01.wav");
    await extractWav(fence, clip, wav, media);
    const info = await probe(wav, media);
    expect(info.audio).toMatchObject({ codec: "pcm_s16le", sampleRate: 48000 });
    expect(info.duration!).toBeCloseTo(2, 2);
    expect((await loudness(wav)).mean).toBeGreaterThan(-30);
    expect(await readdir(path.dirname(wav))).toEqual(["sh010_t01.wav"]);
  });
});

describe("text", () => {
  it("wraps long lines and ends cut text with an ellipsis", () => {
    const lines = wrapText("one two three four five six seven eight nine ten", 10, 60, 2);
    expect(lines).toHaveLength(2);
    expect(lines[1].endsWith("…")).toBe(true);
    expect(wrapText("x".repeat(40), 10, 60, 10).length).toBeGreaterThan(1);
  });

  it("writes any text into the card (XML escaped)", async () => {
    const j = job({
      kind: "image",
      target: "card",
      subject: `<b>&"'`,
      prompt: "a < b && c > d \u0001",
      width: 200,
      height: 200,
    });
    const out = await render(j);
    expect((await sharp(out.image!).metadata()).width).toBe(200);
  });
});
