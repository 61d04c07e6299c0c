// Readiness look-ups for targets: the node catalogue (`/object_info`), model folders (`/models`), and the server's
// version and jobs API — kept briefly per address by the look-ups of a process; a call that failed is never kept.
import { isObject } from "../../store/json-guards.ts";
import { type ComfyHttp, ComfyHttpError, createHttp, normalizeBase } from "./http.ts";

/** How long an answer is reused (ms). */
export const CACHE_MS = 15_000;

export interface LookupOptions {
  /** Whole-call timeout (ms); default 30000 for the catalogue, 10000 otherwise. */
  timeoutMs?: number;
  /** Bypass the cache (the answer still refreshes it). */
  fresh?: boolean;
  headers?: Record<string, string>;
}

export interface NodeInfo {
  input?: {
    required?: Record<string, unknown>;
    optional?: Record<string, unknown>;
    hidden?: Record<string, unknown>;
  };
  input_order?: Record<string, string[]>;
  output?: unknown[];
  output_node?: boolean;
  name?: string;
  display_name?: string;
  category?: string;
  [key: string]: unknown;
}

/** The look-ups of a process (its engines hold one): HTTP clients and answers kept per address. */
export interface ComfyLookups {
  /** The whole catalogue (`{class: info}`). */
  objectInfo(url: string, node?: undefined, opts?: LookupOptions): Promise<Record<string, NodeInfo>>;
  /** One class's info, or null when the server does not know the class. */
  objectInfo(url: string, node: string, opts?: LookupOptions): Promise<NodeInfo | null>;
  /** The model folder keys (`checkpoints`, `loras`, ...). */
  models(url: string, folder?: undefined, opts?: LookupOptions): Promise<string[]>;
  /** The files of one model folder (relative paths), or null when the server has no such folder. */
  models(url: string, folder: string, opts?: LookupOptions): Promise<string[] | null>;
  /** Version and capabilities of a server (system_stats plus a jobs API probe). */
  serverInfo(url: string, opts?: LookupOptions): Promise<ServerInfo>;
  /** Drop kept answers (one address, or all). */
  clear(url?: string): void;
  /** Close the HTTP clients the look-ups opened. */
  close(): Promise<void>;
}

export function createComfyLookups(): ComfyLookups {
  const clients = new Map<string, ComfyHttp>();
  const cache = new Map<string, { at: number; value: Promise<unknown> }>();

  function client(base: string, headers?: Record<string, string>): ComfyHttp {
    const key = `${base}\u0000${JSON.stringify(headers ?? {})}`;
    let c = clients.get(key);
    if (!c) {
      c = createHttp({ url: base, headers });
      clients.set(key, c);
    }
    return c;
  }

  function cached<T>(key: string, fresh: boolean | undefined, load: () => Promise<T>): Promise<T> {
    const hit = cache.get(key);
    if (!fresh && hit && Date.now() - hit.at < CACHE_MS) return hit.value as Promise<T>;
    const value = load();
    const entry = { at: Date.now(), value };
    cache.set(key, entry);
    // An unanswered (failed) call is forgotten, so the next look-up asks again.
    value.catch(() => {
      if (cache.get(key) === entry) cache.delete(key);
    });
    return value;
  }

  function objectInfo(url: string, node?: undefined, opts?: LookupOptions): Promise<Record<string, NodeInfo>>;
  function objectInfo(url: string, node: string, opts?: LookupOptions): Promise<NodeInfo | null>;
  function objectInfo(
    url: string,
    node?: string,
    opts: LookupOptions = {},
  ): Promise<Record<string, NodeInfo> | NodeInfo | null> {
    const base = normalizeBase(url);
    const route = node === undefined ? "/api/object_info" : `/api/object_info/${encodeURIComponent(node)}`;
    return cached(`${base}\u0000${route}`, opts.fresh, async () => {
      const a = await client(base, opts.headers).call("GET", route, undefined, {
        timeoutMs: opts.timeoutMs ?? 30_000,
      });
      const body = isObject(a.json) ? a.json : {};
      if (node === undefined) return body as Record<string, NodeInfo>;
      const info = body[node];
      return typeof info === "object" && info !== null ? (info as NodeInfo) : null;
    });
  }

  function models(url: string, folder?: undefined, opts?: LookupOptions): Promise<string[]>;
  function models(url: string, folder: string, opts?: LookupOptions): Promise<string[] | null>;
  function models(url: string, folder?: string, opts: LookupOptions = {}): Promise<string[] | null> {
    const base = normalizeBase(url);
    const route = folder === undefined ? "/api/models" : `/api/models/${encodeURIComponent(folder)}`;
    return cached(`${base}\u0000${route}`, opts.fresh, async () => {
      const a = await client(base, opts.headers).call("GET", route, undefined, {
        timeoutMs: opts.timeoutMs ?? 10_000,
        accept: [404],
      });
      if (a.status === 404) {
        if (folder === undefined) throw new ComfyHttpError("GET", base, route, 404, a.text);
        return null;
      }
      return Array.isArray(a.json) ? a.json.filter((x): x is string => typeof x === "string") : [];
    });
  }

  return {
    objectInfo,
    models,
    serverInfo(url, opts = {}) {
      const base = normalizeBase(url);
      return cached(`${base}\u0000server`, opts.fresh, () =>
        probeServer(client(base, opts.headers), opts.timeoutMs),
      );
    },
    clear(url) {
      if (url === undefined) {
        cache.clear();
        return;
      }
      const base = normalizeBase(url);
      for (const k of cache.keys()) if (k.startsWith(`${base}\u0000`)) cache.delete(k);
    },
    async close() {
      const all = [...clients.values()];
      clients.clear();
      await Promise.all(all.map((c) => c.close().catch(() => {})));
    },
  };
}

/** The choices of a combo input spec, in either encoding (legacy `[[...], {...}]` or `["COMBO", {options}]`). */
export function comboOptions(spec: unknown): string[] | null {
  if (!Array.isArray(spec)) return null;
  const [type, options] = spec;
  if (Array.isArray(type)) return type.map(String);
  if (type === "COMBO" && typeof options === "object" && options !== null) {
    const list = isObject(options) ? options.options : undefined;
    return Array.isArray(list) ? list.map(String) : [];
  }
  return null;
}

/** The choices of `input` on a class's info (required or optional), or null when it is not a combo. */
export function inputChoices(info: NodeInfo | null, input: string): string[] | null {
  if (!info?.input) return null;
  const spec = info.input.required?.[input] ?? info.input.optional?.[input];
  return comboOptions(spec);
}

export interface ServerInfo {
  /** `system.comfyui_version`, when the server reports it. */
  version: string | null;
  /** The newer jobs API (`/api/jobs`) answers. */
  jobsApi: boolean;
}

/** The probe itself, on a given client (the engine uses its own). */
export async function probeServer(http: ComfyHttp, timeoutMs = 10_000): Promise<ServerInfo> {
  const stats = await http.call("GET", "/api/system_stats", undefined, { timeoutMs });
  const sys = isObject(stats.json) && isObject(stats.json.system) ? stats.json.system : null;
  const version = typeof sys?.comfyui_version === "string" ? sys.comfyui_version : null;
  const jobs = await http.call("GET", "/api/jobs?limit=1", undefined, { timeoutMs, accept: [400, 404, 405] });
  return { version, jobsApi: jobs.status === 200 };
}
