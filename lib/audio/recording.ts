// Recordings brought into an episode (`<ep>/audio/<name>`): which files count as one, the names they are kept
// under, and placing one there atomically: the same bytes under a name are reused, other bytes get `<stem>-2`,
// `-3`, …, and a file already inside the episode is used where it is.
import { rename, rm } from "node:fs/promises";
import path from "node:path";
import type { Services } from "../context.ts";
import { hashFile } from "../episode/staleness.ts";
import { badRequest, shown } from "../errors.ts";
import { moveUpload, type UploadedFile } from "../http/multipart.ts";
import { episodeFence, guardPath, mkdirShow, statShowOrNull } from "../paths/guarded.ts";
import { isInsideOrEqual } from "../paths/inside.ts";
import { refsPlace } from "../refs/place.ts";
import { sourceFile } from "../refs/source-file.ts";
import { copyFrom } from "../refs/takes.ts";
import { syncFile, syncFolder } from "../store/atomic.ts";
import { withLock } from "../store/lock.ts";
import { tempName } from "../store/temp-names.ts";

/** The extensions (lower case) a recording may have. */
export const RECORDING_EXTS = [".wav", ".mp3", ".flac", ".ogg", ".m4a", ".aac", ".opus"] as const;

/** Longest name a recording is kept under, extension included. */
export const MAX_RECORDING_NAME = 120;

/** Where an episode keeps its recordings. */
export const audioDir = (epReal: string) => path.join(epReal, "audio");

/** A file name's extension in lower case, from its last dot (`.wav` alone has one), "" when it has none. */
export function extensionOf(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot === -1 ? "" : name.slice(dot).toLowerCase();
}

/** True when the name's extension is a recording's. */
export function isRecordingName(name: string): boolean {
  return (RECORDING_EXTS as readonly string[]).includes(extensionOf(name));
}

/** 400 unless the name ends in a recording's extension. */
export function checkRecordingName(name: string, field: string): void {
  if (isRecordingName(name)) return;
  throw badRequest(
    `${field}: ${shown(name)} is not a recording (the extension must be one of ${RECORDING_EXTS.join(" ")})`,
  );
}

/**
 * The name a recording is kept under: the last path part, every character outside `[A-Za-z0-9 ._()-]` as `_`,
 * leading dots and spaces dropped (no hidden files), the stem shortened so the whole stays within 120
 * characters. 400 when no stem is left (a name that is only an extension).
 */
export function recordingName(original: string, field = "file"): string {
  const base = original.split(/[\\/]/).pop() ?? "";
  checkRecordingName(base, field);
  const clean = base.replace(/[^A-Za-z0-9 ._()-]/g, "_");
  const dot = clean.lastIndexOf(".");
  const ext = clean.slice(dot);
  const stem = clean
    .slice(0, dot)
    .replace(/^[. ]+/, "")
    .replace(/[. ]+$/, "");
  if (stem === "")
    throw badRequest(`${field}: ${shown(base)} is only an extension; give the recording a name`);
  return stem.slice(0, MAX_RECORDING_NAME - ext.length) + ext;
}

/** The n-th name tried for a recording: the name itself, then `<stem>-2`, `<stem>-3`, … (kept within 120). */
export function numberedName(name: string, n: number): string {
  if (n <= 1) return name;
  const dot = name.lastIndexOf(".");
  const ext = name.slice(dot);
  const suffix = `-${n}`;
  return name.slice(0, dot).slice(0, MAX_RECORDING_NAME - ext.length - suffix.length) + suffix + ext;
}

export interface RecordingSource {
  /** The name the request gave the file (what its kept name is made from). */
  name: string;
  /** The real path of a file named by path; null for an upload. */
  real: string | null;
  /** Puts the bytes at `tmp` (a copy, or the upload moved there). */
  fill(tmp: string): Promise<void>;
}

export interface PlacedRecording {
  /** The real path of the recording in the episode. */
  abs: string;
  /** Episode-relative, forward slashes. */
  path: string;
  /** False when the source was already inside the episode and is used where it is. */
  copied: boolean;
  /** True when the same bytes were already kept under the name (nothing written). */
  reused: boolean;
}

/**
 * A recording named by `source_path` (absolute inside a root, or relative to the episode): 400 for another
 * extension (before anything is opened), 403 outside the roots, 404 missing, 400 a folder.
 */
export async function pathSource(
  services: Pick<Services, "home" | "env" | "caches">,
  epReal: string,
  value: string,
): Promise<RecordingSource> {
  checkRecordingName(value.replaceAll("\\", "/").split("/").pop() ?? "", "source_path");
  const source = await sourceFile(await refsPlace(services, epReal), value);
  return { name: source.name, real: source.file, fill: copyFrom(source.fence, source.file) };
}

/** A recording uploaded as a form's file part (400 for another extension). */
export function uploadSource(file: UploadedFile): RecordingSource {
  checkRecordingName(file.name, "file");
  return { name: file.name, real: null, fill: (tmp) => moveUpload(file, tmp) };
}

/** Episode-relative path with forward slashes. */
export const episodeRelative = (epReal: string, abs: string) =>
  path.relative(epReal, abs).split(path.sep).join("/");

/** Most names tried before giving up (a folder holding this many copies of one name is not a normal one). */
const MAX_NUMBERED = 10_000;

/**
 * Keeps a recording in `<ep>/audio/`. The bytes go to a hidden temporary there first (synced), then, under the
 * episode lock, the name is chosen and the temporary renamed to it, so a crash leaves no half file under a real
 * name and two imports of one name never overwrite each other.
 */
export async function placeRecording(
  services: Pick<Services, "locks">,
  epReal: string,
  source: RecordingSource,
): Promise<PlacedRecording> {
  const field = source.real === null ? "file" : "source_path";
  if (source.real !== null && isInsideOrEqual(epReal, source.real)) {
    checkRecordingName(source.name, field);
    return { abs: source.real, path: episodeRelative(epReal, source.real), copied: false, reused: false };
  }
  const name = recordingName(source.name, field);
  const fence = episodeFence(epReal);
  const dir = await mkdirShow(fence, audioDir(epReal));
  const tmp = path.join(dir, tempName(name));
  try {
    await source.fill(tmp);
    await syncFile(tmp);
    const tmpHash = await hashFile(fence, tmp);
    if (tmpHash === null) throw new Error(`${name}: the copy in audio/ cannot be read back`);
    const tmpSize = (await statShowOrNull(fence, tmp))?.size ?? -1;
    return await withLock(services, epReal, async () => {
      for (let n = 1; n <= MAX_NUMBERED; n++) {
        const dest = await guardPath(fence, path.join(dir, numberedName(name, n)));
        const there = await statShowOrNull(fence, dest);
        if (there === null) {
          await rename(tmp, dest);
          await syncFolder(dir);
          return { abs: dest, path: episodeRelative(epReal, dest), copied: true, reused: false };
        }
        if (there.isFile() && there.size === tmpSize && (await hashFile(fence, dest)) === tmpHash) {
          return { abs: dest, path: episodeRelative(epReal, dest), copied: true, reused: true };
        }
      }
      throw badRequest(`audio/: more than ${MAX_NUMBERED} recordings are named like ${shown(name)}`);
    });
  } finally {
    await rm(tmp, { force: true });
  }
}
