// A character's voice sample cut from a shot's take: the take's sound (its mp4's audio stream, else its `_h3.wav`)
// between two times becomes a 16-bit PCM wav candidate of the voice (`source: from_take`), picked as asked. A pick
// of a voice whose character names no `voice_sample` also writes that line into the series config, so the clone
// policy reads the file the pick placed.
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { folderTakes } from "../episode/cut-view.ts";
import { readBuild } from "../episode/shotlists.ts";
import { encodeLike, readSourceFile, rebuildEpisode, replaceSourceBytes } from "../episode/source-file.ts";
import { hashFile } from "../episode/staleness.ts";
import { shotFolder, takeStatus } from "../episode/takes.ts";
import { badRequest, conflict, notFound, StudioError } from "../errors.ts";
import { mediaTools, probe, runFfmpegInto } from "../media/ffmpeg.ts";
import { episodeFence, guardPath, statShowOrNull } from "../paths/guarded.ts";
import { parseSeriesJson } from "../series/load.ts";
import { errorMessage, isObject, objectOr } from "../store/json-guards.ts";
import { withLock } from "../store/lock.ts";
import { type CatalogRef, catalogRef, readCatalog } from "./catalog.ts";
import { parseRefId } from "./ids.ts";
import { MAX_NOTE } from "./import.ts";
import { pickTake } from "./live.ts";
import { liveRefOf } from "./live-ref.ts";
import { liveFence, refsPlace } from "./place.ts";
import { addTake, type RefTake } from "./takes.ts";

/** Shortest and longest voice clip, in seconds. */
export const MIN_CLIP = 0.2;
export const MAX_CLIP = 30;
/** An `end` this little past the take's sound is its end (a container's length and a page's differ by a frame). */
const END_SLACK = 0.05;

export interface VoiceClipRequest {
  ref: string;
  pass: Pass;
  shot: string;
  take: number;
  /** Seconds into the take; null: 0. */
  start: number | null;
  /** Seconds into the take; null: the end of the take. */
  end: number | null;
  /** true: pick the clip; false: never; null: only when the voice has no live file. */
  pick: boolean | null;
  note: string | null;
}

/** Where the clip came from, as the answer and the listing give it (`file` episode-relative). */
export interface ClipSource {
  shot: string;
  take: number;
  pass: Pass;
  start: number;
  end: number;
  file: string;
}

export interface VoiceClip {
  take: RefTake;
  picked: boolean;
  source: ClipSource;
  /** The series config gained the character's `voice_sample` line. */
  configured: boolean;
}

const two = (n: number) => String(n).padStart(2, "0");
const ms = (n: number) => Math.round(n * 1000) / 1000;

/** The span cut: start inside the take, end at most its end, 0.2–30 s long; 400 otherwise. */
export function clipSpan(
  start: number | null,
  end: number | null,
  duration: number,
  label: string,
): { start: number; end: number } {
  const from = start ?? 0;
  if (!(from >= 0 && from < duration)) {
    throw badRequest(`start ${from} is outside ${label}: its sound is 0 to ${ms(duration)} s`);
  }
  let to = end ?? duration;
  if (to > duration + END_SLACK) {
    throw badRequest(`end ${to} is past the end of ${label} (${ms(duration)} s)`);
  }
  to = Math.min(to, duration);
  const span = to - from;
  if (!(span >= MIN_CLIP - 1e-9 && span <= MAX_CLIP + 1e-9)) {
    throw badRequest(
      `a voice clip is ${MIN_CLIP}–${MAX_CLIP} s long; ${ms(from)}–${ms(to)} s is ${ms(Math.max(span, 0))} s`,
    );
  }
  return { start: ms(from), end: ms(to) };
}

/**
 * True when a wav's sample data is all zero (16-bit PCM as the cut writes it). The chunks are walked from the
 * RIFF header, since ffmpeg puts a LIST chunk before the data.
 */
