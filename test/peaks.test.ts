// Waveform peaks: the scanner on sample arrays (widths, channels, chunks cut anywhere), the wav header reader, the
// resampling and range rules, then GET /studio/peaks over the app on generated files (wav read in-process, mp3 and
// m4a through ffmpeg, silent files, every refusal) and the caches (disk file reused, a new mtime made again, two
// cold askers sharing one decode).
import { mkdir, open, readdir, readFile, realpath, rm, symlink, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { functions } from "../functions/index.ts";
import { peaksCacheFile, peaksKey, readPeaks } from "../lib/audio/peaks.ts";
import { peaksAnswer, resamplePeaks } from "../lib/audio/peaks-range.ts";
import { PEAK_RATE, PeakScanner, peakByte } from "../lib/audio/peaks-scan.ts";
import { parseFmt, readWavHeader } from "../lib/audio/wav.ts";
import { StudioError } from "../lib/errors.ts";
import { mediaTools } from "../lib/media/ffmpeg.ts";
import type { MediaTools } from "../lib/media/tools.ts";
import { createApp } from "../runtime/app.ts";
import { makeTestEnv, type TestEnv } from "./support/ctx.ts";

/** A PCM wav's bytes: `frames` holds one array of samples per channel, written at `bits` (values on that scale). */
function wavBytes(
  frames: number[][],
  rate: number,
  bits: 8 | 16 | 24 | 32,
  extra: Uint8Array[] = [],
): Buffer {
  const channels = frames.length;
  const n = frames[0].length;
  const width = bits / 8;
  const data = Buffer.alloc(n * channels * width);
  let at = 0;
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < channels; c++) {
      const s = frames[c][i];
      if (bits === 8) data.writeUInt8(s + 128, at);
      else if (bits === 16) data.writeInt16LE(s, at);
      else if (bits === 24) data.writeIntLE(s, at, 3);
      else data.writeInt32LE(s, at);
      at += width;
    }
  }
  const fmt = Buffer.alloc(24);
  fmt.write("fmt ", 0, "ascii");
  fmt.writeUInt32LE(16, 4);
  fmt.writeUInt16LE(1, 8);
  fmt.writeUInt16LE(channels, 10);
  fmt.writeUInt32LE(rate, 12);
  fmt.writeUInt32LE(rate * channels * width, 16);
  fmt.writeUInt16LE(channels * width, 20);
  fmt.writeUInt16LE(bits, 22);
  const dataHead = Buffer.alloc(8);
  dataHead.write("data", 0, "ascii");
  dataHead.writeUInt32LE(data.length, 4);
  const body = Buffer.concat([Buffer.from("WAVE"), fmt, ...extra, dataHead, data]);
  const riff = Buffer.alloc(8);
  riff.write("RIFF", 0, "ascii");
  riff.writeUInt32LE(body.length, 4);
  return Buffer.concat([riff, body]);
}

/** `seconds` of 16-bit mono samples at `rate`, each second at the level given (a square wave of that amplitude). */
function levels(rate: number, perSecond: number[]): number[] {
  const out: number[] = [];
  for (const level of perSecond) for (let i = 0; i < rate; i++) out.push(i % 2 === 0 ? level : -level);
  return out;
}

const fmtOf = (tag: number, channels: number, rate: number, bits: number, sub?: number) => {
  const b = Buffer.alloc(sub === undefined ? 16 : 40);
  b.writeUInt16LE(tag, 0);
  b.writeUInt16LE(channels, 2);
  b.writeUInt32LE(rate, 4);
  b.writeUInt16LE(bits, 14);
  if (sub !== undefined) b.writeUInt16LE(sub, 24);
  return new Uint8Array(b);
};

