// The check's answer as problems the editor shows: every error and warning (the answer's `diagnostics` when it
// carries them, else its `errors` and `warnings`), each placed on the document as a range of offsets. A line past
// the end is clamped to the last line, a line the service could not place (null) goes to the first.
import type { CheckAnswer, CheckEntry } from "../../types.ts";

export type SourceKind = "script" | "series";
export type Severity = "error" | "warning" | "info";

/** One problem of a check, in the file it is about. */
export interface Problem {
  file: SourceKind;
  severity: Severity;
  line: number | null;
  col: number | null;
  message: string;
}

/** Where a problem sits in the document, as CodeMirror's lint wants it. */
export interface Placed {
  from: number;
  to: number;
  /** The 1-based line it was put on (after clamping). */
  line: number;
  severity: Severity;
  message: string;
}

/** What placing needs of a document: CodeMirror's `Text` fits. */
export interface DocLines {
  readonly lines: number;
  line(n: number): { from: number; to: number; text: string };
}

function severityOf(s: string): Severity {
  return s === "warning" || s === "info" ? s : "error";
}

function whole(n: unknown): number | null {
  return typeof n === "number" && Number.isFinite(n) ? Math.trunc(n) : null;
}

/** Every problem the answer reports, errors first when it has no `diagnostics` list. */
export function problemsOf(answer: CheckAnswer, checked: SourceKind): Problem[] {
  const entry = (e: CheckEntry, severity: Severity): Problem => ({
    file: e.file === "script" || e.file === "series" ? e.file : checked,
    severity,
    line: whole(e.line),
    col: whole(e.col),
    message: String(e.message ?? ""),
  });
  if (Array.isArray(answer.diagnostics)) {
    return answer.diagnostics.map((d) => entry(d, severityOf(d.severity)));
  }
  return [
    ...(answer.errors ?? []).map((e) => entry(e, "error")),
    ...(answer.warnings ?? []).map((e) => entry(e, "warning")),
  ];
}

/**
 * A problem on the document: its line clamped to the document (null → line 1); with a column (1-based) it starts
 * there and covers the word under it, else it covers the line's text without its leading space.
 */
export function place(problem: Problem, doc: DocLines): Placed {
  const n = Math.min(Math.max(problem.line ?? 1, 1), Math.max(doc.lines, 1));
  const line = doc.line(n);
  let from: number;
  let to: number;
  if (problem.col !== null && problem.line !== null) {
    const at = Math.min(Math.max(problem.col, 1) - 1, line.text.length);
    from = line.from + at;
    const word = /^\S*/.exec(line.text.slice(at))?.[0].length ?? 0;
    to = from + Math.max(word, at < line.text.length ? 1 : 0);
  } else {
    const indent = line.text.length - line.text.trimStart().length;
    from = line.from + (indent < line.text.length ? indent : 0);
    to = line.to;
  }
  return { from, to, line: n, severity: problem.severity, message: problem.message };
}

/** The problems of the file in the editor, placed on its document. */
export function placeAll(problems: readonly Problem[], file: SourceKind, doc: DocLines): Placed[] {
  return problems.filter((p) => p.file === file).map((p) => place(p, doc));
}

/** `2 errors, 1 warning`; `no problems` when the check is clean. */
export function countText(problems: readonly Problem[]): string {
  const n = (sev: Severity) => problems.filter((p) => p.severity === sev).length;
  const parts: string[] = [];
  const errors = n("error");
  const warnings = n("warning");
  const notes = n("info");
  if (errors) parts.push(`${errors} error${errors === 1 ? "" : "s"}`);
  if (warnings) parts.push(`${warnings} warning${warnings === 1 ? "" : "s"}`);
  if (notes) parts.push(`${notes} note${notes === 1 ? "" : "s"}`);
  return parts.length ? parts.join(", ") : "no problems";
}