export function silentWav(bytes: Buffer): boolean {
  if (
    bytes.length < 12 ||
    bytes.toString("latin1", 0, 4) !== "RIFF" ||
    bytes.toString("latin1", 8, 12) !== "WAVE"
  )
    throw new Error("the cut is not a wav file");
  let at = 12;
  while (at + 8 <= bytes.length) {
    const id = bytes.toString("latin1", at, at + 4);
    const size = bytes.readUInt32LE(at + 4);
    const body = at + 8;
    if (id === "data") {
      const stop = Math.min(bytes.length, body + size);
      for (let i = body; i < stop; i++) if (bytes[i] !== 0) return false;
      return true;
    }
    at = body + size + (size % 2);
  }
  throw new Error("the cut has no data chunk");
}

interface Sound {
  /** The file whose sound is cut (absolute) and its episode-relative name. */
  file: string;
  rel: string;
  /** Seconds of sound it holds. */
  duration: number;
  label: string;
}

/** The take's sound: its mp4 when that has an audio stream, else its `_h3.wav`; 404 no take, 409 no sound. */
async function takeSound(services: Services, ep: string, req: VoiceClipRequest): Promise<Sound> {
  const build = await readBuild(services, ep, req.pass);
  if (!build) throw notFound(`the ${req.pass} pass has no build: build the episode first`);
  if (!build.shots.has(req.shot)) throw notFound(`${req.shot} is in no build of the ${req.pass} pass`);
  const t = (await folderTakes(services, ep, req.pass, req.shot)).find((x) => x.take === req.take);
  const label = `${req.shot} t${two(req.take)}`;
  if (!t) throw notFound(`${req.shot} has no take ${req.take} in the ${req.pass} pass`);
  if (takeStatus(t) !== "ok") throw conflict(`${label} is not finished (status ${takeStatus(t)})`);
  await mediaTools(services.media);
  const fence = episodeFence(ep);
  const dir = shotFolder(ep, req.pass, req.shot);
  const unreadable = (err: unknown) =>
    err instanceof StudioError
      ? err
      : conflict(`${label}'s sound could not be read: ${errorMessage(err).split("\n")[0].slice(0, 300)}`);
  for (const name of [`${t.stem}.mp4`, `${t.stem}_h3.wav`]) {
    if (!t.files.includes(name)) continue;
    const file = await guardPath(fence, path.join(dir, name));
    const info = await probe(file, services.media).catch((err) => {
      throw unreadable(err);
    });
    if (!info.audio || !(info.duration && info.duration > 0)) continue;
    const rel = path.relative(ep, file).split(path.sep).join("/");
    return { file, rel, duration: info.duration, label };
  }
  throw conflict(`${label} has no sound: its mp4 has no audio stream and it has no ${t.stem}_h3.wav`);
}

/** The character's subject block in the series config names no `voice_sample`. */
function lacksSample(raw: unknown, subject: string): boolean {
  const subjects = isObject(raw) && isObject(raw.subjects) ? raw.subjects : null;
  const s = subjects && isObject(subjects[subject]) ? subjects[subject] : null;
  return s !== null && !(typeof s.voice_sample === "string" && s.voice_sample.trim() !== "");
}

/**
 * Adds `voice_sample: <path>` to the character in the series config when it names none (the rest as parsed,
 * written with 2-space indent, BOM and line endings kept, the old bytes in `_history/`). Answers whether it wrote.
 */
export async function addVoiceSample(
  services: Pick<Services, "now" | "caches" | "locks">,
  ep: string,
  subject: string,
  sample: string,
): Promise<boolean> {
  return withLock(services, ep, async () => {
    const series = await readSourceFile(ep, "series");
    let raw: unknown;
    try {
      raw = parseSeriesJson(series.text);
    } catch (err) {
      throw badRequest(
        `the series config does not load, so voice_sample was not added: ${errorMessage(err)}`,
      );
    }
    if (!lacksSample(raw, subject) || !isObject(raw) || !isObject(raw.subjects)) return false;
    const subjects = {
      ...raw.subjects,
      [subject]: { ...objectOr(raw.subjects[subject]), voice_sample: sample },
    };
    const text = `${JSON.stringify({ ...raw, subjects }, null, 2)}\n`;
    await replaceSourceBytes(ep, series, encodeLike(text, series), services.now());
    return true;
  });
}

