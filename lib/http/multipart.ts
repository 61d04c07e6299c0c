// A streaming multipart/form-data reader for uploads: text fields are kept (each up to a small limit), the one file
// part is written to a temporary file as its bytes arrive, so an upload of any size costs a few chunks of memory.
// The upload limit is counted as bytes arrive (413, the temporary removed); a declared length past it is refused
// before anything is read. A delimiter split across chunks is found: the last bytes of a chunk that could begin
// one are held back until the next chunk says.
import { copyFile, type FileHandle, mkdir, open, rename, rm } from "node:fs/promises";
import path from "node:path";
import { badRequest } from "../errors.ts";
import { errorCode, errorMessage } from "../store/json-guards.ts";
import { tempName } from "../store/temp-names.ts";
import { Reclaimer } from "./reclaim.ts";
import { checkDeclaredLength, UPLOAD_DECLARED_LIMIT, UPLOAD_LIMIT, uploadTooLarge } from "./upload-limit.ts";

export { checkDeclaredLength, UPLOAD_DECLARED_LIMIT, UPLOAD_LIMIT, uploadTooLarge } from "./upload-limit.ts";

export interface FormLimits {
  /** Bytes of the file part (default 64 MB). */
  fileBytes: number;
  /** Bytes of one text field (default 64 KB). */
  fieldBytes: number;
  /** Parts in the form (default 32). */
  parts: number;
  /** Bytes of one part's headers (default 16 KB). */
  headerBytes: number;
  /** Bytes of the whole body, form and epilogue included (default 64 MB + 1 MiB). */
  bodyBytes: number;
}

const DEFAULT_LIMITS: FormLimits = {
  fileBytes: UPLOAD_LIMIT,
  fieldBytes: 64 * 1024,
  parts: 32,
  headerBytes: 16 * 1024,
  bodyBytes: UPLOAD_DECLARED_LIMIT,
};

export interface UploadedFile {
  /** The form field it came in. */
  field: string;
  /** The file name the client sent, without any folder part. */
  name: string;
  /** The Content-Type the client declared (information only: the name and the bytes decide). */
  type: string | null;
  /** The temporary file holding the bytes; the form's `discard` removes it. */
  path: string;
  size: number;
}

export interface Form {
  /** Text fields by name (each sent once). A part named like the file field but sent without a filename is here. */
  fields: Record<string, string>;
  /** The file part, or null when none was sent. */
  file: UploadedFile | null;
  /** Removes the temporary file, if it is still there (a caller that moved it away loses nothing). */
  discard(): Promise<void>;
}

export interface FormOptions {
  /** Where the file part's temporary goes (made when needed); a folder the start-up sweep looks in. */
  tmpDir: string;
  /** The one field that may carry a file. */
  fileField: string;
  limits?: Partial<FormLimits>;
}

/** True when the request's Content-Type says multipart/form-data. */
export function isMultipart(contentType: string | null): boolean {
  return mediaType(contentType) === "multipart/form-data";
}

/** The media type of a Content-Type, lower case, without parameters. */
export function mediaType(contentType: string | null): string {
  return (contentType ?? "").split(";")[0].trim().toLowerCase();
}

