// The built-in voices: speech from espeak-ng (a voice per character, chosen from its id and its `voice` brief) for
// voice samples (the `speech` audio target) and for a shot's dialogue (one wav of the shot's length, each line at its
// time). Without espeak-ng both come out as silence of the right length, and the notes say why.
import { createHash } from "node:crypto";
import path from "node:path";
import { runFfmpeg } from "../../media/ffmpeg.ts";
import type { MediaTools, ToolInfo } from "../../media/tools.ts";
import { type Fence, mkdirShow, openShowFile } from "../../paths/guarded.ts";
import type { Readiness } from "../../targets/models.ts";
import type { EngineJob, EngineOutputs } from "../types.ts";
import { renderSilence } from "./silence.ts";
import { canceled, commit, discard, secs, tempBeside, throwIfCanceled, type WorkContext } from "./work.ts";

export const SPEECH_RATE = 48_000;

/** The output arguments of every wav this engine writes: the `[a]` label as 48 kHz stereo 16-bit PCM. */
const wavOut = (file: string) => [
  "-map",
  "[a]",
  "-c:a",
  "pcm_s16le",
  "-ar",
  String(SPEECH_RATE),
  "-ac",
  "2",
  "-f",
  "wav",
  file,
];
/** What a take made with espeak-ng records as its model. */
export const SPEECH_MODEL = "espeak-ng";
/** Silence after a voice sample's last word, so it does not end clipped. */
const SAMPLE_TAIL = 0.3;
/** The most a line is sped up to fit the time the shot gives it; beyond that its end is cut (with a short fade). */
const MAX_TEMPO = 1.6;
const FADE = 0.05;

/** How espeak-ng speaks one character. */
export interface EspeakVoice {
  /** espeak-ng voice (an English accent) and variant, as `-v` takes them: `en-us+f3`. */
  voice: string;
  /** 0..99 (espeak-ng's default is 50). */
  pitch: number;
  /** Words per minute (espeak-ng's default is 175). */
  speed: number;
}

// Accents every espeak-ng install carries (its own voices, not mbrola ones, which need another package).
const ACCENTS = ["en-us", "en-gb", "en-gb-x-rp", "en-gb-scotland", "en-029", "en-gb-x-gbclan"] as const;
const FEMALE = ["f1", "f2", "f3", "f4", "f5"] as const;
const MALE = ["m1", "m2", "m3", "m4", "m5", "m6", "m7"] as const;

const has = (text: string, words: RegExp) => words.test(text);
const FEMALE_WORDS =
  /\b(woman|women|female|girl|she|her|mother|mom|mum|grandma|grandmother|aunt|lady|queen|wife|sister|daughter)\b/;
const MALE_WORDS =
  /\b(man|men|male|boy|he|his|father|dad|grandpa|grandfather|uncle|gentleman|king|husband|brother|son)\b/;
const LOW_WORDS = /\b(deep|low|gravel\w*|husky|gruff|booming|bass|rumbl\w*|hoarse)\b/;
const HIGH_WORDS = /\b(high|bright|squeak\w*|shrill|child\w*|young|little|tiny|chirp\w*|light)\b/;
const FAST_WORDS = /\b(fast|quick\w*|rapid|hurried|excited|breathless|nervous)\b/;
const SLOW_WORDS = /\b(slow\w*|measured|drawl\w*|calm|deliberate|tired|sleepy|old|elderly)\b/;

/**
 * The voice of a character: drawn from its id (so one character always sounds the same, in its samples and its
 * lines), steered by its `voice` brief and `design` where they say so (a woman, deep, fast...).
 */
export function voiceFor(id: string, brief = ""): EspeakVoice {
  const d = createHash("sha1").update(`voice::${id}`).digest();
  const text = brief.toLowerCase();
  const female = has(text, FEMALE_WORDS);
  const male = has(text, MALE_WORDS) && !female;
  const variants = female ? FEMALE : male ? MALE : [...FEMALE, ...MALE];
  const accent = ACCENTS[d[0] % ACCENTS.length];
  const variant = variants[d[1] % variants.length];
  let pitch = 35 + (d[2] % 31);
  let speed = 150 + (d[3] % 36);
  if (has(text, LOW_WORDS)) pitch -= 20;
  if (has(text, HIGH_WORDS)) pitch += 15;
  if (has(text, FAST_WORDS)) speed += 30;
  if (has(text, SLOW_WORDS)) speed -= 30;
  return {
    voice: `${accent}+${variant}`,
    pitch: Math.min(99, Math.max(0, pitch)),
    speed: Math.min(260, Math.max(90, speed)),
  };
}

/** `en-us+f3, pitch 58, 170 wpm`: the voice as a take's notes write it. */
export const voiceLabel = (v: EspeakVoice) => `${v.voice}, pitch ${v.pitch}, ${v.speed} wpm`;

/** espeak-ng's arguments to write `text` in `v` as a wav file. */
export function espeakArgs(v: EspeakVoice, text: string, out: string): string[] {
  // Words are one argument; a leading dash would read as an option, so it is set off by a space.
  const words = text.replace(/\s+/g, " ").trim();
  return [
    "-v",
    v.voice,
    "-p",
    String(v.pitch),
    "-s",
    String(v.speed),
    "-w",
    out,
    words.startsWith("-") ? ` ${words}` : words,
  ];
}

