// Every error and warning of a check or a build in one list, each at the line that is wrong: the script's own
// errors (the parser collects them all), then the build's. The build stops at its first error, so further ones
// are found by building again without the shot (or sequence) already reported, a few times at most.
import { buildEpisode } from "../compile/build.ts";
import { BuildError, type BuildInput, type Pass } from "../compile/types.ts";
import type { ScriptError } from "../script/errors.ts";
import { diagnoseScript, type ScriptDiagnostics } from "../script/parse.ts";
import type { Diagnostic as ParseWarning, Story } from "../script/types.ts";
import { JsonSyntaxError, SeriesError } from "../series/errors.ts";
import { loadSeries } from "../series/load.ts";
import type { SeriesConfig } from "../series/types.ts";
import { jsonKeyLines, lineOfKey } from "./json-lines.ts";
import { type Located, locateBuildError, locateMessage, ScriptIndex } from "./locate.ts";

export interface Diagnostic {
  severity: "error" | "warning";
  file: "script" | "series";
  /** 1-based line; null when the message belongs to no line. */
  line: number | null;
  /** 1-based column of the token at fault, when one token is. */
  col?: number;
  message: string;
}

/** Builds tried after the first build error, each without what the errors before it were about. */
const MORE_BUILDS = 6;

export const scriptError = (err: ScriptError): Diagnostic => ({
  severity: "error",
  file: "script",
  line: err.line,
  ...(err.col !== undefined ? { col: err.col } : {}),
  message: err.message,
});

export const scriptWarning = (w: ParseWarning): Diagnostic => ({
  severity: "warning",
  file: "script",
  line: w.line,
  message: w.message,
});

/** The parser's findings: every error, then every warning. */
export function parseDiagnostics(parsed: ScriptDiagnostics): Diagnostic[] {
  return [...parsed.errors.map(scriptError), ...parsed.warnings.map(scriptWarning)];
}

export interface BuildScope {
  story: Story;
  series: SeriesConfig;
  pass: Pass;
  env: Pick<BuildInput, "defaultTarget" | "targets">;
  scriptText: string;
  seriesText: string | null;
  /** Lines read as action that look like dialogue (the parser's `dialogueLike`); parsed again when absent. */
  dialogueLike?: readonly number[];
}

/**
 * The build's first error and the ones after it: each error's shot (or sequence) is left out and the pass is
 * built again, until it builds, an error belongs to no shot or sequence, or the few extra builds are spent.
 */
export function buildErrorDiagnostics(first: BuildError, scope: BuildScope): Diagnostic[] {
  const index = new ScriptIndex(scope.story, scope.scriptText);
  const dialogueLike = scope.dialogueLike ?? diagnoseScript(scope.scriptText, scope.series).dialogueLike;
  const out = [located(first, { ...scope, dialogueLike }, index)];
  let story = scope.story;
  let err: BuildError = first;
  const removed = new Set<string>();
  for (let i = 0; i < MORE_BUILDS; i++) {
    const next = without(story, err);
    if (next === null) break;
    for (const id of shotIds(story)) if (!shotIds(next).includes(id)) removed.add(id);
    story = next;
    if (story.sequences.every((s) => s.shots.length === 0)) break;
    try {
      buildEpisode({ story, series: scope.series, pass: scope.pass, ...scope.env });
      break;
    } catch (e) {
      if (!(e instanceof BuildError)) break;
      // A shot now continuing another than in the script would be an error of the leaving-out, not the script's.
      if (e.shot && followsRemoved(scope.story, e.shot, removed) && e.message.includes("continu")) break;
      err = e;
      out.push(located(err, { ...scope, dialogueLike }, index));
    }
  }
  return out;
}

/** A build error at its line; a shot left without dialogue points at its line that looks like dialogue. */
function located(
  err: BuildError,
  scope: BuildScope & { dialogueLike: readonly number[] },
  index: ScriptIndex,
): Diagnostic {
  const where: Located = locateBuildError(err, index, scope.seriesText);
  const span = err.shot ? spanOf(scope.story, err.shot) : null;
  if (span && err.message.includes("dialogue")) {
    const meant = scope.dialogueLike.find((n) => n > span.line && n <= span.end);
    if (meant !== undefined) {
      return {
        severity: "error",
        file: "script",
        line: meant,
        message: `${err.message} (this line looks like dialogue but reads as action)`,
      };
    }
  }
  return { severity: "error", file: where.file, line: where.line, message: err.message };
}

/** A build's warnings (plain text) at the lines they are about. */
export function buildWarningDiagnostics(
  warnings: readonly string[],
  story: Story,
  scriptText: string,
  seriesText: string | null,
): Diagnostic[] {
  const index = new ScriptIndex(story, scriptText);
  return warnings.map((message) => ({
    severity: "warning",
    ...locateMessage(message, index, seriesText),
    message,
  }));
}

/**
 * Why the texts did not even load: the series config's error (invalid JSON at its position, else the key it
 * names), or every error and warning of the script.
 */
export function loadDiagnostics(seriesText: string, scriptText: string): Diagnostic[] {
  let series: SeriesConfig;
  try {
    series = loadSeries(seriesText);
  } catch (err) {
    if (err instanceof JsonSyntaxError) {
      return [{ severity: "error", file: "series", line: err.line, col: err.col, message: err.message }];
    }
    if (err instanceof SeriesError) {
      const line = err.key ? lineOfKey(jsonKeyLines(seriesText), err.key) : null;
      return [{ severity: "error", file: "series", line, message: err.message }];
    }
    throw err;
  }
  return sortDiagnostics(parseDiagnostics(diagnoseScript(scriptText, series)));
}

function spanOf(story: Story, id: string): { line: number; end: number } | null {
  for (const seq of story.sequences)
    for (const shot of seq.shots)
      if (shot.id === id) return { line: shot.source.line, end: shot.source.end_line };
  return null;
}

const shotIds = (story: Story): string[] => story.sequences.flatMap((s) => s.shots.map((shot) => shot.id));

/** The story without the shot or sequence `err` is about; null when it is about neither (or about nothing left). */
function without(story: Story, err: BuildError): Story | null {
  if (err.shot) {
    const shot = err.shot;
    if (!shotIds(story).includes(shot)) return null;
    return {
      ...story,
      sequences: story.sequences.map((s) => ({ ...s, shots: s.shots.filter((x) => x.id !== shot) })),
    };
  }
  if (err.sequence) {
    const seq = err.sequence;
    if (!story.sequences.some((s) => s.id === seq)) return null;
    return { ...story, sequences: story.sequences.filter((s) => s.id !== seq) };
  }
  return null;
}

/** Whether the shot before `id` in the script was left out. */
function followsRemoved(story: Story, id: string, removed: ReadonlySet<string>): boolean {
  const ids = shotIds(story);
  const at = ids.indexOf(id);
  return at > 0 && removed.has(ids[at - 1]);
}

/** Script before series, then by line (no line last), errors before warnings on a line; repeats dropped. */
export function sortDiagnostics(list: readonly Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  const unique = list.filter((d) => {
    const key = `${d.severity}\0${d.file}\0${d.line}\0${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const rank = (d: Diagnostic) => [
    d.file === "script" ? 0 : 1,
    d.line ?? Number.MAX_SAFE_INTEGER,
    d.severity === "error" ? 0 : 1,
  ];
  return unique
    .map((d, i) => ({ d, i, r: rank(d) }))
    .sort((a, b) => a.r[0] - b.r[0] || a.r[1] - b.r[1] || a.r[2] - b.r[2] || a.i - b.i)
    .map((x) => x.d);
}