function voiceOf(c: CatalogRef): CatalogRef {
  if (c.kind !== "voice") {
    throw badRequest(
      `${c.ref.id} is not a voice (it is a ${c.kind}): a take's sound becomes a voice:<character> sample`,
    );
  }
  return c;
}

/**
 * Cuts the clip into a new take of the voice and picks it as asked. Events: the take's status, `picked` when
 * picked, then one `studio.episode` (after the rebuild when the series config gained its `voice_sample`).
 */
export async function voiceFromTake(
  services: Services,
  epReal: string,
  req: VoiceClipRequest,
): Promise<VoiceClip> {
  const note = req.note?.trim() ?? "";
  if (note.length > MAX_NOTE) throw badRequest(`note is ${note.length} characters; at most ${MAX_NOTE}`);
  const id = parseRefId(req.ref);
  const place = await refsPlace(services, epReal);
  const c = voiceOf(catalogRef(await readCatalog(services, place), id.id));
  const sound = await takeSound(services, epReal, req);
  const span = clipSpan(req.start, req.end, sound.duration, sound.label);
  const sha1 = await hashFile(episodeFence(epReal), sound.file);
  const seconds = ms(span.end - span.start);
  const fields: Record<string, unknown> = {
    source: "from_take",
    source_shot: req.shot,
    source_take: req.take,
    source_pass: req.pass,
    source_start: span.start,
    source_end: span.end,
    source_file: sound.rel,
    ...(sha1 ? { source_sha1: sha1 } : {}),
    seconds,
    ...(note ? { note } : {}),
  };
  const take = await addTake(services, place, c.ref, {
    view: null,
    ext: "wav",
    write: async (tmp) => {
      await runFfmpegInto(
        tmp,
        [
          ...["-ss", String(span.start), "-t", String(seconds), "-i", sound.file],
          ...["-map", "0:a:0", "-vn", "-c:a", "pcm_s16le", "-f", "wav", tmp],
        ],
        { media: services.media, seconds },
      ).catch((err) => {
        throw conflict(
          `${sound.label}'s sound could not be cut: ${errorMessage(err).split("\n").at(-1)?.slice(0, 300)}`,
        );
      });
      if (silentWav(await readFile(tmp))) {
        throw conflict(
          `${sound.label} has no sound between ${span.start} and ${span.end} s: it is silent there`,
        );
      }
    },
    fields,
  });
  const ep = epReal;
  services.events.emit("studio.ref", { ep, ref: c.ref.id, view: null, take: take.take, status: take.status });
  const live = await liveRefOf(place, c);
  const liveExists = (await statShowOrNull(await liveFence(place), live.file).catch(() => null)) !== null;
  const pick = req.pick === true || (req.pick === null && !liveExists);
  const source: ClipSource = { shot: req.shot, take: req.take, pass: req.pass, ...span, file: sound.rel };
  if (!pick) {
    services.events.emit("studio.episode", { ep });
    return { take, picked: false, source, configured: false };
  }
  // pickTake says `picked` then the episode, as a rebuild does: the episode is held back and told once, at the end
  // (also when the pick failed: the new take is there either way).
  const held: Services = {
    ...services,
    events: {
      emit(kind, data) {
        if (kind !== "studio.episode") services.events.emit(kind, data);
      },
    },
  };
  let configured = false;
  try {
    await pickTake(held, place, live, null, take.take);
    if (c.subject) configured = await addVoiceSample(services, ep, c.subject, c.path);
    // The shot lists carry each subject's voice_sample: rebuilt so they name the file now placed.
    if (configured) await rebuildEpisode(held, ep);
  } finally {
    services.events.emit("studio.episode", { ep });
  }
  return { take, picked: true, source, configured };
}
