// Input files staged on ComfyUI content-addressed as `studio/<sha1>.<ext>`: hashed by streaming, uploaded once
// per server (remembered by the engine of that server, checked with a HEAD on /view), reused when the same bytes
// are already there.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { isObject } from "../../store/json-guards.ts";
import type { ComfyHttp } from "./http.ts";
import { query } from "./http.ts";

export const INPUT_SUBFOLDER = "studio";

/** How long a name known to be on a server is trusted without asking again (ms). */
const KNOWN_MS = 10 * 60_000;

export async function sha1File(file: string): Promise<string> {
  const hash = createHash("sha1");
  await pipeline(createReadStream(file), hash);
  return hash.digest("hex");
}

/** `<sha1>.<ext>` of a file (extension lower-cased; `bin` when there is none). */
export async function contentFileName(file: string): Promise<string> {
  const ext =
    path
      .extname(file)
      .slice(1)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, "") || "bin";
  return `${await sha1File(file)}.${ext}`;
}

/** The name a graph references for `file` once prepared: `studio/<sha1>.<ext>`. */
export async function inputName(file: string): Promise<string> {
  return `${INPUT_SUBFOLDER}/${await contentFileName(file)}`;
}

export interface UploadResult {
  /** `studio/<sha1>.<ext>` (as the server stored it). */
  name: string;
  uploaded: boolean;
  bytes: number;
}

/** What one server is known to hold: stored name → its size and when that was last seen. */
export type UploadMemory = Map<string, { size: number; at: number }>;

/**
 * Whether the server already holds `studio/<filename>` with `size` bytes: a HEAD on /view, and when that is not
 * conclusive (no or zero length for a non-empty file) a one-byte ranged GET. Any doubt → false (upload again).
 */
async function present(
  http: ComfyHttp,
  filename: string,
  size: number,
  signal?: AbortSignal,
): Promise<boolean> {
  const route = `/api/view${query({ filename, subfolder: INPUT_SUBFOLDER, type: "input" })}`;
  try {
    const a = await http.call("HEAD", route, undefined, {
      accept: [400, 403, 404, 405, 501],
      timeoutMs: 10_000,
      signal,
    });
    if (a.status === 404) return false;
    const len = a.status === 200 ? Number(a.headers["content-length"]) : Number.NaN;
    if (Number.isFinite(len) && (len > 0 || size === 0)) return len === size;
    return (await http.size(route, { timeoutMs: 10_000, signal })) === size;
  } catch (err) {
    if (signal?.aborted) throw err;
    return false;
  }
}

/** Stage one input file on the server (or find it there already). */
export async function stageInput(
  http: ComfyHttp,
  mem: UploadMemory,
  file: string,
  signal?: AbortSignal,
): Promise<UploadResult> {
  const { size } = await stat(file);
  const filename = await contentFileName(file);
  const wanted = `${INPUT_SUBFOLDER}/${filename}`;
  const seen = mem.get(wanted);
  if (seen && seen.size === size && Date.now() - seen.at < KNOWN_MS)
    return { name: wanted, uploaded: false, bytes: size };
  if (await present(http, filename, size, signal)) {
    mem.set(wanted, { size, at: Date.now() });
    return { name: wanted, uploaded: false, bytes: size };
  }
  const a = await http.upload(
    file,
    filename,
    { subfolder: INPUT_SUBFOLDER, type: "input", overwrite: "true" },
    { signal },
  );
  const body = isObject(a.json) ? a.json : {};
  const name = typeof body.name === "string" && body.name !== "" ? body.name : filename;
  const sub = typeof body.subfolder === "string" ? body.subfolder : INPUT_SUBFOLDER;
  const stored = sub ? `${sub}/${name}` : name;
  mem.set(stored, { size, at: Date.now() });
  return { name: stored, uploaded: true, bytes: size };
}
