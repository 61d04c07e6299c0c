// Where an episode's series config is: its own series.json, else the show folder's above it.
import { stat } from "node:fs/promises";
import path from "node:path";
import { type Fence, folderFence } from "./guarded.ts";
import { insideRoots } from "./roots.ts";

export const SERIES_FILE = "series.json";

export interface SeriesConfigLocation {
  path: string;
  /** True when the config is the parent's (a show folder shared by several episodes). */
  inParent: boolean;
}

/**
 * The episode's own series.json, else its parent's; null when neither exists. With `roots`, a parent that is
 * not itself inside a root is never looked at (the folder above a root belongs to nobody's show).
 */
export async function findSeriesConfig(
  epDir: string,
  roots?: readonly string[],
): Promise<SeriesConfigLocation | null> {
  const own = path.join(epDir, SERIES_FILE);
  if (await isFile(own)) return { path: own, inParent: false };
  const parentDir = path.dirname(epDir);
  if (parentDir === epDir) return null;
  if (roots && !insideRoots(roots, parentDir)) return null;
  const shared = path.join(parentDir, SERIES_FILE);
  if (await isFile(shared)) return { path: shared, inParent: true };
  return null;
}

/** The folder a series config must really lie in: the one holding it (a link elsewhere is refused). */
export function seriesConfigFence(location: SeriesConfigLocation): Fence {
  return folderFence(
    path.dirname(location.path),
    location.inParent ? "the show folder" : "the episode folder",
  );
}

export async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}
