// Errors of series.json: invalid JSON (with its position) and load/validation failures (with the key at fault).

export class SeriesError extends Error {
  /** Dotted path of the key the message is about (`subjects.gina_towel`, `profiles.fast`), for line mapping. */
  readonly key: string | null;

  constructor(message: string, key: string | null = null) {
    super(message);
    this.name = "SeriesError";
    this.key = key;
  }
}

export class JsonSyntaxError extends Error {
  /** 1-based line and column of the character where parsing failed. */
  readonly line: number;
  readonly col: number;

  constructor(message: string, line: number, col: number) {
    super(message);
    this.name = "JsonSyntaxError";
    this.line = line;
    this.col = col;
  }
}
