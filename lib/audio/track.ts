// The episode's recorded dialogue track as the series config names it (`audio.track`, with `audio.mode`
// `source_track`), set or cleared through the source-save path, and the facts answered about it (length, sample
// rate, words transcribed, shots given a window).
import path from "node:path";
import { readWordsCache } from "../align/words-cache.ts";
import type { Services } from "../context.ts";
import { readOverrides, writeOverrides } from "../episode/overrides-file.ts";
import { serializeSeries } from "../episode/promote/edit.ts";
import { readBuild } from "../episode/shotlists.ts";
import { encodeLike, readSourceFile, replaceSourceBytes, sha1Bytes } from "../episode/source-file.ts";
import { badRequest } from "../errors.ts";
import { probeClipCached } from "../media/probe-cache.ts";
import { fileInside, showFence } from "../paths/guarded.ts";
import type { PassName } from "../schema/fields.ts";
import { JsonSyntaxError } from "../series/errors.ts";
import { parseSeriesJson } from "../series/load.ts";
import { isObject, type JsonObject } from "../store/json-guards.ts";
import { withLock } from "../store/lock.ts";

/** The mode a series is in while it has a recorded track. */
export const TRACK_MODE = "source_track";
/** The mode a cleared track leaves when the one before it is not known. */
const FALLBACK_MODE = "generate";

export interface SeriesTrackEdit {
  /** The series config's hash after the edit (the same as before when nothing changed). */
  hash: string;
  /** The config was not in the editor's 2-space layout and was rewritten in it. */
  reformatted: boolean;
  /** The config's bytes changed. */
  changed: boolean;
}

/** The series config parsed, or 400 when it is not a JSON object (nothing is written then). */
function parseConfig(text: string): JsonObject {
  let raw: unknown;
  try {
    raw = parseSeriesJson(text);
  } catch (err) {
    if (err instanceof JsonSyntaxError) {
      throw badRequest(`${err.message}; fix it before setting the recording`, {
        line: err.line,
        col: err.col,
      });
    }
    throw err;
  }
  if (!isObject(raw))
    throw badRequest("series.json is not a JSON object; fix it before setting the recording");
  return raw;
}

/**
 * 404 when the episode has no series config, 400 when it is not a JSON object: asked before a recording is copied
 * in, so a config that cannot take the track leaves nothing written.
 */
export async function checkSeriesConfig(epReal: string): Promise<void> {
  parseConfig((await readSourceFile(epReal, "series")).text);
}

/**
 * Points the series config's `audio.track` at `rel` (episode-relative; written relative to the config's folder,
 * where every path of the config is read from) with `audio.mode` `source_track`, remembering the mode it had in
 * overrides.json `audio.mode_before_track` (`""` when it had none; an earlier remembered mode is kept). `null`
 * clears the track and restores that mode (none remembered: `generate`; `""`: the key removed), forgetting it.
 * History copy, BOM and line endings as a save; no rebuild, no event. Takes the episode lock: call it without
 * holding it.
 */
export async function setSeriesTrack(
  services: Pick<Services, "now" | "caches" | "locks">,
  epReal: string,
  rel: string | null,
): Promise<SeriesTrackEdit> {
  return withLock(services, epReal, async () => {
    const current = await readSourceFile(epReal, "series");
    const raw = parseConfig(current.text);
    const before = JSON.stringify(raw);
    const overrides = await readOverrides(services, epReal);
    const memory: JsonObject = isObject(overrides.audio) ? { ...overrides.audio } : {};
    const remembered = memory.mode_before_track;
    const audio: JsonObject = isObject(raw.audio) ? raw.audio : {};

    if (rel !== null) {
      const abs = path.resolve(epReal, rel);
      const value = path.relative(path.dirname(current.abs), abs).split(path.sep).join("/");
      if (typeof remembered !== "string") {
        memory.mode_before_track = typeof audio.mode === "string" ? audio.mode : "";
      }
      audio.track = value;
      audio.mode = TRACK_MODE;
    } else {
      delete audio.track;
      if (typeof remembered === "string") {
        if (remembered === "") delete audio.mode;
        else audio.mode = remembered;
      } else {
        audio.mode = FALLBACK_MODE;
      }
      delete memory.mode_before_track;
    }
    if (Object.keys(audio).length > 0) raw.audio = audio;
    else delete raw.audio;

    const memoryChanged = JSON.stringify(memory) !== JSON.stringify(objectOrEmpty(overrides.audio));
    if (memoryChanged) {
      if (Object.keys(memory).length > 0) overrides.audio = memory;
      else delete overrides.audio;
    }

    if (JSON.stringify(raw) === before) {
      if (memoryChanged) await writeOverrides(services, epReal, overrides);
      return { hash: current.hash, reformatted: false, changed: false };
    }
    const reformatted = serializeSeries(parseConfig(current.text), current.text) !== current.text;
    const bytes = encodeLike(serializeSeries(raw, current.text), current);
    await replaceSourceBytes(epReal, current, bytes, services.now());
    if (memoryChanged) await writeOverrides(services, epReal, overrides);
    return { hash: sha1Bytes(bytes), reformatted, changed: true };
  });
}

const objectOrEmpty = (v: unknown): JsonObject => (isObject(v) ? v : {});

export interface TrackFacts {
  /** Episode-relative, forward slashes. */
  path: string;
  /** Seconds, from the probe; null when the file is missing or not media. */
  duration: number | null;
  /** Sample rate in Hz; null likewise. */
  rate: number | null;
  exists: boolean;
  /** Words in the recording's transcription cache (0 when it has none fresh). */
  words: number;
  /** Shots of the pass's shot list with an `audio:` window. */
  aligned: number;
}

type FactsServices = Pick<Services, "caches" | "home" | "media">;

/** The series config's track and what is known of it; null when the config names none (or does not load). */
export async function trackFacts(
  services: FactsServices,
  epReal: string,
  pass: PassName,
): Promise<TrackFacts | null> {
  let current: Awaited<ReturnType<typeof readSourceFile>>;
  let raw: JsonObject;
  try {
    current = await readSourceFile(epReal, "series");
    raw = parseConfig(current.text);
  } catch {
    return null;
  }
  const track = isObject(raw.audio) ? raw.audio.track : undefined;
  if (typeof track !== "string" || track.trim() === "") return null;
  const abs = path.resolve(path.dirname(current.abs), track.trim().replaceAll("\\", "/"));
  // Only files of the show are opened: a config naming a file elsewhere gets no probe.
  const real = await fileInside(showFence(epReal), abs);
  const [probe, cache, build] = await Promise.all([
    real ? probeClipCached(services, real).catch(() => null) : null,
    real ? readWordsCache(real) : null,
    readBuild(services, epReal, pass),
  ]);
  let aligned = 0;
  for (const shot of build?.shots.values() ?? []) {
    if (typeof (shot.entry as { audio_in?: unknown }).audio_in === "number") aligned++;
  }
  return {
    path: path.relative(epReal, abs).split(path.sep).join("/"),
    duration: probe?.duration ?? null,
    rate: probe?.audio?.sampleRate ?? null,
    exists: real !== null,
    words: cache?.words.length ?? 0,
    aligned,
  };
}
