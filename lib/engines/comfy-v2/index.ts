// The Comfy API v2 engine (backends `cloud` and `deployment:<target>`): uploads inputs as assets content-addressed
// by sha1 (reused while the asset still exists), submits the job's API-format graph to `POST /api/v2/jobs`, follows
// the job's SSE events with polling of the job as the source of truth, downloads its outputs into the work folder.
import { randomUUID } from "node:crypto";
import { mkdir, stat } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { type Logger, silentLogger } from "../../context.ts";
import { isObject, num, str } from "../../store/json-guards.ts";
import { graphFor } from "../comfyui/index.ts";
import { localName, type MediaKind, mediaKind } from "../comfyui/outputs.ts";
import { contentFileName } from "../comfyui/uploads.ts";
import { canceled } from "../comfyui/watch.ts";
import type { ApiGraph, Engine, EngineJob, EngineOutputs, Prepared, RunHooks, Submitted } from "../types.ts";
import { ComfyV2Error, jobFailure } from "./errors.ts";
import { createV2Http, type V2Http } from "./http.ts";
import { createSseParser } from "./sse.ts";

export { ComfyV2DownError, ComfyV2Error, describeFailure, jobFailure, readEnvelope } from "./errors.ts";
export { createSseParser } from "./sse.ts";

export type ComfyV2Backend = "cloud" | `deployment:${string}`;

export interface ComfyV2Timing {
  /** Connect timeout (ms); default 5000. */
  connectMs: number;
  /** Timeout of ordinary JSON calls (ms); default 30000. */
  timeoutMs: number;
  /** Poll interval while the event stream is unavailable (ms); default 2000. */
  pollMs: number;
  /** An event stream silent this long (no frame, no keepalive) is dropped for a poll (ms); default 45000. */
  stallMs: number;
  /** Longest total wait for `Retry-After` back-offs at submit (ms); default 120000. */
  retryBudgetMs: number;
}

export interface ComfyV2EngineOptions {
  backend: ComfyV2Backend;
  url: string;
  apiKey: string | null;
  log?: Logger;
  timing?: Partial<ComfyV2Timing>;
}

export interface ComfyV2Engine extends Engine {
  readonly url: string;
  close(): Promise<void>;
}

const DEFAULT_TIMING: ComfyV2Timing = {
  connectMs: 5000,
  timeoutMs: 30_000,
  pollMs: 2000,
  stallMs: 45_000,
  retryBudgetMs: 120_000,
};

export type JobStatus = "queued" | "running" | "succeeded" | "canceling" | "canceled" | "failed" | "expired";
export const TERMINAL: ReadonlySet<string> = new Set(["succeeded", "canceled", "failed", "expired"]);

export interface V2Output {
  nodeId: string;
  name: string;
  type: string;
  contentType: string;
  id: string | null;
  url: string | null;
  kind: MediaKind;
}

export interface V2Job {
  id: string;
  status: string;
  queuePosition: number | null;
  progress: Record<string, unknown> | null;
  outputs: V2Output[];
  error: unknown;
  urls: { self?: string; events?: string; cancel?: string };
}

/** Media kind of an output: its `content_type` first (a core SaveVideo mp4 is reported as `type: image`). */
export function outputKind(contentType: string, name: string, type: string): MediaKind {
  const major = contentType.split("/")[0];
  if (major === "video" || major === "image" || major === "audio") return major;
  const byName = mediaKind(name);
  if (byName !== "other") return byName;
  return type === "video" || type === "image" || type === "audio" ? type : "other";
}

export function readOutput(v: unknown): V2Output | null {
  if (!isObject(v)) return null;
  const name = str(v.name);
  if (!name) return null;
  const contentType = str(v.content_type) ?? "";
  const type = str(v.type) ?? "file";
  return {
    nodeId: str(v.node_id) ?? "",
    name,
    type,
    contentType,
    id: str(v.id),
    url: str(v.url),
    kind: outputKind(contentType, name, type),
  };
}

/** A Job object read loosely; null when it has no id or status. */
export function readJob(v: unknown): V2Job | null {
  if (!isObject(v)) return null;
  const id = str(v.id);
  const status = str(v.status);
  if (!id || !status) return null;
  const urls = isObject(v.urls) ? v.urls : {};
  return {
    id,
    status,
    queuePosition: num(v.queue_position),
    progress: isObject(v.progress) ? v.progress : null,
    outputs: (Array.isArray(v.outputs) ? v.outputs : [])
      .map(readOutput)
      .filter((o): o is V2Output => o !== null),
    error: v.error ?? null,
    urls: {
      self: str(urls.self) ?? undefined,
      events: str(urls.events) ?? undefined,
      cancel: str(urls.cancel) ?? undefined,
    },
  };
}

