// Test-only job handler (kind `sleep`, loaded through STUDIO_WORKER_EXTRA_HANDLERS): records `<job id> <pid>` in
// the payload's file, then sleeps payload.ms, so process tests can see which process ran which job, and how often.
import { appendFile } from "node:fs/promises";
import type { ExtraHandler } from "../../workers/jobs/index.ts";

export interface SleepPayload {
  file: string;
  ms: number;
  /** Sleep this long instead on a second or later attempt (a job taken over from a dead worker). */
  retryMs?: number;
  /** Fail with this message after the sleep. */
  fail?: string;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });

const sleepHandler: ExtraHandler = {
  kind: "sleep",
  async handler(job, ctx) {
    const payload = job.payload as SleepPayload;
    await appendFile(payload.file, `${job.id} ${process.pid}\n`);
    ctx.progress({ progress: 0, step: "sleeping" });
    const ms = job.attempts > 1 && payload.retryMs !== undefined ? payload.retryMs : payload.ms;
    await sleep(ms, ctx.signal);
    if (payload.fail) throw new Error(payload.fail);
  },
};

export default sleepHandler;
