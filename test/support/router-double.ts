// A hosted-model router for tests (node:http on 127.0.0.1), speaking the provider API of lib/router/provider.ts:
// bearer key, the model list, tasks that run for a set time with progress and end in a real small mp4 made by
// ffmpeg, cancel, drafts kept 7 days by a clock the test moves, finals made from a draft's task id; and a temp
// studio whose router settings point at it.
import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import type { JobStore } from "../../lib/jobs/types.ts";
import { runFfmpeg } from "../../lib/media/ffmpeg.ts";
import { showDirOf } from "../../lib/targets/listing.ts";
import { renderJob } from "../../workers/jobs/render.ts";
import type { WorkerPool } from "../../workers/pool.ts";
import { hostMedia } from "./ctx.ts";
import { startTestPool } from "./jobs.ts";
import { makeStudio, type Studio } from "./studio-episode.ts";

const PREFIX = "/api/router/v1";
const DAY = 86_400_000;

export const DOUBLE_MODELS = [
  {
    id: "acme/motion-2",
    label: "Motion 2",
    provider: "acme",
    kind: "video",
    fps: 24,
    inputs: {
      prompt: true,
      negative: true,
      first_image: true,
      last_image: true,
      durations: [4, 6, 8],
      resolutions: ["480p", "720p", "1080p"],
      aspect_ratios: ["16:9", "9:16", "1:1"],
    },
    draft: { resolution: "480p", days: 7 },
    price_per_run: 0.4,
    currency: "USD",
  },
  {
    id: "zeta/quick",
    label: "Quick",
    provider: "zeta",
    kind: "video",
    fps: 16,
    inputs: { prompt: true, durations: [5], resolutions: ["720p"], aspect_ratios: ["16:9"] },
    draft: null,
    price_per_run: 0.1,
    currency: "USD",
  },
];

export interface RouterTaskRecord {
  id: string;
  model: string;
  status: string;
  progress: number;
  draft: boolean;
  from_draft: string | null;
  body: Record<string, unknown>;
  created: number;
  file: string | null;
  error: string | null;
  timers: NodeJS.Timeout[];
}

export interface RouterDouble {
  url: string;
  /** Every task submitted, by id. */
  tasks: Map<string, RouterTaskRecord>;
  /** Bodies of the accepted submits, in order. */
  submits: Record<string, unknown>[];
  /** Ids asked to cancel. */
  cancels: string[];
  /** Moves the double's clock (drafts expire 7 days after they were made). */
  advance(ms: number): void;
  /** Answer /models with this status (a provider fault). */
  modelsStatus: number | null;
  /** How long the next tasks run (ms). */
  jobMs: number;
  close(): Promise<void>;
}

