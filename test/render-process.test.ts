// Renders through HTTP against real `node runtime/serve.js` processes on 127.0.0.1, on the starter show and the
// built-in animatic: takes with exact frame counts, cancel of a waiting and a running take, a restart with work
// still queued (and the sweep of a take whose job is gone), and the assembled proxy cut.
import { cp, mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countFrames, probe } from "../lib/media/ffmpeg.ts";
import { JOB_GONE } from "../lib/render/sweep.ts";
import { hostMedia, makeTestEnv, type TestEnv } from "./support/ctx.ts";
import { until } from "./support/poll.ts";
import { type ServerProcess, startServer } from "./support/server.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;
type Answer = { status: number; body: Any };

/** How long a render may take to end on a busy 2-core machine (each animatic shot takes a second or two). */
const RENDER_WAIT_MS = 60_000;
const SHOTS = ["sh010", "sh020", "sh030", "sh040"];

let env: TestEnv;
let shows: string;
let ep: string;
let serverEnv: Record<string, string>;

// ------------------------------------------------------------------------------------------- processes

/** Every server this file started; each test stops its own in `finally`, afterAll catches any left over. */
const started: ServerProcess[] = [];

async function start(): Promise<ServerProcess> {
  const server = await startServer(serverEnv);
  started.push(server);
  return server;
}

const alive = (s: ServerProcess) => s.child.exitCode === null && s.child.signalCode === null;

/** Stop a server: SIGTERM (its pool lets a running render end, so no ffmpeg is left behind), then SIGKILL. */
async function stop(server: ServerProcess): Promise<void> {
  if (!alive(server)) return;
  server.child.kill("SIGTERM");
  const ended = await Promise.race([
    server.exited.then(() => true),
    new Promise<false>((r) => setTimeout(() => r(false), 10_000)),
  ]);
  if (!ended && alive(server)) {
    server.child.kill("SIGKILL");
    await server.exited;
  }
}

async function stopAll(): Promise<void> {
  await Promise.all(started.map(stop));
}

/** The server's output, for an assertion's message. */
const said = (server: ServerProcess) => `\n--- server output ---\n${server.output()}\n---`;

// ------------------------------------------------------------------------------------------- HTTP

