// The built-in voices with real espeak-ng and ffmpeg: a voice per character, voice samples on the `speech` target,
// a shot's dialogue as one wav with each line at its time, silence (with the reason) where espeak-ng is missing, and
// the speech target's readiness.
import { mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBuiltinEngine } from "../lib/engines/builtin/index.ts";
import {
  dialogueWav,
  espeakArgs,
  SPEECH_RATE,
  speechReadiness,
  spokenText,
  voiceBrief,
  voiceFor,
} from "../lib/engines/builtin/speech.ts";
import type { EngineJob, EngineOutputs, RunHooks } from "../lib/engines/types.ts";
import { mediaTools, probe } from "../lib/media/ffmpeg.ts";
import { createMediaTools, type MediaTools } from "../lib/media/tools.ts";
import { episodeFence, type Fence } from "../lib/paths/guarded.ts";
import { voicePrompt } from "../lib/targets/prompts/voice.ts";
import { callFunction } from "./support/call.ts";
import { makeTestEnv } from "./support/ctx.ts";
import { routeFor } from "./support/studio-episode.ts";

const media = createMediaTools(() => process.env);
// The same machine without espeak-ng: a path that is not there stands for a missing install.
const noEspeak = createMediaTools(() => ({ ...process.env, ESPEAK_NG_PATH: "/nonexistent/espeak-ng" }));
let root: string;
let fence: Fence;
let ffmpeg: string;
let n = 0;

beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), "studio-speech-")));
  fence = episodeFence(root);
  ffmpeg = (await mediaTools(media)).ffmpeg;
  const espeak = await media.find("espeak-ng");
  if (espeak.path === null)
    throw new Error(`these tests need espeak-ng (apt-get install -y espeak-ng): ${espeak.error}`);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
  await Promise.all([media.close(), noEspeak.close()]);
});

function job(over: Partial<EngineJob> = {}): EngineJob {
  n++;
  return {
    kind: "audio",
    target: "speech",
    ep: root,
    pass: "final",
    subject: "voice__ada",
    take: n,
    stem: `voice_t${String(n).padStart(2, "0")}`,
    width: 0,
    height: 0,
    fps: 24,
    frames: 72,
    seed: 1n,
    prompt: voicePrompt({ name: "Ada", voice: "low and calm", line: "The tide is coming in.", seconds: 3 }),
    negative: null,
    entry: {},
    inputs: {},
    workDir: path.join(root, `work${n}`),
    ...over,
  };
}

async function render(tools: MediaTools, j: EngineJob): Promise<EngineOutputs> {
  const engine = createBuiltinEngine(tools);
  const hooks: RunHooks = { signal: new AbortController().signal, onProgress: () => {} };
  const prepared = await engine.prepare(j, hooks);
  return engine.collect(j, await engine.submit(j, prepared, hooks), hooks);
}

/** Loudest level (dB) of `file` between `from` and `to` seconds. */
async function peak(file: string, from: number, to: number): Promise<number> {
  const { stderr } = await execa(ffmpeg, [
    "-hide_banner",
    "-nostats",
    "-i",
    file,
    "-af",
    `atrim=start=${from}:end=${to},volumedetect`,
    "-f",
    "null",
    "-",
  ]);
  const m = /max_volume:\s*(-?[\d.]+|-inf) dB/.exec(stderr);
  if (!m) return Number.NEGATIVE_INFINITY;
  return m[1] === "-inf" ? Number.NEGATIVE_INFINITY : Number(m[1]);
}

/** Exact samples of a wav (per channel). */
async function samples(file: string): Promise<number> {
  const { stdout } = await execa((await mediaTools(media)).ffprobe, [
    "-v",
    "error",
    "-select_streams",
    "a:0",
    "-count_packets",
    "-show_entries",
    "stream=duration_ts",
    "-of",
    "csv=p=0",
    file,
  ]);
  return Number.parseInt(stdout.trim(), 10);
}

