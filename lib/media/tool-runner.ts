// Runs external tools (ffmpeg, ffprobe) from a long-lived worker thread: starting a process holds the starting
// thread's event loop for tens of milliseconds in a big process, and the main thread must keep answering requests.
import path from "node:path";
import { Worker } from "node:worker_threads";

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

/** The tool thread died (or was closed) while the tool ran: its result is unknown and the tool was killed. */
export class ToolThreadError extends Error {
  override name = "ToolThreadError";
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

type FromThread =
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

interface Thread {
  worker: Worker;
  runs: Map<number, Run>;
  closed?: () => void;
}

const THREAD_MODULE = new URL("./spawn-thread.js", import.meta.url);
// How long close() waits for the thread to have killed its tools before it ends the thread anyway.
const CLOSE_WAIT_MS = 2000;

/**
 * One tool thread, started on the first run and kept (idle, it does not keep the process alive); several runs go
 * at once. A thread that dies fails its runs in flight, kills their tools, and the next run starts a new one.
 */
export class ToolRunner {
  private thread: Thread | null = null;
  private nextId = 1;
  private readonly module: URL;

  /** `module` replaces the thread's code (a test's thread that crashes on purpose). */
  constructor(module: URL = THREAD_MODULE) {
    this.module = module;
  }

  /** Run `file` with `args`; rejects with ToolRunError (with the log's end), ToolCanceled or ToolThreadError. */
  run(file: string, args: readonly string[], opts: ToolRunOptions = {}): Promise<ToolResult> {
    const tool = path.basename(file).replace(/\.exe$/i, "");
    if (opts.signal?.aborted) return Promise.reject(new ToolCanceled());
    const thread = this.started();
    const id = this.nextId++;
    return new Promise<ToolResult>((resolve, reject) => {
      const onAbort = () => {
        run.canceled = true;
        thread.worker.postMessage({ type: "kill", id });
      };
      const settle = () => {
        opts.signal?.removeEventListener("abort", onAbort);
        thread.runs.delete(id);
        // A thread with tools running keeps the process alive; an idle one must not.
        if (thread.runs.size === 0) thread.worker.unref();
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
      if (thread.runs.size === 0) thread.worker.ref();
      thread.runs.set(id, run);
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      thread.worker.postMessage({
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

  /** Stop the tools running (their runs fail) and end the thread. */
  async close(): Promise<void> {
    const thread = this.thread;
    if (!thread) return;
    this.thread = null;
    const closed = new Promise<void>((resolve) => {
      thread.closed = resolve;
      setTimeout(resolve, CLOSE_WAIT_MS).unref();
    });
    thread.worker.postMessage({ type: "close" });
    await closed;
    this.fail(thread, "the media tools were closed");
    await thread.worker.terminate();
  }

  private started(): Thread {
    if (this.thread) return this.thread;
    const worker = new Worker(this.module);
    worker.unref();
    const thread: Thread = { worker, runs: new Map() };
    worker.on("message", (msg: FromThread) => this.answer(thread, msg));
    worker.on("error", (err) => this.crashed(thread, `it failed: ${err.message}`));
    worker.on("exit", (code) => this.crashed(thread, `it exited with code ${code}`));
    this.thread = thread;
    return thread;
  }

  private answer(thread: Thread, msg: FromThread): void {
    if (msg.type === "closed") {
      thread.closed?.();
      return;
    }
    const run = thread.runs.get(msg.id);
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

  private crashed(thread: Thread, why: string): void {
    if (this.thread === thread) this.thread = null;
    this.fail(thread, `the media tool thread stopped (${why})`);
  }

  /** Fail every run of `thread` still in flight and kill its tool, which nothing would wait for any more. */
  private fail(thread: Thread, why: string): void {
    for (const run of [...thread.runs.values()]) {
      if (run.pid !== null) {
        try {
          process.kill(run.pid, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
      run.reject(new ToolThreadError(`${why} while ${run.tool} ran`));
    }
  }
}
