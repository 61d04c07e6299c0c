// Which series config applies to an episode and which folders above the episode it opens.
import { stat } from "node:fs/promises";
import path from "node:path";
import { cacheSlot, type WithCaches } from "../store/caches.ts";
import { folderFence, readShowText } from "./guarded.ts";
import { findSeriesConfig } from "./series-config.ts";

/** The series-config situation that decides what a relative path may reach above the episode. */
export interface SeriesSituation {
  /** The config in force is the parent's: the whole parent folder opens. */
  inParent: boolean;
  /** The episode's own config names `../refs/...` or `../audio/...`: exactly those two parent folders open. */
  opensParentRefsAudio: boolean;
}

export interface SeriesHome extends SeriesSituation {
  /** The series.json in force, or null when there is none. */
  config: string | null;
  /** The folder holding that config (the series home for references); the episode when there is none. */
  home: string;
}

const SCANNED = cacheSlot(
  "series configs naming ../refs or ../audio",
  () => new Map<string, { key: string; names: boolean }>(),
);

/** Looks at `<ep>/series.json`, else the parent's (only inside `roots` when given), and reports what it opens. */
export async function seriesHome(
  services: WithCaches,
  epReal: string,
  roots?: readonly string[],
): Promise<SeriesHome> {
  const found = await findSeriesConfig(epReal, roots);
  if (!found) return { config: null, home: epReal, inParent: false, opensParentRefsAudio: false };
  if (found.inParent) {
    return {
      config: found.path,
      home: path.dirname(found.path),
      inParent: true,
      opensParentRefsAudio: false,
    };
  }
  return {
    config: found.path,
    home: epReal,
    inParent: false,
    opensParentRefsAudio: await namesParentRefsOrAudio(services, found.path),
  };
}

/** True when some string value of the config starts with `../refs/` or `../audio/` (either slash). */
export async function namesParentRefsOrAudio(services: WithCaches, configFile: string): Promise<boolean> {
  const cache = services.caches.of(SCANNED);
  let key: string;
  try {
    const st = await stat(configFile);
    key = `${st.mtimeMs}:${st.size}:${st.ino}`;
  } catch {
    return false;
  }
  const hit = cache.get(configFile);
  if (hit?.key === key) return hit.names;
  let text: string;
  try {
    text = await readShowText(folderFence(path.dirname(configFile), "its folder"), configFile);
  } catch {
    return false;
  }
  const names = scan(text);
  cache.set(configFile, { key, names });
  return names;
}

const PARENT_SHARED = /^\.\.[\\/](refs|audio)([\\/]|$)/;

function scan(text: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    // A config being edited may not parse; the paths it names still count.
    return /"\.\.(\/|\\\\)(refs|audio)(\/|\\\\|")/.test(text);
  }
  const stack: unknown[] = [parsed];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === "string") {
      if (PARENT_SHARED.test(v)) return true;
    } else if (Array.isArray(v)) {
      stack.push(...v);
    } else if (v && typeof v === "object") {
      stack.push(...Object.values(v));
    }
  }
  return false;
}
