// Containment tests on absolute paths, case-insensitive where the file system usually is.
import path from "node:path";

const caseInsensitive = process.platform === "win32" || process.platform === "darwin";

function key(p: string): string {
  const resolved = path.resolve(p);
  return caseInsensitive ? resolved.toLowerCase() : resolved;
}

/** True when `child` is `parent` itself or lies below it (lexically; realpath both first where links matter). */
export function isInsideOrEqual(parent: string, child: string): boolean {
  const p = key(parent);
  const c = key(child);
  if (c === p) return true;
  return c.startsWith(p.endsWith(path.sep) ? p : p + path.sep);
}

/** True when `child` lies strictly below `parent`. */
export function isInside(parent: string, child: string): boolean {
  return key(parent) !== key(child) && isInsideOrEqual(parent, child);
}

/** True when the two paths name the same place (after normalising). */
export function samePath(a: string, b: string): boolean {
  return key(a) === key(b);
}

/** The path segments of `child` below `parent`, or null when it is not inside. */
export function segmentsBelow(parent: string, child: string): string[] | null {
  if (!isInsideOrEqual(parent, child)) return null;
  const rel = path.relative(path.resolve(parent), path.resolve(child));
  return rel === "" ? [] : rel.split(path.sep);
}
