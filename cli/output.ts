// Output of the command line: results on stdout (text for people, or one JSON document with --json), messages and
// progress on stderr.

export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** Whether stderr is a terminal (progress bars redraw in place there, else plain lines). */
  tty: boolean;
  json: boolean;
}

export function processIo(json: boolean): Io {
  return {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
    tty: process.stderr.isTTY === true,
    json,
  };
}

/** The result: the JSON document with --json, else the text lines for a person. */
export function result(io: Io, value: unknown, lines: () => string[]): void {
  if (io.json) io.out(`${JSON.stringify(value, null, 2)}\n`);
  else for (const line of lines()) io.out(`${line}\n`);
}

/** A message for a person on stderr (not with --json, whose stdout is the one answer). */
export function note(io: Io, text: string): void {
  if (!io.json) io.err(`${text}\n`);
}

/** A bar of `width` cells for a fraction 0..1. */
export function bar(fraction: number, width = 24): string {
  const f = Math.min(1, Math.max(0, Number.isFinite(fraction) ? fraction : 0));
  const full = Math.round(f * width);
  return `[${"#".repeat(full)}${".".repeat(width - full)}] ${String(Math.round(f * 100)).padStart(3)}%`;
}

export interface DiagnosticLine {
  severity: string;
  file: string;
  line: number | null;
  col?: number;
  message: string;
}

/** Diagnostics as a compiler prints them: `script:12:5: error: message`. */
export function diagnosticLines(diagnostics: readonly DiagnosticLine[]): string[] {
  return diagnostics.map((d) => {
    const at = d.line === null ? d.file : `${d.file}:${d.line}${d.col ? `:${d.col}` : ""}`;
    return `${at}: ${d.severity}: ${d.message}`;
  });
}
