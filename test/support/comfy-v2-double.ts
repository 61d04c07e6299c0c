// A Comfy API v2 server for tests (node:http on 127.0.0.1): bearer key, multipart assets deduplicated by content,
// jobs that run for a fixed time and produce real small media with ffmpeg, the SSE event stream, cancel, and the
// error envelope. Faults: a wrong key (any key but the configured one), a failing job, a slow job.
import { createHash, randomUUID } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { runFfmpeg } from "../../lib/media/ffmpeg.ts";
import { hostMedia } from "./ctx.ts";

export interface V2DoubleOptions {
  /** The key the server accepts; null = no auth. */
  apiKey?: string | null;
  /** How long a job runs (ms); default 400. */
  jobMs?: number;
  /** Progress ticks over a run; default 4. */
  ticks?: number;
}

export interface V2DoubleFaults {
  /** The next jobs fail at this node with this message. */
  fail: { node: string; classType: string; message: string } | null;
  /** Run time for the next jobs (ms) instead of `jobMs`. */
  slowMs: number | null;
  /** Answer the events route with 429 `too_many_streams` (clients must poll). */
  noStreams: boolean;
}

interface Asset {
  id: string;
  hash: string;
  file: string;
  filePath: string;
  contentType: string;
  size: number;
  createdAt: string;
}

interface Job {
  id: string;
  status: string;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
  progress: Record<string, unknown> | null;
  outputs: Record<string, unknown>[];
  error: Record<string, unknown> | null;
  workflow: Record<string, { class_type?: string; inputs?: Record<string, unknown> }>;
  listeners: Set<(event: string, data: unknown) => void>;
  timers: NodeJS.Timeout[];
  abort: AbortController;
}

export interface V2Double {
  url: string;
  port: number;
  faults: V2DoubleFaults;
  /** Counters: `uploads` new assets, `dedups` uploads of known bytes, `submits`, `cancels`, `streams`, `polls`. */
  stats: Record<"uploads" | "dedups" | "submits" | "cancels" | "streams" | "polls", number>;
  /** The authorization headers seen, in order. */
  auth: (string | null)[];
  jobs: Map<string, Job>;
  close(): Promise<void>;
}

const TERMINAL = new Set(["succeeded", "canceled", "failed", "expired"]);
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

