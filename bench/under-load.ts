// Under-load benchmark: light GETs' p50/p99 idle and while 12 animatic renders and an assembly run in the same
// server process, with that process's event-loop delay in each phase (read from a preload, see loop-delay.js).
import type { ChildProcess } from "node:child_process";
import { rm } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { starterShow, startListening } from "./process.ts";

const GOAL_P99_MS = 20;

interface Row {
  shot: string;
}

interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
  stalls: number;
  stalledMs: number;
  /** CPU time of the main thread in the phase (null off Linux), and of the whole process. */
  mainCpuMs: number | null;
  processCpuMs: number;
}

/** The server's event-loop delay since the last call (the preload prints it on SIGUSR2 and starts again). */
function loopDelayReader(child: ChildProcess): () => Promise<LoopDelay | null> {
  let text = "";
  const waiting: ((d: LoopDelay) => void)[] = [];
  child.stderr?.on("data", (c: Buffer) => {
    text += c.toString();
    for (let m = /^loop-delay (\{.*\})$/m.exec(text); m; m = /^loop-delay (\{.*\})$/m.exec(text)) {
      text = text.slice(m.index + m[0].length);
      waiting.shift()?.(JSON.parse(m[1]) as LoopDelay);
    }
  });
  return () =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve(null), 5000);
      waiting.push((d) => {
        clearTimeout(timer);
        resolve(d);
      });
      child.kill("SIGUSR2");
    });
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

/** Time light GETs one after another for as long as `keepGoing()` says so. */
async function sample(urls: string[], keepGoing: () => Promise<boolean>): Promise<number[][]> {
  const times: number[][] = urls.map(() => []);
  while (await keepGoing()) {
    for (const [i, url] of urls.entries()) {
      const t0 = performance.now();
      const res = await fetch(url);
      await res.arrayBuffer();
      times[i].push(performance.now() - t0);
    }
  }
  return times.map((t) => t.sort((a, b) => a - b));
}

export async function run(): Promise<void> {
  const { dir, ep, env } = await starterShow("load");
  const preload = fileURLToPath(new URL("./loop-delay.js", import.meta.url));
  const server = await startListening(["--import", preload, "runtime/serve.js", "--port", "0"], env);
  let serverErr = "";
  server.child.stderr?.on("data", (c: Buffer) => {
    serverErr += c.toString();
  });
  const loopDelay = loopDelayReader(server.child);
  const api = async <T>(method: "GET" | "POST", route: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${server.url}/studio${route}`, {
      method,
      headers: body ? { "content-type": "application/json" } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
    const answer = (await res.json()) as T & { error?: string };
    if (!res.ok) throw new Error(`${method} ${route}: ${answer.error ?? res.status}`);
    return answer;
  };
  try {
    await api("POST", "/build", { ep });
    const episodeUrl = `${server.url}/studio/episode?ep=${encodeURIComponent(ep)}&pass=proxy`;
    const urls = [`${server.url}/studio/config`, episodeUrl];
    const labels = ["GET /studio/config", "GET /studio/episode (4 shots)"];
    const rows = async () =>
      (await api<{ shots: Row[] }>("GET", `/episode?ep=${encodeURIComponent(ep)}&pass=proxy`)).shots;
    const shots = (await rows()).map((r) => r.shot);

    let n = 0;
    await loopDelay();
    const idle = await sample(urls, async () => n++ < 300);
    const idleDelay = await loopDelay();
    const t0 = performance.now();
    // The assembly answers when it is done; the renders go in three rounds of one take per shot (a shot with a
    // queued take gets no second one), each queued once the last round has ended.
    let assembled = false;
    const assembling = api("POST", "/assemble", { ep, pass: "proxy" })
      .catch((err: unknown) =>
        console.log(`  (the assembly failed: ${err instanceof Error ? err.message : String(err)})`),
      )
      .finally(() => {
        assembled = true;
      });
    let rounds = 0;
    const rendering = async () =>
      (await api<{ jobs: { kind: string; status: string }[] }>("GET", "/jobs")).jobs.some(
        (j) => j.kind === "render" && (j.status === "queued" || j.status === "running"),
      );
    const busy = await sample(urls, async () => {
      if (await rendering()) return true;
      if (rounds < 3) {
        rounds++;
        await api("POST", "/render", { ep, pass: "proxy", shots });
        return true;
      }
      return !assembled;
    });
    await assembling;
    const workMs = performance.now() - t0;
    const busyDelay = await loopDelay();
    const mode = /compiling on the fly/.test(serverErr)
      ? "sources compiled on the fly"
      : "the build in dist/";
    console.log(
      `under load: ${shots.length * 3} animatic renders and an assembly in the server process (${(workMs / 1000).toFixed(1)} s; server runs ${mode}; load average ${loadavg()[0].toFixed(2)} on ${cpus().length} cores)`,
    );
    for (const [i, label] of labels.entries()) {
      for (const [when, t] of [
        ["idle", idle[i]],
        ["during the work", busy[i]],
      ] as const) {
        console.log(
          `  ${`${label}, ${when}`.padEnd(48)} p50 ${pct(t, 0.5).toFixed(1).padStart(6)} ms  p99 ${pct(t, 0.99).toFixed(1).padStart(6)} ms  max ${t[t.length - 1].toFixed(1)} ms  n=${t.length}  (p99 ${(pct(t, 0.99) / GOAL_P99_MS).toFixed(2)}x of the ${GOAL_P99_MS} ms goal)`,
        );
      }
    }
    for (const [when, d] of [
      ["idle", idleDelay],
      ["during the work", busyDelay],
    ] as const) {
      console.log(
        d
          ? `  ${`server event-loop delay, ${when}`.padEnd(48)} p50 ${d.p50.toFixed(1).padStart(6)} ms  p99 ${d.p99.toFixed(1).padStart(6)} ms  max ${d.max.toFixed(1)} ms  stalls over 20 ms: ${d.stalls} (${d.stalledMs} ms in all); CPU main thread ${d.mainCpuMs ?? "?"} ms, process ${d.processCpuMs} ms`
          : `  server event-loop delay, ${when}: not reported`,
      );
    }
  } finally {
    server.child.kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
  }
}
