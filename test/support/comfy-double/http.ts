// HTTP routes of the double and the WebSocket upgrade (engines A.1–A.12, A.14, A.15): every route at `/x` and
// `/api/x`, jobs only under `/api/jobs` on the new profile, `/internal/*` unaliased, the origin guard, 413 on
// oversize bodies, 500 on unparseable JSON, empty-body 200s, and 404/405 like aiohttp.
import { randomUUID } from "node:crypto";
import { existsSync, readdirSync, statSync } from "node:fs";
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import os from "node:os";
import path from "node:path";
import type { Duplex } from "node:stream";
import type { WebSocketServer } from "ws";
import { MODEL_FOLDERS, NODE_DEFS, nodeInfo } from "./catalogue.ts";
import type { DoubleCore } from "./core.ts";
import { json, type Reply, upload, view } from "./files.ts";
import { jobsRoute } from "./jobs.ts";
import { pyInt, pyJson } from "./py.ts";
import { historyJson, queueItem } from "./queue.ts";
import { userdataRoute } from "./userdata.ts";

const EMPTY_OK: Reply = { status: 200 };
const NOT_FOUND: Reply = {
  status: 404,
  headers: { "Content-Type": "text/plain; charset=utf-8" },
  body: "404: Not Found",
};
const NOT_ALLOWED: Reply = {
  status: 405,
  headers: { "Content-Type": "text/plain; charset=utf-8" },
  body: "405: Method Not Allowed",
};
const SERVER_ERROR: Reply = {
  status: 500,
  headers: { "Content-Type": "text/plain; charset=utf-8" },
  body: "500 Internal Server Error\n\nServer got itself in trouble",
};

class BadJson extends Error {}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    throw new BadJson();
  }
}

function asObject(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function isLoopback(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** The default origin middleware: loopback Host + an Origin naming another host:port → 403. */
export function originBlocked(headers: IncomingHttpHeaders, profile: "old" | "new"): boolean {
  const host = headers.host;
  if (!host) return false;
  let hostname: string;
  try {
    hostname = new URL(`http://${host}`).hostname;
  } catch {
    return false;
  }
  if (!isLoopback(hostname)) return false;
  if (profile === "new" && headers["sec-fetch-site"] === "cross-site") return true;
  const origin = headers.origin;
  if (!origin) return false;
  let netloc = "";
  try {
    netloc = new URL(origin).host;
  } catch {
    netloc = "";
  }
  return host.toLowerCase() !== netloc.toLowerCase();
}

function segmentsOf(pathname: string): string[] {
  return pathname
    .split("/")
    .slice(1)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
}

function systemStats(core: DoubleCore): Record<string, unknown> {
  const system: Record<string, unknown> = {
    os: "posix",
    ram_total: os.totalmem(),
    ram_free: os.freemem(),
    comfyui_version: core.version,
    required_frontend_version: core.profile === "old" ? "1.27.10" : "1.39.2",
    installed_templates_version: "0.1.94",
    required_templates_version: "0.1.94",
    python_version: "3.12.3 (main, Aug 14 2025, 17:47:21) [GCC 13.3.0]",
    pytorch_version: "2.8.0+cpu",
    embedded_python: false,
    argv: ["main.py", "--cpu", "--listen", "127.0.0.1", "--port", "8188"],
  };
  if (core.profile === "new") {
    system.comfy_package_versions = { "comfyui-frontend-package": "1.39.2" };
    system.deploy_environment = "local";
  }
  return {
    system,
    devices: [
      {
        name: "cpu",
        type: "cpu",
        index: null,
        vram_total: os.totalmem(),
        vram_free: os.freemem(),
        torch_vram_total: os.totalmem(),
        torch_vram_free: os.freemem(),
      },
    ],
  };
}

function modelFolders(core: DoubleCore): string[] {
  return [...new Set([...MODEL_FOLDERS, ...Object.keys(core.models)])];
}

function listFiles(root: string): string[] {
  const out: { rel: string; mtime: number }[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.isFile())
        out.push({ rel: path.relative(root, full).split(path.sep).join("/"), mtime: statSync(full).mtimeMs });
    }
  };
  if (existsSync(root)) walk(root);
  return out.sort((a, b) => b.mtime - a.mtime).map((f) => f.rel);
}

