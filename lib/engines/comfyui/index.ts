// The ComfyUI engine (native API, backend `local`): uploads inputs content-addressed, submits the job's API-format
// graph under a UUID prompt id, follows it over the websocket with polling as a safety net, downloads its outputs.
import { randomUUID } from "node:crypto";
import { mkdir, stat } from "node:fs/promises";
import path from "node:path";
import { type Logger, silentLogger } from "../../context.ts";
import { isObject } from "../../store/json-guards.ts";
import type { ApiGraph, Engine, EngineJob, EngineOutputs, Prepared, RunHooks, Submitted } from "../types.ts";
import { promptRefusal } from "./errors.ts";
import { type Answer, ComfyDownError, type ComfyHttp, createHttp, downError, query } from "./http.ts";
import {
  historyState,
  localName,
  type OutputItem,
  outputItems,
  pick,
  queuePlace,
  reportedFrames,
} from "./outputs.ts";
import { probeServer, type ServerInfo } from "./readiness.ts";
import { stageInput, type UploadMemory } from "./uploads.ts";
import { canceled, createWatch, DEFAULT_WATCH_TIMING, type Watch, type WatchTiming } from "./watch.ts";
import { type ComfySocket, createSocket } from "./ws.ts";

export { ComfyDownError, ComfyHttpError, ComfyTimeoutError } from "./http.ts";
export { type ComfyLookups, comboOptions, createComfyLookups, inputChoices } from "./readiness.ts";
export { inputName } from "./uploads.ts";
export { RESTARTED } from "./watch.ts";

export interface ComfyTiming extends WatchTiming {
  /** Connect timeout of HTTP and the websocket handshake (ms); default 5000. */
  connectMs: number;
  /** Timeout of ordinary JSON calls (ms); default 30000. */
  timeoutMs: number;
  /** Websocket ping interval (ms), 0 = off; default 15000. */
  pingMs: number;
  /** Websocket reconnect delays, first and longest (ms); default [200, 5000]. */
  retryMs: readonly [number, number];
  /** Keep an unused websocket this long (ms); default 30000. */
  idleMs: number;
}

export interface ComfyEngineOptions {
  /** Backend name recorded for jobs: `local` (or `deployment:<target>` for another native server). */
  backend?: string;
  url: string;
  log?: Logger;
  /** Extra headers on HTTP and the websocket upgrade (a reverse proxy's auth). */
  headers?: Record<string, string>;
  /** The websocket's clientId; default a fresh 32-hex id per engine. */
  clientId?: string;
  timing?: Partial<ComfyTiming>;
}

export interface ComfyEngine extends Engine {
  readonly url: string;
  readonly clientId: string;
  /** The engine's websocket (tests drop it; readiness reads `connected`). */
  readonly socket: ComfySocket;
  /** Server version and whether it has the jobs API (probed once, then remembered). */
  server(): Promise<ServerInfo>;
  /** Close the websocket and HTTP connections. */
  close(): Promise<void>;
}

const DEFAULT_TIMING: ComfyTiming = {
  ...DEFAULT_WATCH_TIMING,
  connectMs: 5000,
  timeoutMs: 30_000,
  pingMs: 15_000,
  retryMs: [200, 5000],
  idleMs: 30_000,
};

/** A watch nobody collects is dropped this long after submit. */
const FORGET_MS = 6 * 60 * 60_000;