describe("the peak scanner", () => {
  it("makes one byte per 1/200 s: the loudest sample over every channel, round(|s| / 32767 × 255)", () => {
    const rate = 8000; // 40 frames a slice
    const left = new Array(120).fill(0);
    const right = new Array(120).fill(0);
    left[5] = 16384;
    right[50] = -32768;
    right[119] = 100;
    const scanner = new PeakScanner({ sampleRate: rate, channels: 2, bits: 16 }, 120);
    expect(scanner.push(new Uint8Array(wavBytes([left, right], rate, 16).subarray(44)))).toBe(480);
    expect([...scanner.finish()]).toEqual([128, 255, peakByte(100)]);
    expect(peakByte(32767)).toBe(255);
    expect(peakByte(1)).toBe(0);
    expect(peakByte(65)).toBe(1);
  });

  it("reads 8, 24 and 32-bit samples on the 16-bit scale", () => {
    const data = (bits: 8 | 24 | 32, level: number, low = -level) => {
      const scanner = new PeakScanner({ sampleRate: 400, channels: 1, bits }, 4);
      scanner.push(new Uint8Array(wavBytes([[0, level, 0, low]], 400, bits).subarray(44)));
      return [...scanner.finish()];
    };
    expect(data(8, 64)).toEqual([128, 128]); // (128+64 - 128) × 256 = 16384
    expect(data(8, -128, 0)).toEqual([255, 0]);
    expect(data(24, 16384 * 256)).toEqual([128, 128]);
    expect(data(24, -(2 ** 23), 0)).toEqual([255, 0]);
    expect(data(32, 16384 * 65536)).toEqual([128, 128]);
  });

  it("gives the same envelope whatever the chunks (frames split across them), and a short last slice", () => {
    const rate = 44100; // slices of 220 or 221 frames
    const samples = Array.from({ length: 44100 + 100 }, (_, i) => ((i * 7919) % 30000) - 15000);
    const bytes = new Uint8Array(wavBytes([samples, samples.map((s) => -s >> 1)], rate, 16).subarray(44));
    const whole = new PeakScanner({ sampleRate: rate, channels: 2, bits: 16 }, samples.length);
    whole.push(bytes);
    const expected = [...whole.finish()];
    expect(expected.length).toBe(Math.ceil((samples.length * PEAK_RATE) / rate));
    for (const step of [1, 3, 4, 1001, 8191]) {
      const scanner = new PeakScanner({ sampleRate: rate, channels: 2, bits: 16 }, samples.length);
      let pending = new Uint8Array(0);
      for (let at = 0; at < bytes.length; at += step) {
        const joined = new Uint8Array(pending.length + Math.min(step, bytes.length - at));
        joined.set(pending);
        joined.set(bytes.subarray(at, at + step), pending.length);
        pending = joined.slice(scanner.push(joined));
      }
      expect([...scanner.finish()], `chunks of ${step}`).toEqual(expected);
    }
    // Slice edges at ceil(n × 44100 / 200): the first slice holds frames 0..220, the second starts at 441/2 → 221.
    const edge = new PeakScanner({ sampleRate: rate, channels: 1, bits: 16 }, 442);
    const marks = new Array(442).fill(0);
    marks[220] = 32767;
    marks[221] = 16384;
    edge.push(new Uint8Array(wavBytes([marks], rate, 16).subarray(44)));
    expect([...edge.finish()]).toEqual([255, 128, 0]);
  });
});

describe("the wav header", () => {
  it("takes integer PCM of 8/16/24/32 bits (plain or extensible) and nothing else", () => {
    expect(parseFmt(fmtOf(1, 2, 48000, 16))).toEqual({ channels: 2, sampleRate: 48000, bits: 16 });
    expect(parseFmt(fmtOf(0xfffe, 1, 44100, 24, 1))).toEqual({ channels: 1, sampleRate: 44100, bits: 24 });
    expect(parseFmt(fmtOf(3, 1, 48000, 32))).toBeNull(); // float
    expect(parseFmt(fmtOf(0xfffe, 1, 48000, 32, 3))).toBeNull(); // extensible float
    expect(parseFmt(fmtOf(1, 1, 48000, 12))).toBeNull();
    expect(parseFmt(fmtOf(1, 0, 48000, 16))).toBeNull();
    expect(parseFmt(new Uint8Array(10))).toBeNull();
  });
});

