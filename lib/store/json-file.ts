// Reads JSON files the service keeps (settings, shot lists, sidecars), cached by mtime + size + inode so an
// unchanged file is parsed once. Cached values are shared: callers must not mutate them.
import { readFile, stat } from "node:fs/promises";
import { StudioError } from "../errors.ts";
import { cacheSlot, type WithCaches } from "./caches.ts";
import { errorCode, errorMessage } from "./json-guards.ts";

interface Entry {
  key: string;
  value: unknown;
}

const PARSED = cacheSlot("json files", () => new Map<string, Entry>());

/** The parsed file, or `undefined` when it does not exist. Unreadable or invalid JSON is a 500. */
export async function readJsonFile(services: WithCaches, file: string, what: string): Promise<unknown> {
  const cache = services.caches.of(PARSED);
  let key: string;
  try {
    const st = await stat(file);
    key = `${st.mtimeMs}:${st.size}:${st.ino}`;
  } catch (err) {
    if (errorCode(err) === "ENOENT") {
      cache.delete(file);
      return undefined;
    }
    throw new StudioError(500, `${what} at ${file} cannot be read: ${errorMessage(err)}`);
  }
  const hit = cache.get(file);
  if (hit && hit.key === key) return hit.value;
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

/** Forget a cached file (after writing it, so the next read does not trust a same-second mtime). */
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
