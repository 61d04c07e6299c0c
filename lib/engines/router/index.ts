// The router engine (backend `router`): a take's provider task (built with the job, lib/router/target.ts) is
// submitted to the hosted-model router, polled with its progress until it ends, and its video downloaded into the
// work folder; a draft task closes the take with `draft` {task, made, expires}. Cancel cancels the task.
import { stat } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createRouterClient, type RouterClient, TASK_TERMINAL } from "../../router/provider.ts";
import { ComfyV2Error } from "../comfy-v2/errors.ts";
import { canceled } from "../comfyui/watch.ts";
import type { Engine, EngineJob, EngineOutputs, Prepared, RunHooks, Submitted } from "../types.ts";

export interface RouterEngineOptions {
  url: string;
  apiKey: string | null;
  /** Poll interval (ms); default 500. */
  pollMs?: number;
}

export interface RouterEngine extends Engine {
  close(): Promise<void>;
}

/** Draft lifetime when the provider names no `expires_at` (contract: drafts last 7 days). */
const DRAFT_DAYS_MS = 7 * 86_400_000;

export function createRouterEngine(opts: RouterEngineOptions): RouterEngine {
  const client: RouterClient = createRouterClient(opts.url, opts.apiKey);
  const pollMs = opts.pollMs ?? 500;
  const byJob = new WeakMap<EngineJob, string>();

  return {
    backend: "router",

    async prepare(job: EngineJob, hooks: RunHooks): Promise<Prepared> {
      if (hooks.signal.aborted) throw canceled();
      if (!job.task)
        throw new Error(`target ${job.target} is not a hosted model: the router renders only router targets`);
      const inputs: Record<string, string> = {};
      for (const [role, file] of Object.entries(job.inputs)) {
        if (role !== "first" && role !== "last") continue;
        if (!(await stat(file).catch(() => null))?.isFile())
          throw new Error(`input ${role} (${file}) is missing`);
        inputs[role] = file;
      }
      return { inputs, notes: [] };
    },

    async submit(job: EngineJob, _prepared: Prepared, hooks: RunHooks): Promise<Submitted> {
      if (hooks.signal.aborted) throw canceled();
      const task = await client.submit(job.task ?? {}, { signal: hooks.signal });
      byJob.set(job, task.id);
      hooks.onProgress({ progress: 0, step: task.status, log: `router task ${task.id} (${task.model})` });
      return { backendPromptId: task.id };
    },

    async collect(job: EngineJob, submitted: Submitted, hooks: RunHooks): Promise<EngineOutputs> {
      const id = submitted.backendPromptId;
      let task = await client.task(id, { signal: hooks.signal });
      while (!TASK_TERMINAL.has(task.status)) {
        if (task.progress !== null)
          hooks.onProgress({ progress: Math.max(0, Math.min(0.98, task.progress)), step: task.status });
        await sleep(pollMs, undefined, { signal: hooks.signal }).catch(() => {
          throw canceled();
        });
        try {
          task = await client.task(id, { signal: hooks.signal });
        } catch (err) {
          if (hooks.signal.aborted) throw canceled();
          if (err instanceof ComfyV2Error && err.status < 500) throw err;
          // A passing fault of the poll itself: asked again next round.
        }
      }
      if (task.status === "canceled") throw canceled();
      if (task.status !== "succeeded")
        throw new Error(
          `the hosted-model router's task ${id} ${task.status}${task.error ? `: ${task.error}` : ""}`,
        );
      hooks.onProgress({ progress: 0.99, step: "downloading" });
      const dest = path.join(job.workDir, `${job.stem}.router.mp4`);
      await client.download(task, dest, { signal: hooks.signal });
      const out: EngineOutputs = { video: dest, notes: [] };
      if (task.draft) {
        const made = new Date();
        const expires = task.expires_at ?? new Date(made.getTime() + DRAFT_DAYS_MS).toISOString();
        out.sidecar = { draft: { task: task.id, made: made.toISOString(), expires } };
      }
      hooks.onProgress({ progress: 1, step: "done" });
      return out;
    },

    async cancel(job: EngineJob, submitted: Submitted | null): Promise<void> {
      const id = submitted?.backendPromptId ?? byJob.get(job);
      if (id !== undefined) await client.cancel(id);
    },

    close: () => client.close(),
  };
}
