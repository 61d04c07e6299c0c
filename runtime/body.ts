// Reading a JSON request body within limits: at most 1 MB (413, decided early from Content-Length when declared)
// and at most 64 levels of nesting (400), so no body can exhaust memory or the stack of the code that walks it.
import { StudioError } from "../lib/errors.ts";
import { checkDeclaredLength } from "../lib/http/upload-limit.ts";

export const JSON_BODY_LIMIT = 1024 * 1024;
export const JSON_DEPTH_LIMIT = 64;
/** Uploads (multipart pictures, sound, video) may be larger: 64 MB, refused early past a declared 65 MB. */
export { UPLOAD_LIMIT } from "../lib/http/upload-limit.ts";

/** A raw-body route's early check: a declared length over the upload limit is refused before anything is read. */
export function checkUploadLength(req: Request): void {
  checkDeclaredLength(req.headers);
}

/** A body the request says is JSON (`application/json` or `+json`). */
export function isJsonRequest(req: Request): boolean {
  const type = (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  return type === "application/json" || type.endsWith("+json");
}

const tooLarge = (limit: number) =>
  new StudioError(
    413,
    `body: larger than ${Math.round(limit / 1024)} KB; JSON requests are small, send less`,
  );

/** The body's bytes, refused with 413 past `limit` (early when Content-Length says so). */
export async function readBodyLimited(req: Request, limit = JSON_BODY_LIMIT): Promise<Uint8Array> {
  const declared = Number(req.headers.get("content-length") ?? "");
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** The deepest nesting of arrays and objects in JSON text (strings skipped), stopping once past `stop`. */
export function jsonDepth(text: string, stop = JSON_DEPTH_LIMIT): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // a backslash escapes the next character
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > stop) return max;
      }
    } else if (c === 125 || c === 93) depth--;
  }
  return max;
}

/** Parse a JSON request body: UTF-8, within the size and depth limits, else a 4xx saying which. */
export async function readJsonBody(req: Request): Promise<unknown> {
  const bytes = await readBodyLimited(req);
  const type = (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  // A form or text body is what a cross-site page can send without asking first, so it is refused even empty.
  if (type !== "" && type !== "application/json" && !type.endsWith("+json")) {
    throw new StudioError(400, `body: Content-Type must be application/json (got ${type.slice(0, 80)})`);
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new StudioError(400, "body: not UTF-8 text");
  }
  if (text.trim() === "") return {};
  if (type === "") throw new StudioError(400, "body: Content-Type must be application/json (got none)");
  if (jsonDepth(text) > JSON_DEPTH_LIMIT) {
    throw new StudioError(400, `body: nested deeper than ${JSON_DEPTH_LIMIT} levels`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new StudioError(400, `body: malformed JSON: ${(err as Error).message.slice(0, 200)}`);
  }
}
