// POST /studio/refs/voice-from-take with real ffmpeg: a span of a take's sound (its mp4's audio stream, else its
// _h3.wav) becomes a 16-bit PCM wav candidate of a voice with the sidecar and listing saying where it came from; the
// pick rule (true, false, null = only when nothing is live), the series config's voice_sample line added on a first
// pick, the events in order, a take rendered on the built-in animatic, and every refusal.
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { readSourceFile } from "../lib/episode/source-file.ts";
import { mediaTools, probe } from "../lib/media/ffmpeg.ts";
import { afterAnswerSettled } from "../lib/refs/list-after.ts";
import { clipSpan, silentWav } from "../lib/refs/voice-from-take.ts";
import { renderJob } from "../workers/jobs/render.ts";
import type { WorkerPool } from "../workers/pool.ts";
import { startTestPool, waitFor } from "./support/jobs.ts";
import { makeTone, realTake, takeDir, useMediaStudio } from "./support/media.ts";
import { type Answer, SCRIPT } from "./support/studio-episode.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

const m = useMediaStudio();
let lastEp: string | null = null;
const pools: WorkerPool[] = [];

afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.stop({ graceful: false, timeoutMs: 2_000 });
  if (lastEp) await afterAnswerSettled(m.s.env.services, lastEp);
  lastEp = null;
});

/** An episode of the three-shot script whose sh010 has take 1: a 2 s clip with a tone (or as asked). */
async function episode(clip: { tone?: number; wav?: boolean } = {}): Promise<string> {
  const ep = await m.s.episode(SCRIPT);
  lastEp = ep;
  await realTake(m.s, m.ffmpeg, ep, "proxy", "sh010", 1, {
    frames: 48,
    width: 64,
    height: 48,
    level: 0,
    ...clip,
  });
  m.s.env.events.length = 0;
  return ep;
}

const call = (input: Record<string, unknown>): Promise<Answer> =>
  m.s.call("POST", "/refs/voice-from-take", input);

const events = () =>
  m.s.env.events.map((e) => {
    const d = e.data as { status?: string; ref?: string; take?: number | null };
    return e.type === "studio.ref" ? `ref:${d.ref}:${d.status}:${d.take}` : e.type;
  });

/** A wav's format and length as ffprobe reads it. */
async function wavOf(file: string): Promise<{ codec: string; seconds: number }> {
  const { ffprobe } = await mediaTools(m.s.env.services.media);
  const { stdout } = await execa(ffprobe, [
    ...["-v", "error", "-show_entries", "stream=codec_name,duration", "-of", "json", file],
  ]);
  const s = JSON.parse(stdout).streams[0];
  return { codec: s.codec_name, seconds: Number(s.duration) };
}

const voiceDir = (ep: string) => path.join(ep, "refs/_takes/voice__ada");

describe("voice clip pieces", () => {
  it("the span: start inside the sound, end at most its end, 0.2–30 s long", () => {
    expect(clipSpan(null, null, 2, "t")).toEqual({ start: 0, end: 2 });
    expect(clipSpan(0.5, 1.25, 2, "t")).toEqual({ start: 0.5, end: 1.25 });
    // A hair past the end is the end.
    expect(clipSpan(1, 2.04, 2, "t")).toEqual({ start: 1, end: 2 });
    expect(() => clipSpan(1, 2.2, 2, "sh010 t01")).toThrow(/end 2.2 is past the end of sh010 t01 \(2 s\)/);
    expect(() => clipSpan(2, null, 2, "sh010 t01")).toThrow(/start 2 is outside sh010 t01/);
    expect(() => clipSpan(-1, 1, 2, "t")).toThrow(/start -1 is outside/);
    expect(() => clipSpan(0, 0.1, 2, "t")).toThrow(/0.2–30 s long; 0–0.1 s is 0.1 s/);
    expect(() => clipSpan(1, 0.5, 2, "t")).toThrow(/0.2–30 s long/);
    expect(() => clipSpan(0, null, 45, "t")).toThrow(/0–45 s is 45 s/);
    expect(clipSpan(10, 40, 45, "t")).toEqual({ start: 10, end: 40 });
    expect(clipSpan(0, 0.2, 2, "t")).toEqual({ start: 0, end: 0.2 });
  });

  it("silence: every sample zero after the chunks before the data", () => {
    const wav = (samples: number[]) => {
      const data = Buffer.alloc(samples.length * 2);
      samples.forEach((v, i) => {
        data.writeInt16LE(v, i * 2);
      });
      const list = Buffer.concat([Buffer.from("LIST"), Buffer.from([3, 0, 0, 0]), Buffer.from("abc\0")]);
      const head = Buffer.alloc(8);
      head.write("data", 0, "latin1");
      head.writeUInt32LE(data.length, 4);
      return Buffer.concat([Buffer.from("RIFF\0\0\0\0WAVE"), list, head, data]);
    };
    expect(silentWav(wav([0, 0, 0, 0]))).toBe(true);
    expect(silentWav(wav([0, 0, -1, 0]))).toBe(false);
    expect(() => silentWav(Buffer.from("not a wav at all"))).toThrow(/not a wav/);
  });
});

