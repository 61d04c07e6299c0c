// The function contract: what a route module in functions/ is (method, path, zod schemas, a framework-free handler)
// and the reply shapes a handler may return. It sits in functions/ because both the route modules and runtime/ use
// it and both may import functions/ (runtime -> functions -> lib), while lib/ stays free of HTTP shapes.
import type { z } from "zod";
import type { Services } from "../lib/context.ts";

export type Method = "GET" | "POST" | "PUT" | "DELETE";

/** What a handler receives besides its input: the services of the process and the request at hand. */
export interface Ctx extends Services {
  /** The web-standard request (headers, url, raw body for uploads). */
  request: Request;
  /** Address of the caller, when the transport knows it. */
  remoteAddress: string | undefined;
  signal: AbortSignal;
}

/** A reply with a status or headers other than plain 200 JSON. */
export class Reply {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Record<string, string>;
  constructor(status: number, body: unknown, headers: Record<string, string> = {}) {
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

/** A file to stream (Range, ETag and HEAD are handled by the runtime). */
export class FileReply {
  readonly path: string;
  readonly contentType: string | undefined;
  readonly headers: Record<string, string>;
  constructor(path: string, contentType?: string, headers: Record<string, string> = {}) {
    this.path = path;
    this.contentType = contentType;
    this.headers = headers;
  }
}

/**
 * A 200 JSON answer already serialised (a handler that keeps its answer's text between calls). The runtime still
 * applies the gzip rule; with a `cacheKey` it also keeps the bytes and the gzip of an unchanged text.
 */
export class JsonText {
  readonly text: string;
  readonly cacheKey: string | undefined;
  readonly headers: Record<string, string>;
  constructor(text: string, cacheKey?: string, headers: Record<string, string> = {}) {
    this.text = text;
    this.cacheKey = cacheKey;
    this.headers = headers;
  }
}

export type HandlerResult = unknown | Reply | FileReply | JsonText | Response;

export interface StudioFunction<S extends z.ZodType = z.ZodType> {
  method: Method;
  /** Path below `/studio` (and `/api/studio`), e.g. `/config`. */
  path: string;
  summary: string;
  /**
   * Input schema. GET and DELETE validate the query string, POST and PUT the JSON body.
   * Absent: the route takes no input (a body, if any, is ignored).
   */
  input?: S;
  /**
   * Raw body (uploads): a request whose Content-Type is not JSON reaches the handler unread, for it to read
   * `ctx.request` itself, with `input` undefined (declare the schema `.optional()`); a JSON body is read and
   * checked against `input` as on any route.
   */
  rawBody?: boolean;
  /** The multipart form a raw-body route takes, for the API document (its fields are read by the handler). */
  form?: z.ZodType;
  /**
   * A queue route (info, jobs, backends, settings, sdk): standalone it answers under /studio only, while the
   * content routes and server/stop also answer under /api/studio.
   */
  queue?: boolean;
  /** Routes only answered for callers on this machine (server/stop). */
  localOnly?: boolean;
  /**
   * Mounted at `<path>` and `/api<path>` instead of under /studio: the engine pass-throughs the contract names
   * at the server's root (`/models`, `/object_info/{node}`, `/queue`).
   */
  root?: boolean;
  handler(input: z.output<S>, ctx: Ctx): Promise<HandlerResult> | HandlerResult;
}

/** Identity helper that keeps the input type flowing from the schema to the handler. */
export function defineFunction<S extends z.ZodType>(fn: StudioFunction<S>): StudioFunction<S> {
  return fn;
}
