// ScriptError: a fatal problem in a script, with its line (and column when one token is wrong). The parser
// collects every one it meets; parseScript throws the first (script format 2.8).

export class ScriptError extends Error {
  /** 1-based script line; null only for errors that belong to no line. */
  readonly line: number | null;
  /** The offending line, trimmed ("" for end-of-file errors). */
  readonly quoted: string;
  /** 1-based column of the wrong token on that line, when one token is to blame. */
  readonly col: number | undefined;

  constructor(message: string, line: number | null, quoted = "", col?: number) {
    super(message);
    this.name = "ScriptError";
    this.line = line;
    this.quoted = quoted;
    this.col = col;
  }

  /** The reference's text: `line <n>: <message>` then `    | <quoted line>`. */
  format(): string {
    const head = this.line === null ? this.message : `line ${this.line}: ${this.message}`;
    return `${head}\n    | ${this.quoted}`;
  }
}