/** A `progress` snapshot as engine progress (kept under 0.98: downloads still follow). */
export function progressOf(
  p: unknown,
): { progress: number; step?: string; steps?: number; log?: string } | null {
  if (!isObject(p)) return null;
  const value = num(p.value);
  if (value === null) return null;
  const out: { progress: number; step?: string; steps?: number; log?: string } = {
    progress: Math.max(0, Math.min(0.98, value)),
  };
  const cls = str(p.current_node_class);
  const step = num(p.step);
  const steps = num(p.steps);
  if (cls || step !== null)
    out.step = [cls, step !== null && steps ? `${step}/${steps}` : null].filter(Boolean).join(" ");
  if (steps !== null) out.steps = steps;
  const message = str(p.message);
  if (message) out.log = message;
  return out;
}

/** The output of `kind` a job should deliver: first of that kind in node order. */
export function pickOutput(outputs: readonly V2Output[], kind: MediaKind): V2Output | undefined {
  const sorted = [...outputs].sort((a, b) => a.nodeId.localeCompare(b.nodeId, "en", { numeric: true }));
  return sorted.find((o) => o.kind === kind);
}

/** Replace the prepared asset ids placed by graphFor with `core/ASSET` references. */
export function assetGraph(graph: ApiGraph, assets: ReadonlyMap<string, string>): ApiGraph {
  const out: ApiGraph = {};
  for (const [id, node] of Object.entries(graph)) {
    const inputs: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node.inputs)) {
      const ref = typeof v === "string" ? assets.get(v) : undefined;
      inputs[k] = ref ? { __type: "core/ASSET", info: { id: v, file_path: ref } } : v;
    }
    out[id] = { ...node, inputs };
  }
  return out;
}

function labelOf(backend: ComfyV2Backend): string {
  return backend === "cloud" ? "Comfy Cloud" : `deployment '${backend.slice("deployment:".length)}'`;
}

const enc = encodeURIComponent;

