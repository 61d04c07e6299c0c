// Refusals that need no disk: NUL bytes, encoded dots and separators, drive and UNC prefixes, backslashes,
// over-long names and names Windows would silently change.
import path from "node:path";
import { badRequest, shown } from "../errors.ts";

const ENCODED = /%(2e|2f|5c|00)/i;
const DRIVE = /^[A-Za-z]:/;
/** Longest file name most file systems store, in bytes. */
export const MAX_SEGMENT_BYTES = 255;
/** Longest whole path accepted, in characters (Linux's PATH_MAX). */
export const MAX_PATH_CHARS = 4096;

function requireString(value: unknown, field: string): string {
  if (typeof value !== "string") throw badRequest(`${field} must be a string`);
  if (!value.trim()) throw badRequest(`${field} is required`);
  if (value.includes("\0")) throw badRequest(`${field}: ${shown(value)} contains a NUL byte`);
  if (ENCODED.test(value)) {
    throw badRequest(`${field}: ${shown(value)} contains an encoded dot or separator (%2e, %2f, %5c)`);
  }
  if (value.length > MAX_PATH_CHARS) {
    throw badRequest(
      `${field} is ${value.length} characters long; a path may hold at most ${MAX_PATH_CHARS}`,
    );
  }
  for (const s of value.split(/[\\/]/)) checkSegment(s, value, field);
  return value;
}

// The file system would answer ENAMETOOLONG, and Windows drops trailing dots and spaces, so "ep01." opens "ep01".
function checkSegment(segment: string, value: string, field: string): void {
  if (Buffer.byteLength(segment, "utf8") > MAX_SEGMENT_BYTES) {
    throw badRequest(
      `${field}: ${shown(value)} has a name longer than ${MAX_SEGMENT_BYTES} bytes ("${segment.slice(0, 24)}...")`,
    );
  }
  if (segment === "." || segment === "..") return;
  if (/[. ]$/.test(segment)) {
    throw badRequest(`${field}: ${shown(value)} has a name ending in a dot or a space (${shown(segment)})`);
  }
}

/** An absolute path (an `ep`, a parent folder): returned normalised. */
export function checkAbsolutePath(value: unknown, field: string): string {
  const text = requireString(value, field);
  // Win32 device namespaces bypass the normal path rules, so they are never an episode.
  if (/^[\\/]{2}[?.][\\/]/.test(text)) throw badRequest(`${field}: ${shown(text)} is a device path`);
  if (!path.isAbsolute(text)) throw badRequest(`${field} must be an absolute path (got ${shown(text)})`);
  if (text.split(/[\\/]/).includes("..")) {
    throw badRequest(`${field}: ${shown(text)} must not contain ".." segments`);
  }
  return path.resolve(text);
}

/**
 * A path relative to an episode: forward slashes only, no drive, no UNC, no leading slash.
 * Returns its segments with empty and "." segments dropped; ".." segments are kept for the caller to judge.
 */
export function checkRelativePath(value: unknown, field: string): string[] {
  const text = requireString(value, field);
  if (text.startsWith("\\\\") || text.startsWith("//")) {
    throw badRequest(`${field}: ${shown(text)} is a network (UNC) path; give a path relative to the episode`);
  }
  if (DRIVE.test(text)) {
    throw badRequest(`${field}: ${shown(text)} is a drive path; give a path relative to the episode`);
  }
  if (text.includes("\\")) throw badRequest(`${field}: ${shown(text)} must use forward slashes`);
  if (text.startsWith("/")) {
    throw badRequest(`${field}: ${shown(text)} is an absolute path; give a path relative to the episode`);
  }
  const segments = text.split("/").filter((s) => s !== "" && s !== ".");
  for (const s of segments) {
    // A drive-like segment would make path.resolve jump to another drive on Windows; ":" opens streams there.
    if (DRIVE.test(s) || (process.platform === "win32" && s.includes(":"))) {
      throw badRequest(`${field}: ${shown(text)} contains a drive or stream name ("${s}")`);
    }
  }
  if (segments.length === 0) throw badRequest(`${field}: ${shown(text)} names no file`);
  return segments;
}
