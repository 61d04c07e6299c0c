// The other episodes of the show folder and the live reference files their series configs name: under the
// series-home rule, episodes whose configs name the same `../refs/...` file share it, while each keeps its own
// candidates and picks. The listing reads from here who else renders with a live file (`shared_with`) and whose
// pick wrote it (`live_owner`). Folder reads are kept while the show folder and each episode folder are unchanged.
import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { sheetPath, voiceSamplePath } from "../compile/slots.ts";
import type { Services } from "../context.ts";
import { isSkippedFolder } from "../episode/find.ts";
import { folderFence, readShowJson } from "../paths/guarded.ts";
import { insideRoots } from "../paths/roots.ts";
import { loadSeries } from "../series/load.ts";
import type { SeriesConfig } from "../series/types.ts";
import { cacheSlot } from "../store/caches.ts";
import { isObject, textOf } from "../store/json-guards.ts";
import { platePath } from "./catalog.ts";
import type { RefsPlace } from "./place.ts";

export interface Sibling {
  /** The sibling episode folder (absolute). */
  ep: string;
  /** The folder of the series config in force there: where its candidates and `_picks.json` live. */
  home: string;
  /** Live files its config names (absolute, lexically resolved) → the ref id naming each. */
  files: ReadonlyMap<string, string>;
}

type SiblingServices = Pick<Services, "caches">;

interface FolderRow {
  dir: string;
  config: string | null;
}

const FOLDERS = cacheSlot(
  "show folder episodes",
  () => new Map<string, { key: string; rows: FolderRow[] }>(),
);
const FILES = cacheSlot(
  "live files named by a config",
  () => new WeakMap<object, Map<string, Map<string, string>>>(),
);

const statKey = (st: { ino: bigint; mtimeNs: bigint; ctimeNs: bigint } | null) =>
  st ? `${st.ino}:${st.mtimeNs}:${st.ctimeNs}` : "-";

/** The episodes beside `place.ep` (not itself) with the live files their configs name. */
export async function siblingsOf(services: SiblingServices, place: RefsPlace): Promise<Sibling[]> {
  const parent = path.dirname(place.ep);
  if (parent === place.ep || !insideRoots(place.roots, parent)) return [];
  const rows = await episodeFolders(services, parent, place.ep);
  const out: Sibling[] = [];
  for (const row of rows) {
    if (!row.config) continue;
    const home = path.dirname(row.config);
    let raw: unknown;
    try {
      raw = await readShowJson(services, folderFence(home, "its folder"), row.config, "series.json");
    } catch {
      continue;
    }
    if (!isObject(raw)) continue;
    out.push({ ep: row.dir, home, files: liveFilesOf(services, raw, home) });
  }
  return out;
}

/** The folders under `parent` that are episodes (a script and a config in force), re-read when they change. */
async function episodeFolders(services: SiblingServices, parent: string, self: string): Promise<FolderRow[]> {
  const parentSt = await stat(parent, { bigint: true }).catch(() => null);
  if (!parentSt?.isDirectory()) return [];
  const held = services.caches.of(FOLDERS);
  const hit = held.get(parent);
  // The show folder unchanged: its entries are the ones held (their rows name them all).
  const candidates = hit?.key.startsWith(`${statKey(parentSt)}|`)
    ? hit.rows.map((r) => path.basename(r.dir))
    : (await readdir(parent, { withFileTypes: true }).catch((): Dirent[] => []))
        .filter((e) => e.isDirectory() && !isSkippedFolder(e.name))
        .map((e) => e.name);
  const dirs = candidates.map((n) => path.join(parent, n));
  // Each episode folder's own stat: a config or script added or removed there moves it.
  const stats = await Promise.all(dirs.map((d) => stat(d, { bigint: true }).catch(() => null)));
  const parentConfig = path.join(parent, "series.json");
  const parentHas = (await stat(parentConfig).catch(() => null))?.isFile() ?? false;
  const key = `${statKey(parentSt)}|${parentHas}|${stats.map(statKey).join(",")}`;
  const others = (rows: FolderRow[]) => rows.filter((r) => r.dir !== self);
  if (hit && hit.key === key) return others(hit.rows);
  const rows = await Promise.all(
    dirs.map(async (dir, i): Promise<FolderRow> => {
      if (!stats[i]?.isDirectory()) return { dir, config: null };
      const name = path.basename(dir);
      const own = path.join(dir, "series.json");
      const hasOwn = (await stat(own).catch(() => null))?.isFile() ?? false;
      const script = await hasScript(dir, name, hasOwn);
      if (!script) return { dir, config: null };
      return { dir, config: hasOwn ? own : parentHas ? parentConfig : null };
    }),
  );
  // Every candidate folder is kept (episode or not) so an unchanged show folder is not listed again.
  if (held.size > 1000) held.clear();
  held.set(parent, { key, rows });
  return others(rows);
}

/** An episode with its own config may name its script freely; under the show's config it is `<folder>.md`. */
async function hasScript(dir: string, name: string, ownConfig: boolean): Promise<boolean> {
  if ((await stat(path.join(dir, `${name}.md`)).catch(() => null))?.isFile()) return true;
  if (!ownConfig) return false;
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.some(
    (n) => n.toLowerCase().endsWith(".md") && !/^(refs_todo|readme|notes|align_report)/i.test(n),
  );
}

/** The live files a config names (subjects' sheets, plates, voice samples), absolute from its folder. */
export function liveFilesOf(
  services: SiblingServices,
  raw: Record<string, unknown>,
  home: string,
): ReadonlyMap<string, string> {
  const byRaw = services.caches.of(FILES);
  let perHome = byRaw.get(raw);
  if (!perHome) {
    perHome = new Map();
    byRaw.set(raw, perHome);
  }
  let files = perHome.get(home);
  if (!files) {
    files = new Map();
    let series: SeriesConfig | null = null;
    try {
      series = loadSeries(raw);
    } catch {
      series = null;
    }
    const put = (p: string, id: string) => {
      const abs = path.resolve(home, p.replaceAll("\\", "/"));
      if (!files?.has(abs)) files?.set(abs, id);
    };
    for (const [id, s] of Object.entries(series?.subjects ?? {})) {
      put(sheetPath(id, s), `subject:${id}`);
      if (!series?.variants[id] && s.kind === "character" && (textOf(s.voice) || textOf(s.voice_sample))) {
        put(voiceSamplePath(id, s), `voice:${id}`);
      }
    }
    for (const [key, loc] of Object.entries(series?.locations ?? {})) {
      put(platePath(key, loc), `location:${key}`);
    }
    perHome.set(home, files);
  }
  return files;
}