let env: TestEnv;
let app: ReturnType<typeof createApp>;
let root: string;
let ep: string;
let outside: string;
let ffmpeg: string;

async function put(file: string, data: string | Uint8Array): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, data);
  return file;
}

async function peaks(query: Record<string, string>) {
  const res = await app.request(`http://127.0.0.1/studio/peaks?${new URLSearchParams({ ep, ...query })}`, {
    headers: { host: "127.0.0.1" },
  });
  // biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
  return { status: res.status, body: (await res.json()) as any };
}

/** A sound made by ffmpeg from lavfi: 1 s of tone, 1 s of silence, 1 s of tone. */
async function toneGapTone(file: string): Promise<string> {
  const tone = "sine=frequency=440:sample_rate=44100:duration=1";
  await execa(ffmpeg, [
    ...["-v", "error", "-y", "-f", "lavfi", "-i", tone, "-f", "lavfi", "-i", "anullsrc=r=44100:cl=mono"],
    ...["-f", "lavfi", "-i", tone, "-filter_complex", "[1]atrim=duration=1[s];[0][s][2]concat=n=3:v=0:a=1"],
    file,
  ]);
  return file;
}

beforeAll(async () => {
  env = await makeTestEnv();
  env.services.env.PATH = process.env.PATH;
  ffmpeg = (await mediaTools(env.services.media)).ffmpeg;
  const base = await realpath(env.dir);
  root = path.join(base, "root");
  outside = path.join(base, "outside");
  env.services.env.STUDIO_ROOTS = root;
  app = createApp(env.services, functions);
  ep = path.join(root, "show", "ep01");
  await put(path.join(ep, "series.json"), JSON.stringify({ series: { id: "s" } }));
  await put(path.join(ep, "ep01.md"), "= ep01  One\n");
  // 1 s silent, 1 s at half scale, 1 s silent, 1 s at a quarter: 8 kHz mono 16-bit.
  await put(path.join(ep, "audio", "steps.wav"), wavBytes([levels(8000, [0, 16384, 0, 8192])], 8000, 16));
  // The same steps at 48 kHz stereo 24-bit, the right channel louder, behind a LIST chunk.
  const list = Buffer.concat([
    Buffer.from("LIST"),
    Buffer.from([5, 0, 0, 0]),
    Buffer.from("INFOx"),
    Buffer.from([0]),
  ]);
  const left = levels(48000, [0, 16384 * 256, 0, 4096 * 256]);
  const right = levels(48000, [0, 8192 * 256, 0, 8192 * 256]);
  await put(path.join(ep, "audio", "wide.wav"), wavBytes([left, right], 48000, 24, [list]));
  await put(path.join(ep, "audio", "zeros.wav"), wavBytes([new Array(16000).fill(0)], 8000, 16));
  await toneGapTone(path.join(ep, "audio", "tgt.mp3"));
  await toneGapTone(path.join(ep, "audio", "tgt.m4a"));
  await execa(ffmpeg, [
    ...["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=black:size=64x64:rate=24:duration=2"],
    ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", path.join(ep, "mute.mp4")],
  ]);
  await put(path.join(outside, "secret.wav"), wavBytes([levels(8000, [100])], 8000, 16));
  await symlink(path.join(outside, "secret.wav"), path.join(ep, "audio", "out.wav"));
  await mkdir(path.join(ep, "renders"), { recursive: true });
}, 60_000);

afterAll(() => env.cleanup());

