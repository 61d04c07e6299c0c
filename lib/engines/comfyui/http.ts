// HTTP to one ComfyUI server (undici): JSON calls with timeouts, uploads, streamed downloads, and errors that say
// plainly when the server is down instead of hanging.
import { createWriteStream, openAsBlob } from "node:fs";
import { rename, rm, stat } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import type * as Undici from "undici";
import { errorField } from "../../store/json-guards.ts";
import { tempPath } from "../../store/temp-names.ts";
import { graphJson } from "../../targets/graph.ts";

/** The server could not be reached at all (refused, unknown host, connect timeout, reset). */
export class ComfyDownError extends Error {
  readonly address: string;
  readonly code: string;
  constructor(address: string, code: string, reason: string) {
    super(`ComfyUI at ${address} is down (${reason})`);
    this.name = "ComfyDownError";
    this.address = address;
    this.code = code;
  }
}

/** The server answered with a status the call did not expect. */
export class ComfyHttpError extends Error {
  readonly status: number;
  readonly body: string;
  readonly json: unknown;
  constructor(method: string, address: string, route: string, status: number, body: string) {
    const shown = body.trim().slice(0, 300);
    super(`ComfyUI at ${address}: ${method} ${route} answered ${status}${shown ? `: ${shown}` : ""}`);
    this.name = "ComfyHttpError";
    this.status = status;
    this.body = body;
    let json: unknown = null;
    try {
      json = body.trim() ? JSON.parse(body) : null;
    } catch {
      json = null;
    }
    this.json = json;
  }
}

/** The server took longer than the call allows (connected, but no complete answer). */
export class ComfyTimeoutError extends Error {
  constructor(method: string, address: string, route: string, ms: number) {
    super(`ComfyUI at ${address} did not answer ${method} ${route} within ${(ms / 1000).toFixed(1)} s`);
    this.name = "ComfyTimeoutError";
  }
}

export interface HttpOptions {
  /** Base address (`http://127.0.0.1:8188`, optionally with a path prefix). */
  url: string;
  /** Extra headers on every call (a reverse proxy's auth). */
  headers?: Record<string, string>;
  /** Connect timeout (ms); default 5000. */
  connectMs?: number;
  /** Default whole-call timeout for JSON calls (ms); default 30000. */
  timeoutMs?: number;
}

export interface CallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Statuses answered as data rather than thrown (2xx always are). */
  accept?: readonly number[];
}

export interface Answer {
  status: number;
  /** Parsed JSON, or null for an empty or non-JSON body. */
  json: unknown;
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

const DOWN_CODES: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host not found",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ECONNRESET: "connection reset",
  EPIPE: "connection reset",
  UND_ERR_CONNECT_TIMEOUT: "connection timed out",
  UND_ERR_SOCKET: "connection closed",
  UND_ERR_CLOSED: "connection closed",
};

function errorCode(err: unknown): string | null {
  const seen = new Set<unknown>();
  let e: unknown = err;
  while (typeof e === "object" && e !== null && !seen.has(e)) {
    seen.add(e);
    const code = errorField(e, "code");
    if (typeof code === "string" && Object.hasOwn(DOWN_CODES, code)) return code;
    const inner = errorField(e, "errors");
    if (Array.isArray(inner)) {
      for (const x of inner) {
        const c = errorCode(x);
        if (c) return c;
      }
    }
    e = errorField(e, "cause");
  }
  return null;
}

/** The down error for a transport failure, or null when `err` is something else. */
export function downError(address: string, err: unknown): ComfyDownError | null {
  if (err instanceof ComfyDownError) return err;
  const code = errorCode(err);
  return code ? new ComfyDownError(address, code, DOWN_CODES[code]) : null;
}

/** `http://host:port/prefix` without a trailing slash; throws for anything but http(s). */
export function normalizeBase(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`ComfyUI address '${url}' is not a URL`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:")
    throw new Error(`ComfyUI address '${url}' must be http:// or https://`);
  u.search = "";
  u.hash = "";
  return u.toString().replace(/\/+$/, "");
}

export interface ComfyHttp {
  readonly base: string;
  /** A JSON (or empty) answer; statuses outside 2xx and `accept` throw ComfyHttpError. */
  call(method: "GET" | "POST" | "HEAD", route: string, body?: unknown, opts?: CallOptions): Promise<Answer>;
  /** Multipart `/upload/image`: the file streamed from disk under `filename`. */
  upload(file: string, filename: string, fields: Record<string, string>, opts?: CallOptions): Promise<Answer>;
  /**
   * Size of the file `route` serves, from a one-byte ranged GET (`Content-Range` total, else `Content-Length`);
   * null when it answers 404 or anything unexpected. The body is never read.
   */
  size(route: string, opts?: CallOptions): Promise<number | null>;
  /** Stream `route` into `dest` (via a temporary beside it); answers the bytes written. */
  download(route: string, dest: string, opts?: CallOptions): Promise<number>;
  close(): Promise<void>;
}

