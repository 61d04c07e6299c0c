// Preloaded into the server by bench/under-load.ts (node --import): the main thread's event-loop delay and CPU time,
// printed as one `loop-delay {...}` line on stderr and reset on each SIGUSR2, so the bench can read them per phase.
import { readFileSync } from "node:fs";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { isMainThread } from "node:worker_threads";

/** CPU milliseconds the main thread has used (Linux: its task's utime + stime; elsewhere null). */
function mainThreadCpuMs() {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "latin1");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of the line, in clock ticks (100 a second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** CPU milliseconds of the whole process (every thread; its child processes not counted). */
function processCpuMs() {
  const { user, system } = process.cpuUsage();
  return Math.round((user + system) / 1000);
}

// A stall is a 10 ms timer firing this much late: the time the loop could not answer anything.
const STALL_MS = 20;

if (isMainThread) {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const stalls = { count: 0, ms: 0 };
  let last = performance.now();
  let cpuFrom = mainThreadCpuMs();
  let processFrom = processCpuMs();
  setInterval(() => {
    const now = performance.now();
    const late = now - last - 10;
    last = now;
    if (late >= STALL_MS) {
      stalls.count++;
      stalls.ms += late;
    }
  }, 10).unref();
  process.on("SIGUSR2", () => {
    const ms = (ns) => Math.round(ns / 1e4) / 100;
    const figures = {
      p50: ms(delay.percentile(50)),
      p99: ms(delay.percentile(99)),
      max: ms(delay.max),
      stalls: stalls.count,
      stalledMs: Math.round(stalls.ms),
      mainCpuMs: cpuFrom === null ? null : mainThreadCpuMs() - cpuFrom,
      processCpuMs: processCpuMs() - processFrom,
    };
    cpuFrom = mainThreadCpuMs();
    processFrom = processCpuMs();
    process.stderr.write(`loop-delay ${JSON.stringify(figures)}\n`);
    delay.reset();
    stalls.count = 0;
    stalls.ms = 0;
  });
}
