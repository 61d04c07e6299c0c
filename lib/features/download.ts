// One model file fetched over HTTP into the engine's folder: resumed from `.<name>.part` with a Range request,
// checked against its size and its SHA-256 when the record or the server (Hugging Face's x-linked-etag) gives one,
// then renamed into place in one step, so the file's own name never holds a partial or unchecked download.
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { finished } from "node:stream/promises";
import type { Services } from "../context.ts";
import { syncFile, syncFolder } from "../store/atomic.ts";

type Env = Services["env"];

/** A failure; `kept` says a partial download stays beside the file for the next install to resume. */
export class DownloadError extends Error {
  readonly kept: boolean;
  constructor(message: string, kept: boolean) {
    super(message);
    this.kept = kept;
  }
}

const HF = /^https:\/\/huggingface\.co\//;

/** The address a recorded one is fetched from: Hugging Face addresses go to HF_ENDPOINT when it is set (a mirror). */
export function downloadAddress(url: string, env: Env): string {
  const endpoint = env.HF_ENDPOINT?.trim();
  if (!endpoint || !HF.test(url)) return url;
  return `${endpoint.replace(/\/+$/, "")}/${url.replace(HF, "")}`;
}

/** The token goes to Hugging Face (or the mirror standing in for it) only, never to a host it redirects to. */
function takesToken(url: string, env: Env): boolean {
  let host: string;
  try {
    host = new URL(url).host;
  } catch {
    return false;
  }
  if (host === "huggingface.co") return true;
  const endpoint = env.HF_ENDPOINT?.trim();
  try {
    return !!endpoint && new URL(endpoint).host === host;
  } catch {
    return false;
  }
}

export interface Fetch {
  env: Env;
  token: string | null;
  signal?: AbortSignal;
}

interface Linked {
  sha256?: string;
  size?: number;
}

type Response = Awaited<ReturnType<typeof import("undici").request>>;