describe("voices", () => {
  it("gives one character the same voice every time and different characters different voices", () => {
    expect(voiceFor("ada", "warm")).toEqual(voiceFor("ada", "warm"));
    const ids = ["ada", "ben", "riley", "mom", "dean", "zoe", "kai", "old_tom"];
    const distinct = new Set(ids.map((id) => JSON.stringify(voiceFor(id))));
    expect(distinct.size).toBe(ids.length);
  });

  it("follows the brief: a woman gets a female variant, a man a male one, deep is lower, fast is quicker", () => {
    for (const id of ["ada", "ben", "riley", "mom"]) {
      expect(voiceFor(id, "a tired woman").voice).toMatch(/\+f\d$/);
      expect(voiceFor(id, "a gruff old man").voice).toMatch(/\+m\d$/);
      expect(voiceFor(id, "deep").pitch).toBeLessThan(voiceFor(id).pitch);
      expect(voiceFor(id, "fast and bright").speed).toBeGreaterThan(voiceFor(id).speed);
    }
  });

  it("passes the words as one argument that cannot read as an option", () => {
    const v = voiceFor("ada");
    const args = espeakArgs(v, "-w /etc/passwd\n  said twice", "/tmp/x.wav");
    expect(args.slice(0, 7)).toEqual(["-v", v.voice, "-p", String(v.pitch), "-s", String(v.speed), "-w"]);
    expect(args.at(-1)).toBe(" -w /etc/passwd said twice");
  });

  it("speaks the line a voice prompt asks for", () => {
    const prompt = voicePrompt({ name: "Ada", voice: "warm", line: 'She said "no".', seconds: 2 });
    expect(spokenText(prompt)).toBe('She said "no".');
    expect(spokenText("Just this.")).toBe("Just this.");
    expect(voiceBrief(prompt)).toMatch(
      /The speaker is Ada\. The voice is warm\. About 2 seconds long\. Ada $/,
    );
    expect(voiceBrief("Just this.")).toBe("");
  });

  it("finds espeak-ng with its version", async () => {
    const found = await media.find("espeak-ng");
    expect(found.path).not.toBeNull();
    if (found.path !== null) expect(found.version).toMatch(/^\d+\.\d+/);
  });
});

describe("speech target", () => {
  it("writes the line in the character's voice: 48 kHz stereo, audible, as long as it takes to say", async () => {
    const out = await render(media, job());
    expect(out.audio).toMatch(/\.wav$/);
    const info = await probe(out.audio!, media);
    expect(info.audio).toMatchObject({ codec: "pcm_s16le", sampleRate: SPEECH_RATE, channels: 2 });
    expect(info.duration!).toBeGreaterThan(0.8);
    expect(info.duration!).toBeLessThan(5);
    expect(await peak(out.audio!, 0, info.duration!)).toBeGreaterThan(-20);
    expect(out.notes.join("\n")).toMatch(/espeak-ng, ada in en-[\w-]+\+[fm]\d, pitch \d+, \d+ wpm/);
  });

  it("speaks as the prompt or the job's reference describes the speaker", async () => {
    const woman = voicePrompt({
      name: "Ada",
      voice: "warm",
      design: "A tall woman.",
      line: "Hi.",
      seconds: 1,
    });
    const fromPrompt = await render(media, job({ prompt: woman }));
    expect(fromPrompt.notes.join("\n")).toMatch(/ada in en-[\w-]+\+f\d/);
    const ref = {
      id: "voice:ada",
      name: "Ada",
      kind: "voice",
      view: null,
      description: "a gruff man",
      look: "",
    };
    const fromRef = await render(media, job({ prompt: woman, ref }));
    expect(fromRef.notes.join("\n")).toMatch(/ada in en-[\w-]+\+m\d/);
  });

  it("is silence of the asked length, saying why, where espeak-ng is missing", async () => {
    const out = await render(noEspeak, job({ frames: 48 }));
    const info = await probe(out.audio!, noEspeak);
    expect(info.duration!).toBeCloseTo(2, 3);
    expect(await peak(out.audio!, 0, 2)).toBeLessThanOrEqual(-90);
    expect(out.notes.join("\n")).toMatch(/ESPEAK_NG_PATH.*this voice is silence/);
  });

  it("is ready only where espeak-ng runs", async () => {
    expect((await speechReadiness(media)).status).toBe("ready");
    const missing = await speechReadiness(noEspeak);
    expect(missing.status).toBe("not_ready");
    expect(missing.error).toMatch(/not an executable file; until then its voices are silence/);
  });
});

