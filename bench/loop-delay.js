// Preloaded into the server by bench/under-load.ts (node --import): the main thread's event-loop delay, printed as
// one `loop-delay {...}` line on stderr and reset on each SIGUSR2, so the bench can read it per phase.
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { isMainThread } from "node:worker_threads";

// A stall is a 10 ms timer firing this much late: the time the loop could not answer anything.
const STALL_MS = 20;

if (isMainThread) {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const stalls = { count: 0, ms: 0 };
  let last = performance.now();
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
    };
    process.stderr.write(`loop-delay ${JSON.stringify(figures)}\n`);
    delay.reset();
    stalls.count = 0;
    stalls.ms = 0;
  });
}
