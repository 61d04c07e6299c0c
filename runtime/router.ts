// createRouter: mounts every function module at /studio/<path> and /api/studio/<path> with the API document, on any
// platform with fetch (no Node module here): how replies are written and what else is mounted is handed in.
import { type Context, Hono } from "hono";
import { type Ctx, FileReply, JsonText, type Method, Reply, type StudioFunction } from "../functions/fn.ts";
import type { Services } from "../lib/context.ts";
import { StudioError, shown } from "../lib/errors.ts";
import { parseInput } from "../lib/validate.ts";
import { checkUploadLength, isJsonRequest, readJsonBody } from "./body.ts";
import { errorReply } from "./errors.ts";
import { checkRequest, type GuardOptions, presentedToken, tokenCookie } from "./guard.ts";
import { buildOpenApi } from "./openapi.ts";

export const PREFIXES = ["/studio", "/api/studio"] as const;
const ROOT_PREFIXES = ["", "/api"] as const;

/**
 * Where a function answers: under /studio and /api/studio; the queue routes under /studio only (standalone, the
 * /api/studio aliases are for the content routes and server/stop); `root` routes at the root and /api.
 */
export const mountsOf = (fn: StudioFunction): readonly string[] =>
  fn.root ? ROOT_PREFIXES : fn.queue ? PREFIXES.slice(0, 1) : PREFIXES;

/** How a platform writes replies: JSON (gzipped when large, where it can) and files. */
export interface Responder {
  json(
    status: number,
    body: unknown,
    acceptEncoding: string | null,
    headers?: Record<string, string>,
  ): Promise<Response>;
  jsonText(
    status: number,
    text: string,
    acceptEncoding: string | null,
    headers?: Record<string, string>,
    cacheKey?: string,
  ): Promise<Response>;
  file(reply: FileReply, req: Request): Promise<Response>;
}

export interface RouterOptions {
  respond: Responder;
  /** Who may call: Host names, origins, token. */
  guard: GuardOptions;
  /** Mounts what the platform adds beside the routes (the page socket, the editor page), after the guard. */
  mount?: (app: Hono) => void;
}

export function createRouter(
  services: Services,
  functions: readonly StudioFunction[],
  opts: RouterOptions,
): Hono {
  const app = new Hono();
  const guard = opts.guard;
  // One line per request (refusals included): what a person watching the terminal needs to follow the page.
  app.use("*", async (c, next) => {
    const started = performance.now();
    await next();
    const ms = (performance.now() - started).toFixed(1);
    const where = c.req.path.length > 200 ? `${c.req.path.slice(0, 200)}…` : c.req.path;
    services.log.info(`${c.req.method} ${where} ${c.res.status} ${ms} ms`);
  });
  // Before any route (and /ws): a refused request never reaches a handler.
  app.use("*", async (c, next) => {
    const refusal = checkRequest(c.req.raw, guard, c.req.path === "/ws");
    if (refusal) return c.json({ error: refusal.error }, refusal.status, refusal.headers);
    await next();
    if (guard.token !== undefined && presentedToken(c.req.raw, new URL(c.req.url)).fromQuery) {
      c.res.headers.append("set-cookie", tokenCookie(guard.token));
    }
  });
  // Every mounted path with the methods it answers, so another method there is a 405, not a 404.
  const methodsByPath = new Map<string, Set<Method>>();
  for (const fn of functions) {
    for (const prefix of mountsOf(fn)) {
      const full = prefix + fn.path;
      const set = methodsByPath.get(full) ?? new Set<Method>();
      set.add(fn.method);
      methodsByPath.set(full, set);
      app.on(fn.method, full, (c) => runFunction(fn, c, services, opts.respond));
    }
  }

  let openapi: string | undefined;
  for (const prefix of PREFIXES) {
    app.get(`${prefix}/openapi.json`, (c) => {
      openapi ??= JSON.stringify(buildOpenApi(functions, services.version));
      return c.body(openapi, 200, { "content-type": "application/json; charset=utf-8" });
    });
  }
  for (const [full, methods] of methodsByPath) {
    const allow = [...methods, ...(methods.has("GET") ? ["HEAD"] : [])].join(", ");
    app.all(full, (c) =>
      c.json({ error: `${c.req.method} is not allowed on ${shown(c.req.path)}; use ${allow}` }, 405, {
        allow,
      }),
    );
  }

  opts.mount?.(app);

  app.notFound((c) => c.json({ error: `no route for ${c.req.method} ${shown(c.req.path)}` }, 404));
  app.onError((err, c) => {
    const { status, body } = errorReply(err, services.log, `${c.req.method} ${c.req.path}`);
    return c.json(body, status as 400);
  });
  return app;
}

