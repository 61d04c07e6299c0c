// kill -9 of a real `node runtime/serve.js` in the middle of renders and of an assembly, then a restart: the dead
// process's running jobs run again at once (the lease is a minute; they do not wait for it), every take ends
// usable, and no temporary file or work folder is left in the episode or the settings folder.
import { cp, mkdir, readdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probe } from "../lib/media/ffmpeg.ts";
import { assembleWorkPath, tempPath } from "../lib/store/temp-names.ts";
import { hostMedia, makeTestEnv, type TestEnv } from "./support/ctx.ts";
import { until } from "./support/poll.ts";
import { type ServerProcess, startServer } from "./support/server.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

const LEASE_MS = 60_000;
const SHOTS = ["sh010", "sh020", "sh030", "sh040"];

let env: TestEnv;
let ep: string;
let serverEnv: Record<string, string>;
const started: ServerProcess[] = [];

const alive = (s: ServerProcess) => s.child.exitCode === null && s.child.signalCode === null;
const said = (s: ServerProcess) => `\n--- server output ---\n${s.output()}\n---`;

async function start(): Promise<ServerProcess> {
  const server = await startServer(serverEnv);
  started.push(server);
  return server;
}

async function kill(server: ServerProcess): Promise<number> {
  const pid = server.child.pid ?? 0;
  server.child.kill("SIGKILL");
  await server.exited;
  return pid;
}

/** SIGTERM (the pool lets a running job end), SIGKILL when it does not exit. */
async function stop(server: ServerProcess): Promise<void> {
  if (!alive(server)) return;
  server.child.kill("SIGTERM");
  const ended = await Promise.race([
    server.exited.then(() => true),
    new Promise<false>((r) => setTimeout(() => r(false), 10_000)),
  ]);
  if (!ended && alive(server)) await kill(server);
}

async function call(server: ServerProcess, method: "GET" | "POST", route: string, input = {}, ms = 20_000) {
  const signal = AbortSignal.timeout(ms);
  const res =
    method === "GET"
      ? await fetch(`${server.url}/studio${route}?${new URLSearchParams(input)}`, { signal })
      : await fetch(`${server.url}/studio${route}`, {
          method,
          headers: { "content-type": "application/json" },
          body: JSON.stringify(input),
          signal,
        });
  const text = await res.text();
  expect(res.status, `${method} ${route}: ${text}${said(server)}`).toBe(200);
  return JSON.parse(text) as Any;
}

const waitFor = <T>(
  server: ServerProcess,
  what: string,
  probe: () => Promise<T | undefined | null | false>,
  ms: number,
  everyMs = 50,
) => until(what, probe, { ms, everyMs, said: () => said(server) });

const jobs = async (server: ServerProcess): Promise<Any[]> => (await call(server, "GET", "/jobs")).jobs;
const episode = (server: ServerProcess) => call(server, "GET", "/episode", { ep, pass: "proxy" });

/** Every hidden name under `dir` (any depth, links not followed): the service's temporaries are all hidden. */
async function hidden(dir: string): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.name.startsWith(".")) out.push(full);
    else if (e.isDirectory()) out.push(...(await hidden(full)));
  }
  return out;
}

/** Leftovers in the episode and the settings folder; an assembly's answer nobody took is not one. */
const leftovers = async () =>
  [...(await hidden(ep)), ...(await hidden(env.home))].filter(
    (f) => !/^\.assemble-answer-j_[0-9a-f]+\.json$/.test(path.basename(f)),
  );

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

beforeAll(async () => {
  env = await makeTestEnv();
  const shows = path.join(env.dir, "shows");
  ep = path.join(shows, "gold_path", "ep01");
  await mkdir(ep, { recursive: true });
  await cp("lib/episode/starter/series.json", path.join(ep, "series.json"));
  await cp("lib/episode/starter/starter.md", path.join(ep, "ep01.md"));
  serverEnv = { STUDIO_HOME: env.home, STUDIO_ROOTS: shows, STUDIO_LEASE_MS: String(LEASE_MS) };
  const server = await start();
  try {
    expect(await call(server, "POST", "/build", { ep }), said(server)).toMatchObject({ ok: true });
  } finally {
    await stop(server);
  }
}, 60_000);

afterAll(async () => {
  await Promise.all(started.map(stop));
  await env?.cleanup();
});

