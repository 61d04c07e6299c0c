// A sound file's envelope (200 peaks a second), made once per file version: kept in memory by the services' caches
// and on disk in the episode's `_cache/peaks/<sha1 of "path|size|mtime_ns">.json`. A second asker of a file being
// decoded waits for that decode rather than starting another; the decode stops only when every asker has left.
import { createHash } from "node:crypto";
import { stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import type { Services } from "../context.ts";
import { episodeFence, mkdirShow, readShowFile, writeShowFile } from "../paths/guarded.ts";
import { cacheSlot } from "../store/caches.ts";
import { errorCode, errorMessage } from "../store/json-guards.ts";
import { tempPath } from "../store/temp-names.ts";
import { decodeEnvelope } from "./peaks-decode.ts";
import { PEAK_RATE } from "./peaks-scan.ts";

export interface Peaks {
  /** Seconds of the file. */
  duration: number;
  rate: typeof PEAK_RATE;
  /** No sound at all: no audio stream, or every peak 0. */
  silent: boolean;
  /** One byte per 1/200 s (empty for a file with no audio stream). */
  peaks: Uint8Array;
}

type PeaksServices = Pick<Services, "caches" | "media" | "log">;

/** The cache file's format (versioned: another version is made again). */
const CacheFile = z.object({
  version: z.literal(1),
  path: z.string(),
  duration: z.number().nonnegative(),
  rate: z.literal(PEAK_RATE),
  silent: z.boolean(),
  peaks: z.string().regex(/^(?:[0-9a-f]{2})*$/),
});

// Envelopes kept in memory: a half-hour track is 360 KB, so this holds a season's tracks.
const MEMORY_BYTES = 64 << 20;

interface Entry {
  done: Promise<Peaks>;
  /** Set once decoded (what the memory budget counts). */
  value?: Peaks;
  settled: boolean;
  askers: number;
  stop: AbortController;
}

interface PeaksMemory {
  entries: Map<string, Entry>;
  /** The key each file was last read under, so a file's older version leaves memory when a new one is read. */
  keyOfFile: Map<string, string>;
  bytes: number;
}

const memorySlot = cacheSlot<PeaksMemory>("audio.peaks", () => ({
  entries: new Map(),
  keyOfFile: new Map(),
  bytes: 0,
}));

/** The cache key of one version of a file: sha1 of "path|size|mtime_ns". */
export function peaksKey(file: string, size: bigint, mtimeNs: bigint): string {
  return createHash("sha1").update(`${file}|${size}|${mtimeNs}`).digest("hex");
}

/** Where the envelope of the file version `key` names is kept in the episode. */
export function peaksCacheFile(epReal: string, key: string): string {
  return path.join(epReal, "_cache", "peaks", `${key}.json`);
}

/**
 * The envelope of `absFile` (a real path the caller has checked; it may lie above the episode where the series
 * config opens). `signal` stops this asker's wait, and the decode once no other asker waits for it.
 */
export async function readPeaks(
  services: PeaksServices,
  epReal: string,
  absFile: string,
  signal?: AbortSignal,
): Promise<Peaks> {
  const st = await stat(absFile, { bigint: true });
  // Gone before asking: no decode is started for nobody.
  if (signal?.aborted) throw signal.reason ?? new Error("canceled");
  const key = peaksKey(absFile, st.size, st.mtimeNs);
  const memory = services.caches.of(memorySlot);
  let entry = memory.entries.get(key);
  if (entry?.value) {
    // Most recently used last, so the budget forgets the oldest first.
    memory.entries.delete(key);
    memory.entries.set(key, entry);
    return entry.value;
  }
  // A decode stopped because its askers all left is not joined: it is ending, a new one starts.
  if (!entry || entry.stop.signal.aborted) entry = start(services, memory, epReal, absFile, key);
  return join(entry, signal);
}

function start(
  services: PeaksServices,
  memory: PeaksMemory,
  epReal: string,
  absFile: string,
  key: string,
): Entry {
  const entry = { settled: false, askers: 0, stop: new AbortController() } as Entry;
  entry.done = (async () => {
    const cached = await readCacheFile(services, epReal, key);
    if (cached) return cached;
    const made = await make(services, epReal, absFile, key, entry.stop.signal);
    await writeCacheFile(services, epReal, absFile, key, made);
    return made;
  })().then(
    (value) => {
      entry.settled = true;
      remember(memory, absFile, key, entry, value);
      return value;
    },
    (err) => {
      entry.settled = true;
      if (memory.entries.get(key) === entry) memory.entries.delete(key);
      throw err;
    },
  );
  // A failure nobody waits for any more must not surface as an unhandled rejection; askers see it in their join.
  entry.done.catch(() => {});
  memory.entries.set(key, entry);
  return entry;
}

function join(entry: Entry, signal: AbortSignal | undefined): Promise<Peaks> {
  if (signal?.aborted) return Promise.reject(signal.reason ?? new Error("canceled"));
  entry.askers++;
  return new Promise<Peaks>((resolve, reject) => {
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      signal?.removeEventListener("abort", onAbort);
      entry.askers--;
      if (entry.askers === 0 && !entry.settled) entry.stop.abort();
    };
    const onAbort = () => {
      leave();
      reject(signal?.reason ?? new Error("canceled"));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    entry.done.then(
      (v) => {
        leave();
        resolve(v);
      },
      (e) => {
        leave();
        reject(e);
      },
    );
  });
}

function remember(memory: PeaksMemory, absFile: string, key: string, entry: Entry, value: Peaks): void {
  if (memory.entries.get(key) !== entry) return;
  entry.value = value;
  memory.bytes += value.peaks.byteLength;
  const older = memory.keyOfFile.get(absFile);
  memory.keyOfFile.set(absFile, key);
  if (older && older !== key) forget(memory, older);
  for (const [k, e] of memory.entries) {
    if (memory.bytes <= MEMORY_BYTES) break;
    if (e.value && k !== key) forget(memory, k);
  }
}

function forget(memory: PeaksMemory, key: string): void {
  const entry = memory.entries.get(key);
  if (!entry?.value) return;
  memory.entries.delete(key);
  memory.bytes -= entry.value.peaks.byteLength;
}

async function make(
  services: PeaksServices,
  epReal: string,
  absFile: string,
  key: string,
  signal: AbortSignal,
): Promise<Peaks> {
  const shown = JSON.stringify(path.relative(epReal, absFile).split(path.sep).join("/"));
  const env = await decodeEnvelope(absFile, shown, {
    media: services.media,
    // ffmpeg's samples go beside the cache file, under a temporary name a sweep after a crash knows.
    scratch: async () => {
      const folder = await mkdirShow(episodeFence(epReal), path.dirname(peaksCacheFile(epReal, key)));
      return tempPath(path.join(folder, `${key}.pcm`));
    },
    signal,
  });
  return { ...env, rate: PEAK_RATE };
}

async function readCacheFile(services: PeaksServices, epReal: string, key: string): Promise<Peaks | null> {
  const file = peaksCacheFile(epReal, key);
  let text: string;
  try {
    text = (await readShowFile(episodeFence(epReal), file)).toString("utf8");
  } catch (err) {
    if (errorCode(err) !== "ENOENT")
      services.log.warn(`peaks cache ${file} unreadable: ${errorMessage(err)}`);
    return null;
  }
  let parsed: z.infer<typeof CacheFile>;
  try {
    parsed = CacheFile.parse(JSON.parse(text));
  } catch {
    // Damaged or of another version: made again and written over.
    return null;
  }
  const peaks = new Uint8Array(Buffer.from(parsed.peaks, "hex"));
  return { duration: parsed.duration, rate: PEAK_RATE, silent: parsed.silent, peaks };
}

async function writeCacheFile(
  services: PeaksServices,
  epReal: string,
  absFile: string,
  key: string,
  p: Peaks,
): Promise<void> {
  const file = peaksCacheFile(epReal, key);
  const body = {
    version: 1,
    path: absFile,
    duration: p.duration,
    rate: PEAK_RATE,
    silent: p.silent,
    peaks: Buffer.from(p.peaks.buffer, p.peaks.byteOffset, p.peaks.byteLength).toString("hex"),
  };
  // The cache can always be made again: a folder that refuses it costs a decode next time, not the answer.
  await writeShowFile(episodeFence(epReal), file, `${JSON.stringify(body, null, 2)}\n`, {
    durable: false,
  }).catch((err) => services.log.warn(`peaks cache ${file} not written: ${errorMessage(err)}`));
}
