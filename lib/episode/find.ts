// The episode finder behind GET /studio/episodes: scans two levels below each root and summarises what it finds.
import type { Dirent } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { compareNames } from "../paths/folder-listing.ts";
import { episodeFence, type Fence, folderFence, readShowText, statShowOrNull } from "../paths/guarded.ts";
import { isInsideOrEqual } from "../paths/inside.ts";
import { isObject } from "../store/json-guards.ts";
import { mapLimit } from "../store/map-limit.ts";
import { findScript, findSeriesConfig, isFile } from "./files.ts";

export interface EpisodeSummary {
  ep: string;
  name: string;
  series: string | null;
  title: string;
  built: { final: boolean; proxy: boolean };
  shots: number;
  script: string;
  simple: boolean;
}

const SKIPPED = new Set([
  "refs",
  "audio",
  "shotlist",
  "renders",
  "renders_proxy",
  "views",
  "targets",
  "node_modules",
]);

/** Folders the finder neither lists nor descends into. */
export function isSkippedFolder(name: string): boolean {
  return SKIPPED.has(name.toLowerCase()) || name.startsWith("_") || name.startsWith(".");
}

const LIMIT = 16;

/** Every episode up to two levels below the roots, in root order then by path (case-insensitive). */
export async function findEpisodes(roots: readonly string[]): Promise<EpisodeSummary[]> {
  const realRoots = (await Promise.all(roots.map((r) => realpath(r).catch(() => null)))).filter(
    (r): r is string => r !== null,
  );
  const seen = new Set<string>();
  const out: EpisodeSummary[] = [];
  for (const root of roots) {
    const level1 = await subfolders(root);
    const level2 = (await mapLimit(level1, LIMIT, subfolders)).flat();
    const candidates = [...level1, ...level2].sort((a, b) => compareNames(a, b));
    const found = await mapLimit(candidates, LIMIT, async (dir) => {
      const real = await realpath(dir).catch(() => null);
      // A link that leads out of every root would be refused when opened, so it is not listed.
      if (!real || !realRoots.some((r) => isInsideOrEqual(r, real))) return null;
      return { real, summary: await episodeSummary(dir) };
    });
    for (const f of found) {
      if (!f?.summary || seen.has(f.real)) continue;
      seen.add(f.real);
      out.push(f.summary);
    }
  }
  return out;
}

/** The summary of `dir` when it is an episode (series config, script; `<folder>.md` with only a parent config). */
export async function episodeSummary(dir: string): Promise<EpisodeSummary | null> {
  const config = await findSeriesConfig(dir);
  if (!config) return null;
  // Files are read only where they really lie: a script or config linked out of its folder is not summarised.
  const real = await realpath(dir).catch(() => null);
  const configHome = await realpath(path.dirname(config.path)).catch(() => null);
  if (!real || !configHome) return null;
  const fence = episodeFence(real);
  const name = path.basename(dir);
  let script: string | null;
  if (config.inParent) {
    script = path.join(dir, `${name}.md`);
    if (!(await isFile(script))) return null;
  } else {
    script = await findScript(dir);
    if (!script) return null;
  }
  const shotlist = path.join(dir, "shotlist");
  const [series, text, final, proxy, built] = await Promise.all([
    seriesInfoOf(folderFence(configHome, "its folder"), config.path),
    scriptInfoOf(fence, script),
    isFile(path.join(shotlist, "shotlist.json")),
    isFile(path.join(shotlist, "shotlist_proxy.json")),
    shotCountOf(fence, path.join(shotlist, "shots.json")),
  ]);
  return {
    ep: dir,
    name,
    series: series?.name ?? null,
    title: text?.title ?? "",
    built: { final, proxy },
    shots: built ?? text?.shots ?? 0,
    script: path.basename(script),
    simple: series?.simple ?? false,
  };
}

async function subfolders(dir: string): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const e of entries) {
    if (isSkippedFolder(e.name)) continue;
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(full);
    else if (e.isSymbolicLink() && (await stat(full).catch(() => null))?.isDirectory()) out.push(full);
  }
  return out;
}

interface SeriesInfo {
  name: string | null;
  simple: boolean;
}

function readSeriesInfo(text: string): SeriesInfo {
  let raw: unknown;
  try {
    raw = JSON.parse(stripBom(text));
  } catch {
    return { name: null, simple: false };
  }
  if (!isObject(raw)) return { name: null, simple: false };
  const block = isObject(raw.series) ? raw.series : {};
  const name = [block.title, block.id].find((v): v is string => typeof v === "string" && v.trim() !== "");
  return { name: name ?? null, simple: raw.simple === true };
}

interface ScriptInfo {
  title: string;
  shots: number;
}

// A line scan, not a parse: the list must stay fast and must not fail on a script being written.
function readScriptInfo(text: string): ScriptInfo {
  let title = "";
  let shots = 0;
  for (const raw of stripBom(text).split(/\r\n|\r|\n/)) {
    const line = raw.trimEnd();
    if (line.startsWith("= ")) {
      const rest = line.slice(2).trim();
      const gap = rest.search(/\s/);
      title = gap < 0 ? "" : rest.slice(gap).trim();
    } else if (/^## \S/.test(line)) {
      shots++;
    }
  }
  return { title, shots };
}

function readShotCount(text: string): number | null {
  try {
    const raw = JSON.parse(stripBom(text));
    if (!isObject(raw) || !Array.isArray(raw.sequences)) return null;
    let n = 0;
    for (const seq of raw.sequences) if (isObject(seq) && Array.isArray(seq.shots)) n += seq.shots.length;
    return n;
  } catch {
    return null;
  }
}

const MAX_CACHE = 4000;

/**
 * `parse(text)` of a file, remembered by mtime + size (one cache per kind of summary); undefined when the file
 * is missing or unreadable.
 */
function fileCache<T>(parse: (text: string) => T): (fence: Fence, file: string) => Promise<T | undefined> {
  const cache = new Map<string, { key: string; value: T }>();
  return async (fence, file) => {
    const st = await statShowOrNull(fence, file).catch(() => null);
    if (!st?.isFile()) return undefined;
    const key = `${st.mtimeMs}:${st.size}`;
    const hit = cache.get(file);
    if (hit?.key === key) return hit.value;
    const text = await readShowText(fence, file).catch(() => null);
    if (text === null) return undefined;
    const value = parse(text);
    if (cache.size >= MAX_CACHE) cache.clear();
    cache.set(file, { key, value });
    return value;
  };
}

const seriesInfoOf = fileCache(readSeriesInfo);
const scriptInfoOf = fileCache(readScriptInfo);
const shotCountOf = fileCache(readShotCount);

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
