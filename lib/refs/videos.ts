// The show's kept videos, `<series home>/refs/_videos/` (frames are cut from them): keeping one probes it (a file
// ffprobe finds no moving picture in is refused), reuses a name already holding the same bytes, and otherwise
// takes the first free name of `clip.mp4`, `clip-2.mp4`, `clip-3.mp4`… A small index beside them keeps what the
// probe said, so listing them reads no media.
import { copyFile, rm, stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import type { Services } from "../context.ts";
import { hashFile } from "../episode/staleness.ts";
import { badRequest, StudioError } from "../errors.ts";
import { type ProbeInfo, probe } from "../media/ffmpeg.ts";
import { ToolRunError } from "../media/tool-runner.ts";
import {
  type Fence,
  listShowFiles,
  mkdirShow,
  readShowJson,
  renameShow,
  statShowOrNull,
  writeShowJson,
} from "../paths/guarded.ts";
import { syncFolder } from "../store/atomic.ts";
import { forgetJsonFile } from "../store/json-file.ts";
import { isObject } from "../store/json-guards.ts";
import { withLock } from "../store/lock.ts";
import { recordKind } from "../store/record.ts";
import { tempPath } from "../store/temp-names.ts";
import { type RefsPlace, takesFence, videosDir } from "./place.ts";

/** The index of what each kept video is: `refs/_videos/_videos.json`. */
export const VIDEOS_INDEX = "_videos.json";

const entryKind = recordKind({
  size: z.number().int(),
  sha1: z.string(),
  duration: z.number().nullable(),
  kept: z.string(),
});

export interface KeptVideo {
  /** Episode-relative (for GET /studio/file and the routes that cut frames). */
  path: string;
  name: string;
  size: number;
  /** The file's modification time (ISO 8601). */
  modified: string;
  /** Seconds, as ffprobe read them when the video was kept; null when unknown. */
  duration: number | null;
}

export interface KeepResult extends KeptVideo {
  /** False when a file of the same name already held the same bytes. */
  copied: boolean;
}

type VideoServices = Pick<Services, "caches" | "locks" | "media" | "now">;

/** Still-picture codecs ffprobe reports as a video stream of one frame. */
const STILL_CODECS = new Set(["png", "mjpeg", "webp", "bmp", "tiff", "jpeg2000", "jpegls", "gif", "qoi"]);

/** What the file is, or 400 when it holds no moving picture. */
async function probeVideo(services: VideoServices, file: string, name: string): Promise<ProbeInfo> {
  let info: ProbeInfo;
  try {
    info = await probe(file, services.media);
  } catch (err) {
    if (!(err instanceof ToolRunError)) throw err;
    // ffprobe names the file it read (an upload's temporary): the reason is what follows.
    const last = err.stderr.trim().split("\n").pop()?.trim() ?? "";
    const why = last.replace(`${file}: `, "") || err.message;
    throw badRequest(`${shownName(name)} is not a video: ffprobe could not read it (${why})`);
  }
  if (info.video === null) throw badRequest(`${shownName(name)} is not a video: it holds no picture`);
  if (STILL_CODECS.has(info.video.codec) && !(info.duration !== null && info.duration > 0)) {
    throw badRequest(`${shownName(name)} is not a video: it is a still picture (${info.video.codec})`);
  }
  return info;
}

const shownName = (name: string) => JSON.stringify(name.slice(0, 120));

/** A file-safe name: letters, digits, space, `._()-` kept, the rest `_`; no leading dot; at most 120 characters. */
export function videoName(name: string): string {
  const ext = path.extname(name).toLowerCase();
  const safeExt = /^\.[a-z0-9]{1,8}$/.test(ext) ? ext : "";
  const stem = (safeExt ? name.slice(0, -ext.length) : name)
    .normalize("NFC")
    .replace(/[^\p{L}\p{N} ._()-]/gu, "_")
    .replace(/^[. ]+|[. ]+$/g, "")
    .slice(0, 120);
  return `${stem || "video"}${safeExt}`;
}

/** `clip.mp4`, then `clip-2.mp4`, `clip-3.mp4`… */
const numbered = (name: string, n: number) => {
  if (n === 1) return name;
  const ext = path.extname(name);
  return `${name.slice(0, name.length - ext.length)}-${n}${ext}`;
};

const MAX_NUMBER = 1000;

/**
 * Keeps a video: `source` is read through `fence`, `name` is the name it came with, `fill` puts its bytes at a
 * temporary path in the videos folder (a copy of a source path, the move of an upload).
 */
export async function keepVideo(
  services: VideoServices,
  place: RefsPlace,
  source: { file: string; fence: Fence; name: string; fill?: (tmp: string) => Promise<void> },
): Promise<KeepResult> {
  const info = await probeVideo(services, source.file, source.name);
  const sha1 = await hashFile(source.fence, source.file);
  const size = (await statShowOrNull(source.fence, source.file))?.size;
  if (sha1 === null || size === undefined) {
    throw new StudioError(500, `${shownName(source.name)} could not be read`);
  }
  const fence = takesFence(place, { scope: "series" });
  const dir = videosDir(place);
  const base = videoName(source.name);
  return withLock(services, `refs-videos:${dir}`, async () => {
    const real = await mkdirShow(fence, dir);
    for (let n = 1; n <= MAX_NUMBER; n++) {
      const name = numbered(base, n);
      const file = path.join(real, name);
      const st = await statShowOrNull(fence, file);
      if (st !== null) {
        if (st.isFile() && st.size === size && (await hashFile(fence, file)) === sha1) {
          await recordVideo(services, fence, real, name, { size: st.size, sha1, duration: info.duration });
          return { ...kept(place, real, name, st, info.duration), copied: false };
        }
        continue;
      }
      const tmp = tempPath(file, path.extname(name));
      try {
        await (source.fill ?? ((t: string) => copyFile(source.file, t)))(tmp);
        await renameShow(fence, tmp, file);
        await syncFolder(real);
      } finally {
        await rm(tmp, { force: true });
      }
      const placed = await statShowOrNull(fence, file);
      if (placed === null) throw new StudioError(500, `${name} vanished as it was kept`);
      await recordVideo(services, fence, real, name, { size: placed.size, sha1, duration: info.duration });
      return { ...kept(place, real, name, placed, info.duration), copied: true };
    }
    throw new StudioError(409, `refs/_videos/ already holds ${MAX_NUMBER} videos named like ${base}`);
  });
}

function kept(
  place: RefsPlace,
  dir: string,
  name: string,
  st: { size: number; mtime: Date },
  duration: number | null,
): KeptVideo {
  const rel = path.relative(place.ep, path.join(dir, name)).split(path.sep).join("/");
  return { path: rel, name, size: st.size, modified: st.mtime.toISOString(), duration };
}

async function recordVideo(
  services: VideoServices,
  fence: Fence,
  dir: string,
  name: string,
  entry: { size: number; sha1: string; duration: number | null },
): Promise<void> {
  const file = path.join(dir, VIDEOS_INDEX);
  const raw = await readShowJson(services, fence, file, "the kept videos index");
  const videos = isObject(raw) && isObject(raw.videos) ? { ...raw.videos } : {};
  videos[name] = { ...entry, kept: services.now().toISOString() };
  await writeShowJson(fence, file, { version: 1, videos });
  forgetJsonFile(services, file);
}

/** The kept videos, newest first; a file placed by hand lists with the duration null. */
export async function listVideos(services: Pick<Services, "caches">, place: RefsPlace): Promise<KeptVideo[]> {
  const fence = takesFence(place, { scope: "series" });
  const listing = await listShowFiles(fence, videosDir(place));
  if (!listing) return [];
  const raw = await readShowJson(
    services,
    fence,
    path.join(listing.real, VIDEOS_INDEX),
    "the kept videos index",
  );
  const index = isObject(raw) && isObject(raw.videos) ? raw.videos : {};
  const out: KeptVideo[] = [];
  for (const name of listing.files) {
    if (name.startsWith(".") || name === VIDEOS_INDEX) continue;
    // A listed name is a regular file of the checked folder: no link to resolve again.
    const st = await stat(path.join(listing.real, name)).catch(() => null);
    if (!st?.isFile()) continue;
    const entry = entryKind.parse(index[name]);
    const duration = entry && entry.size === st.size ? (entry.duration ?? null) : null;
    out.push(kept(place, listing.real, name, st, duration));
  }
  out.sort((a, b) => b.modified.localeCompare(a.modified) || a.name.localeCompare(b.name));
  return out;
}
