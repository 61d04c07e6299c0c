// The episodes under a folder: where new episodes go, which is newest, and the next name to suggest.
import type { Dirent } from "node:fs";
import { readdir, realpath } from "node:fs/promises";
import path from "node:path";
import type { Services } from "../context.ts";
import { resolveFolder } from "../paths/episode.ts";
import { compareNames } from "../paths/folder-listing.ts";
import { episodeFence, readShowText, statShowOrNull } from "../paths/guarded.ts";
import { isInside } from "../paths/inside.ts";
import { seriesConfigFence } from "../paths/series-config.ts";
import { errorCode } from "../store/json-guards.ts";
import { findScript, findSeriesConfig } from "./files.ts";
import { episodeSummary, isSkippedFolder } from "./find.ts";
/** The real path of the folder new episodes go into, checked like an `ep` (400, then 403, then 404). */
export function resolveParent(
  value: unknown,
  services: Pick<Services, "home" | "env" | "caches">,
  field = "parent",
): Promise<string> {
  return resolveFolder(value, services, field);
}

export interface SiblingEpisode {
  name: string;
  /** Its real path, inside the parent. */
  dir: string;
  /** Last change of its script or own config: what "newest" is judged by. */
  changed: number;
}

/**
 * Every folder name directly under `parent` (a checked real path), and the episodes among them in name order.
 * A link that leads out of `parent` is never taken for an episode: its files would be read from elsewhere.
 */
export async function episodesUnder(
  parent: string,
): Promise<{ names: string[]; episodes: SiblingEpisode[] }> {
  let entries: Dirent[];
  try {
    entries = await readdir(parent, { withFileTypes: true });
  } catch {
    return { names: [], episodes: [] };
  }
  const names = entries.map((e) => e.name);
  const candidates = entries
    .filter((e) => (e.isDirectory() || e.isSymbolicLink()) && !isSkippedFolder(e.name))
    .map((e) => e.name)
    .sort(compareNames);
  const found = await Promise.all(
    candidates.map(async (name): Promise<SiblingEpisode | null> => {
      const dir = await realpath(path.join(parent, name)).catch(() => null);
      if (dir === null || !isInside(parent, dir) || path.dirname(dir) !== parent) return null;
      if (!(await episodeSummary(dir))) return null;
      const [script, config] = await Promise.all([findScript(dir), findSeriesConfig(dir)]);
      const own = config && !config.inParent ? config.path : null;
      const fence = episodeFence(dir);
      const times = await Promise.all(
        [script, own].map(async (f) =>
          f ? (await statShowOrNull(fence, f).catch(() => null))?.mtimeMs : undefined,
        ),
      );
      return { name, dir, changed: Math.max(0, ...times.filter((t): t is number => t !== undefined)) };
    }),
  );
  return { names, episodes: found.filter((e): e is SiblingEpisode => e !== null) };
}

/** The text of the series config an episode of `parent` runs on (its own, else the show's); null when none. */
export async function seriesTextOf(episode: SiblingEpisode): Promise<string | null> {
  const config = await findSeriesConfig(episode.dir);
  if (!config) return null;
  return readShowText(seriesConfigFence(config), config.path).catch((err) => {
    if (errorCode(err) === "ENOENT") return null;
    throw err;
  });
}

/** The episode changed last; on a tie the later name, so `ep03` wins over `ep02`. */
export function newestEpisode(episodes: readonly SiblingEpisode[]): SiblingEpisode | null {
  let best: SiblingEpisode | null = null;
  for (const e of episodes) {
    if (
      !best ||
      e.changed > best.changed ||
      (e.changed === best.changed && compareNames(e.name, best.name) > 0)
    )
      best = e;
  }
  return best;
}

const EP_NUMBER = /^ep(\d+)$/i;

/** `epNN` one past the highest `epNN` among `names` (keeping its digit count, at least two), else `ep01`. */
export function suggestName(names: readonly string[]): string {
  let high = 0;
  let digits = 2;
  for (const name of names) {
    const m = EP_NUMBER.exec(name);
    if (!m) continue;
    const n = Number(m[1]);
    if (n > high) {
      high = n;
      digits = Math.max(2, m[1].length);
    }
  }
  const taken = new Set(names.map((n) => n.toLowerCase()));
  let next = high + 1;
  while (taken.has(`ep${String(next).padStart(digits, "0")}`)) next++;
  return `ep${String(next).padStart(digits, "0")}`;
}
