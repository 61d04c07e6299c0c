// Runs external tools (ffmpeg, ffprobe) from a long-lived small helper process. Starting a process from the service
// holds its event loop for tens of milliseconds (the fork copies a big process's page tables); from a worker thread
// the fork still stalls the main thread (measured: a third of the stall left), from a small process it costs nothing.
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

export interface ToolRunOptions {
  /** Aborting stops the tool (SIGTERM, SIGKILL if it lingers); the run then rejects with ToolCanceled. */
  signal?: AbortSignal;
  /** Each line of the tool's standard output as it comes (then the result's `stdout` is empty). */
  onStdoutLine?: (line: string) => void;
  /** Each line of the tool's log as it comes (the result's `stderr` keeps its end as well). */
  onStderrLine?: (line: string) => void;
  /** Milliseconds before the tool is killed and the run fails. */
  timeout?: number;
}

export interface ToolResult {
  stdout: string;
  /** The end of the tool's log (at most 64 KB). */
  stderr: string;
  exitCode: number;
}

/** A tool that did not start, failed (exit code other than 0, killed) or ran out of time. */
export class ToolRunError extends Error {
  override name = "ToolRunError";
  readonly tool: string;
  readonly exitCode: number | null;
  /** The end of the tool's log. */
  readonly stderr: string;
  constructor(tool: string, message: string, exitCode: number | null, stderr: string) {
    super(message);
    this.tool = tool;
    this.exitCode = exitCode;
    this.stderr = stderr;
  }
}

/** The run was stopped by its caller's signal. */
export class ToolCanceled extends Error {
  override name = "ToolCanceled";
  constructor() {
    super("canceled");
  }
}

/** The tool process died (or was closed) while the tool ran: its result is unknown and the tool was killed. */
export class ToolHostError extends Error {
  override name = "ToolHostError";
}

/** The last `n` non-empty lines of a tool's log. */
export function logTail(stderr: string, n = 6): string {
  return stderr.trim().split("\n").slice(-n).join("\n");
}

type Done = {
  type: "done";
  id: number;
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  error?: { code: string | null; message: string };
};

type FromHost =
  | Done
  | { type: "spawned"; id: number; pid: number }
  | { type: "lines"; id: number; stream: "stdout" | "stderr"; lines: string[] }
  | { type: "closed" };

interface Run {
  tool: string;
  opts: ToolRunOptions;
  pid: number | null;
  canceled: boolean;
  resolve(result: ToolResult): void;
  reject(err: Error): void;
}

interface Host {
  child: ChildProcess;
  runs: Map<number, Run>;
  /** The end of what the tool process wrote on its stderr (a crash's stack), for the error that reports it. */
  log: string;
  closed?: () => void;
  exited: Promise<void>;
}

const HOST_MODULE = new URL("./tool-process.js", import.meta.url);
// How long close() waits for the tool process to have killed its tools, then to have ended, before killing it.
const CLOSE_WAIT_MS = 2000;

/**
 * One tool process, started on the first run and kept (idle, it does not keep the service alive); several runs go
 * at once. A tool process that dies fails its runs in flight, kills their tools, and the next run starts a new one.
 */
export class ToolRunner {
  private host: Host | null = null;
  private nextId = 1;
  private readonly module: URL;

  /** `module` replaces the tool process's code (a test's that crashes on purpose). */
  constructor(module: URL = HOST_MODULE) {
    this.module = module;
  }

  /** Run `file` with `args`; rejects with ToolRunError (with the log's end), ToolCanceled or ToolHostError. */
  run(file: string, args: readonly string[], opts: ToolRunOptions = {}): Promise<ToolResult> {
    const tool = path.basename(file).replace(/\.exe$/i, "");
    if (opts.signal?.aborted) return Promise.reject(new ToolCanceled());
    const host = this.started();
    const id = this.nextId++;
    return new Promise<ToolResult>((resolve, reject) => {
      const onAbort = () => {
        run.canceled = true;
        send(host, { type: "kill", id });
      };
      const settle = () => {
        opts.signal?.removeEventListener("abort", onAbort);
        host.runs.delete(id);
        // A tool process with tools running keeps the service alive; an idle one must not.
        if (host.runs.size === 0) hold(host, false);
      };
      const run: Run = {
        tool,
        opts,
        pid: null,
        canceled: false,
        resolve: (r) => {
          settle();
          resolve(r);
        },
        reject: (e) => {
          settle();
          reject(e);
        },
      };
      if (host.runs.size === 0) hold(host, true);
      host.runs.set(id, run);
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      send(host, {
        type: "run",
        id,
        file,
        args: [...args],
        timeout: opts.timeout,
        stdoutLines: Boolean(opts.onStdoutLine),
        stderrLines: Boolean(opts.onStderrLine),
      });
    });
  }

