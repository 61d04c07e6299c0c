// Throughput benchmark: 50 clients on loopback keep GET /studio/config and GET /studio/episode (the 4-shot starter)
// busy on a real server process (node runtime/serve.js), beside a bare Hono route in its own process measured in
// the same run. Requests per second and the ratio to the bare route against the goals; never pass/fail.
import { type ChildProcess, spawn } from "node:child_process";
import { cp, mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Agent, request } from "undici";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLIENTS = 50;
const SECONDS = 4;

const BARE_HONO = `import { Hono } from "hono"; import { serve } from "@hono/node-server";
const app = new Hono(); app.get("/bare", (c) => c.json({ ok: true }));
serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (i) =>
  process.stdout.write("listening on http://127.0.0.1:" + i.port + "/studio/\\n"));`;

async function start(
  args: string[],
  env: Record<string, string>,
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/\S+?)\/studio\//.exec(out);
      if (m) resolve(m[1]);
    });
    child.stderr?.on("data", (c: Buffer) => {
      out += c.toString();
    });
    child.once("exit", (code) => reject(new Error(`exited with ${code}:\n${out}`)));
  });
  return { url, child };
}

/** Requests per second of `CLIENTS` connections each sending the next request as soon as one is answered. */
async function load(url: string): Promise<{ rps: number; p50: number; p99: number }> {
  const dispatcher = new Agent({ connections: CLIENTS, pipelining: 1 });
  const once = async () => {
    const res = await request(url, { dispatcher });
    await res.body.arrayBuffer();
    if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}`);
  };
  for (let i = 0; i < 200; i++) await once();
  const samples: number[] = [];
  const end = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        await once();
        samples.push(performance.now() - t0);
      }
    }),
  );
  await dispatcher.close();
  samples.sort((a, b) => a - b);
  return {
    rps: samples.length / SECONDS,
    p50: samples[Math.floor(samples.length * 0.5)],
    p99: samples[Math.floor(samples.length * 0.99)],
  };
}

export async function run(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "studio-bench-throughput-"));
  const shows = path.join(dir, "shows");
  const ep = path.join(shows, "show", "ep01");
  await mkdir(ep, { recursive: true });
  const starter = path.join(root, "lib", "episode", "starter");
  await cp(path.join(starter, "series.json"), path.join(ep, "series.json"));
  await cp(path.join(starter, "starter.md"), path.join(ep, "ep01.md"));
  const env = {
    STUDIO_HOME: path.join(dir, "home"),
    STUDIO_ROOTS: shows,
    STUDIO_LOG: "warn",
    STUDIO_HOST: "127.0.0.1",
  };
  const bare = await start(["--input-type=module", "-e", BARE_HONO], {});
  const studio = await start(["runtime/serve.js", "--port", "0"], { ...env, STUDIO_ROLES: "api" });
  try {
    const built = await request(`${studio.url}/studio/build`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ep }),
    });
    if (built.statusCode !== 200)
      throw new Error(`build answered ${built.statusCode}: ${await built.body.text()}`);
    await built.body.dump();
    // The bare route is measured before and after, the better figure kept: the machine's other load varies.
    const before = await load(`${bare.url}/bare`);
    const config = await load(`${studio.url}/studio/config`);
    const episode = await load(`${studio.url}/studio/episode?ep=${encodeURIComponent(ep)}&pass=proxy`);
    const after = await load(`${bare.url}/bare`);
    const base = before.rps >= after.rps ? before : after;
    console.log(`throughput: ${CLIENTS} clients on loopback, ${SECONDS} s each`);
    const row = (label: string, r: { rps: number; p50: number; p99: number }, goal?: number) =>
      console.log(
        `  ${label.padEnd(34)} ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms  (${(r.rps / base.rps).toFixed(2)}x bare${goal ? `, goal ${goal}x` : ""})`,
      );
    row("bare Hono route", base);
    row("GET /studio/config", config, 0.5);
    row("GET /studio/episode (4 shots)", episode, 0.25);
  } finally {
    bare.child.kill("SIGKILL");
    studio.child.kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
  }
}