/** A request's signal: its own time limit, and the caller's abort when there is one (`timeout` tells them apart). */
/** A body's JSON, or null when it is empty or not JSON (servers answer errors as text or HTML too). */
export function jsonOrNull(text: string): unknown {
  if (text.trim() === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export function signalFor(ms: number, outer?: AbortSignal): { signal: AbortSignal; timeout: AbortSignal } {
  const timeout = AbortSignal.timeout(ms);
  return { signal: outer ? AbortSignal.any([timeout, outer]) : timeout, timeout };
}

export function createHttp(opts: HttpOptions): ComfyHttp {
  const base = normalizeBase(opts.url);
  const address = base;
  const connectMs = opts.connectMs ?? 5000;
  const defaultTimeout = opts.timeoutMs ?? 30_000;
  // undici and the connection pool come with the first call: a start that never reaches this engine skips them.
  let loaded: Promise<{ u: typeof Undici; agent: Undici.Agent }> | undefined;
  const undici = () =>
    (loaded ??= import("undici").then((u) => ({
      u,
      agent: new u.Agent({ connect: { timeout: connectMs }, keepAliveTimeout: 4000 }),
    })));
  const extra = opts.headers ?? {};

  function fail(
    method: string,
    route: string,
    ms: number,
    timeout: AbortSignal,
    outer: AbortSignal | undefined,
    err: unknown,
  ): never {
    if (outer?.aborted) throw new Error("canceled");
    const down = downError(address, err);
    if (down) throw down;
    if (timeout.aborted) throw new ComfyTimeoutError(method, address, route, ms);
    throw err;
  }

  async function answer(
    method: string,
    route: string,
    res: Awaited<ReturnType<typeof Undici.request>>,
    accept: readonly number[] | undefined,
  ): Promise<Answer> {
    const text = await res.body.text();
    const status = res.statusCode;
    if ((status < 200 || status > 299) && !accept?.includes(status))
      throw new ComfyHttpError(method, address, route, status, text);
    return { status, json: jsonOrNull(text), text, headers: res.headers };
  }

  return {
    base,

    async call(method, route, body, o = {}) {
      const ms = o.timeoutMs ?? defaultTimeout;
      const { u, agent } = await undici();
      const { signal, timeout } = signalFor(ms, o.signal);
      try {
        const res = await u.request(base + route, {
          method,
          dispatcher: agent,
          signal,
          headers: {
            ...extra,
            accept: "application/json",
            ...(body !== undefined ? { "content-type": "application/json" } : {}),
          },
          // graphJson: a 64-bit seed (bigint) is written as a bare JSON number, exactly.
          body: body !== undefined ? graphJson(body) : undefined,
        });
        return await answer(method, route, res, o.accept);
      } catch (err) {
        if (err instanceof ComfyHttpError) throw err;
        fail(method, route, ms, timeout, o.signal, err);
      }
    },

    async upload(file, filename, fields, o = {}) {
      const ms = o.timeoutMs ?? 10 * 60_000;
      const { u, agent } = await undici();
      const { signal, timeout } = signalFor(ms, o.signal);
      const route = "/api/upload/image";
      try {
        const form = new u.FormData();
        form.set("image", await openAsBlob(file), filename);
        for (const [k, v] of Object.entries(fields)) form.set(k, v);
        const res = await u.request(base + route, {
          method: "POST",
          dispatcher: agent,
          signal,
          headers: { ...extra },
          body: form,
        });
        return await answer("POST", route, res, o.accept);
      } catch (err) {
        if (err instanceof ComfyHttpError) throw err;
        fail("POST", route, ms, timeout, o.signal, err);
      }
    },

    async size(route, o = {}) {
      const ms = o.timeoutMs ?? defaultTimeout;
      const { u, agent } = await undici();
      const { signal, timeout } = signalFor(ms, o.signal);
      try {
        const res = await u.request(base + route, {
          method: "GET",
          dispatcher: agent,
          signal,
          headers: { ...extra, range: "bytes=0-0" },
        });
        await res.body.dump({ limit: 65_536 }).catch(() => {});
        const range = res.headers["content-range"];
        const length = res.headers["content-length"];
        if (res.statusCode === 206 && typeof range === "string") {
          const total = Number(/\/(\d+)\s*$/.exec(range)?.[1]);
          return Number.isFinite(total) ? total : null;
        }
        if (res.statusCode === 200 && typeof length === "string") {
          const n = Number(length);
          return Number.isFinite(n) ? n : null;
        }
        return null;
      } catch (err) {
        fail("GET", route, ms, timeout, o.signal, err);
      }
    },

    async download(route, dest, o = {}) {
      const ms = o.timeoutMs ?? 30 * 60_000;
      const { u, agent } = await undici();
      const { signal, timeout } = signalFor(ms, o.signal);
      const tmp = tempPath(dest);
      try {
        const res = await u.request(base + route, {
          method: "GET",
          dispatcher: agent,
          signal,
          headers: extra,
        });
        if (res.statusCode !== 200) {
          const text = await res.body.text().catch(() => "");
          throw new ComfyHttpError("GET", address, route, res.statusCode, text);
        }
        await pipeline(res.body, createWriteStream(tmp));
        const { size } = await stat(tmp);
        await rename(tmp, dest);
        return size;
      } catch (err) {
        await rm(tmp, { force: true });
        if (err instanceof ComfyHttpError) throw err;
        fail("GET", route, ms, timeout, o.signal, err);
      }
    },

    close: async () => {
      if (loaded) await (await loaded).agent.close();
    },
  };
}

/** `?a=1&b=2` from the defined entries of `q`. */
export function query(q: Record<string, string | number | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined) p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : "";
}
