// ComfyUI renders through a real `node runtime/serve.js` process on 127.0.0.1: the starter show on ltx2, the local
// backend pointed (settings.json local_url) at the ComfyUI double running in this test process. Renders with the
// first keyframe uploaded and progress on the page socket, cancel of a pending and a running prompt, a dropped
// websocket and an engine restart mid-render, and readiness over HTTP against a double lacking the text encoder.
import { cp, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { settingsFile } from "../lib/config/settings.ts";
import { countFrames } from "../lib/media/ffmpeg.ts";
import { isObject } from "../lib/store/json-guards.ts";
import { type ComfyDouble, DEFAULT_MODELS, startComfyDouble } from "./support/comfy-double/index.ts";
import { hostMedia, makeTestEnv, type TestEnv } from "./support/ctx.ts";
import { until } from "./support/poll.ts";
import { type ServerProcess, startServer } from "./support/server.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;
type Answer = { status: number; body: Any };

const RENDER_WAIT_MS = 40_000;
const TEXT_ENCODER = "gemma4-12b-with-proj-ltx-2.5-comfy-int8-convrot.safetensors";

let env: TestEnv;
let ep: string;
let server: ServerProcess | null = null;
const doubles: ComfyDouble[] = [];
let double: ComfyDouble;

// ------------------------------------------------------------------------------------------- processes

const alive = (s: ServerProcess) => s.child.exitCode === null && s.child.signalCode === null;

async function stop(s: ServerProcess | null): Promise<void> {
  if (!s || !alive(s)) return;
  s.child.kill("SIGTERM");
  const ended = await Promise.race([
    s.exited.then(() => true),
    new Promise<false>((r) => setTimeout(() => r(false), 10_000)),
  ]);
  if (!ended && alive(s)) {
    s.child.kill("SIGKILL");
    await s.exited;
  }
}

const said = () => (server ? `\n--- server output ---\n${server.output().slice(-6000)}\n---` : "");

function srv(): ServerProcess {
  if (!server) throw new Error("no server");
  return server;
}

// ------------------------------------------------------------------------------------------- HTTP

async function call(
  method: "GET" | "POST" | "PUT",
  route: string,
  input: Record<string, unknown> = {},
  ms = 20_000,
): Promise<Answer> {
  const signal = AbortSignal.timeout(ms);
  const base = `${srv().url}/studio${route}`;
  let res: Response;
  if (method === "GET") {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(input)) query.set(k, String(v));
    res = await fetch(`${base}?${query}`, { signal });
  } else {
    res = await fetch(base, {
      method,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(input),
      signal,
    });
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, body };
}

async function ok(
  method: "GET" | "POST" | "PUT",
  route: string,
  input: Record<string, unknown> = {},
  ms?: number,
): Promise<Any> {
  const answer = await call(method, route, input, ms);
  expect(answer.status, `${method} /studio${route}: ${JSON.stringify(answer.body)}${said()}`).toBe(200);
  return answer.body;
}

const episode = () => ok("GET", "/episode", { ep, pass: "proxy" });
const jobs = () => ok("GET", "/jobs");

const waitFor = <T>(
  what: string,
  probe: () => Promise<T | undefined | null | false>,
  ms = RENDER_WAIT_MS,
  everyMs = 50,
) => until(what, probe, { ms, everyMs, said });

/** Until the double has sent a progress step of `prompt` to the engine: the render is under way, not just queued. */
const untilProgress = (prompt: string) =>
  waitFor(
    `a progress step of ${prompt}`,
    async () =>
      double.events.some((e) => e.type === "progress" && isObject(e.data) && e.data.prompt_id === prompt),
    10_000,
    20,
  );

const row = (status: Any, shot: string): Any => status.shots.find((r: Any) => r.shot === shot);
const takeOf = (status: Any, shot: string, take: number): Any =>
  row(status, shot)?.takes.find((t: Any) => t.take === take);
const jobOf = (list: Any, id: string): Any => list.jobs.find((j: Any) => j.id === id);
const stemOf = (shot: string, take: number) => `${shot}_t${String(take).padStart(2, "0")}`;
const sidecar = async (shot: string, take: number): Promise<Any> =>
  JSON.parse(await readFile(path.join(ep, "renders_proxy", shot, `${stemOf(shot, take)}.json`), "utf8"));

