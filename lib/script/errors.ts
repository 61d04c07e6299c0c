// ScriptError: the first fatal problem in a script, with its line; parsing stops there (script format 2.8).

export class ScriptError extends Error {
  /** 1-based script line; null only for errors that belong to no line. */
  readonly line: number | null;
  /** The offending line, trimmed ("" for end-of-file errors). */
  readonly quoted: string;

  constructor(message: string, line: number | null, quoted = "") {
    super(message);
    this.name = "ScriptError";
    this.line = line;
    this.quoted = quoted;
  }

  /** The reference's text: `line <n>: <message>` then `    | <quoted line>`. */
  format(): string {
    const head = this.line === null ? this.message : `line ${this.line}: ${this.message}`;
    return `${head}\n    | ${this.quoted}`;
  }
}
