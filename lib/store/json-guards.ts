// The one set of guards for values read from JSON (files, engine answers) and for thrown errors: each says
// what it accepts, so a reader never re-checks a field by hand or casts it.

export type JsonObject = Record<string, unknown>;

/** A plain JSON object (not an array, not null). */
export const isObject = (v: unknown): v is JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The object itself, or `{}` when the value is not one. */
export const objectOr = (v: unknown): JsonObject => (isObject(v) ? v : {});

/** A non-empty string, else null. */
export const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/** A string with text once trimmed (not empty, not only spaces). */
export const hasText = (v: unknown): v is string => typeof v === "string" && v.trim() !== "";

/** A string with text once trimmed, as it is; else null. */
export const textOf = (v: unknown): string | null => (hasText(v) ? v : null);

/** A string with text once trimmed, trimmed; else null. */
export const trimmed = (v: unknown): string | null => (hasText(v) ? v.trim() : null);

/** A string as it is, a number as its digits (ids engines send either way); else null. */
export const idText = (v: unknown): string | null =>
  typeof v === "string" ? v : typeof v === "number" ? String(v) : null;

/** Like idText, but a string must have text once trimmed and comes back trimmed. */
export const trimmedId = (v: unknown): string | null =>
  typeof v === "string" && v.trim() !== "" ? v.trim() : typeof v === "number" ? String(v) : null;

/** A finite number. */
export const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

/** A finite number, else null. */
export const num = (v: unknown): number | null => (isNumber(v) ? v : null);

/** A finite number above zero, else null. */
export const positive = (v: unknown): number | null =>
  typeof v === "number" && Number.isFinite(v) && v > 0 ? v : null;

/** A whole number. */
export const isWhole = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v);

/** A list of strings: the strings of an array, else []. */
export const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];

/** Whether `v` is one of `options` (narrows it to their union). */
export const oneOf = <T extends string>(options: readonly T[], v: unknown): v is T =>
  options.some((o) => o === v);

/** The `code` of a Node system error (`ENOENT`, `EEXIST`, ...), else undefined. */
export function errorCode(err: unknown): string | undefined {
  const code = errorField(err, "code");
  return typeof code === "string" ? code : undefined;
}

/** A field of a thrown value (`code`, `cause`, `errors`), whatever was thrown; undefined when it has none. */
export function errorField(err: unknown, key: string): unknown {
  return isObjectLike(err) ? Reflect.get(err, key) : undefined;
}

/** The message of a thrown value, whatever was thrown. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function isObjectLike(v: unknown): v is object {
  return (typeof v === "object" || typeof v === "function") && v !== null;
}
