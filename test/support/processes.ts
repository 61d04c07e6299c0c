// Child processes in tests and benchmarks: their output kept as it comes, their exit as a promise, a line they
// write awaited, and a real worker process (`node workers/main.js`) started and waited for until it says it runs.
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

export interface Watched {
  child: ChildProcess;
  /** Everything it wrote so far, stdout and stderr in the order they came. */
  output: () => string;
  /** Its exit code (null when a signal ended it). */
  exited: Promise<number | null>;
}

/** Keeps what `child` writes and how it ends; call it right after spawning (stdout and stderr piped). */
export function watch(child: ChildProcess): Watched {
  let out = "";
  const keep = (chunk: Buffer) => {
    out += chunk.toString();
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => out, exited };
}

export interface Awaited {
  /** The process as failures name it ("worker"). */
  what: string;
  /** What it had not done when it exited, as failures say it ("listening"). */
  before: string;
  ms: number;
}

/**
 * The first match of `pattern` in what the process writes (checked as each chunk comes); rejects with its output
 * when it exits first or nothing matches within `ms`.
 */
export function outputMatch(
  p: Watched,
  pattern: RegExp,
  { what, before, ms }: Awaited,
): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const m = pattern.exec(p.output());
      if (!m) return;
      done();
      resolve(m);
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`${what} did not start:\n${p.output()}`));
    }, ms);
    const done = () => {
      clearTimeout(timer);
      p.child.stdout?.off("data", check);
      p.child.stderr?.off("data", check);
    };
    p.child.stdout?.on("data", check);
    p.child.stderr?.on("data", check);
    p.exited.then((code) => {
      done();
      reject(new Error(`${what} exited with ${code} before ${before}:\n${p.output()}`));
    });
    check();
  });
}

/** A worker process with `env` over this one's environment, just spawned. */
export function spawnWorker(env: Record<string, string>): Watched {
  return watch(
    spawn(process.execPath, [path.join(root, "workers", "main.js")], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
}

/** A worker process with `env` over this one's environment, once it says it runs; the caller stops it. */
export async function startWorker(env: Record<string, string>, ms = 30_000): Promise<Watched> {
  const p = spawnWorker(env);
  await outputMatch(p, /Episode Studio worker \S+ running/, { what: "worker", before: "it ran", ms });
  return p;
}