describe("GET /studio/peaks", () => {
  it("reads a PCM wav's loud and silent stretches into the bins asked", async () => {
    const r = await peaks({ path: "audio/steps.wav", bins: "4" });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ duration: 4, bins: 4, start: 0, end: 4, peaks: [0, 128, 0, 64] });
    // Eight bins: each half second.
    expect((await peaks({ path: "audio/steps.wav", bins: "8" })).body.peaks).toEqual([
      0, 0, 128, 128, 0, 0, 64, 64,
    ]);
    // A range: 0.5 s to 2.5 s in 4 bins.
    const part = await peaks({ path: "audio/steps.wav", bins: "4", start: "0.5", end: "2.5" });
    expect(part.body).toEqual({ duration: 4, bins: 4, start: 0.5, end: 2.5, peaks: [0, 128, 128, 0] });
    // A bin straddling the step takes the loudest peak it covers.
    expect(
      (await peaks({ path: "audio/steps.wav", bins: "2", start: "0.75", end: "1.25" })).body.peaks,
    ).toEqual([0, 128]);
    // Default bins: 200 per second of the range; the end clamped to the file.
    const dflt = await peaks({ path: "audio/steps.wav", start: "3", end: "99" });
    expect(dflt.body.bins).toBe(200);
    expect(dflt.body.end).toBe(4);
    expect(new Set(dflt.body.peaks)).toEqual(new Set([64]));
    // Many more bins than cached peaks: each takes the nearest one.
    const fine = await peaks({ path: "audio/steps.wav", bins: "1000", start: "0.99", end: "1.01" });
    expect(fine.body.peaks.slice(0, 400)).toEqual(new Array(400).fill(0));
    expect(fine.body.peaks.slice(600)).toEqual(new Array(400).fill(128));
    expect(fine.body.silent).toBeUndefined();
  });

  it("takes the loudest channel of a 24-bit stereo wav with chunks before its samples", async () => {
    const r = await peaks({ path: "audio/wide.wav", bins: "4" });
    expect(r.body).toEqual({ duration: 4, bins: 4, start: 0, end: 4, peaks: [0, 128, 0, 64] });
  });

  it("decodes mp3 and m4a through ffmpeg: tone, silence, tone", async () => {
    for (const name of ["tgt.mp3", "tgt.m4a"]) {
      const r = await peaks({ path: `audio/${name}`, bins: "30", start: "0", end: "3" });
      expect(r.status, name).toBe(200);
      expect(r.body.duration, name).toBeGreaterThan(2.9);
      expect(r.body.duration, name).toBeLessThan(3.2);
      const p: number[] = r.body.peaks;
      // Away from the edges (encoder delay, filters' ramps): loud (lavfi's sine peaks at 1/8 of full scale, 32),
      // then nothing, then loud.
      for (const i of [2, 3, 4, 5, 6, 7]) expect(p[i], `${name} bin ${i}`).toBeGreaterThan(25);
      for (const i of [13, 14, 15, 16, 17]) expect(p[i], `${name} bin ${i}`).toBeLessThan(2);
      for (const i of [23, 24, 25, 26, 27]) expect(p[i], `${name} bin ${i}`).toBeGreaterThan(25);
    }
  });

  it("answers a file with no sound as silent with no peaks", async () => {
    expect((await peaks({ path: "audio/zeros.wav", bins: "10" })).body).toEqual({
      duration: 2,
      bins: 0,
      peaks: [],
      silent: true,
      start: 0,
      end: 2,
    });
    const mute = await peaks({ path: "mute.mp4", start: "0.5" });
    expect(mute.status).toBe(200);
    expect(mute.body).toMatchObject({ bins: 0, peaks: [], silent: true, start: 0.5 });
    expect(mute.body.duration).toBeCloseTo(2, 1);
    expect(mute.body.end).toBe(mute.body.duration);
  });

  it("refuses bad paths, bins and ranges with a 400 naming the field, and a missing file with 404", async () => {
    const refused: [Record<string, string>, number, RegExp][] = [
      [{ path: "/etc/passwd" }, 400, /path/],
      [{ path: path.join(ep, "audio", "steps.wav") }, 400, /path/],
      [{ path: "C:/x" }, 400, /path/],
      [{ path: "audio/a\0b.wav" }, 400, /path/],
      [{ path: "../ep02/x.wav" }, 400, /leaves the episode/],
      [{ path: "audio/../audio/steps.wav" }, 400, /\.\./],
      [{ path: "audio/out.wav" }, 400, /link/], // a link inside the episode leading out: 400 here, 403 on /file
      [{ path: "audio/steps.wav", bins: "0" }, 400, /bins/],
      [{ path: "audio/steps.wav", bins: "100001" }, 400, /bins.*100000/],
      [{ path: "audio/steps.wav", bins: "1.5" }, 400, /bins/],
      [{ path: "audio/steps.wav", bins: "x" }, 400, /bins/],
      [{ path: "audio/steps.wav", bins: "" }, 400, /bins/],
      [{ path: "audio/steps.wav", start: "-1" }, 400, /start/],
      [{ path: "audio/steps.wav", start: "abc" }, 400, /start/],
      [{ path: "audio/steps.wav", end: "1e309" }, 400, /end/],
      [{ path: "audio/steps.wav", end: "NaN" }, 400, /end/],
      [{ path: "audio/steps.wav", start: "2", end: "1" }, 400, /empty/],
      [{ path: "audio/steps.wav", start: "2", end: "2" }, 400, /empty/],
      [{ path: "audio/steps.wav", start: "5" }, 400, /empty/],
      [{ path: "ep01.md" }, 400, /not a sound or video file/],
      [{ path: "audio/none.wav" }, 404, /no file/],
      [{ path: "renders" }, 404, /folder/],
    ];
    for (const [query, status, message] of refused) {
      const r = await peaks(query);
      expect(r.status, JSON.stringify(query)).toBe(status);
      expect(r.body.error, JSON.stringify(query)).toMatch(message);
    }
    // Nothing was cached for a refused file.
    const cached = await readdir(path.join(ep, "_cache", "peaks")).catch(() => []);
    expect(cached.filter((n) => !n.endsWith(".json"))).toEqual([]);
  });
});