type Handler = (p: string[]) => Promise<Reply> | Reply;

/** Dispatch one request (after body reading). */
async function route(
  core: DoubleCore,
  method: string,
  url: URL,
  body: Buffer,
  headers: IncomingHttpHeaders,
): Promise<Reply> {
  const seg = segmentsOf(url.pathname);
  const q = url.searchParams;
  const verb = method === "HEAD" ? "GET" : method;

  // Jobs API: literal /api/jobs (and /api/api/jobs) only, newer builds only.
  const jobsAt =
    seg[0] === "api" && seg[1] === "jobs"
      ? 2
      : seg[0] === "api" && seg[1] === "api" && seg[2] === "jobs"
        ? 3
        : 0;
  if (jobsAt > 0) {
    if (core.profile === "old") return NOT_FOUND;
    let parsed: unknown = null;
    if (verb === "POST" && body.length > 0) parsed = parseJson(body);
    return jobsRoute(core, verb, seg.slice(jobsAt), q, parsed) ?? NOT_ALLOWED;
  }
  if (seg[0] === "internal") return internal(core, verb, seg.slice(1), q);
  if (seg.length === 1 && seg[0] === "") {
    if (verb !== "GET") return NOT_ALLOWED;
    return {
      status: 200,
      headers: { "Content-Type": "text/html" },
      body: "<!doctype html><title>ComfyUI (test double)</title>",
    };
  }
  let s = seg;
  if (s[0] === "api") {
    if (s.length < 2 || s[1] === "internal") return NOT_FOUND;
    s = s.slice(1);
  }

  const table: [string, Partial<Record<string, Handler>>][] = [
    [
      "prompt",
      {
        GET: () => json({ exec_info: { queue_remaining: core.queue.remaining() } }),
        POST: () => {
          let parsed: unknown;
          try {
            parsed = parseJson(body);
          } catch {
            core.prompts.push({
              at: Date.now(),
              path: url.pathname,
              body: body.toString("utf8"),
              status: 500,
              response: null,
            });
            return SERVER_ERROR;
          }
          const r = core.submit(parsed, headers);
          core.prompts.push({
            at: Date.now(),
            path: url.pathname,
            body: parsed,
            status: r.status,
            response: typeof r.body === "string" && r.status !== 500 ? JSON.parse(r.body) : null,
            ...r.record,
          });
          return r;
        },
      },
    ],
    [
      "queue",
      {
        GET: () => {
          const withSecrets = core.profile === "old";
          const running = core.queue.running;
          return {
            status: 200,
            headers: { "Content-Type": "application/json; charset=utf-8" },
            body: pyJson({
              queue_running: running ? [queueItem(running, withSecrets)] : [],
              queue_pending: core.queue.pending().map((t) => queueItem(t, withSecrets)),
            }),
          };
        },
        POST: () => {
          const data = asObject(parseJson(body));
          if ("clear" in data && data.clear) core.queue.clearPending();
          if ("delete" in data && Array.isArray(data.delete))
            for (const id of data.delete) core.queue.deletePending(String(id));
          return EMPTY_OK;
        },
      },
    ],
    [
      "interrupt",
      {
        POST: () => {
          let data: Record<string, unknown> = {};
          try {
            data = asObject(JSON.parse(body.toString("utf8")));
          } catch {
            data = {};
          }
          core.interrupt(data.prompt_id);
          return EMPTY_OK;
        },
      },
    ],
    [
      "free",
      {
        POST: () => {
          const data = asObject(parseJson(body));
          if (data.free_memory) core.executor.requestFree();
          return EMPTY_OK;
        },
      },
    ],
    [
      "history",
      {
        GET: () => {
          const maxRaw = q.get("max_items");
          const max = maxRaw === null ? null : pyInt(maxRaw);
          let offset = q.get("offset") === null ? -1 : pyInt(q.get("offset"));
          const entries = [...core.queue.history.entries()];
          if (offset < 0 && max !== null) offset = entries.length - max;
          const out: Record<string, unknown> = {};
          let n = 0;
          for (const [i, [id, e]] of entries.entries()) {
            if (i < offset) continue;
            out[id] = historyJson(e);
            n += 1;
            if (max !== null && n >= max) break;
          }
          return {
            status: 200,
            headers: { "Content-Type": "application/json; charset=utf-8" },
            body: pyJson(out),
          };
        },
        POST: () => {
          const data = asObject(parseJson(body));
          if ("clear" in data && data.clear) core.queue.history.clear();
          if ("delete" in data && Array.isArray(data.delete))
            for (const id of data.delete) core.queue.history.delete(String(id));
          return EMPTY_OK;
        },
      },
    ],
    [
      "history/:id",
      {
        GET: ([id]) => {
          const e = core.queue.history.get(id);
          return {
            status: 200,
            headers: { "Content-Type": "application/json; charset=utf-8" },
            body: pyJson(e ? { [id]: historyJson(e) } : {}),
          };
        },
      },
    ],
    [
      "object_info",
      {
        GET: () => {
          const ctx = core.catalogue();
          const out: Record<string, unknown> = {};
          for (const name of Object.keys(NODE_DEFS)) {
            const def = core.def(name);
            if (def) out[name] = nodeInfo(name, def, ctx);
          }
          return json(out);
        },
      },
    ],
    [
      "object_info/:cls",
      {
        GET: ([cls]) => {
          const def = core.def(cls);
          return json(def ? { [cls]: nodeInfo(cls, def, core.catalogue()) } : {});
        },
      },
    ],
    ["models", { GET: () => json(modelFolders(core)) }],
    [
      "models/:folder",
      {
        GET: ([folder]) =>
          modelFolders(core).includes(folder)
            ? json([...(core.models[folder] ?? [])].sort())
            : { status: 404 },
      },
    ],
    [
      "experiment/models",
      {
        GET: () =>
          json(
            modelFolders(core).map((name) => ({
              name,
              folders: [path.join(core.dirs.base, "models", name)],
            })),
          ),
      },
    ],
    [
      "experiment/models/:folder",
      {
        GET: ([folder]) => {
          if (!modelFolders(core).includes(folder)) return { status: 404 };
          const t = core.now() / 1000;
          return json(
            [...(core.models[folder] ?? [])]
              .sort()
              .map((name) => ({ name, pathIndex: 0, modified: t, created: t, size: 0 })),
          );
        },
      },
    ],
    ["embeddings", { GET: () => json((core.models.embeddings ?? []).map((n) => n.replace(/\.[^.]+$/, ""))) }],
    ["extensions", { GET: () => json([]) }],
    ["features", { GET: () => json(core.features()) }],
    ["system_stats", { GET: () => json(systemStats(core)) }],
    ["view_metadata/:folder", { GET: () => ({ status: 404 }) }],
    [
      "view",
      {
        GET: () =>
          view(
            core.dirs,
            q,
            core.profile,
            method,
            typeof headers.range === "string" ? headers.range : undefined,
          ),
      },
    ],
    ["upload/image", { POST: () => doUpload(core, url, body, headers, false) }],
    ["upload/mask", { POST: () => doUpload(core, url, body, headers, true) }],
    [
      "ws",
      {
        GET: () => ({
          status: 400,
          headers: { "Content-Type": "text/plain; charset=utf-8" },
          body: 'No WebSocket UPGRADE hdr: None\n Can "Upgrade" only to "WebSocket".',
        }),
      },
    ],
  ];
  const user = [
    "userdata",
    "userdata/:f",
    "userdata/:f/move/:d",
    "v2/userdata",
    "users",
    "settings",
    "settings/:id",
  ];
  for (const pattern of user) {
    const h: Handler = async () => (await userdataRoute(core.dirs.user, verb, s, q, body)) ?? NOT_ALLOWED;
    table.push([pattern, { GET: h, POST: h, DELETE: h }]);
  }

  for (const [pattern, methods] of table) {
    const parts = pattern.split("/");
    if (parts.length !== s.length) continue;
    const params: string[] = [];
    let ok = true;
    for (let i = 0; i < parts.length; i++) {
      if (parts[i].startsWith(":")) {
        if (s[i] === "") ok = false;
        params.push(s[i]);
      } else if (parts[i] !== s[i]) ok = false;
    }
    if (!ok) continue;
    const h = methods[verb];
    if (!h) return NOT_ALLOWED;
    return h(params);
  }
  return NOT_FOUND;
}