/** Codes of a request that never reached the server (safe to report as not submitted). */
const NEVER_SENT = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** The job's graph checked and with input paths replaced by their uploaded names. */
export function graphFor(job: Pick<EngineJob, "graph" | "inputs" | "target">, prepared: Prepared): ApiGraph {
  const graph: unknown = job.graph;
  if (!isObject(graph))
    throw new Error(`the job for target '${job.target}' carries no ComfyUI graph (EngineJob.graph is empty)`);
  if (Array.isArray(graph.nodes) && "links" in graph)
    throw new Error(
      `the graph for target '${job.target}' is in the editor's UI format; ComfyUI runs only the API format`,
    );
  const byPath = new Map<string, string>();
  for (const [role, file] of Object.entries(job.inputs)) {
    const name = prepared.inputs[role];
    if (name) byPath.set(path.resolve(file), name);
  }
  const swap = (v: unknown): unknown => {
    if (typeof v === "string" && path.isAbsolute(v)) return byPath.get(path.resolve(v)) ?? v;
    return v;
  };
  const out: ApiGraph = {};
  for (const [id, node] of Object.entries(graph)) {
    if (!isObject(node) || typeof node.class_type !== "string" || node.class_type === "")
      throw new Error(`node #${id} of the graph for target '${job.target}' has no class_type`);
    const inputs = isObject(node.inputs) ? node.inputs : {};
    const copy: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(inputs)) copy[k] = swap(v);
    out[id] = { ...node, class_type: node.class_type, inputs: copy };
  }
  return out;
}

