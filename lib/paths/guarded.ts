// The one door to show files: every read and write resolves links and checks the real path against a fence first.
import type { Dirent, Stats } from "node:fs";
import { constants } from "node:fs";
import { type FileHandle, mkdir, open, readdir, realpath, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { forbidden, type StudioError } from "../errors.ts";
import { type AtomicOptions, writeFileAtomic } from "../store/atomic.ts";
import type { WithCaches } from "../store/caches.ts";
import { knownMissing, readJsonFile } from "../store/json-file.ts";
import { errorCode } from "../store/json-guards.ts";
import { isInsideOrEqual } from "./inside.ts";
import { realpathNearest } from "./real.ts";

/**
 * Real folders a file must lie in once every link is resolved, and how to name them in a refusal.
 * Each folder must already be a checked real path (an episode from resolveEpisode, the real roots).
 */
export interface Fence {
  readonly dirs: readonly string[];
  readonly what: string;
}

/** An episode's own files stay inside it, as files served from it do. */
export function episodeFence(epReal: string): Fence {
  return { dirs: [epReal], what: "the episode folder" };
}

/** Any folder the caller has checked (a show folder holding the series config, a parent of new episodes). */
export function folderFence(dirReal: string, what: string): Fence {
  return { dirs: [dirReal], what };
}

/**
 * Inputs a render reads (references, plates, keyframes, the series track) may lie in the show folder above the
 * episode, where its series config keeps them.
 */
export function showFence(epReal: string): Fence {
  return folderFence(path.dirname(epReal), "the show folder");
}

export function rootsFence(roots: readonly string[]): Fence {
  return { dirs: roots, what: "the configured roots" };
}

// O_NOFOLLOW makes a link swapped in after the check fail instead of being followed (absent on Windows).
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

function refuse(fence: Fence, file: string): StudioError {
  return forbidden(`"${file}" leads outside ${fence.what} through a symbolic link; it is not opened`);
}

/**
 * The real path `file` names, checked to lie inside the fence. A missing file (or a link to nothing) gets the
 * real path of its nearest existing folder with the rest appended, so the caller's own ENOENT handling applies.
 */
export async function guardPath(fence: Fence, file: string): Promise<string> {
  let real: string;
  try {
    real = (await realpathNearest(file)).real;
  } catch (err) {
    const code = errorCode(err);
    if (code === "ELOOP") throw forbidden(`"${file}" is a symbolic link loop`);
    if (code === "EACCES" || code === "EPERM") throw forbidden(`"${file}" cannot be read`);
    throw err;
  }
  if (!fence.dirs.some((d) => isInsideOrEqual(d, real))) throw refuse(fence, file);
  return real;
}

/** The real path of an existing `file` inside the fence; null when missing or leading out (for listings that skip). */
export async function realInside(fence: Fence, file: string): Promise<string | null> {
  const real = await realpath(file).catch(() => null);
  return real !== null && fence.dirs.some((d) => isInsideOrEqual(d, real)) ? real : null;
}

/** The real path of a regular file inside the fence, or null when it is missing, not a file or leads out. */
export async function fileInside(fence: Fence, file: string): Promise<string | null> {
  const real = await realInside(fence, file);
  if (real === null) return null;
  return (await stat(real).catch(() => null))?.isFile() ? real : null;
}

/** True when `file` is inside the fence after links are resolved (no refusal: for listings that skip). */
export async function staysInside(fence: Fence, file: string): Promise<boolean> {
  return (await realInside(fence, file)) !== null;
}

/** A read-only handle on the checked real file, for reading a large one in chunks (hashing). */
export async function openShowFile(fence: Fence, file: string): Promise<FileHandle> {
  const real = await guardPath(fence, file);
  return open(real, constants.O_RDONLY | NOFOLLOW).catch((err) => {
    throw loopToForbidden(err, file);
  });
}

export async function readShowFile(fence: Fence, file: string): Promise<Buffer> {
  const handle = await openShowFile(fence, file);
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

export async function readShowText(fence: Fence, file: string): Promise<string> {
  return (await readShowFile(fence, file)).toString("utf8");
}

/**
 * The parsed JSON file (cached by the store), `undefined` when missing. A file known to be missing under an
 * unchanged folder is answered without resolving it: there is nothing there to open, inside or out.
 */
export async function readShowJson(
  services: WithCaches,
  fence: Fence,
  file: string,
  what: string,
): Promise<unknown> {
  if (await knownMissing(services, file)) return undefined;
  return readJsonFile(services, await guardPath(fence, file), what);
}

/** A checked real folder and the regular files in it when it was listed (links are never among them). */
export interface ShowListing {
  readonly real: string;
  readonly files: readonly string[];
}

/** List a folder's regular files through the door: null when it is missing or not a folder. */
export async function listShowFiles(fence: Fence, dir: string): Promise<ShowListing | null> {
  const real = await guardPath(fence, dir);
  const st = await stat(real).catch(() => null);
  if (!st?.isDirectory()) return null;
  const files = (await readdir(real, { withFileTypes: true })).filter((d) => d.isFile()).map((d) => d.name);
  return { real, files };
}

/**
 * A JSON file a listing named: it was a regular file in a checked real folder, so there is no link to resolve
 * again (one realpath per folder instead of one per file). A name the listing did not hold is refused.
 */
export async function readListedJson(
  services: WithCaches,
  listing: ShowListing,
  name: string,
  what: string,
): Promise<unknown> {
  if (!listing.files.includes(name) || name.includes("/") || name.includes("\\")) {
    throw forbidden(`"${name}" is not a file of the listed folder`);
  }
  return readJsonFile(services, path.join(listing.real, name), what);
}

export async function statShow(fence: Fence, file: string): Promise<Stats> {
  return stat(await guardPath(fence, file));
}

/** `stat`, or null when the file is missing; a link out of the fence is still refused. */
export async function statShowOrNull(fence: Fence, file: string): Promise<Stats | null> {
  const real = await guardPath(fence, file);
  return stat(real).catch(() => null);
}

export async function readShowDir(fence: Fence, dir: string): Promise<string[]> {
  return readdir(await guardPath(fence, dir));
}

export async function readShowDirents(fence: Fence, dir: string): Promise<Dirent[]> {
  return readdir(await guardPath(fence, dir), { withFileTypes: true });
}

/** `mkdir -p` of the checked real path; answers that path. */
export async function mkdirShow(fence: Fence, dir: string): Promise<string> {
  const real = await guardPath(fence, dir);
  await mkdir(real, { recursive: true });
  // A link planted while the folders were made would show here.
  return guardPath(fence, dir);
}

/** Atomic write into the checked real folder (temp file, fsync, rename, folder fsync). */
export async function writeShowFile(
  fence: Fence,
  file: string,
  data: string | Uint8Array,
  opts?: AtomicOptions,
): Promise<void> {
  const real = await guardPath(fence, file);
  await mkdirShow(fence, path.dirname(real));
  await writeFileAtomic(real, data, opts);
}

export async function writeShowJson(fence: Fence, file: string, value: unknown): Promise<void> {
  await writeShowFile(fence, file, `${JSON.stringify(value, null, 2)}\n`);
}

/** Exclusive create (EEXIST when the name is taken, a link included); the data is synced before it returns. */
export async function createShowFile(fence: Fence, file: string, data: string | Uint8Array): Promise<void> {
  const real = await guardPath(fence, file);
  const handle = await open(real, "wx");
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Rename inside the fence: both ends are checked (the source's link itself moves, never its target). */
export async function renameShow(fence: Fence, from: string, to: string): Promise<void> {
  const src = path.join(await guardPath(fence, path.dirname(from)), path.basename(from));
  const dst = await guardPath(fence, to);
  await rename(src, dst);
}

/** Remove a file or folder inside the fence; a link is removed itself, its target is left alone. */
export async function removeShow(
  fence: Fence,
  file: string,
  opts: { recursive?: boolean } = {},
): Promise<void> {
  const dir = await guardPath(fence, path.dirname(file));
  await rm(path.join(dir, path.basename(file)), { force: true, recursive: opts.recursive === true });
}

function loopToForbidden(err: unknown, file: string): unknown {
  const code = errorCode(err);
  if (code === "ELOOP") return forbidden(`"${file}" was swapped for a symbolic link while being opened`);
  return err;
}
