// HTTP to one Comfy API v2 server (undici): the bearer key on every call to its own origin (never on redirects to
// signed storage URLs), JSON calls with timeouts, multipart asset uploads, streamed downloads, the SSE stream,
// and errors named for a person (refused key, credits, rate limits, server down).
import { createWriteStream, openAsBlob } from "node:fs";
import { rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import type * as Undici from "undici";
import { tempPath } from "../../store/temp-names.ts";
import { graphJson } from "../../targets/graph.ts";
import { ComfyTimeoutError, downError, jsonOrNull, normalizeBase, signalFor } from "../comfyui/http.ts";
import {
  ComfyV2DownError,
  ComfyV2Error,
  describeFailure,
  readEnvelope,
  retryAfterSeconds,
} from "./errors.ts";

export interface V2HttpOptions {
  /** Base address (`https://cloud.comfy.org`); a trailing `/api/v2` is dropped. */
  url: string;
  apiKey: string | null;
  /** Who the server is in messages (`Comfy Cloud`, `deployment 'ltx2'`). */
  label: string;
  connectMs?: number;
  timeoutMs?: number;
}

export interface V2CallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Statuses answered as data rather than thrown (2xx always are). */
  accept?: readonly number[];
  headers?: Record<string, string>;
}

export interface V2Answer {
  status: number;
  json: unknown;
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface V2Stream {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: AsyncIterable<Buffer | string>;
  close(): void;
}

export interface V2Http {
  readonly base: string;
  readonly label: string;
  /** `route` is a path under the base (`/api/v2/jobs`) or an absolute URL the server handed out. */
  call(
    method: "GET" | "POST" | "HEAD" | "DELETE",
    route: string,
    body?: unknown,
    opts?: V2CallOptions,
  ): Promise<V2Answer>;
  /** Multipart `POST /api/v2/assets`: `file` streamed from disk plus the text fields (repeated for arrays). */
  upload(file: string, fields: Record<string, string | string[]>, opts?: V2CallOptions): Promise<V2Answer>;
  /** Stream `route` into `dest` (via a temporary beside it), following redirects (without the key off-origin). */
  download(route: string, dest: string, opts?: V2CallOptions): Promise<number>;
  /** Open an SSE stream; non-2xx answers throw like `call`. */
  events(route: string, opts?: V2CallOptions): Promise<V2Stream>;
  close(): Promise<void>;
}

/** `https://host[:port][/prefix]` without a trailing slash or `/api/v2`. */
export function v2Base(url: string): string {
  return normalizeBase(url).replace(/\/api\/v2$/, "");
}

export function createV2Http(opts: V2HttpOptions): V2Http {
  const base = v2Base(opts.url);
  const origin = new URL(base).origin;
  const label = opts.label;
  const connectMs = opts.connectMs ?? 5000;
  const defaultTimeout = opts.timeoutMs ?? 30_000;
  // undici and the connection pool come with the first call: a start that never reaches this engine skips them.
  let loaded: Promise<{ u: typeof Undici; agent: Undici.Agent }> | undefined;
  const undici = () =>
    (loaded ??= import("undici").then((u) => ({
      u,
      agent: new u.Agent({ connect: { timeout: connectMs }, keepAliveTimeout: 4000 }),
    })));

  const urlOf = (route: string): string => (/^https?:\/\//i.test(route) ? route : base + route);
  /** The key goes only to the configured origin. */
  const auth = (url: string): Record<string, string> =>
    opts.apiKey && new URL(url).origin === origin ? { authorization: `Bearer ${opts.apiKey}` } : {};

  function fail(
    method: string,
    route: string,
    ms: number,
    timeout: AbortSignal,
    outer: AbortSignal | undefined,
    err: unknown,
  ): never {
    if (err instanceof ComfyV2Error || err instanceof ComfyV2DownError) throw err;
    if (outer?.aborted) throw new Error("canceled");
    const down = downError(base, err);
    if (down) throw new ComfyV2DownError(label, base, down.code, DOWN_REASON[down.code] ?? down.code);
    if (timeout.aborted) throw new ComfyTimeoutError(method, `${label} at ${base}`, route, ms);
    throw err;
  }

  function refuse(
    method: string,
    route: string,
    status: number,
    text: string,
    headers: V2Answer["headers"],
  ): ComfyV2Error {
    const retry = retryAfterSeconds(headers["retry-after"]);
    const shown = route.startsWith(base) ? route.slice(base.length) : route;
    const message = describeFailure(label, `${method} ${shown.split("?")[0]}`, status, text, retry);
    return new ComfyV2Error(message, status, readEnvelope(text), retry);
  }

  async function answer(
    method: string,
    route: string,
    res: Awaited<ReturnType<typeof Undici.request>>,
    accept?: readonly number[],
  ): Promise<V2Answer> {
    const text = method === "HEAD" ? "" : await res.body.text();
    if (method === "HEAD") await res.body.dump().catch(() => {});
    const status = res.statusCode;
    if ((status < 200 || status > 299) && !accept?.includes(status))
      throw refuse(method, route, status, text, res.headers);
    return { status, json: jsonOrNull(text), text, headers: res.headers };
  }

  return {
    base,
    label,

    async call(method, route, body, o = {}) {
      const ms = o.timeoutMs ?? defaultTimeout;
      const { u, agent } = await undici();
      const { signal, timeout } = signalFor(ms, o.signal);
      const url = urlOf(route);
      try {
        const res = await u.request(url, {
          method,
          dispatcher: agent,
          signal,
          headers: {
            ...auth(url),
            accept: "application/json",
            ...(body !== undefined ? { "content-type": "application/json" } : {}),
            ...o.headers,
          },
          // graphJson: a 64-bit seed (bigint) is written as a bare JSON number, exactly.
          body: body !== undefined ? graphJson(body) : undefined,
        });
        return await answer(method, route, res, o.accept);
      } catch (err) {
        fail(method, route, ms, timeout, o.signal, err);
      }
    },

    async upload(file, fields, o = {}) {
      const ms = o.timeoutMs ?? 10 * 60_000;
      const { u, agent } = await undici();
      const { signal, timeout } = signalFor(ms, o.signal);
      const route = "/api/v2/assets";
      try {
        const form = new u.FormData();
        for (const [k, v] of Object.entries(fields))
          for (const x of Array.isArray(v) ? v : [v]) form.append(k, x);
        form.set("file", await openAsBlob(file), path.basename(String(fields.file_path ?? file)));
        const res = await u.request(base + route, {
          method: "POST",
          dispatcher: agent,
          signal,
          headers: { ...auth(base), accept: "application/json", ...o.headers },
          body: form,
        });
        return await answer("POST", route, res, o.accept);
      } catch (err) {
        fail("POST", route, ms, timeout, o.signal, err);
      }
    },

    async download(route, dest, o = {}) {
      const ms = o.timeoutMs ?? 30 * 60_000;
      const { u, agent } = await undici();
      const { signal, timeout } = signalFor(ms, o.signal);
      const tmp = tempPath(dest);
      try {
        let url = urlOf(route);
        for (let hop = 0; ; hop++) {
          const res = await u.request(url, {
            method: "GET",
            dispatcher: agent,
            signal,
            headers: { ...auth(url), ...o.headers },
          });
          const location = res.headers.location;
          if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === "string" && hop < 5) {
            await res.body.dump().catch(() => {});
            url = new URL(location, url).toString();
            continue;
          }
          if (res.statusCode !== 200) {
            const text = await res.body.text().catch(() => "");
            throw refuse("GET", url, res.statusCode, text, res.headers);
          }
          await pipeline(res.body, createWriteStream(tmp));
          break;
        }
        const { size } = await stat(tmp);
        await rename(tmp, dest);
        return size;
      } catch (err) {
        await rm(tmp, { force: true });
        fail("GET", route, ms, timeout, o.signal, err);
      }
    },

    async events(route, o = {}) {
      const { u, agent } = await undici();
      const ms = o.timeoutMs ?? defaultTimeout;
      const local = new AbortController();
      const signal = o.signal ? AbortSignal.any([local.signal, o.signal]) : local.signal;
      // Only the answer's head is timed: the stream itself lives as long as the job.
      const timer = setTimeout(() => local.abort(), ms);
      const url = urlOf(route);
      try {
        const res = await u.request(url, {
          method: "GET",
          dispatcher: agent,
          signal,
          headers: { ...auth(url), accept: "text/event-stream", ...o.headers },
        });
        clearTimeout(timer);
        if (res.statusCode < 200 || res.statusCode > 299) {
          const text = await res.body.text().catch(() => "");
          throw refuse("GET", route, res.statusCode, text, res.headers);
        }
        res.body.setEncoding("utf8");
        return { status: res.statusCode, headers: res.headers, body: res.body, close: () => local.abort() };
      } catch (err) {
        clearTimeout(timer);
        fail("GET", route, ms, local.signal, o.signal, err);
      }
    },

    close: async () => {
      if (loaded) await (await loaded).agent.close();
    },
  };
}

const DOWN_REASON: Record<string, string> = {
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
