// Response writers: JSON (gzipped over 64 KB when the client accepts it) and files (Range, ETag, HEAD).
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { promisify } from "node:util";
import { gzip as gzipCb } from "node:zlib";
import type { FileReply } from "../functions/fn.ts";
import { StudioError } from "../lib/errors.ts";
import { acceptsGzip, GZIP_THRESHOLD, toJsonText } from "./json-text.ts";

const gzip = promisify(gzipCb);

export { GZIP_THRESHOLD, toJsonText };

export async function jsonResponse(
  status: number,
  body: unknown,
  acceptEncoding: string | null,
  headers: Record<string, string> = {},
): Promise<Response> {
  return jsonTextResponse(status, toJsonText(body), acceptEncoding, headers);
}

interface Encoded {
  text: string;
  bytes: Buffer;
  zipped?: Promise<Buffer>;
}

// The last few keyed answers: an unchanged text (the same string) reuses its bytes and its gzip.
const encodedByKey = new Map<string, Encoded>();

function encode(text: string, cacheKey: string | undefined): Encoded {
  if (cacheKey === undefined) return { text, bytes: Buffer.from(text, "utf8") };
  let enc = encodedByKey.get(cacheKey);
  if (!enc || enc.text !== text) {
    enc = { text, bytes: Buffer.from(text, "utf8") };
    if (encodedByKey.size >= 16) encodedByKey.clear();
    encodedByKey.set(cacheKey, enc);
  }
  return enc;
}

/** JSON text as a reply: gzipped over 64 KB when the client accepts it (the one place that rule lives). */
export async function jsonTextResponse(
  status: number,
  text: string,
  acceptEncoding: string | null,
  headers: Record<string, string> = {},
  cacheKey?: string,
): Promise<Response> {
  const enc = encode(text, cacheKey);
  const out: Record<string, string> = { "content-type": "application/json; charset=utf-8", ...headers };
  if (enc.bytes.length > GZIP_THRESHOLD) {
    out.vary = "Accept-Encoding";
    if (acceptsGzip(acceptEncoding)) {
      enc.zipped ??= gzip(enc.bytes);
      const zipped = await enc.zipped;
      out["content-encoding"] = "gzip";
      out["content-length"] = String(zipped.length);
      return new Response(zipped, { status, headers: out });
    }
  }
  out["content-length"] = String(enc.bytes.length);
  return new Response(enc.bytes, { status, headers: out });
}

const MIME: Record<string, string> = {
  ".json": "application/json",
  ".md": "text/markdown; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".css": "text/css",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".webp": "image/webp",
  ".gif": "image/gif",
  ".svg": "image/svg+xml",
  ".mp4": "video/mp4",
  ".mov": "video/quicktime",
  ".webm": "video/webm",
  ".mkv": "video/x-matroska",
  ".wav": "audio/wav",
  ".mp3": "audio/mpeg",
  ".flac": "audio/flac",
  ".ogg": "audio/ogg",
  ".m4a": "audio/mp4",
  ".safetensors": "application/octet-stream",
};

export function contentTypeFor(file: string): string {
  return MIME[path.extname(file).toLowerCase()] ?? "application/octet-stream";
}

/** Stream a file with a weak ETag, conditional GET and a single byte range. */
export async function fileResponse(reply: FileReply, req: Request): Promise<Response> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(reply.path);
  } catch {
    throw new StudioError(404, `file not found: ${path.basename(reply.path)}`);
  }
  if (!info.isFile()) throw new StudioError(404, `not a file: ${path.basename(reply.path)}`);
  const size = info.size;
  const etag = `W/"${size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
  const headers: Record<string, string> = {
    "content-type": reply.contentType ?? contentTypeFor(reply.path),
    "accept-ranges": "bytes",
    etag,
    "last-modified": info.mtime.toUTCString(),
    "cache-control": "no-cache",
    ...reply.headers,
  };
  if (req.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers });

  let start = 0;
  let end = size - 1;
  let status = 200;
  const range = req.headers.get("range");
  if (range && size > 0 && ifRangeHolds(req.headers.get("if-range"), etag, info.mtimeMs)) {
    const parsed = parseRange(range, size);
    if (parsed === "unsatisfiable") {
      return new Response(null, { status: 416, headers: { ...headers, "content-range": `bytes */${size}` } });
    }
    if (parsed) {
      [start, end] = parsed;
      status = 206;
      headers["content-range"] = `bytes ${start}-${end}/${size}`;
    }
  }
  headers["content-length"] = String(size === 0 ? 0 : end - start + 1);
  if (req.method === "HEAD" || size === 0) return new Response(null, { status, headers });
  const stream = Readable.toWeb(createReadStream(reply.path, { start, end })) as ReadableStream;
  return new Response(stream, { status, headers });
}

/**
 * If-Range: the range applies only while the client's copy is current, judged by the ETag it holds or the
 * Last-Modified date it saw (to the second, as HTTP dates go); otherwise the whole file is sent.
 */
export function ifRangeHolds(header: string | null, etag: string, mtimeMs: number): boolean {
  if (header === null) return true;
  const value = header.trim();
  if (value.startsWith('"') || value.startsWith("W/")) return value === etag;
  const date = Date.parse(value);
  return !Number.isNaN(date) && date === Math.floor(mtimeMs / 1000) * 1000;
}

/** One range of `bytes=a-b`, `bytes=a-` or `bytes=-n`; several ranges are answered whole (null). */
export function parseRange(header: string, size: number): [number, number] | "unsatisfiable" | null {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === "" && m[2] === "")) return null;
  let start: number;
  let end: number;
  if (m[1] === "") {
    const suffix = Number(m[2]);
    if (suffix === 0) return "unsatisfiable";
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || start > end) return "unsatisfiable";
  return [start, end];
}
