// Clip probes remembered per file version (real path, size, modification time, inode): in the process's caches,
// and on disk in the settings folder's `cache/probes/` so a worker, the server and the next start share them. The
// render job that made a take probes it once in place, so a first assembly of a cut starts no ffprobe at all.
import { createHash } from "node:crypto";
import { readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { writeJsonAtomic } from "../store/atomic.ts";
import { cacheSlot, type WithCaches } from "../store/caches.ts";
import { isObject, type JsonObject } from "../store/json-guards.ts";
import { type ClipAudio, type ClipInfo, type ClipVideo, probeClip } from "./clip-probe.ts";
import type { MediaTools } from "./tools.ts";

export type ProbeServices = WithCaches & { readonly home: string; readonly media: MediaTools };

const VERSION = 1;
const MAX_IN_MEMORY = 5000;
const REMEMBERED = cacheSlot("clip probes", () => new Map<string, { stamp: string; info: ClipInfo }>());

/** The folder of remembered probes in the settings folder. */
export function probeCacheDir(home: string): string {
  return path.join(home, "cache", "probes");
}

/** One file's entry: named by its real path, so a file has one entry, rewritten when the file changes. */
function entryFile(home: string, real: string): string {
  const key = createHash("sha1").update(real).digest("hex");
  return path.join(probeCacheDir(home), key.slice(0, 2), `${key}.json`);
}

interface Version {
  real: string;
  stamp: string;
}

/** The file's real path and version; rejects like `stat` (ENOENT) when it is gone. */
async function versionOf(file: string): Promise<Version> {
  const real = await realpath(file);
  const st = await stat(real, { bigint: true });
  return { real, stamp: `${st.size}:${st.mtimeNs}:${st.ino}` };
}

/**
 * The clip's streams: remembered when this version of the file was probed before (by this process, another one,
 * or the render job that made it), else asked of ffprobe and remembered. Rejects with ffprobe's message when the
 * file is not media, with ENOENT when it is gone.
 */
export async function probeClipCached(services: ProbeServices, file: string): Promise<ClipInfo> {
  const v = await versionOf(file);
  const memory = services.caches.of(REMEMBERED);
  const held = memory.get(v.real);
  if (held && held.stamp === v.stamp) return held.info;
  const stored = await readEntry(services.home, v);
  if (stored) {
    hold(memory, v, stored);
    return stored;
  }
  const info = await probeClip(services, v.real);
  await store(services, v, info);
  return info;
}

async function store(services: ProbeServices, v: Version, info: ClipInfo): Promise<void> {
  hold(services.caches.of(REMEMBERED), v, info);
  const entry = { version: VERSION, path: v.real, stamp: v.stamp, info };
  // Made again by the next probe if lost: not worth a disk sync; a read-only settings folder only costs probes.
  await writeJsonAtomic(entryFile(services.home, v.real), entry, { durable: false }).catch(() => {});
}

function hold(memory: Map<string, { stamp: string; info: ClipInfo }>, v: Version, info: ClipInfo): void {
  if (memory.size >= MAX_IN_MEMORY) memory.clear();
  memory.set(v.real, { stamp: v.stamp, info });
}

/** The stored entry's probe when it is of this very version, else null (missing, stale, damaged, other layout). */
async function readEntry(home: string, v: Version): Promise<ClipInfo | null> {
  let data: unknown;
  try {
    data = JSON.parse(await readFile(entryFile(home, v.real), "utf8"));
  } catch {
    return null;
  }
  if (!isObject(data) || data.version !== VERSION || data.path !== v.real || data.stamp !== v.stamp)
    return null;
  return clipInfoOf(data.info);
}

/** A ClipInfo read back from JSON, checked field by field; null when any field is not of its type. */
export function clipInfoOf(v: unknown): ClipInfo | null {
  if (!isObject(v) || !numOrNull(v.duration)) return null;
  const video = v.video === null ? null : videoOf(v.video);
  const audio = v.audio === null ? null : audioOf(v.audio);
  if (video === undefined || audio === undefined) return null;
  return { duration: v.duration as number | null, video, audio };
}

const numOrNull = (x: unknown) => x === null || (typeof x === "number" && Number.isFinite(x));
const strOrNull = (x: unknown) => x === null || typeof x === "string";
const all = (o: JsonObject, keys: string[], ok: (x: unknown) => boolean) => keys.every((k) => ok(o[k]));

function videoOf(v: unknown): ClipVideo | undefined {
  if (
    !isObject(v) ||
    typeof v.codec !== "string" ||
    typeof v.width !== "number" ||
    typeof v.height !== "number"
  )
    return undefined;
  if (!all(v, ["fps", "frames", "timescale", "duration"], numOrNull) || !all(v, ["pixFmt", "sar"], strOrNull))
    return undefined;
  return {
    codec: v.codec,
    width: v.width,
    height: v.height,
    fps: v.fps as number | null,
    frames: v.frames as number | null,
    pixFmt: v.pixFmt as string | null,
    timescale: v.timescale as number | null,
    sar: v.sar as string | null,
    duration: v.duration as number | null,
  };
}

function audioOf(v: unknown): ClipAudio | undefined {
  if (!isObject(v) || typeof v.codec !== "string" || !all(v, ["sampleRate", "channels"], numOrNull))
    return undefined;
  return { codec: v.codec, sampleRate: v.sampleRate as number | null, channels: v.channels as number | null };
}
