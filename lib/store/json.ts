// JSON text for files the reference also writes: bigint seeds as exact integer literals, non-ASCII kept raw.

export interface ToJsonOptions {
  /**
   * Keys whose integral numbers are written as Python floats (`3.0`), so a file matches the reference's text.
   * An array under such a key has its numbers written the same way.
   */
  floatKeys?: ReadonlySet<string>;
}

const NO_KEYS: ReadonlySet<string> = new Set();

function numberText(n: number, asFloat: boolean): string {
  if (!Number.isFinite(n)) return "null";
  if (asFloat && Number.isInteger(n) && Math.abs(n) < 1e16) return `${Object.is(n, -0) ? "-0" : String(n)}.0`;
  return String(n);
}

function skipped(v: unknown): boolean {
  return v === undefined || typeof v === "function" || typeof v === "symbol";
}

/** Like `JSON.stringify(value, null, indent)`, except that a bigint prints as a bare integer. */
export function toJson(value: unknown, indent = 2, options: ToJsonOptions = {}): string {
  const floatKeys = options.floatKeys ?? NO_KEYS;
  const pad = indent > 0 ? " ".repeat(indent) : "";
  const colon = indent > 0 ? ": " : ":";

  const write = (v: unknown, asFloat: boolean, prefix: string): string => {
    if (v === null || skipped(v)) return "null";
    switch (typeof v) {
      case "string":
        // JSON.stringify escapes only quotes, backslashes and control characters: non-ASCII stays as written.
        return JSON.stringify(v);
      case "number":
        return numberText(v, asFloat);
      case "bigint":
        return v.toString();
      case "boolean":
        return v ? "true" : "false";
    }
    if (typeof (v as { toJSON?: unknown }).toJSON === "function") {
      return write((v as { toJSON(): unknown }).toJSON(), asFloat, prefix);
    }
    const inner = prefix + pad;
    const open = indent > 0 ? `\n${inner}` : "";
    const close = indent > 0 ? `\n${prefix}` : "";
    if (Array.isArray(v)) {
      if (v.length === 0) return "[]";
      const parts: string[] = [];
      for (const item of v) parts.push(skipped(item) ? "null" : write(item, asFloat, inner));
      return `[${open}${parts.join(`,${open}`)}${close}]`;
    }
    const obj = v as Record<string, unknown>;
    const parts: string[] = [];
    for (const k of Object.keys(obj)) {
      const item = obj[k];
      if (skipped(item)) continue;
      parts.push(`${JSON.stringify(k)}${colon}${write(item, floatKeys.has(k), inner)}`);
    }
    if (parts.length === 0) return "{}";
    return `{${open}${parts.join(`,${open}`)}${close}}`;
  };
  return write(value, false, "");
}