/** The boundary of a multipart Content-Type (400 when it has none or an unusable one). */
export function boundaryOf(contentType: string | null): string {
  const params = parseParams((contentType ?? "").slice((contentType ?? "").indexOf(";") + 1));
  const boundary = params.get("boundary");
  if (boundary === undefined) throw badRequest("body: multipart/form-data without a boundary");
  if (!/^[0-9A-Za-z'()+_,\-./:=? ]{1,70}$/.test(boundary) || boundary.endsWith(" ")) {
    throw badRequest("body: the multipart boundary must be 1 to 70 plain characters");
  }
  return boundary;
}

/** Reads a multipart/form-data request: the early length check, the boundary, then the streamed parts. */
export async function readForm(request: Request, options: FormOptions): Promise<Form> {
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  checkDeclaredLength(request.headers, limits.bodyBytes);
  const boundary = boundaryOf(request.headers.get("content-type"));
  if (!request.body) throw badRequest("body: the form is empty");
  return parseMultipart(request.body, boundary, { ...options, limits });
}

const CRLF = Buffer.from("\r\n");
const HEADER_END = Buffer.from("\r\n\r\n");
const DASH = 0x2d;

type Sink =
  | { kind: "field"; name: string; chunks: Buffer[]; size: number }
  | { kind: "file"; file: UploadedFile; handle: FileHandle };

/** Parses a multipart body streamed from `body`; every part is read before it answers. */
export async function parseMultipart(
  body: ReadableStream<Uint8Array>,
  boundary: string,
  options: FormOptions,
): Promise<Form> {
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  // Every delimiter is CRLF "--" boundary; the body's first one has no CRLF before it, so one is put in front.
  const delimiter = Buffer.from(`\r\n--${boundary}`, "latin1");
  // No prototype: a field may be called anything, `__proto__` included.
  const fields: Record<string, string> = Object.create(null);
  let file: UploadedFile | null = null;
  let sink: Sink | null = null;
  let parts = 0;
  let received = 0;
  // Changed inside `step`, so the type is widened by hand (narrowing does not see through the closure).
  let state = "preamble" as "preamble" | "after-delimiter" | "headers" | "body" | "epilogue";
  let buf: Buffer = Buffer.from(CRLF);

  const discard = async () => {
    if (file) await rm(file.path, { force: true });
  };

  const reader = body.getReader();
  // Chunks already written out are collected as the body streams, not once tens of megabytes of them pile up.
  const reclaim = new Reclaimer();

  // Bytes of the current part's body: kept for a field, written for the file.
  const take = async (data: Buffer) => {
    if (data.length === 0 || sink === null) return;
    if (sink.kind === "field") {
      sink.size += data.length;
      if (sink.size > limits.fieldBytes) {
        throw badRequest(
          `body: form field ${JSON.stringify(sink.name)} is longer than ${limits.fieldBytes} bytes`,
        );
      }
      sink.chunks.push(Buffer.from(data));
      return;
    }
    sink.file.size += data.length;
    if (sink.file.size > limits.fileBytes) throw uploadTooLarge();
    let at = 0;
    while (at < data.length) {
      const { bytesWritten } = await sink.handle.write(data, at, data.length - at);
      at += bytesWritten;
    }
  };

  const closePart = async () => {
    const done = sink;
    sink = null;
    if (done === null) return;
    if (done.kind === "file") {
      await done.handle.close();
      return;
    }
    try {
      fields[done.name] = new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(done.chunks));
    } catch {
      throw badRequest(`body: form field ${JSON.stringify(done.name)} is not UTF-8 text`);
    }
  };

  const openPart = async (headerText: string) => {
    parts++;
    if (parts > limits.parts) throw badRequest(`body: the form has more than ${limits.parts} parts`);
    const headers = parseHeaders(headerText);
    const disposition = headers.get("content-disposition");
    if (disposition === undefined) throw badRequest("body: a form part has no Content-Disposition");
    const kind = mediaType(disposition.split(";")[0]);
    const params = parseParams(disposition.slice(disposition.indexOf(";") + 1));
    const name = params.get("name");
    if (kind !== "form-data" || name === undefined) {
      throw badRequest("body: every form part must be form-data with a name");
    }
    if (Object.hasOwn(fields, name) || file?.field === name) {
      throw badRequest(`body: form field ${JSON.stringify(name)} is sent twice`);
    }
    const fileName = params.get("filename*") ?? params.get("filename");
    if (fileName === undefined) {
      sink = { kind: "field", name, chunks: [], size: 0 };
      return;
    }
    if (name !== options.fileField) {
      throw badRequest(`body: ${JSON.stringify(name)} holds a file; send the file as "${options.fileField}"`);
    }
    if (file) throw badRequest("body: send one file per request");
    const base = fileName.split(/[\\/]/).pop() ?? "";
    const ext = path.extname(base);
    await mkdir(options.tmpDir, { recursive: true });
    const tmp = path.join(options.tmpDir, tempName("upload", /^\.[A-Za-z0-9]{1,8}$/.test(ext) ? ext : ""));
    file = { field: name, name: base, type: headers.get("content-type") ?? null, path: tmp, size: 0 };
    sink = { kind: "file", file, handle: await open(tmp, "wx") };
  };

  // Works through what is buffered; answers false when more bytes are needed.
  const step = async (): Promise<boolean> => {
    switch (state) {
      case "preamble":
      case "body": {
        const at = buf.indexOf(delimiter);
        if (at === -1) {
          // Everything but a tail that might begin a delimiter is the part's (the preamble's is dropped).
          const safe = buf.length - (delimiter.length - 1);
          if (safe > 0) {
            if (state === "body") await take(buf.subarray(0, safe));
            buf = buf.subarray(safe);
          }
          return false;
        }
        if (state === "body") {
          await take(buf.subarray(0, at));
          await closePart();
        }
        buf = buf.subarray(at + delimiter.length);
        state = "after-delimiter";
        return true;
      }
      case "after-delimiter": {
        if (buf.length < 2) return false;
        if (buf[0] === DASH && buf[1] === DASH) {
          state = "epilogue";
          buf = Buffer.alloc(0);
          return true;
        }
        // Transport padding (spaces, tabs) may follow a delimiter before its line ends.
        let i = 0;
        while (i < buf.length && (buf[i] === 0x20 || buf[i] === 0x09)) i++;
        if (i + 2 > buf.length) {
          if (i > 256) throw badRequest("body: malformed multipart/form-data (a delimiter line is too long)");
          return false;
        }
        if (buf[i] !== 0x0d || buf[i + 1] !== 0x0a) {
          throw badRequest("body: malformed multipart/form-data (a delimiter is not followed by a line end)");
        }
        buf = buf.subarray(i + 2);
        state = "headers";
        return true;
      }
      case "headers": {
        // A part may have no headers at all: its blank line comes at once.
        const end = buf.subarray(0, 2).equals(CRLF) ? -2 : buf.indexOf(HEADER_END);
        if (end === -1) {
          if (buf.length > limits.headerBytes) {
            throw badRequest(`body: a form part's headers are longer than ${limits.headerBytes} bytes`);
          }
          return false;
        }
        const text = end < 0 ? "" : buf.subarray(0, end).toString("utf8");
        buf = buf.subarray(end < 0 ? 2 : end + HEADER_END.length);
        await openPart(text);
        state = "body";
        return true;
      }
      case "epilogue":
        buf = Buffer.alloc(0);
        return false;
    }
  };

  try {
    for (;;) {
      while (await step()) {}
      const { done, value } = await reader.read().catch((err: unknown) => {
        // The client went away or its connection broke: nothing of this upload is kept.
        throw badRequest(`body: the upload stopped before its end (${errorMessage(err)})`);
      });
      if (done) break;
      received += value.byteLength;
      reclaim.add(value.byteLength);
      if (received > limits.bodyBytes) throw uploadTooLarge();
      if (state === "epilogue") continue;
      const chunk = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      if (buf.length === 0) {
        buf = chunk;
      } else if (
        (state === "body" || state === "preamble") &&
        buf.length < delimiter.length &&
        chunk.length >= delimiter.length
      ) {
        // Only a held-back tail waits, and the chunk is long enough to finish any delimiter begun in it: unless
        // one is, the tail is plain data and the chunk is taken as it is (no copy of every chunk of a large file).
        const seam = Buffer.concat([buf, chunk.subarray(0, delimiter.length - 1)]);
        const at = seam.indexOf(delimiter);
        if (at !== -1 && at < buf.length) {
          buf = Buffer.concat([buf, chunk]);
        } else {
          if (state === "body") await take(buf);
          buf = chunk;
        }
      } else {
        buf = Buffer.concat([buf, chunk]);
      }
    }
    if (state !== "epilogue") {
      throw badRequest("body: the multipart/form-data body ended before its closing boundary");
    }
    return { fields, file, discard };
  } catch (err) {
    await reader.cancel().catch(() => {});
    const pending = sink as Sink | null;
    if (pending?.kind === "file") await pending.handle.close().catch(() => {});
    await discard();
    throw err;
  } finally {
    reader.releaseLock();
  }
}

