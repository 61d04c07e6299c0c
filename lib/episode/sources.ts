// Reads an episode's authored files (script and series config) as text, with where each came from.
import path from "node:path";
import { StudioError } from "../errors.ts";
import { episodeFence, readShowFile } from "../paths/guarded.ts";
import { seriesConfigFence } from "../paths/series-config.ts";
import { findScript, findSeriesConfig } from "./files.ts";

export interface Sources {
  ep: string;
  script: { path: string; text: string } | null;
  series: { path: string; text: string; inParent: boolean } | null;
  /** The folder that holds the series config in force (custom targets live in its `targets/`). */
  showDir: string | null;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Decode UTF-8 strictly: a file that is not UTF-8 is a 500 naming the byte offset (contract, GET source). */
export function decodeUtf8(bytes: Uint8Array, name: string): string {
  try {
    return utf8.decode(bytes);
  } catch {
    const offset = firstBadUtf8(bytes);
    throw new StudioError(500, `${name} is not UTF-8 text (first bad byte at offset ${offset})`);
  }
}

// Linear scan for the first byte that does not start a well-formed sequence (only called on failure).
function firstBadUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const c = bytes[i];
    const more = c < 0x80 ? 0 : c >> 5 === 6 ? 1 : c >> 4 === 14 ? 2 : c >> 3 === 30 ? 3 : -1;
    if (more < 0) return i;
    for (let k = 1; k <= more; k++) {
      if (i + k >= bytes.length || bytes[i + k] >> 6 !== 2) return i;
    }
    i += more + 1;
  }
  return bytes.length;
}

/** `ep` must be a checked real path: the files are read only where they really lie inside it (or its show folder). */
export async function readSources(ep: string): Promise<Sources> {
  const [scriptPath, config] = await Promise.all([findScript(ep), findSeriesConfig(ep)]);
  const [scriptBytes, seriesBytes] = await Promise.all([
    scriptPath ? readShowFile(episodeFence(ep), scriptPath) : null,
    config ? readShowFile(seriesConfigFence(config), config.path) : null,
  ]);
  return {
    ep,
    script:
      scriptPath && scriptBytes
        ? { path: scriptPath, text: decodeUtf8(scriptBytes, path.basename(scriptPath)) }
        : null,
    series:
      config && seriesBytes
        ? {
            path: config.path,
            text: decodeUtf8(seriesBytes, path.basename(config.path)),
            inParent: config.inParent,
          }
        : null,
    showDir: config ? path.dirname(config.path) : null,
  };
}
