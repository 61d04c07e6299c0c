// Listing a folder for a picker over the whole machine (not limited to roots): its visible sub-folders, each
// marked when it is an episode or holds a series config, and optionally its image, audio or video files; and the
// starting points when nothing is chosen yet. What makes a folder an episode is the caller's to say.
import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { forbidden, notFound, StudioError } from "../errors.ts";
import { errorCode, errorMessage } from "../store/json-guards.ts";
import { mapLimit } from "../store/map-limit.ts";
import { samePath } from "./inside.ts";
import { isFile, SERIES_FILE } from "./series-config.ts";

// A picker shows a screenful; a folder of thousands is cut (with `truncated`) rather than listed whole.
export const BROWSE_LIMIT = 1000;

/** The file kinds a listing can show, and their extensions. */
export const FILE_KINDS = ["image", "audio", "video"] as const;
export type FileKind = (typeof FILE_KINDS)[number];
const FILE_EXTENSIONS: Record<FileKind, ReadonlySet<string>> = {
  image: new Set([".png", ".jpg", ".jpeg", ".webp", ".gif", ".bmp", ".tif", ".tiff"]),
  audio: new Set([".wav", ".mp3", ".flac", ".ogg", ".m4a", ".aac", ".opus"]),
  video: new Set([".mp4", ".mov", ".webm", ".mkv", ".avi", ".m4v"]),
};

/** Whether a folder is an episode (the domain's rule, handed in). */
export type IsEpisode = (dir: string) => Promise<boolean>;

interface DirItem {
  name: string;
  path: string;
  episode: boolean;
  series_config: boolean;
}

interface FileItem {
  name: string;
  path: string;
  size: number;
}

export interface FolderListing {
  path: string;
  /** The folder above (`""` at the top); null for the starting points. */
  parent: string | null;
  episode: boolean;
  truncated: boolean;
  dirs: DirItem[];
  /** Only when a file kind was asked for. */
  files?: FileItem[];
}

/** Case-insensitive order, ties broken by exact spelling so the order is stable. */
export function compareNames(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0;
}

/** `dir`'s listing; 404 when it is not a folder, 403 when it cannot be read. */
export async function listFolder(
  dir: string,
  kind: FileKind | null,
  isEpisode: IsEpisode,
): Promise<FolderListing> {
  let entries: Dirent[];
  try {
    const st = await stat(dir);
    if (!st.isDirectory()) throw notFound(`path: "${dir}" is a file, not a folder`);
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if (err instanceof StudioError) throw err;
    const code = errorCode(err);
    if (code === "ENOENT" || code === "ENOTDIR") throw notFound(`path: no folder at "${dir}"`);
    if (code === "EACCES" || code === "EPERM") throw forbidden(`path: "${dir}" cannot be read`);
    throw new StudioError(500, `path: "${dir}" cannot be listed: ${errorMessage(err)}`);
  }
  const visible = entries.filter((e) => !e.name.startsWith(".")).sort((a, b) => compareNames(a.name, b.name));
  const kinds = await mapLimit(visible, 32, (e) => entryKind(dir, e));
  const dirNames = visible.filter((_, i) => kinds[i] === "dir").map((e) => e.name);
  const exts = kind ? FILE_EXTENSIONS[kind] : null;
  const fileNames = exts
    ? visible
        .filter((e, i) => kinds[i] === "file" && exts.has(path.extname(e.name).toLowerCase()))
        .map((e) => e.name)
    : [];
  const truncated = dirNames.length + fileNames.length > BROWSE_LIMIT;
  const shownDirs = dirNames.slice(0, BROWSE_LIMIT);
  const shownFiles = fileNames.slice(0, BROWSE_LIMIT - shownDirs.length);
  const [episode, dirs, files] = await Promise.all([
    isEpisode(dir),
    mapLimit(shownDirs, 16, (name) => dirItem(name, path.join(dir, name), isEpisode)),
    mapLimit(shownFiles, 32, (name) => fileItem(name, path.join(dir, name))),
  ]);
  const parent = path.dirname(dir);
  return {
    path: dir,
    parent: parent === dir ? "" : parent,
    episode,
    truncated,
    dirs,
    ...(exts ? { files: files.filter((f): f is FileItem => f !== null) } : {}),
  };
}

/** Starting points for a picker with nothing chosen yet: home, the configured roots, then `/` or the drives. */
export async function startingPoints(
  env: Record<string, string | undefined>,
  roots: readonly string[],
  isEpisode: IsEpisode,
): Promise<FolderListing> {
  const home = env.HOME || env.USERPROFILE || os.homedir();
  const places: { name: string; path: string }[] = [{ name: "Home", path: path.resolve(home) }];
  for (const root of roots) {
    places.push({ name: path.basename(root) || root, path: root });
  }
  if (process.platform === "win32") {
    const letters = Array.from({ length: 26 }, (_, i) => String.fromCharCode(65 + i));
    const found = await Promise.all(
      letters.map(async (l) => ((await stat(`${l}:\\`).catch(() => null))?.isDirectory() ? l : null)),
    );
    for (const l of found) if (l) places.push({ name: `${l}:`, path: `${l}:\\` });
  } else {
    places.push({ name: "/", path: "/" });
  }
  const unique = places.filter((p, i) => places.findIndex((q) => samePath(q.path, p.path)) === i);
  const dirs = await mapLimit(unique, 16, (p) => dirItem(p.name, p.path, isEpisode));
  return { path: "", parent: null, episode: false, truncated: false, dirs };
}

async function dirItem(name: string, dir: string, isEpisode: IsEpisode): Promise<DirItem> {
  const [episode, series_config] = await Promise.all([isEpisode(dir), isFile(path.join(dir, SERIES_FILE))]);
  return { name, path: dir, episode, series_config };
}

async function fileItem(name: string, file: string): Promise<FileItem | null> {
  const st = await stat(file).catch(() => null);
  return st?.isFile() ? { name, path: file, size: st.size } : null;
}

// Links are followed so a linked folder shows as a folder; a broken link shows as nothing.
async function entryKind(dir: string, e: Dirent): Promise<"dir" | "file" | null> {
  if (e.isDirectory()) return "dir";
  if (e.isFile()) return "file";
  if (!e.isSymbolicLink()) return null;
  const st = await stat(path.join(dir, e.name)).catch(() => null);
  return st?.isDirectory() ? "dir" : st?.isFile() ? "file" : null;
}