/** Header lines of a part, names lower case (a folded or nameless line is refused). */
function parseHeaders(text: string): Map<string, string> {
  const out = new Map<string, string>();
  if (text === "") return out;
  for (const line of text.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon <= 0) throw badRequest("body: malformed multipart/form-data (a part header has no name)");
    out.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return out;
}

/**
 * `; key=value; key="quoted \"value\""` parameters, keys lower case. A `filename*` in RFC 5987 form
 * (`UTF-8''percent-encoded`) is decoded; browsers percent-encode quotes and line ends in plain names.
 */
function parseParams(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let i = 0;
  while (i < text.length) {
    while (i < text.length && (text[i] === ";" || text[i] === " " || text[i] === "\t")) i++;
    const eq = text.indexOf("=", i);
    if (eq === -1) break;
    const key = text.slice(i, eq).trim().toLowerCase();
    i = eq + 1;
    let value = "";
    if (text[i] === '"') {
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === "\\" && i + 1 < text.length) i++;
        value += text[i];
        i++;
      }
      i++;
    } else {
      const end = text.indexOf(";", i);
      value = text.slice(i, end === -1 ? text.length : end).trim();
      i = end === -1 ? text.length : end;
    }
    if (key === "filename*") {
      const m = /^([\w-]+)'[^']*'(.*)$/.exec(value);
      if (m === null || m[1].toLowerCase() !== "utf-8") continue;
      try {
        value = decodeURIComponent(m[2]);
      } catch {
        continue;
      }
    }
    if (key && !out.has(key)) out.set(key, value);
  }
  return out;
}

/** The settings folder's `uploads/`, where file parts wait (the start-up sweep removes a crash's leftovers there). */
export const uploadsFolder = (home: string) => path.join(home, "uploads");

/** A request's multipart form with its file part in the uploads folder; 400 for a body that is not a form. */
export function readUploadForm(request: Request, home: string): Promise<Form> {
  if (!isMultipart(request.headers.get("content-type"))) {
    const type = mediaType(request.headers.get("content-type")) || "none";
    throw badRequest(`body: send JSON or multipart/form-data (got ${type.slice(0, 80)})`);
  }
  return readForm(request, { tmpDir: uploadsFolder(home), fileField: "file" });
}

/**
 * The form's file, or 400: a `file` field sent as text (no filename) is not a file, and a form without one has
 * nothing to keep.
 */
export function formFile(form: Form): UploadedFile {
  if (form.file) return form.file;
  if (Object.hasOwn(form.fields, "file")) {
    throw badRequest("file must be a file: send it in the form with a filename (multipart/form-data)");
  }
  throw badRequest("file: the form has no file part");
}

/** Moves an upload to `to` (a rename, or a copy when they lie on different disks). */
export async function moveUpload(file: UploadedFile, to: string): Promise<void> {
  try {
    await rename(file.path, to);
  } catch (err) {
    if (errorCode(err) !== "EXDEV") throw err;
    await copyFile(file.path, to);
  }
}
