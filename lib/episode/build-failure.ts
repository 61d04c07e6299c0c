// The last failed build of an episode, kept beside its shot lists (`shotlist/build-failed.json`) until a good
// build clears it: a render after a save that does not build renders the last good build, and says so.
import path from "node:path";
import type { Pass } from "../compile/types.ts";
import { episodeFence, readShowText, removeShow, statShowOrNull, writeShowJson } from "../paths/guarded.ts";
import { seriesConfigFence } from "../paths/series-config.ts";
import { isObject, str } from "../store/json-guards.ts";
import { findScript, findSeriesConfig } from "./files.ts";

const FILE = "build-failed.json";
/** `script line 19: …`, `series.json line 3, column 7: …` (a build error as the build answers it). */
const WHERE = /^(script|series\.json) line (\d+)(?:, column \d+)?: ([\s\S]*)$/;
const PASSES: readonly Pass[] = ["final", "proxy"];

export interface BuildFailure {
  /** When the failed build ran (ISO time). */
  at: string;
  /** Each failed pass's error, as the build answered it. */
  passes: Partial<Record<Pass, string>>;
}

const failureFile = (ep: string) => path.join(ep, "shotlist", FILE);

/** Record the failed passes of a build, or clear the record when every pass built. */
export async function noteBuildOutcome(
  ep: string,
  errors: Partial<Record<Pass, string | null>>,
  now: Date,
): Promise<void> {
  const passes: Partial<Record<Pass, string>> = {};
  for (const pass of PASSES) {
    const error = errors[pass];
    if (error) passes[pass] = error;
  }
  const fence = episodeFence(ep);
  if (Object.keys(passes).length === 0) await removeShow(fence, failureFile(ep));
  // Never built: there is no older build a render could use, and a failed build writes no shotlist/.
  else if ((await statShowOrNull(fence, path.dirname(failureFile(ep))))?.isDirectory()) {
    await writeShowJson(fence, failureFile(ep), { at: now.toISOString(), passes } satisfies BuildFailure);
  }
}

export async function readBuildFailure(ep: string): Promise<BuildFailure | null> {
  let value: unknown;
  try {
    value = JSON.parse(await readShowText(episodeFence(ep), failureFile(ep)));
  } catch {
    // No record (or one cut short): nothing is known to have failed.
    return null;
  }
  if (!isObject(value) || !isObject(value.passes)) return null;
  const at = str(value.at);
  const passes: Partial<Record<Pass, string>> = {};
  for (const pass of PASSES) {
    const error = str(value.passes[pass]);
    if (error) passes[pass] = error;
  }
  return at ? { at, passes } : null;
}

/** `2026-11-25 14:03:09` in the machine's local time: how a writer reads a save time. */
export function localTime(date: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return (
    `${date.getFullYear()}-${p(date.getMonth() + 1)}-${p(date.getDate())} ` +
    `${p(date.getHours())}:${p(date.getMinutes())}:${p(date.getSeconds())}`
  );
}

/** The series-target shot list of a pass: written by every good build of it, so its time is the build's. */
async function builtAt(ep: string, pass: Pass): Promise<Date | null> {
  const fence = episodeFence(ep);
  const name = pass === "final" ? "shotlist.json" : "shotlist_proxy.json";
  const stat =
    (await statShowOrNull(fence, path.join(ep, "shotlist", name))) ??
    (await statShowOrNull(fence, path.join(ep, "shotlist", "shots.json")));
  return stat?.mtime ?? null;
}

/**
 * The render warning when the pass's takes come from an older build than the authored files: the script or the
 * series config was saved after the pass's last good build, and the build since then failed. Null otherwise.
 */
export async function staleBuildWarning(ep: string, pass: Pass): Promise<string | null> {
  const failure = await readBuildFailure(ep);
  const error = failure?.passes[pass];
  if (!error) return null;
  const built = await builtAt(ep, pass);
  if (built === null) return null;
  const [script, config] = await Promise.all([findScript(ep), findSeriesConfig(ep)]);
  const [scriptStat, seriesStat] = await Promise.all([
    script ? statShowOrNull(episodeFence(ep), script) : null,
    config ? statShowOrNull(seriesConfigFence(config), config.path) : null,
  ]);
  const newer = [
    { name: "the script", stat: scriptStat },
    { name: "series.json", stat: seriesStat },
  ]
    .filter((f) => f.stat !== null && f.stat.mtime > built)
    .sort((a, b) => (b.stat?.mtimeMs ?? 0) - (a.stat?.mtimeMs ?? 0));
  const saved = newer[0];
  if (!saved?.stat) return null;
  const m = WHERE.exec(error);
  const why = m ? `${m[3]} at ${m[1]} line ${m[2]}` : error;
  return (
    `rendering from the build of ${localTime(built)}: ${saved.name} saved at ${localTime(saved.stat.mtime)} ` +
    `does not build (${why})`
  );
}