describe("dialogue of a shot", () => {
  it("is one wav of the shot's exact length with each line heard at its time and silence between", async () => {
    const out = path.join(root, "shot", "sh010.wav");
    const made = await dialogueWav({
      lines: [
        { speaker: "ada", text: "Where were you?", start: 0.5, end: 1.6, voice: "a tall woman" },
        // Longer than its slot: sped up, then cut at its end.
        {
          speaker: "ben",
          text: "Out by the harbour, waiting for the boats to come back in before the storm.",
          start: 2.4,
          end: 3.6,
        },
        { speaker: "ada", text: "   ", start: 3.7, end: 4 },
      ],
      seconds: 4.2,
      out,
      media,
      fence,
    });
    expect(made).toMatchObject({ path: out, spoken: 2, voice: "espeak-ng" });
    const info = await probe(out, media);
    expect(info.audio).toMatchObject({ codec: "pcm_s16le", sampleRate: SPEECH_RATE, channels: 2 });
    expect(await samples(out)).toBe(Math.round(4.2 * SPEECH_RATE));
    expect(await peak(out, 0, 0.45)).toBeLessThanOrEqual(-90);
    expect(await peak(out, 0.5, 1.5)).toBeGreaterThan(-25);
    expect(await peak(out, 1.65, 2.35)).toBeLessThanOrEqual(-90);
    expect(await peak(out, 2.45, 3.5)).toBeGreaterThan(-25);
    expect(await peak(out, 3.65, 4.2)).toBeLessThanOrEqual(-90);
    // Two speakers, two voices; the long line says it was sped up.
    expect(made.notes).toHaveLength(2);
    expect(made.notes[0]).toMatch(/^ada: en-[\w-]+\+f\d/);
    expect(made.notes[1]).toMatch(/^ben: .*× to fit$/);
  });

  it("is silence of the shot's length, saying why, where espeak-ng is missing", async () => {
    const out = path.join(root, "shot", "sh020.wav");
    const made = await dialogueWav({
      lines: [{ speaker: "ada", text: "Hello.", start: 0, end: 1 }],
      seconds: 1.5,
      out,
      media: noEspeak,
      fence,
    });
    expect(made).toMatchObject({ spoken: 0, voice: "silence" });
    expect(made.notes[0]).toMatch(/the dialogue is silence$/);
    expect(await samples(out)).toBe(Math.round(1.5 * SPEECH_RATE));
    expect(await peak(out, 0, 1.5)).toBeLessThanOrEqual(-90);
  });

  it("refuses a length that is not a positive number of seconds", async () => {
    await expect(
      dialogueWav({ lines: [], seconds: 0, out: path.join(root, "x.wav"), media, fence }),
    ).rejects.toThrow(/positive number of seconds/);
  });
});

describe("GET /studio/targets?ready=1", () => {
  /** The audio targets' readiness on services whose environment is `env`. */
  async function audioTargets(env: Record<string, string | undefined>) {
    const t = await makeTestEnv(env);
    try {
      const { fn, params } = routeFor("GET", "/targets");
      const res = await callFunction(fn, { kind: "audio", ready: "1" }, t.services, { params });
      expect(res.status).toBe(200);
      return res.body as { targets: { id: string; readiness: { status: string; error?: string } }[] };
    } finally {
      await t.cleanup();
    }
  }

  it("shows speech ready where espeak-ng is on PATH, and not ready with the reason where it is not", async () => {
    const found = await audioTargets({ PATH: process.env.PATH });
    expect(found.targets.find((t) => t.id === "speech")?.readiness.status).toBe("ready");
    const missing = await audioTargets({ PATH: process.env.PATH, ESPEAK_NG_PATH: "/nonexistent/espeak-ng" });
    expect(missing.targets.find((t) => t.id === "speech")?.readiness).toMatchObject({
      status: "not_ready",
      error: expect.stringMatching(/ESPEAK_NG_PATH/),
    });
    expect(missing.targets.find((t) => t.id === "silence")?.readiness.status).toBe("ready");
  });
});