export function createComfyV2Engine(opts: ComfyV2EngineOptions): ComfyV2Engine {
  const timing: ComfyV2Timing = { ...DEFAULT_TIMING, ...opts.timing };
  const log = opts.log ?? silentLogger;
  const http: V2Http = createV2Http({
    url: opts.url,
    apiKey: opts.apiKey,
    label: labelOf(opts.backend),
    connectMs: timing.connectMs,
    timeoutMs: timing.timeoutMs,
  });
  const label = `${http.label} at ${http.base}`;
  /** sha1 file name (`<sha1>.<ext>`) → asset id, for inputs uploaded by this engine. */
  const assetsBySha = new Map<string, string>();
  /** Work whose submit had not answered yet, so cancel(job, null) still finds it. */
  const byJob = new WeakMap<EngineJob, string>();

  async function getJob(id: string, signal?: AbortSignal): Promise<V2Job> {
    const a = await http.call("GET", `/api/v2/jobs/${enc(id)}`, undefined, { signal });
    const job = readJob(a.json);
    if (!job) throw new Error(`${label}: job ${id} answered without an id or status`);
    return job;
  }

  /** The asset for `file`: the remembered one while it exists, else an upload (the server may dedupe it). */
  async function stage(
    file: string,
    signal: AbortSignal,
  ): Promise<{ id: string; filePath: string; reused: boolean }> {
    const name = await contentFileName(file);
    const filePath = `studio/${name}`;
    const known = assetsBySha.get(name);
    if (known) {
      const a = await http.call("GET", `/api/v2/assets/${enc(known)}`, undefined, { signal, accept: [404] });
      if (a.status === 200) return { id: known, filePath, reused: true };
      assetsBySha.delete(name);
    }
    const sha1 = name.split(".")[0];
    const a = await http.upload(
      file,
      { file_path: filePath, tags: ["episode-studio", `sha1:${sha1}`] },
      { signal },
    );
    const body = isObject(a.json) ? a.json : {};
    const id = str(body.id);
    if (!id) throw new Error(`${label}: the upload of ${path.basename(file)} answered without an asset id`);
    assetsBySha.set(name, id);
    return { id, filePath, reused: a.status === 200 || body.created_new === false };
  }

  async function postJob(graph: ApiGraph, signal: AbortSignal): Promise<V2Job> {
    const started = Date.now();
    for (;;) {
      try {
        // A fresh key per attempt: keys are single use, and released only when no job was created.
        const a = await http.call(
          "POST",
          "/api/v2/jobs",
          { workflow: graph },
          { signal, headers: { "idempotency-key": randomUUID() } },
        );
        const job = readJob(a.json);
        if (!job) throw new Error(`${label}: submit answered ${a.status} without a job id`);
        return job;
      } catch (err) {
        const retry = err instanceof ComfyV2Error && err.status === 429 ? (err.retryAfter ?? 5) : null;
        if (retry === null || Date.now() - started + retry * 1000 > timing.retryBudgetMs) throw err;
        log.warn(`comfy-v2: ${err instanceof Error ? err.message : String(err)}; retrying`);
        await sleep(retry * 1000, undefined, { signal }).catch(() => {
          throw canceled();
        });
      }
    }
  }

  /**
   * Follow the event stream until it ends, stalls or fails; answers whether it reported a terminal status
   * (the job is then read again: polling is the source of truth).
   */
  async function followEvents(job: V2Job, hooks: RunHooks): Promise<"terminal" | "ended" | "failed"> {
    const route = job.urls.events ?? `/api/v2/jobs/${enc(job.id)}/events`;
    let stream: Awaited<ReturnType<V2Http["events"]>>;
    try {
      stream = await http.events(route, { signal: hooks.signal });
    } catch (err) {
      if (hooks.signal.aborted) throw canceled();
      if (err instanceof ComfyV2Error && (err.status === 401 || err.status === 403)) throw err;
      log.warn("comfy-v2: event stream unavailable; polling", { job: job.id, error: String(err) });
      return "failed";
    }
    const parser = createSseParser();
    let stall: NodeJS.Timeout | null = null;
    const arm = () => {
      if (stall) clearTimeout(stall);
      stall = setTimeout(() => stream.close(), timing.stallMs);
    };
    arm();
    try {
      for await (const chunk of stream.body) {
        arm();
        for (const frame of parser.push(String(chunk))) {
          let data: unknown = null;
          try {
            data = JSON.parse(frame.data);
          } catch {
            continue;
          }
          if (frame.event === "progress") {
            const p = progressOf(data);
            if (p) hooks.onProgress(p);
          } else if (frame.event === "status" && isObject(data)) {
            const status = str(data.status);
            if (status === "queued") {
              const pos = num(data.queue_position);
              hooks.onProgress({
                progress: 0,
                step: "queued",
                log: pos !== null ? `queued at ${pos}` : "queued",
              });
            } else if (status === "running") hooks.onProgress({ progress: 0, step: "running" });
            if (status && TERMINAL.has(status)) return "terminal";
          } else if (frame.event === "log" && isObject(data) && str(data.message)) {
            log.info(`comfy-v2: ${data.message}`, { job: job.id });
          }
        }
      }
      return "ended";
    } catch (err) {
      if (hooks.signal.aborted) throw canceled();
      log.warn("comfy-v2: event stream broke; polling", { job: job.id, error: String(err) });
      return "failed";
    } finally {
      if (stall) clearTimeout(stall);
      stream.close();
    }
  }

  /** Wait until the job is terminal: events while they work, polls between and after. */
  async function waitJob(id: string, hooks: RunHooks): Promise<V2Job> {
    let job = await getJob(id, hooks.signal);
    let streamTries = 0;
    while (!TERMINAL.has(job.status)) {
      if (hooks.signal.aborted) throw canceled();
      let how: "terminal" | "ended" | "failed" = "failed";
      if (streamTries < 5) {
        streamTries++;
        how = await followEvents(job, hooks);
        if (how === "terminal") streamTries = 0;
      }
      if (how !== "terminal") {
        const p = progressOf(job.progress);
        if (p && how === "failed") hooks.onProgress(p);
        await sleep(timing.pollMs, undefined, { signal: hooks.signal }).catch(() => {
          throw canceled();
        });
      }
      try {
        job = await getJob(id, hooks.signal);
      } catch (err) {
        if (hooks.signal.aborted) throw canceled();
        if (err instanceof ComfyV2Error && err.status === 404)
          throw new Error(`${label} no longer knows job ${id} (404)`);
        if (err instanceof ComfyV2Error && (err.status === 401 || err.status === 403)) throw err;
        // A transient failure of the poll itself: try again on the next round.
        log.warn("comfy-v2: poll failed", { job: id, error: String(err) });
      }
    }
    return job;
  }

  const engine: ComfyV2Engine = {
    backend: opts.backend,
    url: http.base,

    async prepare(job: EngineJob, hooks: RunHooks): Promise<Prepared> {
      if (hooks.signal.aborted) throw canceled();
      const roles = Object.entries(job.inputs).sort(([a], [b]) => a.localeCompare(b));
      for (const [role, file] of roles) {
        const st = await stat(file).catch(() => null);
        if (!st?.isFile()) throw new Error(`input ${role} (${file}) is missing`);
      }
      const inputs: Record<string, string> = {};
      let uploaded = 0;
      for (let i = 0; i < roles.length; i += 3) {
        await Promise.all(
          roles.slice(i, i + 3).map(async ([role, file]) => {
            const r = await stage(file, hooks.signal);
            inputs[role] = r.id;
            if (!r.reused) uploaded++;
            log.info(
              `comfy-v2: input ${role} ${r.reused ? "already on the server" : "uploaded"} as asset ${r.id}`,
            );
          }),
        );
      }
      if (roles.length > 0)
        hooks.onProgress({
          progress: 0,
          step: "inputs",
          log: `inputs: ${uploaded} uploaded, ${roles.length - uploaded} already on ${http.label}`,
        });
      return { inputs, notes: [] };
    },

    async submit(job: EngineJob, prepared: Prepared, hooks: RunHooks): Promise<Submitted> {
      if (hooks.signal.aborted) throw canceled();
      const assets = new Map<string, string>();
      for (const [role, id] of Object.entries(prepared.inputs)) {
        const file = job.inputs[role];
        if (file) assets.set(id, `studio/${await contentFileName(file)}`);
      }
      const graph = assetGraph(graphFor(job, prepared), assets);
      const created = await postJob(graph, hooks.signal);
      byJob.set(job, created.id);
      if (hooks.signal.aborted) {
        await engine.cancel(job, { backendPromptId: created.id }).catch(() => {});
        throw canceled();
      }
      log.info(`comfy-v2: submitted ${job.stem} as ${created.id}`, { status: created.status });
      return { backendPromptId: created.id };
    },

    async collect(job: EngineJob, submitted: Submitted, hooks: RunHooks): Promise<EngineOutputs> {
      const id = submitted.backendPromptId;
      const done = await waitJob(id, hooks);
      if (done.status === "canceled") throw canceled();
      if (done.status === "failed") throw new Error(`${http.label} job ${id}: ${jobFailure(done.error)}`);
      if (done.status === "expired") throw new Error(`${http.label} job ${id} expired before it finished`);
      if (hooks.signal.aborted) throw canceled();
      hooks.onProgress({ progress: 0.99, step: "downloading outputs" });
      const main = pickOutput(done.outputs, job.kind);
      if (!main) {
        const made = done.outputs.map((o) => `${o.kind} ${o.name}`).join(", ");
        throw new Error(
          `${http.label} finished job ${id} without ${job.kind === "image" ? "an" : "a"} ${job.kind} output` +
            (made ? ` (it produced: ${made})` : " (it reported no files)"),
        );
      }
      const notes: string[] = [];
      const same = done.outputs.filter((o) => o.kind === main.kind);
      if (same.length > 1)
        notes.push(`${http.label} produced ${same.length} ${job.kind} files; kept ${main.name}`);
      const want = [main];
      if (job.kind === "video") {
        const audio = pickOutput(done.outputs, "audio");
        if (audio) want.push(audio);
      }
      await mkdir(job.workDir, { recursive: true });
      const out: EngineOutputs = { notes };
      const used = new Set<string>();
      for (const o of want) {
        let name = localName({ filename: o.name });
        if (used.has(name)) name = `${o.kind}_${name}`;
        used.add(name);
        const dest = path.join(job.workDir, name);
        // Follow the URL the server handed out (the key goes only to its own origin), else the asset's content route.
        const route = o.url ?? (o.id ? `/api/v2/assets/${enc(o.id)}/content` : null);
        if (!route)
          throw new Error(`${http.label} job ${id}: output ${o.name} has neither an asset id nor a url`);
        await http.download(route, dest, { signal: hooks.signal });
        if (o.kind === "video" || o.kind === "image" || o.kind === "audio") out[o.kind] = dest;
      }
      hooks.onProgress({ progress: 1, step: "done" });
      return out;
    },

    async cancel(job: EngineJob, submitted: Submitted | null): Promise<void> {
      const id = submitted?.backendPromptId ?? byJob.get(job);
      if (id === undefined) return;
      await http.call("POST", `/api/v2/jobs/${enc(id)}/cancel`, {}, { accept: [404, 409] });
    },

    close: () => http.close(),
  };
  return engine;
}
