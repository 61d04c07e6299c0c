// Light requests under heavy work: GET /studio/config and GET /studio/episode (the 4-shot starter) answered by a
// real server process (api and worker roles) while idle, then while it runs 12 animatic renders and an assembly.
// p50/p99 of each in one run; the goal is p99 under 20 ms during the work. Figures only, never pass/fail.
import { type ChildProcess, spawn } from "node:child_process";
import { cp, mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const GOAL_P99_MS = 20;

interface Row {
  shot: string;
}

async function startServer(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ["runtime/serve.js", "--port", "0"], {
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
    child.once("exit", (code) => reject(new Error(`server exited with ${code}:\n${out}`)));
  });
  return { url, child };
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
  const dir = await mkdtemp(path.join(os.tmpdir(), "studio-bench-load-"));
  const shows = path.join(dir, "shows");
  const ep = path.join(shows, "show", "ep01");
  await mkdir(ep, { recursive: true });
  const starter = path.join(root, "lib", "episode", "starter");
  await cp(path.join(starter, "series.json"), path.join(ep, "series.json"));
  await cp(path.join(starter, "starter.md"), path.join(ep, "ep01.md"));
  const server = await startServer({
    STUDIO_HOME: path.join(dir, "home"),
    STUDIO_ROOTS: shows,
    STUDIO_LOG: "warn",
    STUDIO_HOST: "127.0.0.1",
  });
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
    const idle = await sample(urls, async () => n++ < 300);
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
    console.log(
      `under load: ${shots.length * 3} animatic renders and an assembly in the server process (${(workMs / 1000).toFixed(1)} s)`,
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
  } finally {
    server.child.kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
  }
}
