// The editor's check: load, parse and build the final pass in memory; write nothing (script format 5.2).
import { buildEpisode } from "../compile/build.ts";
import { BuildError } from "../compile/types.ts";
import { diagnoseScript } from "../script/parse.ts";
import { shotSpans } from "../script/story.ts";
import { JsonSyntaxError, SeriesError } from "../series/errors.ts";
import { loadSeries } from "../series/load.ts";
import type { SeriesConfig } from "../series/types.ts";
import { buildErrorDiagnostics, type Diagnostic, parseDiagnostics, sortDiagnostics } from "./diagnostics.ts";
import { jsonKeyLines, lineOfKey } from "./json-lines.ts";
import { locateBuildError, locateMessage, ScriptIndex } from "./locate.ts";
import type { CompileEnv } from "./prepare.ts";

export interface CheckEntry {
  file: "script" | "series";
  line: number | null;
  col?: number;
  message: string;
}

export interface CheckResult {
  ok: boolean;
  errors: CheckEntry[];
  warnings: CheckEntry[];
  shots: { id: string; line: number; end_line: number }[];
  /** Every error (not only the first) and every warning, each at the line that is wrong, in line order. */
  diagnostics: Diagnostic[];
}

export interface CheckInput {
  /** Which file `text` replaces; the other is read from disk by the caller. */
  file: "script" | "series";
  scriptText: string | null;
  seriesText: string | null;
}

const done = (
  errors: CheckEntry[],
  warnings: CheckEntry[],
  shots: CheckResult["shots"] = [],
  diagnostics: Diagnostic[] = [
    ...errors.map((e): Diagnostic => ({ severity: "error", ...e })),
    ...warnings.map((w): Diagnostic => ({ severity: "warning", ...w })),
  ],
): CheckResult => ({
  ok: errors.length === 0,
  errors,
  warnings,
  shots,
  diagnostics: sortDiagnostics(diagnostics),
});

export function checkSources(input: CheckInput, env: CompileEnv): CheckResult {
  const { scriptText, seriesText } = input;
  if (seriesText === null) {
    return done(
      [{ file: "series", line: null, message: "no series.json in the episode folder or its parent" }],
      [],
    );
  }
  let series: SeriesConfig;
  try {
    series = loadSeries(seriesText);
  } catch (err) {
    if (err instanceof JsonSyntaxError) {
      return done([{ file: "series", line: err.line, col: err.col, message: err.message }], []);
    }
    if (err instanceof SeriesError) {
      const line = err.key ? lineOfKey(jsonKeyLines(seriesText), err.key) : null;
      return done([{ file: "series", line, message: err.message }], []);
    }
    throw err;
  }
  if (scriptText === null) {
    if (input.file === "series") return done([], []);
    return done([{ file: "script", line: null, message: "the episode has no script" }], []);
  }

  const parsed = diagnoseScript(scriptText, series);
  const story = parsed.story;
  if (story === null) {
    const first = parsed.errors[0];
    return done(
      [{ file: "script", line: first.line, message: first.message }],
      [],
      [],
      parseDiagnostics(parsed),
    );
  }
  const index = new ScriptIndex(story, scriptText);
  const shots = shotSpans(story);
  const warnings = dedupe([
    ...parsed.warnings.map((w): CheckEntry => ({ file: "script", line: w.line, message: w.message })),
  ]);
  try {
    const result = buildEpisode({ story, series, pass: "final", ...env });
    for (const message of result.warnings)
      warnings.push({ ...locateMessage(message, index, seriesText), message });
    return done([], dedupe(warnings), shots);
  } catch (err) {
    if (err instanceof BuildError) {
      const scope = {
        story,
        series,
        pass: "final" as const,
        env,
        scriptText,
        seriesText,
        dialogueLike: parsed.dialogueLike,
      };
      return done(
        [{ ...locateBuildError(err, index, seriesText), message: err.message }],
        dedupe(warnings),
        shots,
        [...buildErrorDiagnostics(err, scope), ...parseDiagnostics(parsed)],
      );
    }
    throw err;
  }
}

function dedupe(entries: CheckEntry[]): CheckEntry[] {
  const seen = new Set<string>();
  return entries.filter((e) => {
    const key = `${e.file}\0${e.line}\0${e.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