describe("GET /studio/peaks without ffmpeg", () => {
  it("answers 500 naming ffmpeg for a file that needs it, and still reads a PCM wav itself", async () => {
    const bare = await makeTestEnv({
      FFMPEG_PATH: path.join(env.dir, "no-ffmpeg"),
      FFPROBE_PATH: path.join(env.dir, "no-ffprobe"),
      STUDIO_ROOTS: env.services.env.STUDIO_ROOTS,
    });
    try {
      const noTools = createApp(bare.services, functions);
      const ask = async (file: string) => {
        const url = `http://127.0.0.1/studio/peaks?${new URLSearchParams({ ep, path: file, bins: "4" })}`;
        const res = await noTools.request(url, { headers: { host: "127.0.0.1" } });
        return { status: res.status, body: (await res.json()) as { error?: string; peaks?: number[] } };
      };
      // A cache another process made is read as it is: take one made for the file the test decodes here.
      await rm(path.join(ep, "_cache", "peaks"), { recursive: true, force: true });
      const mp3 = await ask("audio/tgt.m4a");
      expect(mp3.status).toBe(500);
      expect(mp3.body.error).toMatch(/ff(mpeg|probe)/);
      const wav = await ask("audio/steps.wav");
      expect(wav).toEqual({
        status: 200,
        body: { duration: 4, bins: 4, start: 0, end: 4, peaks: [0, 128, 0, 64] },
      });
    } finally {
      await bare.cleanup();
    }
  });
});

