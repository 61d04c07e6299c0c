// The animatic's media with real ffmpeg: ffprobe asked once per file version, the stills drawn from the card's
// layers match the encoded frames, one decode makes another engine's stills, the dialogue is heard in its window.
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBuiltinEngine } from "../lib/engines/builtin/index.ts";
import type { EngineJob, EngineOutputs, RunHooks } from "../lib/engines/types.ts";
import { countFrames, mediaTools, probe } from "../lib/media/ffmpeg.ts";
import { makeStills, makeThumbnail, STRIP_CELLS } from "../lib/media/take-media.ts";
import { createMediaTools, type MediaTools } from "../lib/media/tools.ts";
import { episodeFence, type Fence } from "../lib/paths/guarded.ts";

const media = createMediaTools(() => process.env);
const engine = createBuiltinEngine(media);
let root: string;
let fence: Fence;
let ffmpeg: string;
let n = 0;

beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), "studio-animatic-media-")));
  fence = episodeFence(root);
  ffmpeg = (await mediaTools(media)).ffmpeg;
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
  await media.close();
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
    width: 448,
    height: 256,
    fps: 24,
    frames: 48,
    seed: 1n,
    prompt: "",
    negative: null,
    entry: {},
    inputs: {},
    captions: [],
    workDir: path.join(root, `work${n}`),
    ...over,
  };
}

async function render(j: EngineJob): Promise<EngineOutputs> {
  const hooks: RunHooks = { signal: new AbortController().signal, onProgress: () => {} };
  return engine.collect(j, await engine.submit(j, await engine.prepare(j, hooks), hooks), hooks);
}

/** The media tools counting the runs of each tool. */
function counting(tools: MediaTools): MediaTools & { runs: Record<string, number> } {
  const runs: Record<string, number> = {};
  return {
    ...tools,
    runs,
    run(name, args, opts) {
      runs[name] = (runs[name] ?? 0) + 1;
      return tools.run(name, args, opts);
    },
  };
}

/** Mean absolute difference of two pictures' RGB at the same size (0..255). */
async function difference(a: Buffer, b: Buffer, width: number, height: number): Promise<number> {
  const raw = (x: Buffer) => sharp(x).resize(width, height, { fit: "fill" }).removeAlpha().raw().toBuffer();
  const [ra, rb] = await Promise.all([raw(a), raw(b)]);
  let sum = 0;
  for (let i = 0; i < ra.length; i++) sum += Math.abs(ra[i] - rb[i]);
  return sum / ra.length;
}

async function loudness(file: string, from: number, to: number): Promise<number> {
  const { stderr } = await execa(ffmpeg, [
    "-hide_banner",
    "-ss",
    String(from),
    "-t",
    String(to - from),
    "-i",
    file,
    "-af",
    "volumedetect",
    "-f",
    "null",
    "-",
  ]);
  const m = /max_volume:\s*(-?[\d.]+|-inf) dB/.exec(stderr);
  return !m || m[1] === "-inf" ? Number.NEGATIVE_INFINITY : Number(m[1]);
}

describe("probe cache", () => {
  it("asks ffprobe once per file version, again when the file changes", async () => {
    const tools = counting(media);
    const clip = path.join(root, "probe.mp4");
    const make = (seconds: number) =>
      execa(ffmpeg, ["-v", "error", "-y", "-f", "lavfi", "-i", `testsrc=s=64x48:r=10:d=${seconds}`, clip]);
    await make(1);
    const [a, b] = await Promise.all([probe(clip, tools), probe(clip, tools)]);
    expect(a).toBe(b);
    expect(await countFrames(clip, tools)).toBe(10);
    expect(await countFrames(clip, tools)).toBe(10);
    expect(tools.runs.ffprobe).toBe(2);
    // A new file at the same path (another size, mtime and inode) is asked again.
    await make(2);
    expect(await countFrames(clip, tools)).toBe(20);
    expect((await probe(clip, tools)).duration).toBeCloseTo(2, 1);
    expect(tools.runs.ffprobe).toBe(4);
  });

  it("does not remember a failure", async () => {
    const tools = counting(media);
    const bad = path.join(root, "bad.mp4");
    await writeFile(bad, "not a video");
    await expect(probe(bad, tools)).rejects.toThrow();
    await expect(probe(bad, tools)).rejects.toThrow();
    expect(tools.runs.ffprobe).toBe(2);
  });
});

