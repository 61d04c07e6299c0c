// Reads JSON files the service keeps (settings, shot lists, sidecars), cached by mtime + size + inode so an
// unchanged file is parsed once; a missing file is remembered too, against its nearest existing folder, so a
// request does not pay a failed stat for it each time. Cached values are shared: callers must not mutate them.
import type { BigIntStats } from "node:fs";
import { lstat, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { StudioError } from "../errors.ts";
import { cacheSlot, type WithCaches } from "./caches.ts";
import { errorCode, errorMessage } from "./json-guards.ts";

/** A file read and parsed while its stat key held. */
interface Parsed {
  key: string;
  value: unknown;
}

/**
 * A file found missing (no entry at all, not even a dangling link): it stays missing while its nearest existing
 * folder is the same folder with the same mtime, since adding any entry below a folder changes that folder.
 */
interface Missing {
  folder: string;
  folderKey: string;
}

type Entry = Parsed | Missing;

/**
 * A folder modified this recently may change again within the same timestamp tick (coarse clocks, 2 s on FAT),
 * so a missing entry judged against it is not trusted.
 */
export const RACY_FOLDER_MS = 2000;

const PARSED = cacheSlot("json files", () => new Map<string, Entry>());

// Folder stats asked for in one synchronous stretch (a reader reading two files of a folder at once), shared:
// asked at the same moment, they could not tell a change apart anyway. Emptied before anything else runs.
const SAME_MOMENT = cacheSlot(
  "folder stats of this moment",
  () => new Map<string, Promise<BigIntStats | null>>(),
);

function folderStat(services: WithCaches, folder: string): Promise<BigIntStats | null> {
  const pending = services.caches.of(SAME_MOMENT);
  let st = pending.get(folder);
  if (!st) {
    st = stat(folder, { bigint: true }).catch(() => null);
    if (pending.size === 0) queueMicrotask(() => pending.clear());
    pending.set(folder, st);
  }
  return st;
}

/** A folder's identity and last change, for judging what is missing below it. */
function folderKey(st: BigIntStats): string {
  return `${st.dev}:${st.ino}:${st.mtimeNs}:${st.ctimeNs}`;
}

function racy(st: BigIntStats): boolean {
  return Date.now() - Number(st.mtimeNs / 1_000_000n) < RACY_FOLDER_MS;
}

/**
 * True when `file` was found missing and its nearest existing folder has not changed since (one stat of that
 * folder, which succeeds, instead of a failing one of the file).
 */
export async function knownMissing(services: WithCaches, file: string): Promise<boolean> {
  const hit = services.caches.of(PARSED).get(file);
  if (!hit || !("folder" in hit)) return false;
  const st = await folderStat(services, hit.folder);
  if (!st?.isDirectory() || racy(st)) return false;
  return folderKey(st) === hit.folderKey;
}

/** Remember `file` as missing when nothing is at its name and its nearest existing folder is settled. */
async function noteMissing(cache: Map<string, Entry>, file: string): Promise<void> {
  // A dangling link is not "missing": what it names may appear outside any folder we could watch.
  const named = await lstat(file).then(
    () => "present",
    (err) => errorCode(err),
  );
  if (named !== "ENOENT" && named !== "ENOTDIR") return;
  for (let folder = path.dirname(file); ; folder = path.dirname(folder)) {
    const st = await stat(folder, { bigint: true }).catch((err) => errorCode(err));
    if (typeof st === "object") {
      if (st.isDirectory() && !racy(st)) cache.set(file, { folder, folderKey: folderKey(st) });
      return;
    }
    if ((st !== "ENOENT" && st !== "ENOTDIR") || path.dirname(folder) === folder) return;
  }
}

/** The parsed file, or `undefined` when it does not exist. Unreadable or invalid JSON is a 500. */
export async function readJsonFile(services: WithCaches, file: string, what: string): Promise<unknown> {
  const cache = services.caches.of(PARSED);
  if (await knownMissing(services, file)) return undefined;
  let key: string;
  try {
    const st = await stat(file);
    key = `${st.mtimeMs}:${st.size}:${st.ino}`;
  } catch (err) {
    const code = errorCode(err);
    if (code === "ENOENT" || code === "ENOTDIR") {
      cache.delete(file);
      await noteMissing(cache, file);
      return undefined;
    }
    throw new StudioError(500, `${what} at ${file} cannot be read: ${errorMessage(err)}`);
  }
  const hit = cache.get(file);
  if (hit && "key" in hit && hit.key === key) return hit.value;
  let value: unknown;
  try {
    value = parseJson(stripBom(await readFile(file, "utf8")));
  } catch (err) {
    if (errorCode(err) === "ENOENT") return undefined;
    throw new StudioError(500, `${what} at ${file} cannot be read: ${errorMessage(err)}`);
  }
  cache.set(file, { key, value });
  return value;
}

/** Forget a cached file, read or missing (after writing it, so the next read looks at the disk again). */
export function forgetJsonFile(services: WithCaches, file: string): void {
  services.caches.of(PARSED).delete(file);
}

// A `"seed": <integer>` is 63-bit and would lose digits as a double; it is marked as text first, then revived.
const SEED_LITERAL = /(?<!\\)"seed"(\s*:\s*)(-?\d+)(?=\s*[,}\]])/g;
// The mark is written as the escape `\u0000` in the text, so JSON.parse accepts it and yields a NUL character.
const MARK_ESCAPE = "\\u0000";
const MARK = "\u0000";

/** JSON.parse, except that every integer under a `seed` key becomes a bigint. */
export function parseJson(text: string): unknown {
  const marked = text.includes('"seed"') ? text.replace(SEED_LITERAL, `"seed"$1"${MARK_ESCAPE}$2"`) : text;
  return JSON.parse(marked, (key, value) =>
    key === "seed" && typeof value === "string" && value.startsWith(MARK) ? BigInt(value.slice(1)) : value,
  );
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