async function doUpload(
  core: DoubleCore,
  url: URL,
  body: Buffer,
  headers: IncomingHttpHeaders,
  mask: boolean,
): Promise<Reply> {
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(body), {
      headers: { "content-type": String(headers["content-type"] ?? "") },
    }).formData();
  } catch {
    return { status: 400 };
  }
  const r = await upload(core.dirs, form, mask);
  if (r.record) core.uploads.push({ at: Date.now(), path: url.pathname, ...r.record });
  return r.reply;
}

function internal(core: DoubleCore, verb: string, seg: string[], _q: URLSearchParams): Reply {
  if (verb !== "GET") return NOT_ALLOWED;
  if (seg.length === 1 && seg[0] === "folder_paths") {
    return json(
      Object.fromEntries(modelFolders(core).map((f) => [f, [path.join(core.dirs.base, "models", f)]])),
    );
  }
  if (seg.length === 2 && seg[0] === "files") {
    const dir =
      seg[1] === "input"
        ? core.dirs.input
        : seg[1] === "output"
          ? core.dirs.output
          : seg[1] === "temp"
            ? core.dirs.temp
            : null;
    if (!dir) return { status: 400, body: "Invalid directory type" };
    return json(listFiles(dir));
  }
  if (seg.length === 1 && seg[0] === "logs") return json("");
  return NOT_FOUND;
}