describe("the peaks caches", () => {
  it("writes the envelope to _cache/peaks/<sha1 of path|size|mtime_ns>.json and reads it back", async () => {
    const file = await put(
      path.join(ep, "audio", "cached.wav"),
      wavBytes([levels(8000, [0, 16384])], 8000, 16),
    );
    const first = await readPeaks(env.services, ep, file);
    expect(first).toMatchObject({ duration: 2, rate: 200, silent: false });
    expect(first.peaks.length).toBe(400);
    const st = await (await open(file)).stat({ bigint: true }).then((s) => s);
    const key = peaksKey(file, st.size, st.mtimeNs);
    const onDisk = JSON.parse(await readFile(peaksCacheFile(ep, key), "utf8"));
    expect(onDisk).toEqual({
      version: 1,
      path: file,
      duration: 2,
      rate: 200,
      silent: false,
      peaks: `${"00".repeat(200)}${"80".repeat(200)}`,
    });
    // Another process (fresh services, empty memory) reads the file instead of decoding: a planted value shows.
    await writeFile(peaksCacheFile(ep, key), JSON.stringify({ ...onDisk, peaks: "07".repeat(400) }));
    const other = await makeTestEnv({ PATH: process.env.PATH });
    try {
      const again = await readPeaks(other.services, ep, file);
      expect(again.peaks.every((p) => p === 7)).toBe(true);
      // A damaged cache file is made again.
      const fresh = await makeTestEnv({ PATH: process.env.PATH });
      await writeFile(peaksCacheFile(ep, key), "{");
      expect((await readPeaks(fresh.services, ep, file)).peaks[300]).toBe(128);
      await fresh.cleanup();
      // A new modification time is a new version: decoded again under a new key.
      await utimes(file, new Date(), new Date(Date.now() + 5000));
      const changed = await readPeaks(other.services, ep, file);
      expect(changed.peaks[0]).toBe(0);
      expect(changed.peaks[399]).toBe(128);
      const names = await readdir(path.join(ep, "_cache", "peaks"));
      expect(names.filter((n) => n.endsWith(".json")).length).toBeGreaterThanOrEqual(2);
    } finally {
      await other.cleanup();
    }
  });

  it("keeps the envelope in memory: a warm answer is the same object, read without the disk", async () => {
    const file = path.join(ep, "audio", "steps.wav");
    const a = await readPeaks(env.services, ep, file);
    const b = await readPeaks(env.services, ep, file);
    expect(b).toBe(a);
  });

  it("decodes a file once when two askers come cold at the same time; one leaving does not stop the other", async () => {
    const fresh = await makeTestEnv({ PATH: process.env.PATH });
    try {
      const runs: string[] = [];
      const real = fresh.services.media;
      const media: MediaTools = {
        ...real,
        run(name, args, opts) {
          runs.push(name);
          return real.run(name, args, opts);
        },
      };
      const services = { ...fresh.services, media };
      const file = await put(
        path.join(ep, "audio", "twice.m4a"),
        await readFile(path.join(ep, "audio", "tgt.m4a")),
      );
      const leaving = new AbortController();
      const [a, b, c] = [
        readPeaks(services, ep, file),
        readPeaks(services, ep, file),
        readPeaks(services, ep, file, leaving.signal),
      ];
      leaving.abort(new Error("gone"));
      await expect(c).rejects.toThrow("gone");
      const [pa, pb] = await Promise.all([a, b]);
      expect(pb).toBe(pa);
      expect(pa.peaks.length).toBeGreaterThan(590);
      expect(runs.filter((r) => r === "ffmpeg")).toEqual(["ffmpeg"]);
      expect(runs.filter((r) => r === "ffprobe").length).toBeLessThanOrEqual(1);
      // No scratch file left beside the cache.
      const names = await readdir(path.join(ep, "_cache", "peaks"));
      expect(names.filter((n) => n.startsWith("."))).toEqual([]);
    } finally {
      await fresh.cleanup();
    }
  });

  it("stops the decode when its only asker leaves, and the next asker starts anew", async () => {
    const fresh = await makeTestEnv({ PATH: process.env.PATH });
    try {
      // A copy under a new name: nothing cached for it on disk, so the decode really runs.
      const file = await put(
        path.join(ep, "audio", "stopped.mp3"),
        await readFile(path.join(ep, "audio", "tgt.mp3")),
      );
      const real = fresh.services.media;
      const runs: string[] = [];
      let probing = () => {};
      const probed = new Promise<void>((resolve) => {
        probing = resolve;
      });
      const media: MediaTools = {
        ...real,
        run(name, args, opts) {
          runs.push(name);
          if (name === "ffprobe") probing();
          return real.run(name, args, opts);
        },
      };
      const services = { ...fresh.services, media };
      const gone = new AbortController();
      const first = readPeaks(services, ep, file, gone.signal);
      await probed;
      gone.abort(new Error("left"));
      // Asked again while the stopped decode is still ending: a new decode, not the stopped one's failure.
      const again = readPeaks(services, ep, file);
      await expect(first).rejects.toThrow("left");
      expect((await again).duration).toBeGreaterThan(2.9);
      // The stopped decode's ffmpeg was canceled before it ran; the new one ran it.
      expect(runs.filter((r) => r === "ffmpeg").length).toBe(2);
      // Asked by someone already gone: nothing starts.
      const before = runs.length;
      const late = new AbortController();
      late.abort(new Error("late"));
      await expect(readPeaks(services, ep, path.join(ep, "audio", "tgt.m4a"), late.signal)).rejects.toThrow(
        "late",
      );
      expect(runs.length).toBe(before);
    } finally {
      await fresh.cleanup();
    }
  });
});