describe("POST /studio/refs/voice-from-take", { timeout: 120_000 }, () => {
  it("cuts the mp4's sound into a wav candidate, picks it where nothing is live and adds voice_sample", async () => {
    const ep = await episode();
    const seriesBefore = await readSourceFile(ep, "series");
    const res = await call({
      ep,
      ref: "voice:ada",
      shot: "sh010",
      take: 1,
      start: 0.5,
      end: "1.5",
      note: "the door line",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const body: Any = res.body;
    expect(body).toMatchObject({
      id: "voice:ada",
      kind: "voice",
      exists: true,
      picked: true,
      take: 1,
      source: {
        shot: "sh010",
        take: 1,
        pass: "proxy",
        start: 0.5,
        end: 1.5,
        file: "renders_proxy/sh010/sh010_t01.mp4",
      },
    });
    expect(body.takes).toHaveLength(1);
    expect(body.takes[0]).toMatchObject({
      take: 1,
      source: "from_take",
      usable: true,
      note: "the door line",
      audio: "refs/_takes/voice__ada/voice__ada_t01.wav",
      from: { shot: "sh010", take: 1, pass: "proxy", start: 0.5, end: 1.5 },
    });

    // The candidate: 16-bit PCM, the span's length, not silent; the sidecar says where it came from.
    const wav = path.join(voiceDir(ep), "voice__ada_t01.wav");
    const made = await wavOf(wav);
    expect(made.codec).toBe("pcm_s16le");
    expect(made.seconds).toBeCloseTo(1, 1);
    expect(silentWav(await readFile(wav))).toBe(false);
    const sidecar: Any = JSON.parse(await readFile(path.join(voiceDir(ep), "voice__ada_t01.json"), "utf8"));
    expect(sidecar).toMatchObject({
      source: "from_take",
      source_shot: "sh010",
      source_take: 1,
      source_pass: "proxy",
      source_start: 0.5,
      source_end: 1.5,
      source_file: "renders_proxy/sh010/sh010_t01.mp4",
      seconds: 1,
      audio: "voice__ada_t01.wav",
    });
    expect(sidecar.source_sha1).toMatch(/^[0-9a-f]{40}$/);

    // The pick placed the live file where the voice's default path is, and the config now names it.
    expect(await readFile(path.join(ep, "refs/voices/ada.wav"))).toEqual(await readFile(wav));
    const series = await readSourceFile(ep, "series");
    expect(JSON.parse(series.text).subjects.ada).toMatchObject({
      voice: "dry",
      voice_sample: "refs/voices/ada.wav",
    });
    expect(series.hash).not.toBe(seriesBefore.hash);
    expect(events()).toEqual(["ref:voice:ada:ok:1", "ref:voice:ada:picked:1", "studio.episode"]);

    // The rebuilt shot list carries the sample.
    const list: Any = JSON.parse(await readFile(path.join(ep, "shotlist", "shotlist_proxy.json"), "utf8"));
    expect(list.subjects.ada.voice_sample).toBe("refs/voices/ada.wav");
    // A history copy of the config as it was.
    const copies = (await readdir(path.join(ep, "_history"))).filter((n) => n.startsWith("series.json."));
    expect(copies).toHaveLength(1);
    expect(await readFile(path.join(ep, "_history", copies[0]))).toEqual(seriesBefore.bytes);
  });

  it("pick null keeps a live voice; false never picks; true picks and leaves a named voice_sample alone", async () => {
    const ep = await episode();
    const first = await call({ ep, ref: "voice:ada", shot: "sh010", take: 1, end: 1 });
    expect(first.body.picked).toBe(true);
    const live = path.join(ep, "refs/voices/ada.wav");
    const liveBytes = await readFile(live);
    const series = (await readSourceFile(ep, "series")).hash;

    m.s.env.events.length = 0;
    const second = await call({ ep, ref: "voice:ada", shot: "sh010", take: 1, start: 1, pick: null });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body).toMatchObject({ picked: false, take: 2, source: { start: 1, end: 2 } });
    expect(second.body.picked).toBe(false);
    expect(events()).toEqual(["ref:voice:ada:ok:2", "studio.episode"]);
    expect(await readFile(live)).toEqual(liveBytes);

    const third = await call({
      ep,
      ref: "voice:ada",
      shot: "sh010",
      take: 1,
      start: 1,
      end: 1.4,
      pick: false,
    });
    expect(third.body).toMatchObject({ picked: false, take: 3 });
    expect(third.body.takes.map((t: Any) => t.take)).toEqual([1, 2, 3]);

    m.s.env.events.length = 0;
    const fourth = await call({
      ep,
      ref: "voice:ada",
      shot: "sh010",
      take: 1,
      start: 0.2,
      end: 0.6,
      pick: true,
    });
    expect(fourth.body).toMatchObject({ picked: true, take: 4 });
    expect(events()).toEqual(["ref:voice:ada:ok:4", "ref:voice:ada:picked:4", "studio.episode"]);
    expect(await readFile(live)).toEqual(await readFile(path.join(voiceDir(ep), "voice__ada_t04.wav")));
    // The config already names the sample: not written again.
    expect((await readSourceFile(ep, "series")).hash).toBe(series);
  });

  it("keeps the config's BOM and CRLF endings when it adds voice_sample", async () => {
    const ep = await episode();
    const before = await readSourceFile(ep, "series");
    const crlf = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(before.text.replace(/\n/g, "\r\n")),
    ]);
    await writeFile(before.abs, crlf);
    const res = await call({ ep, ref: "voice:ada", shot: "sh010", take: 1, end: 1 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const after = await readSourceFile(ep, "series");
    expect([after.bom, after.crlf]).toEqual([true, true]);
    expect(JSON.parse(after.text).subjects.ada.voice_sample).toBe("refs/voices/ada.wav");
    expect(after.bytes.includes(Buffer.from('\r\n      "voice_sample": "refs/voices/ada.wav"\r\n'))).toBe(
      true,
    );
  });

  it("takes the _h3.wav when the mp4 has no sound", async () => {
    const ep = await episode({ tone: 0 });
    await makeTone(m.ffmpeg, path.join(takeDir(ep, "proxy", "sh010"), "sh010_t01_h3.wav"), 2);
    const res = await call({ ep, ref: "voice:ada", shot: "sh010", take: 1, start: 0, end: 0.5, pick: false });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.source.file).toBe("renders_proxy/sh010/sh010_t01_h3.wav");
    const wav = path.join(voiceDir(ep), "voice__ada_t01.wav");
    expect((await wavOf(wav)).seconds).toBeCloseTo(0.5, 1);
    expect(silentWav(await readFile(wav))).toBe(false);
  });

  it("answers 500 naming ffmpeg when there is none, and keeps nothing", async () => {
    const ep = await episode();
    const env = m.s.env.services.env;
    const was = { FFMPEG_PATH: env.FFMPEG_PATH, FFPROBE_PATH: env.FFPROBE_PATH };
    env.FFMPEG_PATH = path.join(m.s.env.dir, "no-ffmpeg");
    env.FFPROBE_PATH = path.join(m.s.env.dir, "no-ffprobe");
    try {
      const res = await call({ ep, ref: "voice:ada", shot: "sh010", take: 1, end: 1, pick: true });
      expect(res.status, JSON.stringify(res.body)).toBe(500);
      expect(res.body.error).toMatch(/ff(mpeg|probe)/);
    } finally {
      Object.assign(env, was);
    }
    expect(await readdir(voiceDir(ep)).catch(() => [])).toEqual([]);
    expect(events()).toEqual([]);
  });

  it("refuses: not a voice, bad spans, a bad pick, unknown ref, shot or take, a take with no sound", async () => {
    const ep = await episode();
    const base = { ep, ref: "voice:ada", shot: "sh010", take: 1 };
    const refused = async (input: Record<string, unknown>): Promise<[number, string]> => {
      const a = await call({ ...base, ...input });
      return [a.status, String(a.body?.error)];
    };
    expect(await refused({ ref: "subject:ada" })).toEqual([
      400,
      expect.stringMatching(/subject:ada is not a voice/),
    ]);
    expect(await refused({ ref: "location:kitchen" })).toEqual([
      400,
      expect.stringMatching(/is not a voice/),
    ]);
    expect(await refused({ end: 0.1 })).toEqual([400, expect.stringMatching(/0.2–30 s long/)]);
    expect(await refused({ start: 1.5, end: 1 })).toEqual([400, expect.stringMatching(/0.2–30 s long/)]);
    expect(await refused({ start: 5 })).toEqual([400, expect.stringMatching(/start 5 is outside sh010 t01/)]);
    expect(await refused({ start: -1 })).toEqual([400, expect.stringMatching(/start/)]);
    expect(await refused({ end: 9 })).toEqual([
      400,
      expect.stringMatching(/end 9 is past the end of sh010 t01/),
    ]);
    expect((await refused({ start: "soon" }))[0]).toBe(400);
    expect((await refused({ pick: "yes" }))[0]).toBe(400);
    expect((await refused({ pick: 1 }))[0]).toBe(400);
    expect((await refused({ ref: "voice" }))[0]).toBe(400);
    expect((await refused({ pass: "draft" }))[0]).toBe(400);
    expect(await refused({ ref: "voice:nobody" })).toEqual([404, expect.stringMatching(/voice:nobody/)]);
    expect(await refused({ take: 7 })).toEqual([404, expect.stringMatching(/sh010 has no take 7/)]);
    expect(await refused({ shot: "sh099" })).toEqual([404, expect.stringMatching(/sh099/)]);
    expect(await refused({ pass: "final" })).toEqual([404, expect.stringMatching(/sh010/)]);
    // Nothing was written by any refusal.
    const listed = await m.s.call("GET", "/refs", { ep });
    expect(listed.body.refs.find((r: Any) => r.id === "voice:ada").takes).toEqual([]);

    // No sound at all: a mute mp4 and no wav; a wav that is all silence.
    const mute = await episode({ tone: 0 });
    const silent = { ...base, ep: mute };
    const none = await call(silent);
    expect([none.status, none.body.error]).toEqual([409, expect.stringMatching(/sh010 t01 has no sound/)]);
    const wav = path.join(takeDir(mute, "proxy", "sh010"), "sh010_t01_h3.wav");
    await execa(m.ffmpeg, ["-v", "error", "-f", "lavfi", "-i", "anullsrc=r=48000:cl=mono", "-t", "2", wav]);
    const quiet = await call(silent);
    expect([quiet.status, quiet.body.error]).toEqual([409, expect.stringMatching(/silent there/)]);
    const after = await m.s.call("GET", "/refs", { ep: mute });
    expect(after.body.refs.find((r: Any) => r.id === "voice:ada").takes).toEqual([]);
    // An unfinished take.
    await m.s.take(mute, "proxy", "sh020", 1, { status: "queued" });
    const queued = await call({ ...silent, shot: "sh020" });
    expect([queued.status, queued.body.error]).toEqual([409, expect.stringMatching(/not finished/)]);
  });
});

