// The media tool process: a small Node process that starts ffmpeg, ffprobe and the like for the service. Starting a
// process from the service itself costs it tens of milliseconds each time, even from another thread (the fork copies
// the page tables of a big process and stalls its threads); from this small one it costs the service nothing.
// Plain JavaScript: it loads nothing else. It ends, killing its tools, when the service closes the channel or dies.
//
// In:  {type: "run", id, file, args, timeout?, stdoutLines, stderrLines} | {type: "kill", id} | {type: "close"}
// Out: {type: "spawned", id, pid} | {type: "lines", id, stream, lines} | {type: "closed"}
//      {type: "done", id, exitCode, signal, stdout, stderr, timedOut, error?: {code, message}}
import { spawn } from "node:child_process";

// Only the end of a tool's log is ever reported; ffmpeg can write megabytes of it.
const STDERR_KEPT = 64 * 1024;
// A tool asked to stop (SIGTERM) that has not stopped after this long is killed.
const KILL_AFTER_MS = 3000;

/** Answer the service's runs on `port` until it asks to close. */
function serve(port) {
  /** id -> {child, timers} of every tool started and not yet reported done. */
  const running = new Map();

  const clearTimers = (run) => {
    for (const t of run.timers) clearTimeout(t);
    run.timers.length = 0;
  };

  function start(msg) {
    const { id, file, args } = msg;
    let child;
    try {
      child = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"], windowsHide: true });
    } catch (err) {
      port.postMessage(failed(id, err));
      return;
    }
    const run = { child, timers: [], timedOut: false };
    running.set(id, run);
    if (child.pid !== undefined) port.postMessage({ type: "spawned", id, pid: child.pid });
    if (msg.timeout)
      run.timers.push(
        setTimeout(() => {
          run.timedOut = true;
          child.kill("SIGKILL");
        }, msg.timeout),
      );

    const stdout = [];
    let stderr = "";
    const partial = { stdout: "", stderr: "" };
    const lines = (stream, chunk) => {
      const text = partial[stream] + chunk.toString();
      const all = text.split("\n");
      partial[stream] = all.pop() ?? "";
      if (all.length) port.postMessage({ type: "lines", id, stream, lines: all });
    };
    child.stdout.on("data", (chunk) => {
      if (msg.stdoutLines) lines("stdout", chunk);
      else stdout.push(chunk);
    });
    child.stderr.on("data", (chunk) => {
      if (msg.stderrLines) lines("stderr", chunk);
      stderr += chunk.toString();
      if (stderr.length > STDERR_KEPT * 2) stderr = stderr.slice(-STDERR_KEPT);
    });

    let ended = false;
    const end = (answer) => {
      if (ended) return;
      ended = true;
      clearTimers(run);
      running.delete(id);
      for (const stream of ["stdout", "stderr"]) {
        const wanted = stream === "stdout" ? msg.stdoutLines : msg.stderrLines;
        if (wanted && partial[stream])
          port.postMessage({ type: "lines", id, stream, lines: [partial[stream]] });
      }
      port.postMessage(answer);
    };
    // A tool that could not start (no such file, not executable) reports an error and no exit.
    child.on("error", (err) => {
      if (child.pid === undefined) end(failed(id, err));
    });
    child.on("close", (exitCode, signal) => {
      end({
        type: "done",
        id,
        exitCode,
        signal,
        stdout: Buffer.concat(stdout).toString(),
        stderr: stderr.slice(-STDERR_KEPT),
        timedOut: run.timedOut,
      });
    });
  }

  function stop(id, how) {
    const run = running.get(id);
    if (!run) return;
    run.child.kill(how);
    if (how !== "SIGKILL") run.timers.push(setTimeout(() => run.child.kill("SIGKILL"), KILL_AFTER_MS));
  }

  port.on("message", (msg) => {
    if (msg.type === "run") start(msg);
    else if (msg.type === "kill") stop(msg.id, "SIGTERM");
    else if (msg.type === "close") {
      for (const id of running.keys()) stop(id, "SIGKILL");
      port.postMessage({ type: "closed" });
    }
  });
  // The service is gone (closed, or died): nothing would read the tools' results.
  port.on("disconnect", () => {
    for (const id of running.keys()) stop(id, "SIGKILL");
    process.exit(0);
  });
}

function failed(id, err) {
  return {
    type: "done",
    id,
    exitCode: null,
    signal: null,
    stdout: "",
    stderr: "",
    timedOut: false,
    error: { code: err?.code ?? null, message: err instanceof Error ? err.message : String(err) },
  };
}

serve({
  on: (event, fn) => process.on(event, fn),
  postMessage: (msg) => {
    if (process.connected) process.send(msg);
  },
});
