// GET /studio/browse: a folder picker over the whole machine (not limited to roots) that marks episode folders.
import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { configRoots } from "../../lib/config/config.ts";
import { isEpisodeFolder, isFile, SERIES_FILE } from "../../lib/episode/files.ts";
import { compareNames, mapLimit } from "../../lib/episode/find.ts";
import { badRequest, forbidden, notFound, StudioError } from "../../lib/errors.ts";
import { samePath } from "../../lib/paths/inside.ts";
import { checkAbsolutePath } from "../../lib/paths/text.ts";
import { type Ctx, defineFunction } from "../fn.ts";

// A picker shows a screenful; a folder of thousands is cut (with `truncated`) rather than listed whole.
export const BROWSE_LIMIT = 1000;

const EXTENSIONS: Record<string, ReadonlySet<string>> = {
  image: new Set([".png", ".jpg", ".jpeg", ".webp", ".gif", ".bmp", ".tif", ".tiff"]),
  audio: new Set([".wav", ".mp3", ".flac", ".ogg", ".m4a", ".aac", ".opus"]),
  video: new Set([".mp4", ".mov", ".webm", ".mkv", ".avi", ".m4v"]),
};

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

export default defineFunction({
  method: "GET",
  path: "/browse",
  summary:
    "List the folders (and optionally image, audio or video files) of a folder; no path: starting points",
  input: z.object({
    path: z.string().optional().describe("The absolute folder to list; left out: the starting points"),
    files: z.string().optional().describe("Also list files of this kind: image, audio or video"),
  }),
  async handler(input, ctx) {
    const kind = input.files ? input.files : null;
    if (kind !== null && !(kind in EXTENSIONS)) {
      throw badRequest(`files: "${kind}" is not a file type; use image, audio or video`);
    }
    if (input.path) return listFolder(checkAbsolutePath(input.path, "path"), kind);
    const listing = await starts(ctx);
    return kind === null ? listing : { ...listing, files: [] };
  },
});

async function listFolder(dir: string, kind: string | null) {
  let entries: Dirent[];
  try {
    const st = await stat(dir);
    if (!st.isDirectory()) throw notFound(`path: "${dir}" is a file, not a folder`);
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if (err instanceof StudioError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") throw notFound(`path: no folder at "${dir}"`);
    if (code === "EACCES" || code === "EPERM") throw forbidden(`path: "${dir}" cannot be read`);
    throw new StudioError(500, `path: "${dir}" cannot be listed: ${(err as Error).message}`);
  }
  const visible = entries.filter((e) => !e.name.startsWith(".")).sort((a, b) => compareNames(a.name, b.name));
  const kinds = await mapLimit(visible, 32, (e) => entryKind(dir, e));
  const dirNames = visible.filter((_, i) => kinds[i] === "dir").map((e) => e.name);
  const exts = kind ? EXTENSIONS[kind] : null;
  const fileNames = exts
    ? visible
        .filter((e, i) => kinds[i] === "file" && exts.has(path.extname(e.name).toLowerCase()))
        .map((e) => e.name)
    : [];
  const truncated = dirNames.length + fileNames.length > BROWSE_LIMIT;
  const shownDirs = dirNames.slice(0, BROWSE_LIMIT);
  const shownFiles = fileNames.slice(0, BROWSE_LIMIT - shownDirs.length);
  const [episode, dirs, files] = await Promise.all([
    isEpisodeFolder(dir),
    mapLimit(shownDirs, 16, (name) => dirItem(name, path.join(dir, name))),
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

// Starting points for a picker with nothing chosen yet: home, the configured roots, then `/` or the drives.
async function starts(ctx: Ctx) {
  const home = ctx.env.HOME || ctx.env.USERPROFILE || os.homedir();
  const places: { name: string; path: string }[] = [{ name: "Home", path: path.resolve(home) }];
  for (const root of await configRoots(ctx).catch(() => [])) {
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
  const dirs = await mapLimit(unique, 16, (p) => dirItem(p.name, p.path));
  return { path: "", parent: null, episode: false, truncated: false, dirs };
}

async function dirItem(name: string, dir: string): Promise<DirItem> {
  const [episode, series_config] = await Promise.all([
    isEpisodeFolder(dir),
    isFile(path.join(dir, SERIES_FILE)),
  ]);
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