function header(res: Response, name: string): string | undefined {
  const v = res.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function linkedOf(res: Response, into: Linked): void {
  const etag = header(res, "x-linked-etag")?.replace(/^W\//, "").replace(/"/g, "").trim();
  if (etag && /^[0-9a-f]{64}$/i.test(etag)) into.sha256 = etag.toLowerCase();
  const size = Number(header(res, "x-linked-size"));
  if (Number.isSafeInteger(size) && size >= 0) into.size = size;
}

/** The answer at `url` after following redirects by hand (the first hop carries Hugging Face's file facts). */
async function openUrl(
  url: string,
  method: "GET" | "HEAD",
  headers: Record<string, string>,
  f: Fetch,
): Promise<{ res: Response; linked: Linked }> {
  const { request } = await import("undici");
  const linked: Linked = {};
  let current = url;
  for (let hop = 0; hop < 8; hop++) {
    const h: Record<string, string> = { ...headers, "user-agent": "episode-studio" };
    if (f.token && takesToken(current, f.env)) h.authorization = `Bearer ${f.token}`;
    const res = await request(current, {
      method,
      headers: h,
      ...(f.signal ? { signal: f.signal } : {}),
      headersTimeout: 30_000,
      bodyTimeout: 60_000,
    });
    linkedOf(res, linked);
    const location = header(res, "location");
    if (res.statusCode >= 300 && res.statusCode < 400 && location) {
      await res.body.dump();
      current = new URL(location, current).href;
      continue;
    }
    return { res, linked };
  }
  throw new DownloadError("the download server redirected more than 8 times", true);
}

/** The size the server gives for a file (HEAD), or null when it does not say or does not answer. */
export async function remoteSize(url: string, f: Fetch): Promise<number | null> {
  try {
    const { res, linked } = await openUrl(url, "HEAD", {}, f);
    await res.body.dump();
    if (res.statusCode !== 200) return null;
    if (linked.size !== undefined) return linked.size;
    const n = Number(header(res, "content-length"));
    return Number.isSafeInteger(n) && n >= 0 ? n : null;
  } catch {
    return null;
  }
}

const sizeOf = (file: string) =>
  stat(file).then(
    (s) => s.size,
    () => 0,
  );

async function sha256Of(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

export interface DownloadOptions extends Fetch {
  /** The address to fetch (already through downloadAddress). */
  url: string;
  dest: string;
  sha256?: string;
  size?: number;
  onProgress?(bytes: number, total: number | null): void;
}

export interface Downloaded {
  bytes: number;
  /** Bytes that were already there from an earlier, stopped download. */
  resumed: number;
  checked: "sha256" | "size" | "none";
}

export const partPath = (dest: string) => path.join(path.dirname(dest), `.${path.basename(dest)}.part`);

function refusal(status: number): DownloadError {
  if (status === 401 || status === 403)
    return new DownloadError(
      `the download server refused the file (${status}): it may need a Hugging Face token (hf_token in the settings) or its licence accepted on its page`,
      true,
    );
  if (status === 404) return new DownloadError("the download server has no such file (404)", true);
  return new DownloadError(`the download server answered ${status}`, true);
}

export async function downloadFile(o: DownloadOptions): Promise<Downloaded> {
  const dir = path.dirname(o.dest);
  await mkdir(dir, { recursive: true });
  const part = partPath(o.dest);
  let have = await sizeOf(part);
  const resumedFrom = have;
  let total: number | null = o.size ?? null;
  let linked: Linked = {};
  for (let attempt = 0; ; attempt++) {
    if (attempt > 1) throw new DownloadError("the download server does not resume this file", true);
    const opened = await openUrl(o.url, "GET", have > 0 ? { range: `bytes=${have}-` } : {}, o);
    const { res } = opened;
    linked = opened.linked;
    const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(header(res, "content-range") ?? "");
    if (res.statusCode === 416 && have > 0) {
      await res.body.dump();
      const whole = Number(
        /\/(\d+)$/.exec(header(res, "content-range") ?? "")?.[1] ?? linked.size ?? Number.NaN,
      );
      if (whole === have) {
        total ??= whole;
        break; // the part already holds the whole file
      }
      await rm(part, { force: true });
      have = 0;
      continue;
    }
    if (res.statusCode !== 200 && res.statusCode !== 206) {
      await res.body.dump();
      throw refusal(res.statusCode);
    }
    let start = 0;
    if (res.statusCode === 206) {
      if (!range || Number(range[1]) !== have) {
        await res.body.dump();
        await rm(part, { force: true });
        have = 0;
        continue;
      }
      start = have;
      if (range[3] !== "*") total ??= Number(range[3]);
    } else {
      const length = Number(header(res, "content-length"));
      if (!header(res, "content-encoding") && Number.isSafeInteger(length)) total ??= length;
    }
    total ??= linked.size ?? null;
    const out = createWriteStream(part, { flags: start > 0 ? "a" : "w" });
    let bytes = start;
    try {
      for await (const chunk of res.body) {
        const buf = chunk as Buffer;
        bytes += buf.length;
        if (total !== null && bytes > total)
          throw new DownloadError(`the server sent more than ${total} bytes`, false);
        if (!out.write(buf)) await new Promise<void>((resolve) => out.once("drain", resolve));
        o.onProgress?.(bytes, total);
      }
    } catch (err) {
      out.end();
      await finished(out).catch(() => undefined);
      if (err instanceof DownloadError && !err.kept) await rm(part, { force: true });
      if (o.signal?.aborted) throw err;
      if (err instanceof DownloadError) throw err;
      throw new DownloadError(
        `the download stopped at ${bytes} bytes${total !== null ? ` of ${total}` : ""}; installing again resumes it`,
        true,
      );
    }
    out.end();
    await finished(out);
    break;
  }
  const size = await sizeOf(part);
  if (total !== null && size < total)
    throw new DownloadError(
      `the download stopped at ${size} of ${total} bytes; installing again resumes it`,
      true,
    );
  if (total !== null && size > total) {
    await rm(part, { force: true });
    throw new DownloadError(`the file is ${size} bytes where ${total} were expected; it was removed`, false);
  }
  const want = o.sha256 ?? linked.sha256;
  if (want) {
    const got = await sha256Of(part);
    if (got !== want) {
      await rm(part, { force: true });
      throw new DownloadError(
        `checksum mismatch: SHA-256 ${got} where ${want} was expected; the file was removed`,
        false,
      );
    }
  }
  await syncFile(part);
  await rename(part, o.dest);
  await syncFolder(dir);
  return { bytes: size, resumed: resumedFrom, checked: want ? "sha256" : total !== null ? "size" : "none" };
}