function write(res: ServerResponse, reply: Reply, method: string): void {
  const body =
    reply.body === undefined
      ? Buffer.alloc(0)
      : Buffer.isBuffer(reply.body)
        ? reply.body
        : Buffer.from(reply.body);
  const headers: Record<string, string> = { Server: "Python/3.12 aiohttp/3.11.18", ...reply.headers };
  if (!headers["Content-Type"] && reply.status !== 204) headers["Content-Type"] = "application/octet-stream";
  if (!headers["Content-Length"] && reply.status !== 204) headers["Content-Length"] = String(body.length);
  res.writeHead(reply.status, headers);
  res.end(method === "HEAD" || reply.status === 204 ? undefined : body);
}

/** Read the body up to `limit` bytes; null when it is larger (→ 413). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > limit) over = true;
      else chunks.push(c);
    });
    req.on("end", () => resolve(over ? null : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

export function requestHandler(core: DoubleCore): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const method = req.method ?? "GET";
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const done = (reply: Reply) => {
      core.requests.push({ at: Date.now(), method, path: url.pathname + url.search, status: reply.status });
      if (!res.headersSent && !res.destroyed) write(res, reply, method);
    };
    (async () => {
      const delay = core.faults.takeSlow(url.pathname);
      if (delay > 0) await sleep(delay);
      if (originBlocked(req.headers, core.profile)) {
        req.resume();
        return done({ status: 403 });
      }
      const declared = Number(req.headers["content-length"] ?? 0);
      const tooBig = (n: number): Reply => ({
        status: 413,
        headers: { "Content-Type": "text/plain; charset=utf-8", Connection: "close" },
        body: `Maximum request body size ${core.maxUploadBytes} exceeded, actual body size ${n}`,
      });
      if (declared > core.maxUploadBytes) {
        req.resume();
        return done(tooBig(declared));
      }
      const body = await readBody(req, core.maxUploadBytes);
      if (body === null) return done(tooBig(declared));
      try {
        done(await route(core, method, url, body, req.headers));
      } catch (err) {
        if (!(err instanceof BadJson) && process.env.COMFY_DOUBLE_DEBUG) console.error(err);
        done(SERVER_ERROR);
      }
    })().catch(() => done(SERVER_ERROR));
  };
}

/** WebSocket upgrade at /ws and /api/ws (`clientId` query, minted when absent). */
export function upgradeHandler(core: DoubleCore, wss: WebSocketServer) {
  return (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const reject = (status: string) => {
      socket.write(`HTTP/1.1 ${status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
      socket.destroy();
    };
    if (url.pathname !== "/ws" && url.pathname !== "/api/ws") return reject("404 Not Found");
    if (originBlocked(req.headers, core.profile)) return reject("403 Forbidden");
    const clientId = url.searchParams.get("clientId") || randomUUID().replace(/-/g, "");
    wss.handleUpgrade(req, socket, head, (ws) => core.hub.attach(ws, clientId));
  };
}