async function call(
  server: ServerProcess,
  method: "GET" | "POST",
  route: string,
  input: Record<string, unknown> = {},
  ms = 20_000,
): Promise<Answer> {
  const signal = AbortSignal.timeout(ms);
  let res: Response;
  if (method === "GET") {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(input)) query.set(k, String(v));
    res = await fetch(`${server.url}/studio${route}?${query}`, { signal });
  } else {
    res = await fetch(`${server.url}/studio${route}`, {
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

/** A call that must answer 200; anything else fails with the answer and the server's output. */
async function ok(
  server: ServerProcess,
  method: "GET" | "POST",
  route: string,
  input: Record<string, unknown> = {},
  ms?: number,
): Promise<Any> {
  const answer = await call(server, method, route, input, ms);
  expect(answer.status, `${method} /studio${route}: ${JSON.stringify(answer.body)}${said(server)}`).toBe(200);
  return answer.body;
}

const episode = (server: ServerProcess) => ok(server, "GET", "/episode", { ep, pass: "proxy" });
const jobs = (server: ServerProcess) => ok(server, "GET", "/jobs");
const pause = (server: ServerProcess, paused: boolean) =>
  ok(server, "POST", "/jobs/pause", { lane: "builtin", paused });

const waitFor = <T>(
  server: ServerProcess,
  what: string,
  probe: () => Promise<T | undefined | null | false>,
  ms = RENDER_WAIT_MS,
  everyMs = 100,
) => until(what, probe, { ms, everyMs, said: () => said(server) });

// ------------------------------------------------------------------------------------------- the episode

const row = (status: Any, shot: string): Any => status.shots.find((r: Any) => r.shot === shot);
const takeOf = (status: Any, shot: string, take: number): Any =>
  row(status, shot)?.takes.find((t: Any) => t.take === take);
const jobOf = (list: Any, id: string): Any => list.jobs.find((j: Any) => j.id === id);
const file = (rel: string) => path.join(ep, ...rel.split("/"));
const size = async (f: string) => (await stat(f).catch(() => null))?.size ?? 0;

/** Poll GET /studio/episode until every listed take has left `queued`; answers the last status. */
async function untilClosed(server: ServerProcess, takes: { shot: string; take: number }[]): Promise<Any> {
  return waitFor(server, `${takes.map((t) => `${t.shot} t${t.take}`).join(", ")} to end`, async () => {
    const status = await episode(server);
    const closed = takes.every((t) => {
      const s = takeOf(status, t.shot, t.take)?.status;
      return s !== undefined && s !== "queued";
    });
    return closed ? status : undefined;
  });
}

/** A finished take as the contract lists it, with its files on disk and its mp4's frames counted by ffprobe. */
async function expectUsable(server: ServerProcess, status: Any, shot: string, take: number): Promise<void> {
  const r = row(status, shot);
  const t = takeOf(status, shot, take);
  const where = `${shot} t${take}: ${JSON.stringify(t)}${said(server)}`;
  expect(t, where).toMatchObject({
    take,
    status: "ok",
    has_video: true,
    frames: r.length,
    fps: status.fps,
    width: 448,
    height: 256,
    target: "animatic",
    stale: [],
  });
  const stem = `${shot}_t${String(take).padStart(2, "0")}`;
  expect(t.mp4, where).toBe(`renders_proxy/${shot}/${stem}.mp4`);
  expect(t.thumb, where).toBe(`renders_proxy/${shot}/${stem}.jpg`);
  expect(t.strip, where).toBe(`renders_proxy/${shot}/${stem}_strip.jpg`);
  expect(await countFrames(file(t.mp4), hostMedia), where).toBe(r.length);
  for (const f of [t.mp4, t.thumb, t.strip]) expect(await size(file(f)), `${f} ${where}`).toBeGreaterThan(0);
}

beforeAll(async () => {
  env = await makeTestEnv();
  shows = path.join(env.dir, "shows");
  ep = path.join(shows, "gold_path", "ep01");
  await mkdir(ep, { recursive: true });
  await cp("lib/episode/starter/series.json", path.join(ep, "series.json"));
  await cp("lib/episode/starter/starter.md", path.join(ep, "ep01.md"));
  serverEnv = { STUDIO_HOME: env.home, STUDIO_ROOTS: shows };
  const server = await start();
  try {
    const build = await ok(server, "POST", "/build", { ep });
    expect(build, said(server)).toMatchObject({ ok: true, passes: { proxy: { ok: true } } });
  } finally {
    await stop(server);
  }
}, 60_000);

afterAll(async () => {
  await stopAll();
  await env?.cleanup();
});

describe("renders through a real server process", () => {
  it("renders 3 starter shots on the animatic into usable takes with exact frame counts, thumbs and strips", async () => {
    const server = await start();
    try {
      await pause(server, false);
      const before = await episode(server);
      expect(
        before.shots.map((r: Any) => r.shot),
        said(server),
      ).toEqual(SHOTS);
      for (const r of before.shots) expect(r.target, said(server)).toBe("animatic");

      const shots = ["sh010", "sh020", "sh030"];
      const render = await ok(server, "POST", "/render", { ep, pass: "proxy", shots });
      expect(render.skipped, said(server)).toEqual([]);
      expect(render.errors, said(server)).toEqual([]);
      expect(render.queued, said(server)).toEqual(
        shots.map((shot) =>
          expect.objectContaining({
            shot,
            take: 1,
            target: "animatic",
            prompt_id: expect.any(String),
            seed: expect.stringMatching(/^\d+$/),
          }),
        ),
      );

      const status = await untilClosed(
        server,
        shots.map((shot) => ({ shot, take: 1 })),
      );
      for (const shot of shots) {
        await expectUsable(server, status, shot, 1);
        expect(row(status, shot).cut, said(server)).toMatchObject({ take: 1, usable: true });
      }
      const list = await jobs(server);
      for (const q of render.queued) {
        expect(jobOf(list, q.prompt_id), said(server)).toMatchObject({
          kind: "render",
          lane: "builtin",
          status: "succeeded",
          info: { shot: q.shot, take: 1 },
        });
      }
    } finally {
      await stop(server);
    }
  }, 90_000);

  it("cancels a waiting take at once and a running take once its render stopped; a second cancel is 409", async () => {
    const server = await start();
    try {
      // The lane runs one job at a time (parallel 1): paused, both jobs wait.
      expect((await pause(server, true)).lanes.builtin, said(server)).toMatchObject({
        paused: true,
        parallel: 1,
      });
      // At the series' full size the running render lasts seconds, so the cancel surely lands while it runs.
      const render = await ok(server, "POST", "/render", {
        ep,
        pass: "proxy",
        shots: ["sh040", "sh010"],
        redo: true,
        size: "1344x768",
      });
      expect(render.queued, JSON.stringify(render) + said(server)).toHaveLength(2);
      const [waiting, running] = render.queued;
      const listed = await jobs(server);
      expect(listed.lanes.builtin.waiting, said(server)).toEqual(
        expect.arrayContaining([waiting.prompt_id, running.prompt_id]),
      );
      expect(listed.lanes.builtin.running, said(server)).toEqual([]);

      // Waiting: failed "canceled before it ran", its job leaves the queue.
      const first = await call(server, "POST", "/cancel", {
        ep,
        pass: "proxy",
        shot: waiting.shot,
        take: waiting.take,
      });
      expect(first, said(server)).toEqual({
        status: 200,
        body: {
          shot: waiting.shot,
          pass: "proxy",
          take: waiting.take,
          status: "failed",
          save_notes: "canceled before it ran",
          finished: expect.any(String),
        },
      });
      const afterWaiting = await jobs(server);
      expect(jobOf(afterWaiting, waiting.prompt_id)?.status, said(server)).toBe("canceled");
      expect(afterWaiting.lanes.builtin.waiting, said(server)).toEqual([running.prompt_id]);

      // Running: resume, wait until its job runs, cancel; the route answers once the render has stopped.
      await pause(server, false);
      await waitFor(
        server,
        `job ${running.prompt_id} to run`,
        async () => jobOf(await jobs(server), running.prompt_id)?.status === "running",
        20_000,
        20,
      );
      const asked = Date.now();
      const second = await call(server, "POST", "/cancel", {
        ep,
        pass: "proxy",
        shot: running.shot,
        take: running.take,
      });
      const waitedMs = Date.now() - asked;
      expect(second, said(server)).toEqual({
        status: 200,
        body: {
          shot: running.shot,
          pass: "proxy",
          take: running.take,
          status: "failed",
          save_notes: "canceled",
          finished: expect.any(String),
        },
      });
      console.log(`cancel of a running render answered in ${waitedMs} ms`);
      // The route waited: the job has already ended, nothing of the render is left in the shot's folder.
      expect(jobOf(await jobs(server), running.prompt_id), said(server)).toMatchObject({
        status: "canceled",
        started: expect.any(String),
        finished: expect.any(String),
      });
      const stem = `${running.shot}_t${String(running.take).padStart(2, "0")}`;
      const names = await readdir(path.join(ep, "renders_proxy", running.shot));
      expect(
        names.filter((n) => n.startsWith(".") || n === `${stem}.mp4`),
        said(server),
      ).toEqual([]);
      const status = await episode(server);
      for (const [q, note] of [
        [waiting, "canceled before it ran"],
        [running, "canceled"],
      ] as const) {
        expect(takeOf(status, q.shot, q.take), said(server)).toMatchObject({
          status: "failed",
          has_video: false,
          save_notes: note,
        });
      }

      // A take that is not queued any more cannot be canceled.
      for (const q of [running, waiting]) {
        const again = await call(server, "POST", "/cancel", {
          ep,
          pass: "proxy",
          shot: q.shot,
          take: q.take,
        });
        expect(again.status, JSON.stringify(again.body) + said(server)).toBe(409);
        expect(Object.keys(again.body), said(server)).toEqual(["error"]);
        expect(again.body.error).toBe(
          `${q.shot} t${String(q.take).padStart(2, "0")} (proxy) is failed: only a queued take can be canceled`,
        );
      }
    } finally {
      await stop(server);
    }
  }, 90_000);

  it("keeps queued renders over a restart, runs them once resumed, and sweeps a take whose job is gone", async () => {
    let server = await start();
    try {
      await pause(server, true);
      const render = await ok(server, "POST", "/render", {
        ep,
        pass: "proxy",
        shots: ["sh020", "sh030"],
        redo: true,
      });
      expect(render.queued, JSON.stringify(render) + said(server)).toHaveLength(2);
      const ids = render.queued.map((q: Any) => q.prompt_id);

      const stopped = await call(server, "POST", "/server/stop", { restart: true });
      expect(stopped, said(server)).toEqual({ status: 200, body: { ok: true, restart: true } });
      expect(await server.exited, said(server)).toBe(3);

      server = await start();
      const listed = await jobs(server);
      expect(listed.lanes.builtin, said(server)).toMatchObject({ paused: true, running: [] });
      expect(listed.lanes.builtin.waiting, said(server)).toEqual(expect.arrayContaining(ids));
      for (const id of ids) expect(jobOf(listed, id)?.status, said(server)).toBe("queued");

      // A take reserved on the service's queue whose job no longer exists.
      const before = await episode(server);
      const gone = {
        shot: "sh010",
        take: Math.max(0, ...row(before, "sh010").takes.map((t: Any) => t.take)) + 1,
      };
      const stem = `sh010_t${String(gone.take).padStart(2, "0")}`;
      const sidecar = path.join(ep, "renders_proxy", "sh010", `${stem}.json`);
      const job = "j_0000deadbeef";
      expect(jobOf(listed, job)).toBeUndefined();
      await mkdir(path.dirname(sidecar), { recursive: true });
      await writeFile(
        sidecar,
        JSON.stringify(
          {
            version: 1,
            shot: "sh010",
            take: gone.take,
            pass: "proxy",
            status: "queued",
            queue: "studio",
            backend: "builtin",
            target: "animatic",
            job,
            queued: new Date().toISOString(),
          },
          null,
          2,
        ),
      );

      const swept = await episode(server);
      for (const q of render.queued) {
        expect(takeOf(swept, q.shot, q.take)?.status, `${q.shot} t${q.take}${said(server)}`).toBe("queued");
      }
      expect(takeOf(swept, "sh010", gone.take), said(server)).toMatchObject({
        status: "failed",
        has_video: false,
        save_notes: JOB_GONE,
        finished: expect.any(String),
      });
      expect(JSON.parse(await readFile(sidecar, "utf8"))).toMatchObject({
        status: "failed",
        save_notes: JOB_GONE,
        job,
      });
      // A failed take is never the one the cut plays.
      expect(row(swept, "sh010").cut.take, said(server)).not.toBe(gone.take);

      await pause(server, false);
      const status = await untilClosed(server, render.queued);
      for (const q of render.queued) await expectUsable(server, status, q.shot, q.take);
      const after = await jobs(server);
      for (const id of ids) expect(jobOf(after, id)?.status, said(server)).toBe("succeeded");
    } finally {
      await stopAll();
    }
  }, 90_000);

  it("assembles the proxy cut of all 4 shots into one mp4 of the cut's exact length", async () => {
    const server = await start();
    try {
      await pause(server, false);
      // Whatever the tests above left unrendered is rendered now (redo false skips usable shots).
      const todo = (await episode(server)).shots.filter((r: Any) => !r.cut.usable).map((r: Any) => r.shot);
      if (todo.length) {
        const render = await ok(server, "POST", "/render", { ep, pass: "proxy", shots: todo });
        expect(
          render.queued.map((q: Any) => q.shot),
          JSON.stringify(render) + said(server),
        ).toEqual(todo);
        await untilClosed(server, render.queued);
      }
      const status = await episode(server);
      for (const r of status.shots) {
        expect(r.cut, `${r.shot}${said(server)}`).toMatchObject({
          usable: true,
          out: false,
          frames: r.length,
        });
      }
      const lengths: number[] = status.shots.map((r: Any) => r.length);
      const frames = lengths.reduce((a, b) => a + b, 0);
      const fps: number = status.fps;

      const assembled = await ok(server, "POST", "/assemble", { ep, pass: "proxy" }, 60_000);
      expect(assembled, said(server)).toMatchObject({
        ok: true,
        output: "renders_proxy/ep01_proxy.mp4",
        report: { clips: 4, frames, missing: [], fps },
      });
      const mp4 = file(assembled.output);
      expect(await size(mp4), said(server)).toBeGreaterThan(0);
      const info = await probe(mp4, hostMedia);
      expect(info.video, said(server)).toMatchObject({ width: 448, height: 256 });
      expect(info.audio, said(server)).not.toBeNull();
      expect(
        Math.abs((info.duration ?? 0) - frames / fps),
        `duration ${info.duration} s, cut ${frames} frames at ${fps} fps${said(server)}`,
      ).toBeLessThanOrEqual(1 / fps);
      const counted = await countFrames(mp4, hostMedia);
      console.log(
        `assembled ${counted} frames, ${info.duration} s (the cut: ${lengths.join("+")} = ${frames} frames, ${frames / fps} s)`,
      );
      expect(counted, said(server)).toBe(frames);
    } finally {
      await stop(server);
    }
  }, 90_000);
});