async function untilClosed(takes: { shot: string; take: number }[]): Promise<Any> {
  return waitFor(`${takes.map((t) => `${t.shot} t${t.take}`).join(", ")} to end`, async () => {
    const status = await episode();
    const closed = takes.every((t) => {
      const s = takeOf(status, t.shot, t.take)?.status;
      return s !== undefined && s !== "queued";
    });
    return closed ? status : undefined;
  });
}

async function render(shots: string[]): Promise<Any[]> {
  const r = await ok("POST", "/render", { ep, pass: "proxy", shots, redo: true });
  expect(r.errors, JSON.stringify(r) + said()).toEqual([]);
  expect(r.skipped, JSON.stringify(r) + said()).toEqual([]);
  expect(
    r.queued.map((q: Any) => q.shot),
    said(),
  ).toEqual(shots);
  return r.queued;
}

/** Wait until the double has received `n` more POST /prompt than `before`. */
async function newPrompts(before: number, n: number): Promise<void> {
  await waitFor(
    `${n} new prompt(s) on the double`,
    async () => double.prompts.length >= before + n,
    20_000,
    20,
  );
}

/** Page socket: every frame the server sends, parsed. */
async function pageSocket(): Promise<{ frames: Any[]; close: () => void }> {
  const frames: Any[] = [];
  const ws = new WebSocket(`${srv().url.replace(/^http/, "ws")}/ws`);
  ws.on("message", (data) => {
    try {
      frames.push(JSON.parse(String(data)));
    } catch {
      frames.push({ raw: String(data) });
    }
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("page socket did not open")), 5_000);
    ws.once("open", () => {
      clearTimeout(timer);
      resolve();
    });
    ws.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
  return { frames, close: () => ws.terminate() };
}

async function png(file: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await sharp({ create: { width: 64, height: 64, channels: 3, background: "#336699" } })
    .png()
    .toFile(file);
}

async function pointAt(d: ComfyDouble): Promise<void> {
  const file = settingsFile(env.services);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify({ local_url: d.url }));
}

beforeAll(async () => {
  env = await makeTestEnv();
  const shows = path.join(env.dir, "shows");
  ep = path.join(shows, "gold_path", "ep01");
  await mkdir(ep, { recursive: true });
  const series = JSON.parse(await readFile("lib/episode/starter/series.json", "utf8"));
  series.series.target = "ltx2";
  // ltx2 renders on a 64-pixel grid: 256x128 is on it and keeps the double's mp4s small.
  series.proxy = { ...series.proxy, width: 256, height: 128 };
  await writeFile(path.join(ep, "series.json"), JSON.stringify(series, null, 2));
  await cp("lib/episode/starter/starter.md", path.join(ep, "ep01.md"));
  await png(path.join(ep, "refs", "shots", "sh010", "first.png"));

  double = await startComfyDouble({ models: DEFAULT_MODELS, stepMs: 10 });
  doubles.push(double);
  await pointAt(double);

  // Lane `local` runs two jobs at once, so one prompt can wait in ComfyUI's own queue (not settable over HTTP).
  const store = await env.services.jobs();
  try {
    await store.setParallel("local", 2);
  } finally {
    await store.close();
  }

  server = await startServer({ STUDIO_HOME: env.home, STUDIO_ROOTS: shows });
  const build = await ok("POST", "/build", { ep });
  expect(build, said()).toMatchObject({ ok: true, passes: { proxy: { ok: true } } });
}, 60_000);

afterAll(async () => {
  try {
    await stop(server);
  } finally {
    for (const d of doubles) await d.close().catch(() => {});
    await env?.cleanup();
  }
}, 30_000);