export async function startRouterDouble(
  opts: { apiKey?: string; jobMs?: number } = {},
): Promise<RouterDouble> {
  const apiKey = opts.apiKey ?? "router-key";
  const dir = await mkdtemp(path.join(os.tmpdir(), "router-double-"));
  const tasks = new Map<string, RouterTaskRecord>();
  const submits: Record<string, unknown>[] = [];
  const cancels: string[] = [];
  let offset = 0;
  const now = () => Date.now() + offset;
  const double = { modelsStatus: null as number | null, jobMs: opts.jobMs ?? 400 };

  const view = (t: RouterTaskRecord) => ({
    id: t.id,
    model: t.model,
    status: t.status,
    progress: t.progress,
    error: t.error ? { code: "task_failed", message: t.error } : null,
    draft: t.draft,
    from_draft: t.from_draft,
    expires_at: t.draft ? new Date(t.created + 7 * DAY).toISOString() : null,
    output: t.file ? { url: `${PREFIX}/tasks/${t.id}/output`, content_type: "video/mp4" } : null,
  });

  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const fail = (res: http.ServerResponse, status: number, code: string, message: string) =>
    send(res, status, { error: { code, message } });

  function run(t: RouterTaskRecord, seconds: number) {
    const ticks = 4;
    for (let i = 1; i <= ticks; i++) {
      t.timers.push(
        setTimeout(
          () => {
            if (t.status !== "queued" && t.status !== "running") return;
            t.status = "running";
            t.progress = i / (ticks + 1);
            if (i < ticks) return;
            const file = path.join(dir, `${t.id}.mp4`);
            const frames = Math.max(1, Math.round(seconds * 24));
            runFfmpeg(
              ["-f", "lavfi", "-i", "testsrc=size=64x36:rate=24", "-frames:v", String(frames)].concat([
                "-pix_fmt",
                "yuv420p",
                file,
              ]),
              { media: hostMedia },
            ).then(
              () => {
                if (t.status !== "running") return;
                t.file = file;
                t.progress = 1;
                t.status = "succeeded";
              },
              (err: unknown) => {
                t.status = "failed";
                t.error = String(err);
              },
            );
          },
          (double.jobMs * i) / ticks,
        ),
      );
    }
  }

  async function body(req: http.IncomingMessage): Promise<unknown> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    try {
      return JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
    } catch {
      return null;
    }
  }

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const route = url.pathname.startsWith(PREFIX) ? url.pathname.slice(PREFIX.length) : null;
    if (route === null) return fail(res, 404, "not_found", `no route ${url.pathname}`);
    if (req.headers.authorization !== `Bearer ${apiKey}`)
      return fail(res, 401, "unauthorized", "unknown API key");
    if (req.method === "GET" && route === "/models") {
      if (double.modelsStatus)
        return fail(res, double.modelsStatus, "upstream_error", "the catalogue is down");
      return send(res, 200, { models: DOUBLE_MODELS });
    }
    if (req.method === "POST" && route === "/tasks") {
      const b = await body(req);
      if (!b || typeof b !== "object") return fail(res, 400, "invalid_request", "the body must be JSON");
      const task = b as Record<string, unknown>;
      const model = DOUBLE_MODELS.find((m) => m.id === task.model);
      if (!model) return fail(res, 400, "invalid_request", `unknown model ${String(task.model)}`);
      const fromDraft = typeof task.from_draft === "string" ? task.from_draft : null;
      let seconds = typeof task.duration === "number" ? task.duration : 4;
      if (fromDraft) {
        const d = tasks.get(fromDraft);
        if (!d?.draft || d.status !== "succeeded")
          return fail(res, 400, "invalid_request", `task ${fromDraft} is not a finished draft`);
        if (now() > d.created + 7 * DAY) return fail(res, 409, "draft_expired", `draft ${fromDraft} expired`);
        seconds = typeof d.body.duration === "number" ? d.body.duration : 4;
      } else if (!model.inputs.durations.includes(seconds)) {
        return fail(
          res,
          400,
          "invalid_request",
          `duration ${seconds} is not one of ${model.inputs.durations}`,
        );
      }
      if (task.draft === true && !model.draft)
        return fail(res, 400, "invalid_request", `${model.id} makes no drafts`);
      submits.push(task);
      const t: RouterTaskRecord = {
        id: randomUUID(),
        model: model.id,
        status: "queued",
        progress: 0,
        draft: task.draft === true,
        from_draft: fromDraft,
        body: task,
        created: now(),
        file: null,
        error: null,
        timers: [],
      };
      tasks.set(t.id, t);
      run(t, seconds);
      return send(res, 201, view(t));
    }
    const m = /^\/tasks\/([^/]+)(\/output|\/cancel)?$/.exec(route);
    const t = m ? tasks.get(decodeURIComponent(m[1])) : undefined;
    if (!m || !t) return fail(res, 404, "not_found", "no such task");
    if (req.method === "GET" && !m[2]) return send(res, 200, view(t));
    if (req.method === "GET" && m[2] === "/output") {
      if (!t.file) return fail(res, 404, "not_ready", "the task has no output yet");
      res.writeHead(200, { "content-type": "video/mp4" });
      return res.end(await readFile(t.file));
    }
    if (req.method === "POST" && m[2] === "/cancel") {
      cancels.push(t.id);
      if (t.status === "queued" || t.status === "running") {
        t.status = "canceled";
        for (const x of t.timers) clearTimeout(x);
      }
      return send(res, 200, view(t));
    }
    return fail(res, 405, "invalid_request", "method not allowed");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    tasks,
    submits,
    cancels,
    advance(ms) {
      offset += ms;
    },
    get modelsStatus() {
      return double.modelsStatus;
    },
    set modelsStatus(v) {
      double.modelsStatus = v;
    },
    get jobMs() {
      return double.jobMs;
    },
    set jobMs(v) {
      double.jobMs = v;
    },
    async close() {
      for (const t of tasks.values()) for (const x of t.timers) clearTimeout(x);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface RouterStudio {
  s: Studio;
  store: JobStore;
  double: RouterDouble;
  /** The render pool: started on first use, stopped after the file's tests. */
  pool(): WorkerPool;
}

/**
 * Registers the hooks of a temp studio whose router settings point at a router double (key "router-key", each task
 * taking `jobMs`); the answer's fields are filled before the first test runs.
 */
export function useRouterStudio(jobMs: number): RouterStudio {
  let pool: WorkerPool | null = null;
  const c = {
    pool() {
      pool ??= startTestPool(c.s.env.services, c.store, { render: renderJob });
      return pool;
    },
  } as RouterStudio;
  beforeAll(async () => {
    c.s = await makeStudio();
    c.store = await c.s.env.services.jobs();
    c.double = await startRouterDouble({ apiKey: "router-key", jobMs });
    const put = await c.s.call("PUT", "/settings", { cloud_url: c.double.url, api_key: "router-key" });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
  });
  afterAll(async () => {
    await pool?.stop({ graceful: false, timeoutMs: 2_000 });
    await c.s.env.services.engines.close();
    await c.double.close();
    await c.store.close();
    await c.s.cleanup();
  });
  return c;
}

/** The router's proposed target for `model`, saved in `ep`'s show as the show's own (as a custom target is). */
export async function saveRouterTarget(s: Studio, ep: string, model: string, id: string): Promise<void> {
  const inspected = await s.call("POST", "/targets/router-inspect", { model });
  const dir = path.join(await showDirOf(s.env.services, ep), "targets", id);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, "target.json"), JSON.stringify(inspected.body.target, null, 2));
}