describe("the animatic's stills", () => {
  it("are the encoded frames: thumbnail a third in, with the caption then on screen", async () => {
    const captions = [
      { text: "Riley bursts out of the gate.", start: 0, end: 0.5, kind: "action" as const },
      { text: "RILEY: There's gold at the end of the path.", start: 0.5, end: 2, kind: "line" as const },
    ];
    const out = await render(job({ captions, title: "sh010 · street · wide shot" }));
    expect(out.frames).toBe(48);
    expect(out.picture).toEqual({ width: 448, height: 256, fps: 24 });
    const drawn = await sharp(out.thumb!).toBuffer();
    expect((await sharp(drawn).metadata()).width).toBe(448);
    // The same frame decoded from the mp4: what the slower path would have shown.
    const decoded = path.join(root, "decoded.jpg");
    await makeThumbnail(fence, out.video!, decoded, media);
    expect(await difference(drawn, await sharp(decoded).toBuffer(), 448, 256)).toBeLessThan(4);
    // Frame 16 is in the line's window: a card without captions differs from it.
    const bare = await render(job({ captions: [], title: "sh010 · street · wide shot" }));
    expect(await difference(drawn, await sharp(bare.thumb!).toBuffer(), 448, 256)).toBeGreaterThan(1);
    const strip = await sharp(out.strip!).metadata();
    expect(strip.width).toBe(192 * STRIP_CELLS);
  });

  it("shows the keyframe alone, and the subjects' pictures over a plate", async () => {
    const picture = (file: string, color: string) =>
      sharp({ create: { width: 200, height: 120, channels: 3, background: color } })
        .png()
        .toFile(file);
    const first = path.join(root, "first.png");
    const plate = path.join(root, "plate.png");
    const ada = path.join(root, "ada.png");
    await Promise.all([picture(first, "#ff0000"), picture(plate, "#0000ff"), picture(ada, "#00ff00")]);
    const figures = [{ input: "subject:ada", subject: "ada", name: "Ada", panel: null }];
    const keyed = await render(job({ inputs: { first, plate, "subject:ada": ada }, figures }));
    expect(keyed.notes.join("\n")).toMatch(/first keyframe/);
    expect(keyed.notes.join("\n")).not.toMatch(/figure/);
    const plated = await render(job({ inputs: { plate, "subject:ada": ada }, figures }));
    expect(plated.notes.join("\n")).toMatch(/location plate[\s\S]*figure: Ada/);
  });

  it("hears the dialogue in its window and silence outside it", async () => {
    const { path: espeak } = await media.find("espeak-ng");
    const spoken = [{ speaker: "riley", text: "There is gold at the end of the path.", start: 1, end: 3.5 }];
    const out = await render(job({ frames: 96, spoken }));
    const notes = out.notes.join("\n");
    if (espeak === null) {
      expect(notes).toMatch(/audio: silence/);
      return;
    }
    expect(notes).toMatch(/audio: dialogue, 1 line in espeak-ng/);
    expect(await loudness(out.audio!, 0, 0.9)).toBeLessThan(-80);
    expect(await loudness(out.audio!, 1, 3.5)).toBeGreaterThan(-30);
    expect(await loudness(out.video!, 1, 3.5)).toBeGreaterThan(-30);
  });
});

describe("stills of another engine's clip", () => {
  it("come from one decode: thumbnail and strip in one ffmpeg run", async () => {
    const clip = path.join(root, "other.mp4");
    await execa(ffmpeg, ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=s=320x180:r=24:d=3", clip]);
    const tools = counting(media);
    const thumb = path.join(root, "other.jpg");
    const strip = path.join(root, "other_strip.jpg");
    await makeStills(fence, clip, thumb, strip, tools);
    expect(tools.runs.ffmpeg).toBe(1);
    expect(await sharp(thumb).metadata()).toMatchObject({ width: 320, height: 180, format: "jpeg" });
    expect(await sharp(strip).metadata()).toMatchObject({ width: 192 * STRIP_CELLS, height: 108 });
    // The thumbnail is the frame a third in, as the single-purpose maker shows it.
    const alone = path.join(root, "alone.jpg");
    await makeThumbnail(fence, clip, alone, media);
    expect(
      await difference(await sharp(thumb).toBuffer(), await sharp(alone).toBuffer(), 320, 180),
    ).toBeLessThan(3);
  });
});