describe("the answer's range rules", () => {
  const env4 = {
    duration: 4,
    silent: false,
    peaks: new Uint8Array([...new Array(200).fill(1), ...new Array(600).fill(9)]),
  };

  it("resamples by the max of the covered peaks, the nearest one below one peak per bin", () => {
    expect(resamplePeaks(new Uint8Array([1, 5, 2, 8, 3, 0]), 0, 0.03, 3)).toEqual([5, 8, 3]);
    expect(resamplePeaks(new Uint8Array([1, 5, 2, 8, 3, 0]), 0, 0.03, 2)).toEqual([5, 8]);
    expect(resamplePeaks(new Uint8Array([1, 5, 2, 8]), 0, 0.02, 8)).toEqual([1, 1, 5, 5, 2, 2, 8, 8]);
    expect(resamplePeaks(new Uint8Array([1, 5, 2, 8]), 0.005, 0.0075, 2)).toEqual([5, 5]);
    expect(resamplePeaks(new Uint8Array([]), 0, 1, 3)).toEqual([0, 0, 0]);
  });

  it("clamps the end, refuses an empty range and answers silence without peaks", () => {
    expect(peaksAnswer(env4, { bins: 2, start: 0.5, end: 10 })).toEqual({
      duration: 4,
      bins: 2,
      start: 0.5,
      end: 4,
      peaks: [9, 9],
    });
    expect(() => peaksAnswer(env4, { start: 4 })).toThrow(StudioError);
    expect(() => peaksAnswer(env4, { start: 1, end: 1 })).toThrow(/empty/);
    expect(peaksAnswer({ ...env4, silent: true }, { bins: 5 })).toEqual({
      duration: 4,
      bins: 0,
      peaks: [],
      silent: true,
      start: 0,
      end: 4,
    });
    // A file of no length at all has no range to refuse.
    expect(peaksAnswer({ duration: 0, silent: true, peaks: new Uint8Array(0) }, {})).toMatchObject({
      bins: 0,
      start: 0,
      end: 0,
    });
  });
});

it("reads a wav header with its data length left open by a streaming writer", async () => {
  const file = path.join(env.dir, "open.wav");
  const bytes = wavBytes([levels(8000, [16384])], 8000, 16);
  bytes.writeUInt32LE(0xffffffff, 40);
  await writeFile(file, bytes);
  const handle = await open(file);
  try {
    expect(await readWavHeader(handle, bytes.length)).toMatchObject({
      dataOffset: 44,
      dataBytes: 16000,
      bits: 16,
    });
  } finally {
    await handle.close();
  }
});
