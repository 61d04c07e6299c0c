// Which files of an episode folder are its script and its series config (script format 1).
import { readdir } from "node:fs/promises";
import path from "node:path";
import { findSeriesConfig, isFile } from "../paths/series-config.ts";

export { findSeriesConfig, isFile, SERIES_FILE, type SeriesConfigLocation } from "../paths/series-config.ts";

// Markdown the build and the service write into an episode; never the script.
const NOT_SCRIPT = /^(refs_todo|readme|notes|align_report)/i;

/** `<folder>.md`, else the single other `.md` that is not build output or notes; null when none or several. */
export async function findScript(epDir: string): Promise<string | null> {
  const own = path.join(epDir, `${path.basename(epDir)}.md`);
  if (await isFile(own)) return own;
  let names: string[];
  try {
    const entries = await readdir(epDir, { withFileTypes: true });
    names = entries.filter((e) => !e.isDirectory()).map((e) => e.name);
  } catch {
    return null;
  }
  const candidates = names.filter((n) => n.toLowerCase().endsWith(".md") && !NOT_SCRIPT.test(n));
  if (candidates.length !== 1) return null;
  const file = path.join(epDir, candidates[0]);
  return (await isFile(file)) ? file : null;
}

/** Whether `dir` is an episode: a series config and a script; with only the parent's config the script must be `<folder>.md`. */
export async function isEpisodeFolder(dir: string): Promise<boolean> {
  const config = await findSeriesConfig(dir);
  if (!config) return false;
  if (config.inParent) return isFile(path.join(dir, `${path.basename(dir)}.md`));
  return (await findScript(dir)) !== null;
}