export async function startComfyV2Double(opts: V2DoubleOptions = {}): Promise<V2Double> {
  const key = opts.apiKey === undefined ? "test-key" : opts.apiKey;
  const jobMs = opts.jobMs ?? 400;
  const ticks = opts.ticks ?? 4;
  const dir = await mkdtemp(path.join(os.tmpdir(), "comfy-v2-double-"));
  const assets = new Map<string, Asset>();
  const byHash = new Map<string, string>();
  const jobs = new Map<string, Job>();
  const sockets = new Set<import("node:net").Socket>();
  let base = "";

  const double: V2Double = {
    url: "",
    port: 0,
    faults: { fail: null, slowMs: null, noStreams: false },
    stats: { uploads: 0, dedups: 0, submits: 0, cancels: 0, streams: 0, polls: 0 },
    auth: [],
    jobs,
    async close() {
      for (const j of jobs.values()) {
        for (const t of j.timers) clearTimeout(t);
        j.abort.abort();
      }
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
      await rm(dir, { recursive: true, force: true });
    },
  };

  function send(
    res: http.ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(text),
      ...headers,
    });
    res.end(text);
  }
  const fail = (
    res: http.ServerResponse,
    status: number,
    code: string,
    message: string,
    details: unknown = null,
    headers?: Record<string, string>,
  ) => send(res, status, { error: { code, message, details } }, headers);

  function assetJson(a: Asset, createdNew?: boolean) {
    return {
      id: a.id,
      hash: a.hash,
      size_bytes: a.size,
      content_type: a.contentType,
      file_path: a.filePath,
      created_at: a.createdAt,
      url: `${base}/api/v2/assets/${a.id}/content`,
      url_expires_at: null,
      ...(createdNew !== undefined ? { created_new: createdNew } : {}),
    };
  }

  function jobJson(j: Job) {
    return {
      id: j.id,
      status: j.status,
      created_at: j.createdAt,
      started_at: j.startedAt,
      completed_at: j.completedAt,
      expires_at: new Date(Date.parse(j.createdAt) + 86_400_000).toISOString(),
      queue_position: j.status === "queued" ? 1 : null,
      progress: j.status === "running" ? j.progress : null,
      outputs: j.outputs,
      error: j.error,
      urls: {
        self: `${base}/api/v2/jobs/${j.id}`,
        events: `${base}/api/v2/jobs/${j.id}/events`,
        cancel: `${base}/api/v2/jobs/${j.id}/cancel`,
      },
    };
  }

  function emit(j: Job, event: string, data: unknown) {
    for (const l of [...j.listeners]) l(event, data);
  }

  function setStatus(j: Job, status: string) {
    j.status = status;
    const now = new Date().toISOString();
    if (status === "running") j.startedAt = now;
    if (TERMINAL.has(status)) {
      j.completedAt = now;
      for (const t of j.timers) clearTimeout(t);
      j.abort.abort();
    }
    emit(j, "status", { status, ...(status === "queued" ? { queue_position: 1 } : {}) });
  }

  /** What the graph saves: the first Save* node decides the media (video frames from its `frames` input). */
  function planOf(j: Job): { node: string; kind: "video" | "image" | "audio"; frames: number } {
    for (const [id, n] of Object.entries(j.workflow)) {
      const c = n.class_type ?? "";
      const frames = typeof n.inputs?.frames === "number" ? n.inputs.frames : 12;
      if (/SaveVideo|VHS_VideoCombine/.test(c)) return { node: id, kind: "video", frames };
      if (/SaveAudio/.test(c)) return { node: id, kind: "audio", frames: 0 };
      if (/SaveImage/.test(c)) return { node: id, kind: "image", frames: 0 };
    }
    return { node: Object.keys(j.workflow)[0] ?? "1", kind: "image", frames: 0 };
  }

  async function produce(j: Job) {
    const plan = planOf(j);
    const out = path.join(dir, "out", j.id);
    await mkdir(out, { recursive: true });
    const media = hostMedia;
    let name: string;
    let contentType: string;
    if (plan.kind === "video") {
      name = "studio_00001_.mp4";
      contentType = "video/mp4";
      await runFfmpeg(
        [
          "-f",
          "lavfi",
          "-i",
          "testsrc=size=64x64:rate=24",
          "-frames:v",
          String(plan.frames),
          "-pix_fmt",
          "yuv420p",
          path.join(out, name),
        ],
        { media, signal: j.abort.signal },
      );
    } else if (plan.kind === "audio") {
      name = "studio_00001_.wav";
      contentType = "audio/wav";
      await runFfmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=0.5", path.join(out, name)], {
        media,
        signal: j.abort.signal,
      });
    } else {
      name = "studio_00001_.png";
      contentType = "image/png";
      await runFfmpeg(
        ["-f", "lavfi", "-i", "color=c=red:size=64x64", "-frames:v", "1", path.join(out, name)],
        { media, signal: j.abort.signal },
      );
    }
    const file = path.join(out, name);
    const bytes = await readFile(file);
    const a: Asset = {
      id: randomUUID(),
      hash: `sha256:${createHash("sha256").update(bytes).digest("hex")}`,
      file,
      filePath: `output/${name}`,
      contentType,
      size: bytes.length,
      createdAt: new Date().toISOString(),
    };
    assets.set(a.id, a);
    // Like the proxy: a core SaveVideo mp4 is reported as type image; content_type tells the truth.
    const output = {
      node_id: plan.node,
      name,
      type: plan.kind === "audio" ? "audio" : "image",
      content_type: contentType,
      size_bytes: a.size,
      id: a.id,
      hash: a.hash,
      url: `${base}/api/v2/assets/${a.id}/content`,
      url_expires_at: new Date(Date.now() + 86_400_000).toISOString(),
      job_id: j.id,
    };
    j.outputs.push(output);
    emit(j, "output", output);
  }

  function run(j: Job) {
    const ms = double.faults.slowMs ?? jobMs;
    const failure = double.faults.fail;
    const plan = planOf(j);
    j.timers.push(
      setTimeout(() => {
        if (j.status !== "queued") return;
        j.progress = {
          value: 0,
          nodes_done: 0,
          nodes_total: ticks,
          current_node: plan.node,
          current_node_class: "KSampler",
          step: 0,
          steps: ticks,
          message: null,
        };
        setStatus(j, "running");
        for (let i = 1; i <= ticks; i++) {
          j.timers.push(
            setTimeout(
              () => {
                if (j.status !== "running") return;
                if (failure && i === Math.ceil(ticks / 2)) {
                  j.error = {
                    code: "node_execution_error",
                    message: failure.message,
                    node_id: failure.node,
                    class_type: failure.classType,
                    traceback: ["Traceback (most recent call last):", `RuntimeError: ${failure.message}`],
                  };
                  setStatus(j, "failed");
                  return;
                }
                j.progress = { ...j.progress, value: i / ticks, step: i, nodes_done: i };
                emit(j, "progress", j.progress);
                if (i === ticks)
                  produce(j).then(
                    () => j.status === "running" && setStatus(j, "succeeded"),
                    (err: unknown) => {
                      if (j.status !== "running") return;
                      j.error = {
                        code: "node_execution_error",
                        message: String(err),
                        node_id: plan.node,
                        class_type: "Save",
                        traceback: [],
                      };
                      setStatus(j, "failed");
                    },
                  );
              },
              (ms * i) / ticks,
            ),
          );
        }
      }, 30),
    );
  }

  function resolveAssets(v: unknown, missing: string[]): void {
    if (Array.isArray(v)) for (const x of v) resolveAssets(x, missing);
    else if (isObject(v)) {
      if (v.__type === "core/ASSET" && isObject(v.info)) {
        const id = String(v.info.id);
        if (!assets.has(id)) missing.push(id);
      } else for (const x of Object.values(v)) resolveAssets(x, missing);
    }
  }

  async function body(req: http.IncomingMessage): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const u = new URL(req.url ?? "/", base);
    const p = u.pathname;
    const m = req.method ?? "GET";
    if (m === "GET" && p === "/api/v2/health")
      return send(res, 200, { status: "healthy", upstream: "double" });
    const given = req.headers.authorization ?? null;
    double.auth.push(given);
    if (key !== null && given !== `Bearer ${key}`)
      return fail(res, 401, "unauthorized", given ? "Invalid API key" : "Missing API key");

    if (m === "POST" && p === "/api/v2/assets") {
      const raw = await body(req);
      const form = await new Response(raw, {
        headers: { "content-type": req.headers["content-type"] ?? "" },
      }).formData();
      const file = form.get("file");
      const filePath = form.get("file_path");
      if (!(file instanceof Blob) || typeof filePath !== "string" || filePath === "")
        return fail(res, 422, "invalid_request", "file and file_path are required");
      const bytes = Buffer.from(await file.arrayBuffer());
      const hash = `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
      const known = byHash.get(hash);
      if (known) {
        double.stats.dedups++;
        return send(res, 200, assetJson(assets.get(known) as Asset, false));
      }
      const id = randomUUID();
      const dest = path.join(dir, "assets", id);
      await mkdir(path.dirname(dest), { recursive: true });
      await writeFile(dest, bytes);
      const ct = form.get("content_type");
      const a: Asset = {
        id,
        hash,
        file: dest,
        filePath,
        contentType: typeof ct === "string" ? ct : file.type || "application/octet-stream",
        size: bytes.length,
        createdAt: new Date().toISOString(),
      };
      assets.set(id, a);
      byHash.set(hash, id);
      double.stats.uploads++;
      return send(res, 201, assetJson(a, true));
    }
    let mm = /^\/api\/v2\/assets\/([^/]+)(\/content)?$/.exec(p);
    if (m === "GET" && mm) {
      const a = assets.get(decodeURIComponent(mm[1]));
      if (!a) return fail(res, 404, "not_found", "asset not found");
      if (!mm[2]) return send(res, 200, assetJson(a));
      const st = await stat(a.file);
      res.writeHead(200, { "content-type": a.contentType, "content-length": st.size });
      res.end(await readFile(a.file));
      return;
    }
    if (m === "POST" && p === "/api/v2/jobs") {
      let b: unknown;
      try {
        b = JSON.parse((await body(req)).toString("utf8"));
      } catch {
        return fail(res, 400, "invalid_request", "body is not JSON");
      }
      if (!isObject(b) || !isObject(b.workflow) || Object.keys(b.workflow).length === 0)
        return fail(res, 400, "invalid_request", "workflow is required");
      if (Array.isArray(b.workflow.nodes)) return fail(res, 422, "workflow_format_ui", "UI-format workflow");
      const missing: string[] = [];
      resolveAssets(b.workflow, missing);
      if (missing.length > 0)
        return fail(res, 422, "missing_asset", "unknown asset", { missing_ids: missing });
      const j: Job = {
        id: randomUUID(),
        status: "queued",
        createdAt: new Date().toISOString(),
        startedAt: null,
        completedAt: null,
        progress: null,
        outputs: [],
        error: null,
        workflow: b.workflow as Job["workflow"],
        listeners: new Set(),
        timers: [],
        abort: new AbortController(),
      };
      jobs.set(j.id, j);
      double.stats.submits++;
      run(j);
      return send(res, 201, jobJson(j));
    }
    mm = /^\/api\/v2\/jobs\/([^/]+)(\/events|\/cancel)?$/.exec(p);
    const j = mm ? jobs.get(decodeURIComponent(mm[1])) : undefined;
    if (mm && !j) return fail(res, 404, "not_found", "job not found");
    if (mm && j && m === "GET" && !mm[2]) {
      double.stats.polls++;
      return send(res, 200, jobJson(j));
    }
    if (mm && j && m === "POST" && mm[2] === "/cancel") {
      double.stats.cancels++;
      if (j.status === "queued") setStatus(j, "canceled");
      else if (j.status === "running") {
        setStatus(j, "canceling");
        j.timers.push(setTimeout(() => setStatus(j, "canceled"), 50));
      }
      return send(res, 200, jobJson(j));
    }
    if (mm && j && m === "GET" && mm[2] === "/events") {
      if (double.faults.noStreams)
        return fail(res, 429, "too_many_streams", "too many streams", null, { "retry-after": "1" });
      double.stats.streams++;
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      const frame = (event: string, data: unknown) =>
        res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      frame("status", { status: j.status });
      if (TERMINAL.has(j.status)) return res.end();
      if (j.status === "running" && j.progress) frame("progress", j.progress);
      const keepalive = setInterval(() => res.write(": keepalive\n\n"), 15_000);
      const listener = (event: string, data: unknown) => {
        frame(event, data);
        if (event === "status" && isObject(data) && TERMINAL.has(String(data.status))) done();
      };
      const done = () => {
        clearInterval(keepalive);
        j.listeners.delete(listener);
        res.end();
      };
      j.listeners.add(listener);
      req.on("close", done);
      return;
    }
    fail(res, 404, "not_found", `no route ${m} ${p}`);
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) fail(res, 500, "upstream_error", String(err));
      else res.destroy();
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  double.port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${double.port}`;
  double.url = base;
  return double;
}
