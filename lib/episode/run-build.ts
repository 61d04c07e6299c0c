// POST /studio/build's work: compile final then proxy from the files on disk and write each pass's outputs.

import type { BuildResult, Pass, Report } from "../compile/types.ts";
import { writeBuildOutputs } from "../compile/write.ts";
import type { Services } from "../context.ts";
import { withLock } from "../store/lock.ts";
import { settingsTargetsRoot } from "../targets/target-tree.ts";
import { noteBuildOutcome } from "./build-failure.ts";
import { compileEnv } from "./compile-env.ts";
import type { Diagnostic } from "./diagnostics.ts";
import type { DefaultSource, ShowDefault } from "./show-default.ts";
import { readSources } from "./sources.ts";

export interface PassAnswer {
  ok: boolean;
  report: BuildReport | null;
  error: string | null;
}

export interface BuildReport {
  /** The series target: the one `shotlist[_proxy].json` holds. */
  target: string;
  /**
   * Why it is the series target: `series` (series.target), `settings` (default_targets.video), `last_build` (the
   * target of the show's previous build), `detected` (detected_targets.video) or `builtin` (animatic).
   */
  target_source: "series" | DefaultSource;
  /** The same in one sentence. */
  target_why: string;
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
  /** Every error (not only the first) and warning of both passes, each at the line that is wrong. */
  diagnostics: Diagnostic[];
}

const fileMissing = (file: Diagnostic["file"], error: string): BuildAnswer => ({
  ok: false,
  error,
  passes: {},
  diagnostics: [{ severity: "error", file, line: null, message: error }],
});

const PASSES: readonly Pass[] = ["final", "proxy"];

/** Build both passes of the episode at `ep` (a real path inside a root); the compile runs on the compile thread. */
export async function buildFolder(services: Services, ep: string): Promise<BuildAnswer> {
  return withLock(services, ep, async () => {
    const sources = await readSources(ep);
    if (!sources.series) return fileMissing("series", `no series.json in ${ep} or its parent folder`);
    if (!sources.script) {
      return fileMissing("script", `no script in ${ep}: name it after the folder (<folder>.md)`);
    }
    // Chosen before this build overwrites the shot lists that record the last one.
    const env = await compileEnv(services, sources.showDir ?? ep, ep);
    const compiled = await services.compile.run("compileBoth", {
      showDir: sources.showDir,
      settingsDir: settingsTargetsRoot(services),
      defaultTarget: env.defaultTarget,
      seriesText: sources.series.text,
      scriptText: sources.script.text,
    });
    const { diagnostics } = compiled;
    if (compiled.loadError) {
      const error = compiled.loadError;
      await noteBuildOutcome(ep, { final: error, proxy: error }, services.now());
      return { ok: false, error, passes: { final: failed(error), proxy: failed(error) }, diagnostics };
    }
    const passes: Partial<Record<Pass, PassAnswer>> = {};
    for (const pass of PASSES) {
      const outcome = compiled.passes[pass];
      if (!outcome) continue;
      if (!outcome.ok) {
        passes[pass] = failed(outcome.error);
        continue;
      }
      const out = await writeBuildOutputs(ep, pass, outcome.result, compiled.storyJson);
      passes[pass] = {
        ok: true,
        error: null,
        report: summarize(outcome.result, out, compiled.parseWarnings, env.defaultChoice),
      };
    }
    await noteBuildOutcome(ep, { final: passes.final?.error, proxy: passes.proxy?.error }, services.now());
    services.events.emit("studio.episode", { ep });
    const firstError = PASSES.map((p) => passes[p]?.error).find(Boolean);
    return firstError
      ? { ok: false, error: firstError, passes, diagnostics }
      : { ok: true, passes, diagnostics };
  });
}

const failed = (error: string): PassAnswer => ({ ok: false, report: null, error });

function summarize(
  result: BuildResult,
  out: { written: string[]; deleted: string[] },
  parseWarnings: string[],
  fallback: ShowDefault,
): BuildReport {
  const named = result.seriesTargetFrom === "series";
  return {
    target: result.seriesTarget,
    target_source: named ? "series" : fallback.source,
    target_why: named ? "series.json names it (series.target)" : fallback.why,
    shots: Object.keys(result.shotTargets).length,
    shot_targets: result.shotTargets,
    warnings: [...new Set([...parseWarnings, ...result.warnings])],
    targets: result.reports,
    written: out.written,
    deleted: out.deleted,
  };
}