describe("kill -9 and a restart", () => {
  it("mid-render: the dead process's job runs again at once, every take ends usable, no leftover stays", async () => {
    let server = await start();
    try {
      await call(server, "POST", "/jobs/pause", { lane: "builtin", paused: false });
      // At this size a render lasts long enough to be killed in the middle of it.
      const render = await call(server, "POST", "/render", {
        ep,
        pass: "proxy",
        shots: SHOTS,
        redo: true,
        size: "1344x768",
      });
      expect(render.queued, JSON.stringify(render)).toHaveLength(SHOTS.length);
      // Killed once a render has its work folder and has written into it.
      const victim = await waitFor(
        server,
        "a render writing into its work folder",
        async () => {
          const running = (await jobs(server)).find((j) => j.kind === "render" && j.status === "running");
          if (!running) return undefined;
          const dir = path.join(ep, "renders_proxy", running.info.shot);
          const work = (await readdir(dir).catch(() => [])).find((n) => n.startsWith(".render_"));
          if (!work || (await readdir(path.join(dir, work)).catch(() => [])).length === 0) return undefined;
          return { job: running, work: path.join(dir, work) };
        },
        60_000,
        20,
      );
      const pid = await kill(server);

      // What a kill at other moments leaves, named as the dead process names them: an atomic write of a shot
      // list and of the settings, an assembly's scratch folder and its partial mp4.
      const planted = [
        tempPath(path.join(ep, "shotlist", "shotlist_proxy.json"), "", pid),
        tempPath(path.join(env.home, "default", "studio", "settings.json"), "", pid),
        tempPath(path.join(ep, "renders_proxy", "ep01_proxy.mp4"), "", pid),
      ];
      for (const f of planted) {
        await mkdir(path.dirname(f), { recursive: true });
        await writeFile(f, "");
      }
      const scratch = assembleWorkPath(path.join(ep, "renders_proxy"), pid);
      await mkdir(scratch);
      await writeFile(path.join(scratch, "clips.ffconcat"), "ffconcat version 1.0\n");
      const before = await leftovers();
      expect(before).toEqual(expect.arrayContaining([victim.work, scratch, ...planted]));

      const restarted = Date.now();
      server = await start();
      const rerun = await waitFor(
        server,
        `job ${victim.job.id} to run again and end`,
        async () => {
          const j = (await jobs(server)).find((x) => x.id === victim.job.id);
          return j && j.status !== "queued" && j.status !== "running" ? j : undefined;
        },
        LEASE_MS - 10_000,
      );
      expect(rerun, said(server)).toMatchObject({ status: "succeeded" });
      expect(rerun.log, said(server)).toContain("its worker process ended; queued again");
      const startedAgainMs = Date.parse(rerun.started) - restarted;
      console.log(`the dead process's job started again ${startedAgainMs} ms after the restart`);
      expect(startedAgainMs, said(server)).toBeLessThan(LEASE_MS / 3);

      const status = await waitFor(
        server,
        "every take to end",
        async () => {
          const s = await episode(server);
          const ended = SHOTS.every((shot) =>
            s.shots
              .find((r: Any) => r.shot === shot)
              ?.takes.some(
                (t: Any) =>
                  render.queued.some((q: Any) => q.shot === shot && q.take === t.take) &&
                  t.status !== "queued",
              ),
          );
          return ended ? s : undefined;
        },
        LEASE_MS,
      );
      for (const q of render.queued) {
        const take = status.shots
          .find((r: Any) => r.shot === q.shot)
          .takes.find((t: Any) => t.take === q.take);
        expect(take, `${q.shot}${said(server)}`).toMatchObject({ status: "ok", has_video: true });
      }
      await waitFor(
        server,
        "no leftovers",
        async () => (await leftovers()).length === 0,
        60_000 - (Date.now() - restarted),
      );
      for (const f of [victim.work, scratch, ...planted]) expect(await exists(f), f).toBe(false);
    } finally {
      await stop(server);
    }
  }, 180_000);

  it("mid-assembly: the assembly runs again at once and ends with the mp4; its scratch and partial file go", async () => {
    let server = await start();
    try {
      const out = path.join(ep, "renders_proxy");
      // Another size than the takes': every clip is re-encoded, so the scratch folder lives for a while.
      const asked = call(server, "POST", "/assemble", { ep, pass: "proxy", size: "1280x720" }, 120_000).catch(
        () => null,
      );
      const scratch = await waitFor(
        server,
        "the assembly's scratch folder",
        async () => (await readdir(out)).find((n) => /^\.assemble-\d+-[0-9a-f]{8}$/.test(n)),
        60_000,
        5,
      );
      const job = (await jobs(server)).find((j) => j.kind === "assemble" && j.status === "running");
      expect(job, said(server)).toBeDefined();
      await kill(server);
      await asked;
      expect(await exists(path.join(out, scratch))).toBe(true);

      const restarted = Date.now();
      server = await start();
      const ended = await waitFor(
        server,
        `assembly ${job.id} to run again and end`,
        async () => {
          const j = (await jobs(server)).find((x) => x.id === job.id);
          return j && j.status !== "queued" && j.status !== "running" ? j : undefined;
        },
        LEASE_MS - 10_000,
      );
      expect(ended, said(server)).toMatchObject({ status: "succeeded" });
      expect(Date.parse(ended.started) - restarted, said(server)).toBeLessThan(LEASE_MS / 3);
      const info = await probe(path.join(out, "ep01_proxy.mp4"), hostMedia);
      expect(info.video, said(server)).toMatchObject({ width: 1280, height: 720 });
      await waitFor(
        server,
        "no leftovers",
        async () => (await leftovers()).length === 0,
        60_000 - (Date.now() - restarted),
      );
    } finally {
      await stop(server);
    }
  }, 180_000);
});
