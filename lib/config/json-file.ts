// Reads a small JSON settings file, cached by mtime + size + inode so an unchanged file is parsed once.
import { readFile, stat } from "node:fs/promises";
import { StudioError } from "../errors.ts";

interface Entry {
  key: string;
  value: unknown;
}

const cache = new Map<string, Entry>();

/** The parsed file, or `undefined` when it does not exist. Unreadable or invalid JSON is a 500. */
export async function readJsonFile(file: string, what: string): Promise<unknown> {
  let key: string;
  try {
    const st = await stat(file);
    key = `${st.mtimeMs}:${st.size}:${st.ino}`;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") {
      cache.delete(file);
      return undefined;
    }
    throw new StudioError(500, `${what} at ${file} cannot be read: ${(err as Error).message}`);
  }
  const hit = cache.get(file);
  if (hit && hit.key === key) return hit.value;
  let value: unknown;
  try {
    value = JSON.parse(stripBom(await readFile(file, "utf8")));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new StudioError(500, `${what} at ${file} cannot be read: ${(err as Error).message}`);
  }
  cache.set(file, { key, value });
  return value;
}

/** Forget a cached file (after writing it, so the next read does not trust a same-second mtime). */
export function forgetJsonFile(file: string): void {
  cache.delete(file);
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