  /** Stop the tools running (their runs fail) and end the tool process. */
  async close(): Promise<void> {
    const host = this.host;
    if (!host) return;
    this.host = null;
    // Closing is waited for: the tool process keeps the service alive until it has ended.
    hold(host, true);
    const wait = (p: Promise<void>) =>
      Promise.race([p, new Promise<void>((resolve) => setTimeout(resolve, CLOSE_WAIT_MS).unref())]);
    await wait(
      new Promise<void>((resolve) => {
        host.closed = resolve;
        if (!send(host, { type: "close" })) resolve();
      }),
    );
    this.fail(host, "the media tools were closed");
    // Without its channel the tool process ends by itself; one that does not is killed.
    if (host.child.connected) host.child.disconnect();
    await wait(host.exited);
    if (host.child.exitCode === null && host.child.signalCode === null) host.child.kill("SIGKILL");
  }

  private started(): Host {
    if (this.host) return this.host;
    // Plain JavaScript: it needs none of this process's flags or preloads (NODE_OPTIONS), which would only make it
    // bigger. The tools it starts see the same environment otherwise.
    const { NODE_OPTIONS: _flags, ...env } = process.env;
    const child: ChildProcess = spawn(process.execPath, [fileURLToPath(this.module)], {
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      env,
      windowsHide: true,
    });
    // Ended once it has exited and its stderr has been read to the end (a crash's stack is the reason given).
    const logRead = new Promise<void>((resolve) => {
      if (!child.stderr) resolve();
      child.stderr?.once("close", () => resolve());
    });
    const exit = new Promise<string>((resolve) => {
      child.once("exit", (code, signal) =>
        resolve(code !== null ? `it exited with code ${code}` : `it was killed (${signal})`),
      );
    });
    const host: Host = {
      child,
      runs: new Map(),
      log: "",
      exited: Promise.all([exit, logRead]).then(() => {}),
    };
    child.stderr?.on("data", (c: Buffer) => {
      host.log = (host.log + c.toString()).slice(-4000);
    });
    child.on("message", (msg: FromHost) => this.answer(host, msg));
    child.on("error", (err) => this.crashed(host, `it did not run: ${err.message}`));
    void Promise.all([exit, logRead]).then(([how]) => {
      const last = host.log
        .trim()
        .split("\n")
        .find((l) => /^\w*Error\b/.test(l.trim()));
      this.crashed(host, last ? `${how}: ${last.trim()}` : how);
    });
    hold(host, false);
    this.host = host;
    return host;
  }

  private answer(host: Host, msg: FromHost): void {
    if (msg.type === "closed") {
      host.closed?.();
      return;
    }
    const run = host.runs.get(msg.id);
    if (!run) return;
    if (msg.type === "spawned") run.pid = msg.pid;
    else if (msg.type === "lines") {
      const each = msg.stream === "stdout" ? run.opts.onStdoutLine : run.opts.onStderrLine;
      for (const line of msg.lines) each?.(line);
    } else this.finish(run, msg);
  }

  private finish(run: Run, done: Done): void {
    const failure = this.failure(run, done);
    if (failure) run.reject(failure);
    else run.resolve({ stdout: done.stdout, stderr: done.stderr, exitCode: 0 });
  }

  /** What a finished run failed of, or null when the tool did its work. */
  private failure(run: Run, done: Done): Error | null {
    const { tool } = run;
    if (run.canceled) return new ToolCanceled();
    if (done.error) {
      const why = done.error.code === "ENOENT" ? `${tool} was not found` : done.error.message;
      return new ToolRunError(tool, `${tool} did not start: ${why}`, null, "");
    }
    const tail = logTail(done.stderr);
    if (done.timedOut)
      return new ToolRunError(tool, `${tool} ran out of time (${run.opts.timeout} ms)`, null, done.stderr);
    if (done.exitCode === null)
      return new ToolRunError(tool, `${tool} was killed (${done.signal}): ${tail}`, null, done.stderr);
    if (done.exitCode !== 0)
      return new ToolRunError(
        tool,
        `${tool} failed (exit ${done.exitCode}): ${tail}`,
        done.exitCode,
        done.stderr,
      );
    return null;
  }

  private crashed(host: Host, why: string): void {
    if (this.host === host) this.host = null;
    this.fail(host, `the media tool process stopped (${why})`);
  }

  /** Fail every run of `host` still in flight and kill its tool, which nothing would wait for any more. */
  private fail(host: Host, why: string): void {
    for (const run of [...host.runs.values()]) {
      if (run.pid !== null) {
        try {
          process.kill(run.pid, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
      run.reject(new ToolHostError(`${why} while ${run.tool} ran`));
    }
  }
}

/** Post to the tool process; false when its channel is gone (its exit fails the runs). */
function send(host: Host, msg: unknown): boolean {
  if (!host.child.connected) return false;
  host.child.send(msg as Parameters<ChildProcess["send"]>[0]);
  return true;
}

/** Whether the tool process (its handle, channel and log pipe) keeps the service's event loop alive. */
function hold(host: Host, on: boolean): void {
  const { child } = host;
  const handles = [child, child.channel, child.stderr] as (
    | { ref?(): void; unref?(): void }
    | null
    | undefined
  )[];
  for (const h of handles) {
    if (on) h?.ref?.();
    else h?.unref?.();
  }
}
