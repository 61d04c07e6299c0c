// Start-up benchmark: time from spawning a process to its first answer, for the server, a worker host and a
// single-function process, built (dist/) and compiled on the fly, each beside a bare Node HTTP server measured in
// the same run. Figures and ratios to the goals, never pass/fail. The machine's load average is printed with them,
// and the CPU time each process spent up to its answer (Linux): on a busy machine wall times wander, CPU time less.

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
// @ts-expect-error: a plain JavaScript module without type declarations (the launchers' own helper).
import { staleReason } from "../scripts/launch.js";
import { root, starterShow } from "./process.ts";
import type { Timing } from "./stats.ts";

const RUNS = 5;

/** `node -e` script that serves plain 200s: the floor every figure is compared with. */
const BARE = `require("node:http").createServer((q, s) => s.end("{}")).listen(0, "127.0.0.1", function () {
  process.stdout.write("listening on http://127.0.0.1:" + this.address().port + "/studio/\\n");
});`;

/**
 * The launchers as they were before the build: tsx registered, the TypeScript entry imported. Written to a file
 * beside the repository's node_modules (so tsx resolves), not passed with --eval, which a worker thread inherits.
 */
async function onTheFly(dir: string, entry: string, call: string): Promise<string> {
  const file = path.join(dir, `${path.basename(entry, ".ts")}.mjs`);
  const url = JSON.stringify(pathToFileURL(path.join(root, entry)).href);
  await writeFile(
    file,
    `import { register } from "tsx/esm/api";\nregister();\nconst m = await import(${url});\n${call}\n`,
  );
  return file;
}

interface Probe {
  /** Arguments to node. */
  args: string[];
  /** Pattern on stdout once the process is ready; group 1 is the base URL when it serves HTTP. */
  ready: RegExp;
  /** The first request, once ready (none for a worker host: being ready is its first answer). */
  request?: (base: string) => Promise<Response>;
}

/** User plus system CPU time of a process so far (all its threads), in ms; null where /proc is not there. */
async function cpuTime(pid: number | undefined): Promise<number | null> {
  if (pid === undefined) return null;
  try {
    // Fields after the command name: utime and stime are the 12th and 13th, in clock ticks (100 a second on Linux).
    const fields = (await readFile(`/proc/${pid}/stat`, "utf8")).split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

interface Sample {
  wall: number;
  cpu: number | null;
}

async function firstAnswer(probe: Probe, env: Record<string, string>): Promise<Sample> {
  const t0 = performance.now();
  const child: ChildProcess = spawn(process.execPath, probe.args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  try {
    const base = await new Promise<string>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        out += chunk.toString();
        const m = probe.ready.exec(out);
        if (m) resolve(m[1] ?? "");
      };
      child.stdout?.on("data", onData);
      child.stderr?.on("data", (c: Buffer) => {
        out += c.toString();
      });
      child.once("exit", (code) => reject(new Error(`exited with ${code} before it was ready:\n${out}`)));
    });
    if (probe.request) {
      const res = await probe.request(base);
      const body = await res.text();
      if (res.status >= 500) throw new Error(`first answer was ${res.status}: ${body.slice(0, 300)}`);
    }
    const wall = performance.now() - t0;
    return { wall, cpu: await cpuTime(child.pid) };
  } finally {
    child.kill("SIGKILL");
  }
}

function timing(values: number[]): Timing {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  return { median: sorted[Math.floor(n / 2)], min: sorted[0], max: sorted[n - 1], runs: n };
}

async function measure(
  probe: Probe,
  env: Record<string, string>,
): Promise<{ wall: Timing; cpu: Timing | null }> {
  const samples: Sample[] = [];
  for (let i = 0; i < RUNS; i++) samples.push(await firstAnswer(probe, env));
  const cpu = samples.map((s) => s.cpu).filter((c): c is number => c !== null);
  return { wall: timing(samples.map((s) => s.wall)), cpu: cpu.length ? timing(cpu) : null };
}

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

export async function run(): Promise<void> {
  const stale = await staleReason({});
  if (stale !== null) {
    console.log(`startup: building first (${stale})`);
    const { build } = (await import(pathToFileURL(path.join(root, "scripts", "build.js")).href)) as {
      build(): Promise<boolean>;
    };
    await build();
  }
  const { dir, ep, env } = await starterShow("startup");
  const script = await readFile(path.join(ep, "ep01.md"), "utf8");

  const launchers = await mkdtemp(path.join(root, "node_modules", ".studio-bench-"));
  const listening = /listening on (http:\/\/\S+?)\/studio\//;
  const config = (base: string) => fetch(`${base}/studio/config`);
  const check = (base: string) =>
    fetch(`${base}/studio/source/check`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ep, file: "script", text: script }),
    });
  const fn = "POST /studio/source/check";
  const rows: [string, Probe, number | null][] = [
    ["bare Node HTTP server", { args: ["-e", BARE], ready: listening, request: config }, null],
    [
      "server, built (node runtime/serve.js)",
      { args: ["runtime/serve.js", "--port", "0"], ready: listening, request: config },
      600,
    ],
    [
      "server, compiled on the fly (tsx)",
      {
        args: [await onTheFly(launchers, "runtime/serve.ts", 'await m.main(["--port", "0"], process.env);')],
        ready: listening,
        request: config,
      },
      600,
    ],
    [
      "worker host, built (node workers/main.js)",
      { args: ["workers/main.js"], ready: /worker \S+ running/ },
      null,
    ],
    [
      "worker host, compiled on the fly (tsx)",
      {
        args: [await onTheFly(launchers, "workers/main.ts", "await m.main(process.env);")],
        ready: /worker \S+ running/,
      },
      null,
    ],
    [
      `single function, built (${fn})`,
      { args: ["runtime/function.js", fn, "--port", "0"], ready: listening, request: check },
      250,
    ],
    [
      "single function, compiled on the fly (tsx)",
      {
        args: [
          await onTheFly(
            launchers,
            "runtime/function-main.ts",
            `await m.main([${JSON.stringify(fn)}, "--port", "0"], process.env);`,
          ),
        ],
        ready: listening,
        request: check,
      },
      250,
    ],
  ];
  console.log(
    `startup: time from spawn to the first answer (median of ${RUNS}; worker host: to its "running" line); ` +
      `load average ${load()} on ${os.cpus().length} cores`,
  );
  let bare = 0;
  for (const [label, probe, goal] of rows) {
    const t = await measure(probe, env).catch((err: unknown) => {
      console.log(`  ${label.padEnd(58)} failed: ${err instanceof Error ? err.message : String(err)}`);
      return null;
    });
    if (!t) continue;
    const { wall, cpu } = t;
    if (!bare) bare = wall.median;
    const ratio = `${(wall.median / bare).toFixed(2)}x bare`;
    const toGoal = goal ? `, ${(wall.median / goal).toFixed(2)}x of the ${goal} ms goal` : "";
    const spent = cpu ? `  cpu median ${cpu.median.toFixed(0)} ms` : "";
    console.log(
      `  ${label.padEnd(58)} median ${wall.median.toFixed(0).padStart(6)} ms  min ${wall.min.toFixed(0)}  max ${wall.max.toFixed(0)}${spent}  (${ratio}${toGoal})`,
    );
  }
  console.log(`startup: load average ${load()} after the runs`);
  await rm(dir, { recursive: true, force: true });
  await rm(launchers, { recursive: true, force: true });
}