function runFunction(
  fn: StudioFunction,
  c: Context,
  services: Services,
  respond: Responder,
): Promise<Response> {
  const params = c.req.param() as Record<string, string>;
  const call = {
    request: c.req.raw,
    remoteAddress: remoteOf(c),
    params,
    label: `${fn.method} ${c.req.path}`,
  };
  return answerRequest(fn, services, call, respond);
}

/** A request to one function: who sent it, the path parameters of its route, how a logged failure names it. */
export interface FunctionCall {
  request: Request;
  remoteAddress: string | undefined;
  params: Record<string, string>;
  label: string;
}

/**
 * One call of a function on a request, as every mounted route makes it: the local-only rule, the input read from
 * the query or the JSON body (path parameters merged) and parsed with the route's schema, the handler called with
 * a Ctx, and its result or refusal as a Response. Tests that call handlers directly go through here too.
 */
export async function answerRequest(
  fn: StudioFunction,
  services: Services,
  { request: req, remoteAddress, params, label }: FunctionCall,
  respond: Responder,
): Promise<Response> {
  try {
    if (fn.localOnly && !isLoopback(remoteAddress)) {
      throw new StudioError(403, `${fn.path.slice(1)} is only allowed from the machine the server runs on`);
    }
    let data: unknown;
    let where: string;
    // A raw-body route sent anything but JSON (an upload) gets the request unread and no input.
    const raw = fn.rawBody === true && fn.method !== "GET" && fn.method !== "DELETE" && !isJsonRequest(req);
    if (fn.method === "GET" || fn.method === "DELETE") {
      data = { ...Object.fromEntries(new URL(req.url).searchParams), ...params };
      where = "query";
    } else {
      if (raw) checkUploadLength(req);
      data = raw ? params : mergeParams(await readJsonBody(req), params);
      where = "body";
    }
    const input = fn.input && !raw ? parseInput(fn.input, data, where) : undefined;
    const ctx: Ctx = { ...services, request: req, remoteAddress, signal: req.signal };
    return await toResponse(await fn.handler(input, ctx), req, respond);
  } catch (err) {
    const { status, body } = errorReply(err, services.log, label);
    return respond.json(status, body, null);
  }
}

async function toResponse(result: unknown, req: Request, respond: Responder): Promise<Response> {
  if (result instanceof Response) return result;
  if (result instanceof FileReply) return respond.file(result, req);
  const accept = req.headers.get("accept-encoding");
  if (result instanceof Reply) return respond.json(result.status, result.body, accept, result.headers);
  if (result instanceof JsonText)
    return respond.jsonText(200, result.text, accept, result.headers, result.cacheKey);
  return respond.json(200, result ?? { ok: true }, accept);
}

function mergeParams(body: unknown, params: Record<string, string>): unknown {
  if (Object.keys(params).length === 0) return body;
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new StudioError(400, "body: must be a JSON object");
  }
  return { ...body, ...params };
}

function remoteOf(c: Context): string | undefined {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress;
}

/** Loopback peers only; a proxy header is never trusted for this. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const a = address.startsWith("::ffff:") ? address.slice(7) : address;
  return a === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a);
}
