// A series-config or script load failure as one line for a person, naming the file and the line.
import { ScriptError } from "../script/errors.ts";
import { JsonSyntaxError, SeriesError } from "../series/errors.ts";

export function describeLoadError(err: unknown): string {
  if (err instanceof ScriptError)
    return err.line ? `script line ${err.line}: ${err.message}` : `script: ${err.message}`;
  if (err instanceof JsonSyntaxError)
    return `series.json line ${err.line}, column ${err.col}: ${err.message}`;
  if (err instanceof SeriesError)
    return err.message.startsWith("series.json") ? err.message : `series.json: ${err.message}`;
  throw err;
}
