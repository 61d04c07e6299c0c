// POST /studio/build's work: compile final then proxy from the files on disk and write each pass's outputs.
import { buildEpisode, writeBuildOutputs } from "../build/build.ts";
import { BuildError, type BuildResult, type Pass, type Report } from "../build/types.ts";
import type { Services } from "../context.ts";
import { ScriptError } from "../script/errors.ts";
import { storyToJson } from "../script/story.ts";
import { JsonSyntaxError, SeriesError } from "../series/errors.ts";
import { withLock } from "../store/lock.ts";
import { compileEnv, type Prepared, prepare } from "./compile-env.ts";
import { locateBuildError, ScriptIndex } from "./locate.ts";
import { readSources } from "./sources.ts";

export interface PassAnswer {
  ok: boolean;
  report: BuildReport | null;
  error: string | null;
}

export interface BuildReport {
  /** The series target: the one `shotlist[_proxy].json` holds. */
  target: string;
  shots: number;
  /** Shot id → the target it was built for. */
  shot_targets: Record<string, string>;
  warnings: string[];
  /** One report per target used (the series target first). */
  targets: Record<string, Report>;
  written: string[];
  deleted: string[];
}

export interface BuildAnswer {
  ok: boolean;
  error?: string;
  passes: Partial<Record<Pass, PassAnswer>>;
}

const PASSES: readonly Pass[] = ["final", "proxy"];

/** Build both passes of the episode at `ep` (a real path inside a root). */
export async function buildFolder(services: Services, ep: string): Promise<BuildAnswer> {
  return withLock(ep, async () => {
    const sources = await readSources(ep);
    if (!sources.series)
      return { ok: false, error: `no series.json in ${ep} or its parent folder`, passes: {} };
    if (!sources.script) {
      return { ok: false, error: `no script in ${ep}: name it after the folder (<folder>.md)`, passes: {} };
    }
    const env = await compileEnv(services, sources.showDir);
    let prepared: Prepared;
    try {
      prepared = prepare(sources.series.text, sources.script.text);
    } catch (err) {
      const error = describeLoadError(err);
      return { ok: false, error, passes: { final: failed(error), proxy: failed(error) } };
    }
    const storyJson = storyToJson(prepared.story);
    const index = new ScriptIndex(prepared.story, sources.script.text);
    const parseWarnings = prepared.parseWarnings.map((w) =>
      w.line ? `line ${w.line}: ${w.message}` : w.message,
    );
    const passes: Partial<Record<Pass, PassAnswer>> = {};
    for (const pass of PASSES) {
      let result: BuildResult;
      try {
        result = buildEpisode({ story: prepared.story, series: prepared.series, pass, ...env });
      } catch (err) {
        if (!(err instanceof BuildError)) throw err;
        const where = locateBuildError(err, index, sources.series.text);
        const file = where.file === "series" ? "series.json" : "script";
        passes[pass] = failed(where.line ? `${file} line ${where.line}: ${err.message}` : err.message);
        continue;
      }
      const out = await writeBuildOutputs(ep, pass, result, storyJson);
      passes[pass] = { ok: true, error: null, report: summarize(result, out, parseWarnings) };
    }
    services.events.emit("studio.episode", { ep });
    const firstError = PASSES.map((p) => passes[p]?.error).find(Boolean);
    return firstError ? { ok: false, error: firstError, passes } : { ok: true, passes };
  });
}

const failed = (error: string): PassAnswer => ({ ok: false, report: null, error });

/** A load or parse failure as one line for a person, naming the file and line. */
export function describeLoadError(err: unknown): string {
  if (err instanceof ScriptError)
    return err.line ? `script line ${err.line}: ${err.message}` : `script: ${err.message}`;
  if (err instanceof JsonSyntaxError)
    return `series.json line ${err.line}, column ${err.col}: ${err.message}`;
  if (err instanceof SeriesError)
    return err.message.startsWith("series.json") ? err.message : `series.json: ${err.message}`;
  throw err;
}

function summarize(
  result: BuildResult,
  out: { written: string[]; deleted: string[] },
  parseWarnings: string[],
): BuildReport {
  return {
    target: result.seriesTarget,
    shots: Object.keys(result.shotTargets).length,
    shot_targets: result.shotTargets,
    warnings: [...new Set([...parseWarnings, ...result.warnings])],
    targets: result.reports,
    written: out.written,
    deleted: out.deleted,
  };
}
