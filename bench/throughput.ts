import { readFile, rm } from "node:fs/promises";
import { Agent, request } from "undici";
import { starterShow, startListening } from "./process.ts";

const CLIENTS = 50;
const SECONDS = 4;

const BARE_HONO = `import { Hono } from "hono"; import { serve } from "@hono/node-server";
const app = new Hono(); app.get("/bare", (c) => c.json({ ok: true }));
serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (i) =>
  process.stdout.write("listening on http://127.0.0.1:" + i.port + "/studio/\\n"));`;

/**
 * A process's CPU time so far in ms (user + system, from /proc in clock ticks of 10 ms), or null where /proc is
 * not there: on a shared machine the server's CPU per request says more than its rate.
 */
async function cpuMs(pid: number | undefined): Promise<number | null> {
  if (pid === undefined) return null;
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => null);
  if (stat === null) return null;
  // Fields after the command name (which may hold spaces, inside parentheses): utime and stime are 14th and 15th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface Load {
  rps: number;
  p50: number;
  p99: number;
  /** The server's CPU ms per request during the run, when known. */
  cpu: number | null;
}

/** Requests per second of `CLIENTS` connections each sending the next request as soon as one is answered. */
async function load(url: string, pid?: number): Promise<Load> {
  const dispatcher = new Agent({ connections: CLIENTS, pipelining: 1 });
  const once = async () => {
    const res = await request(url, { dispatcher });
    await res.body.arrayBuffer();
    if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}`);
  };
  for (let i = 0; i < 200; i++) await once();
  const cpuBefore = await cpuMs(pid);
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
  const cpuAfter = await cpuMs(pid);
  await dispatcher.close();
  samples.sort((a, b) => a - b);
  return {
    cpu: cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) / samples.length,
    rps: samples.length / SECONDS,
    p50: samples[Math.floor(samples.length * 0.5)],
    p99: samples[Math.floor(samples.length * 0.99)],
  };
}

export async function run(): Promise<void> {
  const { dir, ep, env } = await starterShow("throughput");
  const bare = await startListening(["--input-type=module", "-e", BARE_HONO], {});
  const studio = await startListening(["runtime/serve.js", "--port", "0"], { ...env, STUDIO_ROLES: "api" });
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
    const before = await load(`${bare.url}/bare`, bare.child.pid);
    const config = await load(`${studio.url}/studio/config`, studio.child.pid);
    const episode = await load(
      `${studio.url}/studio/episode?ep=${encodeURIComponent(ep)}&pass=proxy`,
      studio.child.pid,
    );
    const after = await load(`${bare.url}/bare`, bare.child.pid);
    const base = before.rps >= after.rps ? before : after;
    console.log(`throughput: ${CLIENTS} clients on loopback, ${SECONDS} s each`);
    const row = (label: string, r: Load, goal?: number) =>
      console.log(
        `  ${label.padEnd(34)} ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms  (${(r.rps / base.rps).toFixed(2)}x bare${goal ? `, goal ${goal}x` : ""})${r.cpu === null ? "" : `  server cpu ${r.cpu.toFixed(3)} ms/req`}`,
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