describe("from a take the built-in animatic rendered", { timeout: 120_000 }, () => {
  it("cuts Ada's spoken line out of the animatic's sound", async () => {
    const script = [
      "= e01  T",
      "# sq01 kitchen",
      "## sh010",
      "who: ada",
      "dur: 3",
      "ADA: The kettle is on again.",
    ].join("\n");
    const ep = await m.s.episode(script);
    lastEp = ep;
    const res = await m.s.call("POST", "/render", { ep, shots: ["sh010"] });
    expect(res.body.queued, JSON.stringify(res.body)).toHaveLength(1);
    pools.push(startTestPool(m.s.env.services, m.store, { render: renderJob }));
    const id = res.body.queued[0].prompt_id;
    await waitFor(async () =>
      ["succeeded", "failed", "canceled"].includes((await m.store.get(id))?.status ?? ""),
    );
    expect((await m.store.get(id))?.status).toBe("succeeded");
    const mp4 = path.join(takeDir(ep, "proxy", "sh010"), "sh010_t01.mp4");
    expect((await probe(mp4, m.s.env.services.media)).audio).not.toBeNull();

    const clip = await call({ ep, ref: "voice:ada", shot: "sh010", take: 1, start: 0, end: 2.5 });
    expect(clip.status, JSON.stringify(clip.body)).toBe(200);
    expect(clip.body).toMatchObject({ picked: true, source: { file: "renders_proxy/sh010/sh010_t01.mp4" } });
    const wav = path.join(voiceDir(ep), "voice__ada_t01.wav");
    expect((await wavOf(wav)).seconds).toBeCloseTo(2.5, 1);
    // espeak-ng's voice is in it: not silence.
    expect(silentWav(await readFile(wav))).toBe(false);
  });
});