export function createComfyEngine(opts: ComfyEngineOptions): ComfyEngine {
  const timing: ComfyTiming = { ...DEFAULT_TIMING, ...opts.timing };
  const log = opts.log ?? silentLogger;
  const http: ComfyHttp = createHttp({
    url: opts.url,
    headers: opts.headers,
    connectMs: timing.connectMs,
    timeoutMs: timing.timeoutMs,
  });
  const base = http.base;
  // What this server holds already, so an input is sent once per engine (the engine is one per address).
  const uploads: UploadMemory = new Map();
  const clientId = opts.clientId ?? randomUUID().replace(/-/g, "");
  const socket = createSocket({
    base,
    clientId,
    headers: opts.headers,
    log,
    connectMs: timing.connectMs,
    pingMs: timing.pingMs,
    retryMs: timing.retryMs,
    idleMs: timing.idleMs,
  });
  interface Tracked {
    watch: Watch;
    release: () => void;
    forget: NodeJS.Timeout;
  }
  const tracked = new Map<string, Tracked>();
  // cancel(job, null) still finds work whose submit had not answered yet.
  const byJob = new WeakMap<EngineJob, string>();
  let info: { at: number; value: Promise<ServerInfo> } | null = null;

  function track(promptId: string, graph?: ApiGraph): Tracked {
    const watch = createWatch({ http, socket, log, timing }, promptId, graph);
    const t: Tracked = {
      watch,
      release: socket.hold(),
      forget: setTimeout(() => untrack(t), FORGET_MS),
    };
    t.forget.unref();
    tracked.set(promptId, t);
    return t;
  }

  function untrack(t: Tracked) {
    clearTimeout(t.forget);
    t.watch.dispose();
    t.release();
    if (tracked.get(t.watch.promptId) === t) tracked.delete(t.watch.promptId);
  }

  /** The probe is remembered for a while (a server may be upgraded under the same address). */
  function server(): Promise<ServerInfo> {
    if (!info || Date.now() - info.at > 5 * 60_000) {
      const entry = { at: Date.now(), value: probeServer(http, timing.timeoutMs) };
      info = entry;
      entry.value.catch(() => {
        if (info === entry) info = null;
      });
    }
    return info.value;
  }

  /** Whether the server knows the prompt (queued, running or in history). */
  async function knows(promptId: string): Promise<boolean> {
    const h = await http.call("GET", `/api/history/${encodeURIComponent(promptId)}`);
    if (historyState(h.json, promptId).state !== "absent") return true;
    const q = await http.call("GET", "/api/queue");
    return queuePlace(q.json, promptId).state !== "absent";
  }

  /** Stop a prompt: the jobs API when present, then dequeue if pending or interrupt if running. */
  async function stop(promptId: string): Promise<void> {
    const caps = await server().catch(() => null);
    if (caps?.jobsApi) {
      await http
        .call("POST", `/api/jobs/${encodeURIComponent(promptId)}/cancel`, {}, { accept: [400, 404] })
        .catch((err: unknown) =>
          log.warn("comfyui: jobs cancel failed", { prompt: promptId, error: String(err) }),
        );
    }
    for (let i = 0; i < 3; i++) {
      const q = await http.call("GET", "/api/queue");
      const place = queuePlace(q.json, promptId);
      if (place.state === "absent") return;
      if (place.state === "running") {
        await http.call("POST", "/api/interrupt", { prompt_id: promptId });
        return;
      }
      // Pending: delete, then look again (it may have started meanwhile, which needs an interrupt instead).
      await http.call("POST", "/api/queue", { delete: [promptId] });
    }
  }

  async function postPrompt(body: Record<string, unknown>, signal: AbortSignal): Promise<Answer> {
    const send = () =>
      http.call("POST", "/api/prompt", body, { accept: [400, 409], timeoutMs: timing.timeoutMs, signal });
    const id = String(body.prompt_id);
    try {
      return await send();
    } catch (err) {
      if (signal.aborted) throw canceled();
      const down = downError(base, err);
      if (down && NEVER_SENT.has(down.code)) throw down;
      // The request may have landed: the id is ours, so look for it before sending again.
      log.warn("comfyui: submit answer lost; checking whether it landed", { prompt: id, error: String(err) });
      if (await knows(id).catch(() => false))
        return { status: 200, json: { prompt_id: id }, text: "", headers: {} };
      const again = await send();
      // Newer servers answer 409 for an id they know: the first attempt landed after all.
      if (again.status === 409) return { status: 200, json: { prompt_id: id }, text: "", headers: {} };
      return again;
    }
  }

  async function download(item: OutputItem, dest: string, signal: AbortSignal): Promise<void> {
    const route = `/api/view${query({ filename: item.filename, subfolder: item.subfolder, type: item.type })}`;
    await http.download(route, dest, { signal });
  }

  const engine: ComfyEngine = {
    backend: opts.backend ?? "local",
    url: base,
    clientId,
    socket,
    server,

    async prepare(job: EngineJob, hooks: RunHooks): Promise<Prepared> {
      if (hooks.signal.aborted) throw canceled();
      const inputs: Record<string, string> = {};
      const notes: string[] = [];
      const roles = Object.entries(job.inputs).sort(([a], [b]) => a.localeCompare(b));
      for (const [role, file] of roles) {
        const st = await stat(file).catch(() => null);
        if (!st?.isFile()) throw new Error(`input ${role} (${file}) is missing`);
      }
      let uploaded = 0;
      // A few at a time: each is a streamed multipart POST.
      for (let i = 0; i < roles.length; i += 3) {
        await Promise.all(
          roles.slice(i, i + 3).map(async ([role, file]) => {
            const r = await stageInput(http, uploads, file, hooks.signal);
            inputs[role] = r.name;
            if (r.uploaded) uploaded++;
            log.info(
              `comfyui: input ${role} ${r.uploaded ? "uploaded" : "already on the server"} as ${r.name}`,
              {
                bytes: r.bytes,
              },
            );
          }),
        );
      }
      if (roles.length > 0)
        hooks.onProgress({
          progress: 0,
          step: "inputs",
          log: `inputs: ${uploaded} uploaded, ${roles.length - uploaded} already on ComfyUI`,
        });
      return { inputs, notes };
    },

    async submit(job: EngineJob, prepared: Prepared, hooks: RunHooks): Promise<Submitted> {
      if (hooks.signal.aborted) throw canceled();
      const graph = graphFor(job, prepared);
      const promptId = randomUUID();
      byJob.set(job, promptId);
      // The socket is up before the prompt exists: events for a disconnected clientId are dropped, not replayed.
      const t = track(promptId, graph);
      try {
        await socket.ready(timing.connectMs).catch((err: unknown) => {
          if (err instanceof ComfyDownError) throw err;
          log.warn("comfyui: websocket not connected; following by polling", { error: String(err) });
        });
        const a = await postPrompt({ prompt: graph, client_id: clientId, prompt_id: promptId }, hooks.signal);
        if (a.status === 409) throw new Error(`ComfyUI already has a prompt with id ${promptId} (409)`);
        if (a.status === 400) throw new Error(promptRefusal(a.json, graph, 400));
        const body = isObject(a.json) ? a.json : {};
        // Very old servers ignore a caller's id and mint their own: follow theirs.
        if (typeof body.prompt_id === "string" && body.prompt_id !== promptId) {
          tracked.delete(promptId);
          t.watch.promptId = body.prompt_id;
          tracked.set(body.prompt_id, t);
          byJob.set(job, body.prompt_id);
        }
        const id = t.watch.promptId;
        if (isObject(body.node_errors) && Object.keys(body.node_errors).length > 0) {
          // Queued with some outputs skipped: not the take that was asked for.
          await stop(id).catch(() => {});
          throw new Error(promptRefusal(body, graph, 200));
        }
        if (t.watch.canceled || hooks.signal.aborted) {
          await stop(id).catch(() => {});
          throw canceled();
        }
        log.info(`comfyui: submitted ${job.stem} as ${id}`, { number: body.number });
        return { backendPromptId: id };
      } catch (err) {
        untrack(t);
        throw err;
      }
    },

    async collect(job: EngineJob, submitted: Submitted, hooks: RunHooks): Promise<EngineOutputs> {
      const id = submitted.backendPromptId;
      // Work submitted by another process (or before a worker restart) is followed the same way.
      const t = tracked.get(id) ?? track(id, job.graph);
      try {
        if (!socket.connected) await socket.ready(timing.connectMs).catch(() => {});
        const outputs = await t.watch.wait(hooks);
        if (hooks.signal.aborted) throw canceled();
        hooks.onProgress({ progress: 0.99, step: "downloading outputs" });
        const items = outputItems(outputs);
        const notes: string[] = [];
        const want: OutputItem[] = [];
        // The saver's file is the take; a review copy (review_copy) or another output node is not.
        const main =
          pick(
            items.filter((i) => i.node === job.saver),
            job.kind,
          ) ?? pick(items, job.kind);
        if (!main) {
          const made = items.map((i) => `${i.key} ${i.filename}`).join(", ");
          throw new Error(
            `ComfyUI finished prompt ${id} without ${job.kind === "image" ? "an" : "a"} ${job.kind} output` +
              (made ? ` (it produced: ${made})` : " (it reported no files)"),
          );
        }
        want.push(main);
        const sameKind = items.filter((i) => i.kind === main.kind && i.type === main.type);
        if (sameKind.length > 1)
          notes.push(`ComfyUI produced ${sameKind.length} ${job.kind} files; kept ${main.filename}`);
        if (job.kind === "video") {
          const audio = pick(items, "audio");
          if (audio) want.push(audio);
        }
        await mkdir(job.workDir, { recursive: true });
        const out: EngineOutputs = { notes };
        const used = new Set<string>();
        for (const item of want) {
          let name = localName(item);
          if (used.has(name)) name = `${item.kind}_${name}`;
          used.add(name);
          const dest = path.join(job.workDir, name);
          await download(item, dest, hooks.signal);
          if (item.kind === "video" || item.kind === "image" || item.kind === "audio") out[item.kind] = dest;
        }
        const frames = reportedFrames(outputs, items, job.kind === "video" ? main : undefined);
        if (frames !== undefined) out.frames = frames;
        hooks.onProgress({ progress: 1, step: "done" });
        return out;
      } finally {
        untrack(t);
      }
    },

    async cancel(job: EngineJob, submitted: Submitted | null): Promise<void> {
      const id = submitted?.backendPromptId ?? byJob.get(job);
      if (id === undefined) return;
      const t = tracked.get(id);
      if (t) {
        t.watch.canceled = true;
        t.watch.poke();
      }
      await stop(id);
    },

    async close() {
      for (const t of [...tracked.values()]) untrack(t);
      await socket.close();
      await http.close();
    },
  };
  return engine;
}
