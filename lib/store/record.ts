// Lenient reading of the records the service keeps on disk: each record has one zod shape; reading keeps every
// key of the file in its order (unknown ones too, so a write-back loses nothing), and a known field whose value
// does not fit its schema reads as null instead of failing the whole record.
import { z } from "zod";
import { isObject, type JsonObject } from "./json-guards.ts";

/** A record as read: each known field absent (older files), null (wrong type on disk) or typed; others kept. */
export type Lenient<S extends z.ZodRawShape> = { [K in keyof S]?: z.output<S[K]> | null } & {
  [other: string]: unknown;
};

export interface RecordKind<S extends z.ZodRawShape> {
  shape: S;
  /** The record read from a parsed JSON value; null when the value is not an object. */
  parse(raw: unknown): Lenient<S> | null;
  /** The field names in the order a new record writes them. */
  order: readonly (keyof S & string)[];
}

/**
 * One record kind. Parsing is memoised by the identity of the raw value: the JSON file cache hands out the same
 * object until the file changes, so a record is checked once per change, not once per request.
 */
export function recordKind<S extends z.ZodRawShape>(shape: S): RecordKind<S> {
  const known = new Map<string, z.core.$ZodType>(Object.entries(shape));
  const parse = memoByIdentity((raw: JsonObject): Lenient<S> => {
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(raw)) {
      const field = known.get(key);
      out[key] = field === undefined || value === null || z.safeParse(field, value).success ? value : null;
    }
    return asLenient<S>(out);
  });
  return { shape, parse, order: Object.keys(shape) };
}

/**
 * `read` applied to JSON objects only (null for anything else), once per object: cached JSON values are shared
 * until their file changes, so the same object always reads the same. Records nesting records build on it.
 */
export function memoByIdentity<T>(read: (raw: JsonObject) => T): (raw: unknown) => T | null {
  const seen = new WeakMap<JsonObject, T>();
  return (raw) => {
    if (!isObject(raw)) return null;
    if (seen.has(raw)) return seen.get(raw) ?? null;
    const value = read(raw);
    seen.set(raw, value);
    return value;
  };
}

// Every known key of `out` now holds a value its schema accepts, or null: that is exactly Lenient<S>.
function asLenient<S extends z.ZodRawShape>(out: JsonObject): Lenient<S> {
  return out as Lenient<S>;
}