describe("ComfyUI renders through a real server process", () => {
  it("renders 3 ltx2 shots through the double: keyframe uploaded, progress on /ws, exact frames, sidecars", async () => {
    const page = await pageSocket();
    try {
      const before = await episode();
      for (const r of before.shots) expect(r.target, said()).toBe("ltx2");
      const shots = ["sh010", "sh020", "sh030"];
      const queued = await render(shots);
      for (const q of queued)
        expect(q, said()).toMatchObject({ target: "ltx2", prompt_id: expect.any(String) });
      const status = await untilClosed(queued);
      const list = await jobs();
      for (const q of queued) {
        const t = takeOf(status, q.shot, q.take);
        const where = `${q.shot} t${q.take}: ${JSON.stringify(t)} job ${JSON.stringify(jobOf(list, q.prompt_id))}${said()}`;
        expect(t, where).toMatchObject({
          status: "ok",
          has_video: true,
          target: "ltx2",
          frames: row(status, q.shot).length,
        });
        expect(jobOf(list, q.prompt_id), where).toMatchObject({ lane: "local", status: "succeeded" });
        const mp4 = path.join(ep, t.mp4);
        expect((await stat(mp4)).size, where).toBeGreaterThan(0);
        expect(await countFrames(mp4, hostMedia), where).toBe(row(status, q.shot).length);
        const sc = await sidecar(q.shot, q.take);
        expect(sc, where).toMatchObject({ status: "ok", target: "ltx2", backend: "local" });
        expect(sc.resolved, where).toMatchObject({
          model: { how: "exact", tier: "required" },
          text_encoder: { want: TEXT_ENCODER, using: TEXT_ENCODER, how: "exact", tier: "required" },
        });
      }
      // sh010's first keyframe went up as the name its graph loads.
      const first = await sidecar("sh010", queued[0].take);
      expect(typeof first.inputs?.first, JSON.stringify(first)).toBe("string");
      const base = (n: string) => n.split("/").pop();
      expect(double.uploads.map((u) => base(u.name))).toContain(base(first.inputs.first));

      // The page socket saw render progress strictly between 0 and 1, and each take's ok.
      await waitFor(
        "studio.take ok frames",
        async () =>
          shots.every((shot) =>
            page.frames.some(
              (f) => f.type === "studio.take" && f.data?.shot === shot && f.data?.status === "ok",
            ),
          ),
        5_000,
      );
      const ids = new Set(queued.map((q: Any) => q.prompt_id));
      const progress = page.frames
        .filter((f) => f.type === "studio.job" && ids.has(f.data?.id))
        .map((f) => f.data.progress as number);
      expect(
        progress.some((p) => p > 0 && p < 1),
        JSON.stringify(page.frames.filter((f) => f.type === "studio.job").slice(0, 20)),
      ).toBe(true);
      for (const f of page.frames.filter((f) => f.type === "studio.job" && ids.has(f.data?.id)))
        expect(f.data, JSON.stringify(f)).toMatchObject({ kind: "render" });
    } finally {
      page.close();
    }
  }, 60_000);

  it("cancels a prompt pending in ComfyUI's queue (deleted) and a running one (interrupted)", async () => {
    double.inject({ kind: "slow_progress", stepMs: 400 });
    try {
      const mark = double.requests.length;
      const prompts = double.prompts.length;
      const queued = await render(["sh020", "sh030"]);
      // Both jobs run in the service (lane local parallel 2): one prompt runs on the double, the other waits there.
      await newPrompts(prompts, 2);
      const st = await waitFor(
        "one running and one pending prompt on the double",
        async () => {
          const s = double.state();
          return s.running && s.pending.length === 1 ? s : undefined;
        },
        10_000,
        20,
      );
      // Each take's sidecar records its ComfyUI prompt id: which take is the pending one, which the running.
      // (written once ComfyUI accepted the prompt, so wait for both).
      const ids = await waitFor(
        "both sidecars to carry their ComfyUI prompt id",
        async () => {
          const ids = await Promise.all(
            queued.map(async (q: Any) => (await sidecar(q.shot, q.take)).backend_prompt_id),
          );
          return ids.every((id) => typeof id === "string") ? (ids as string[]) : undefined;
        },
        10_000,
        20,
      );
      const pendingIdx = ids.indexOf(st.pending[0]);
      const runningIdx = ids.indexOf(String(st.running));
      expect([pendingIdx, runningIdx].sort(), `${JSON.stringify(st)} ${JSON.stringify(ids)}`).toEqual([0, 1]);
      const pending = queued[pendingIdx];
      const running = queued[runningIdx];

      for (const q of [pending, running]) {
        const answer = await call(
          "POST",
          "/cancel",
          { ep, pass: "proxy", shot: q.shot, take: q.take },
          30_000,
        );
        expect(answer, `${q.shot}${said()}`).toEqual({
          status: 200,
          body: {
            shot: q.shot,
            pass: "proxy",
            take: q.take,
            status: "failed",
            save_notes: "canceled",
            finished: expect.any(String),
          },
        });
      }
      // The pending prompt was deleted from ComfyUI's queue, the running one interrupted.
      const sent = double.requests.slice(mark);
      const seen = sent.map((r) => `${r.method} ${r.path}`);
      expect(
        seen.some((r) => r.startsWith("POST /api/queue")),
        seen.join("\n"),
      ).toBe(true);
      expect(
        seen.some((r) => r.startsWith("POST /api/interrupt")),
        seen.join("\n"),
      ).toBe(true);
      await double.idle(10_000);
      const s = double.state();
      expect(s.pending, JSON.stringify(s)).toEqual([]);
      const status = await episode();
      for (const q of queued)
        expect(takeOf(status, q.shot, q.take), said()).toMatchObject({
          status: "failed",
          has_video: false,
          save_notes: "canceled",
        });
    } finally {
      double.inject({ kind: "slow_progress", stepMs: 10 });
    }
  }, 60_000);

  it("finishes a take over a dropped websocket, and fails one whose engine restarted mid-render", async () => {
    double.inject({ kind: "slow_progress", stepMs: 150 });
    try {
      // A drop: the engine reconnects (or polls) and the take still ends ok.
      let prompts = double.prompts.length;
      const [dropped] = await render(["sh040"]);
      await newPrompts(prompts, 1);
      await untilProgress(
        await waitFor("the prompt to run on the double", async () => double.state().running, 10_000, 20),
      );
      const runningAtDrop = double.state().running;
      expect(runningAtDrop, "the prompt was still running when the sockets dropped").toBeTruthy();
      const clientsAtDrop = double.state().clients.length;
      double.dropSockets();
      let status = await untilClosed([dropped]);
      // Followed to its end, not submitted again.
      expect(double.prompts.length, said()).toBe(prompts + 1);
      expect(clientsAtDrop, "the engine's websocket was connected before the drop").toBeGreaterThan(0);
      expect((await sidecar(dropped.shot, dropped.take)).backend_prompt_id, said()).toBe(runningAtDrop);
      const t = takeOf(status, dropped.shot, dropped.take);
      expect(t, JSON.stringify(t) + said()).toMatchObject({ status: "ok", has_video: true, target: "ltx2" });
      expect(await countFrames(path.join(ep, t.mp4), hostMedia), said()).toBe(
        row(status, dropped.shot).length,
      );

      // A restart: ComfyUI forgets the prompt; the take fails naming the restart.
      prompts = double.prompts.length;
      const [lost] = await render(["sh010"]);
      await newPrompts(prompts, 1);
      await untilProgress(
        await waitFor("the prompt to run on the double", async () => double.state().running, 10_000, 20),
      );
      await double.restart();
      status = await untilClosed([lost]);
      const failed = takeOf(status, lost.shot, lost.take);
      expect(failed, JSON.stringify(failed) + said()).toMatchObject({ status: "failed", has_video: false });
      expect(failed.save_notes, JSON.stringify(failed) + said()).toContain("restarted");
      expect(jobOf(await jobs(), lost.prompt_id), said()).toMatchObject({
        status: "failed",
        error: expect.stringContaining("restarted"),
      });
    } finally {
      double.inject({ kind: "slow_progress", stepMs: 10 });
    }
  }, 60_000);

  it("answers ltx2 ready, then not_ready with the missing text encoder once local_url names a double without it", async () => {
    const ltx2 = async (): Promise<Any> => {
      const body = await ok("GET", "/targets", { kind: "video", ready: 1 }, 30_000);
      const list: Any[] = Array.isArray(body) ? body : (body.targets ?? []);
      const t = list.find((x: Any) => x.id === "ltx2");
      expect(t, JSON.stringify(body).slice(0, 2000)).toBeDefined();
      return t;
    };
    const ready = await ltx2();
    expect(ready.readiness, JSON.stringify(ready)).toMatchObject({ status: "ready", missing: [] });

    const models = structuredClone(DEFAULT_MODELS);
    models.text_encoders = models.text_encoders.filter((f) => f !== TEXT_ENCODER);
    const lacking = await startComfyDouble({ models, stepMs: 10 });
    doubles.push(lacking);
    await ok("PUT", "/settings", { local_url: lacking.url });
    expect(JSON.parse(await readFile(settingsFile(env.services), "utf8")).local_url).toBe(lacking.url);
    const not = await ltx2();
    expect(not.readiness, JSON.stringify(not)).toMatchObject({
      status: "not_ready",
      missing: expect.arrayContaining([
        expect.objectContaining({
          param: "text_encoder",
          tier: "required",
          want: TEXT_ENCODER,
          folder: "text_encoders",
        }),
      ]),
    });
  }, 40_000);
});
