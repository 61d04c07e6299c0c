// Both passes of an episode compiled from its texts in memory: parse once, then final and proxy, each pass's
// build error naming the file and line it is about. Pure: it runs on a compile thread or in line alike.
import { buildEpisode } from "../compile/build.ts";
import { BuildError, type BuildResult, type Pass } from "../compile/types.ts";
import { storyToJson } from "../script/story.ts";
import {
  buildErrorDiagnostics,
  buildWarningDiagnostics,
  type Diagnostic,
  loadDiagnostics,
  scriptWarning,
  sortDiagnostics,
} from "./diagnostics.ts";
import { describeLoadError } from "./load-error.ts";
import { locateBuildError, ScriptIndex } from "./locate.ts";
import { type CompileEnv, type Prepared, prepare } from "./prepare.ts";

export type PassOutcome = { ok: true; result: BuildResult } | { ok: false; error: string };

export interface Compiled {
  /** Set when the series config or the script does not load or parse: both passes fail with it. */
  loadError: string | null;
  storyJson: string;
  parseWarnings: string[];
  passes: Partial<Record<Pass, PassOutcome>>;
  /** Every error and warning of both passes, each at the line that is wrong. */
  diagnostics: Diagnostic[];
}

const PASSES: readonly Pass[] = ["final", "proxy"];

export function compileTexts(input: { seriesText: string; scriptText: string }, env: CompileEnv): Compiled {
  let prepared: Prepared;
  try {
    prepared = prepare(input.seriesText, input.scriptText);
  } catch (err) {
    const loadError = describeLoadError(err);
    const diagnostics = loadDiagnostics(input.seriesText, input.scriptText);
    return { loadError, storyJson: "", parseWarnings: [], passes: {}, diagnostics };
  }
  const index = new ScriptIndex(prepared.story, input.scriptText);
  const passes: Partial<Record<Pass, PassOutcome>> = {};
  const diagnostics = prepared.parseWarnings.map(scriptWarning);
  for (const pass of PASSES) {
    try {
      const result = buildEpisode({ story: prepared.story, series: prepared.series, pass, ...env });
      passes[pass] = { ok: true, result };
      diagnostics.push(
        ...buildWarningDiagnostics(result.warnings, prepared.story, input.scriptText, input.seriesText),
      );
    } catch (err) {
      if (!(err instanceof BuildError)) throw err;
      const scope = { ...prepared, pass, env, scriptText: input.scriptText, seriesText: input.seriesText };
      diagnostics.push(...buildErrorDiagnostics(err, scope));
      const where = locateBuildError(err, index, input.seriesText);
      const file = where.file === "series" ? "series.json" : "script";
      passes[pass] = {
        ok: false,
        error: where.line ? `${file} line ${where.line}: ${err.message}` : err.message,
      };
    }
  }
  return {
    loadError: null,
    storyJson: storyToJson(prepared.story),
    parseWarnings: prepared.parseWarnings.map((w) => (w.line ? `line ${w.line}: ${w.message}` : w.message)),
    passes,
    diagnostics: sortDiagnostics(diagnostics),
  };
}