/** What a voice prompt says of the speaker (everything before the line: who they are, how the voice sounds). */
export function voiceBrief(prompt: string | string[]): string {
  const text = (Array.isArray(prompt) ? prompt.join(" ") : prompt).trim();
  const at = text.search(/\bsays:\s*"/);
  return at > 0 ? text.slice(0, at) : "";
}

/** The line a voice prompt asks to be said (`... Ada says: "Hello."`), else the prompt itself. */
export function spokenText(prompt: string | string[]): string {
  const text = (Array.isArray(prompt) ? prompt.join(" ") : prompt).trim();
  const m = /\bsays:\s*"([\s\S]*)"\s*$/.exec(text);
  return (m ? m[1] : text).replace(/\s+/g, " ").trim();
}

/** espeak-ng, or null with why not. */
async function findEspeak(media: MediaTools): Promise<{ path: string } | { path: null; error: string }> {
  const info: ToolInfo = await media.find("espeak-ng");
  return info.path === null ? { path: null, error: info.error } : { path: info.path };
}

/** Readiness of the `speech` target: ready when espeak-ng runs here. */
export async function speechReadiness(media: MediaTools): Promise<Readiness> {
  const found = await media.find("espeak-ng");
  const base = { missing: [], resolved: {}, by_pass: {}, features_off: [], nodes_missing: [] };
  if (found.path !== null) return { ...base, status: "ready" };
  return { ...base, status: "not_ready", error: `${found.error}; until then its voices are silence` };
}

/** Seconds of sound in a wav file, from its header (espeak-ng writes 16-bit PCM). */
async function wavSeconds(fence: Fence, file: string): Promise<number> {
  const fh = await openShowFile(fence, file);
  try {
    const { size } = await fh.stat();
    const head = Buffer.alloc(Math.min(size, 4096));
    await fh.read(head, 0, head.length, 0);
    if (head.toString("ascii", 0, 4) !== "RIFF" || head.toString("ascii", 8, 12) !== "WAVE")
      throw new Error(`${path.basename(file)} is not a wav file`);
    let byteRate = 0;
    // Walk the chunks: `fmt ` gives the byte rate, `data` where the samples start (its size field may be unset).
    for (let at = 12; at + 8 <= head.length; ) {
      const id = head.toString("ascii", at, at + 4);
      const len = head.readUInt32LE(at + 4);
      if (id === "fmt ") byteRate = head.readUInt32LE(at + 16);
      if (id === "data") return byteRate > 0 ? Math.max(0, size - at - 8) / byteRate : 0;
      at += 8 + len + (len % 2);
    }
    throw new Error(`${path.basename(file)} has no sound data`);
  } finally {
    await fh.close();
  }
}

/** A line of a shot's dialogue, timed in seconds from the shot's start. */
export interface SpokenLine {
  /** The speaker's subject id (its voice comes from it). */
  speaker: string;
  text: string;
  start: number;
  end: number;
  /** The speaker's `voice` brief (and design) from the series config, which steers its voice. */
  voice?: string | null;
}

export interface DialogueOptions {
  lines: readonly SpokenLine[];
  /** The shot's length in seconds: the wav is exactly this long. */
  seconds: number;
  /** The wav to write (48 kHz stereo, 16-bit); its folder is made when missing. */
  out: string;
  media: MediaTools;
  /** The folder `out` must really lie in. */
  fence: Fence;
  signal?: AbortSignal;
}

export interface DialogueAudio {
  path: string;
  /** Lines heard (lines with no words or starting after the shot's end are left out). */
  spoken: number;
  /** `espeak-ng`, or `silence` when it is not installed. */
  voice: typeof SPEECH_MODEL | "silence";
  notes: string[];
}

/**
 * One wav of a shot's dialogue: `seconds` long, each line spoken in its speaker's voice from its `start`, sped up
 * (at most 1.6×) to end by its `end`, cut with a short fade past that. Silence when espeak-ng is missing or nothing
 * is said. Runs every tool from the media tool process; temporaries sit beside `out` and are removed.
 */
export async function dialogueWav(opts: DialogueOptions): Promise<DialogueAudio> {
  const { fence, media, signal, out } = opts;
  if (!(Number.isFinite(opts.seconds) && opts.seconds > 0))
    throw new Error(`dialogue: the length must be a positive number of seconds (got ${opts.seconds})`);
  const total = Math.max(1, Math.round(opts.seconds * SPEECH_RATE));
  const lines = opts.lines.filter(
    (l) =>
      l.text.trim() !== "" && Number.isFinite(l.start) && l.start < opts.seconds && Number.isFinite(l.end),
  );
  const notes: string[] = [];
  const espeak = lines.length > 0 ? await findEspeak(media) : null;
  if (espeak && espeak.path === null) notes.push(`${espeak.error}: the dialogue is silence`);
  const speak = espeak?.path ? lines : [];
  await mkdirShow(fence, path.dirname(out));
  const tmp = tempBeside(out);
  const parts = speak.map(() => tempBeside(out));
  try {
    const args: string[] = [];
    const chains: string[] = [];
    // The lines are spoken at once (each espeak-ng run is short and single-threaded), then laid out in one ffmpeg run.
    const voices = speak.map((line) => voiceFor(line.speaker, line.voice ?? ""));
    if (signal?.aborted) throw canceled();
    await Promise.all(
      speak.map((line, i) => media.run("espeak-ng", espeakArgs(voices[i], line.text, parts[i]), { signal })),
    );
    for (const [i, line] of speak.entries()) {
      const v = voices[i];
      const length = await wavSeconds(fence, parts[i]);
      const start = Math.max(0, line.start);
      const room = Math.max(0.1, Math.min(line.end, opts.seconds) - start);
      const tempo = Math.min(MAX_TEMPO, Math.max(1, length / room));
      const heard = Math.min(room, length / tempo);
      const filters = [
        `aresample=${SPEECH_RATE}`,
        ...(tempo > 1.001 ? [`atempo=${tempo.toFixed(4)}`] : []),
        `atrim=end=${secs(heard)}`,
        ...(length / tempo > room + 0.001
          ? [`afade=t=out:st=${secs(Math.max(0, heard - FADE))}:d=${secs(FADE)}`]
          : []),
        `adelay=${Math.round(start * 1000)}:all=1`,
      ];
      args.push("-i", parts[i]);
      chains.push(`[${i}:a]${filters.join(",")}[s${i}]`);
      notes.push(`${line.speaker}: ${voiceLabel(v)}${tempo > 1.001 ? `, ${tempo.toFixed(2)}× to fit` : ""}`);
    }
    const tail = `aformat=sample_fmts=s16:sample_rates=${SPEECH_RATE}:channel_layouts=stereo,apad,atrim=end_sample=${total}[a]`;
    let graph: string;
    if (speak.length === 0) graph = `anullsrc=r=${SPEECH_RATE}:cl=stereo,${tail}`;
    else if (speak.length === 1) graph = `${chains[0]};[s0]${tail}`;
    else
      graph = `${chains.join(";")};${speak.map((_, i) => `[s${i}]`).join("")}amix=inputs=${speak.length}:normalize=0:dropout_transition=0,${tail}`;
    await runFfmpeg([...args, "-filter_complex", graph, ...wavOut(tmp)], { media, signal });
    await commit(fence, [[tmp, out]]);
  } catch (err) {
    await discard(fence, [tmp]);
    throw err;
  } finally {
    await discard(fence, parts);
  }
  return { path: out, spoken: speak.length, voice: speak.length > 0 ? SPEECH_MODEL : "silence", notes };
}

/** The character a voice job speaks for: its reference's subject id (`voice:ada` → `ada`), else the job's subject. */
function speakerOf(job: EngineJob): string {
  const id = job.ref?.id ?? job.subject.replaceAll("__", ":");
  return id.startsWith("voice:") ? id.slice("voice:".length) : id;
}

/** Render `<workDir>/<stem>.wav` on the `speech` target: the prompt's line in the character's voice. */
export async function renderSpeech(job: EngineJob, ctx: WorkContext): Promise<EngineOutputs> {
  throwIfCanceled(ctx.signal);
  const espeak = await findEspeak(ctx.media);
  if (espeak.path === null) {
    ctx.notes.push(`${espeak.error}: this voice is silence`);
    return renderSilence(job, ctx);
  }
  const text = spokenText(job.prompt);
  if (!text) throw new Error("speech: the prompt has nothing to say");
  const speaker = speakerOf(job);
  const v = voiceFor(speaker, job.ref ? job.ref.description : voiceBrief(job.prompt));
  await mkdirShow(ctx.fence, job.workDir);
  const out = path.join(job.workDir, `${job.stem}.wav`);
  const tmp = tempBeside(out);
  const raw = tempBeside(out);
  try {
    await ctx.media.run("espeak-ng", espeakArgs(v, text, raw), { signal: ctx.signal });
    ctx.report(0.4);
    const seconds = (await wavSeconds(ctx.fence, raw)) + SAMPLE_TAIL;
    const samples = Math.max(1, Math.round(seconds * SPEECH_RATE));
    await runFfmpeg(
      [
        "-i",
        raw,
        "-filter_complex",
        `[0:a]aresample=${SPEECH_RATE},aformat=sample_fmts=s16:channel_layouts=stereo,apad,atrim=end_sample=${samples}[a]`,
        ...wavOut(tmp),
      ],
      { media: ctx.media, signal: ctx.signal, onProgress: (s) => ctx.report(0.4 + (0.5 * s) / seconds) },
    );
    await commit(ctx.fence, [[tmp, out]]);
    ctx.notes.push(`speech: espeak-ng, ${speaker} in ${voiceLabel(v)}, ${secs(seconds)} s`);
  } catch (err) {
    await discard(ctx.fence, [tmp]);
    throw err;
  } finally {
    await discard(ctx.fence, [raw]);
  }
  return { audio: out, notes: [...ctx.notes] };
}
