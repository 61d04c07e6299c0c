// GET /queue in the engine's shape: the local engine's running and pending items, then the service's own jobs.
import { effectiveSettings } from "../config/settings-store.ts";
import type { Services } from "../context.ts";
import type { Job } from "../jobs/types.ts";
import { type JobView, jobView } from "../jobs/view.ts";
import { isObject, objectOr } from "../store/json-guards.ts";
import { BackendUnreachable, callBackend } from "./http.ts";
import { engineAddress } from "./list.ts";

export const QUEUE_TIMEOUT_MS = 5000;

/** `[number, prompt_id, prompt, extra_data, outputs_to_execute]`, as the engine lists its queue. */
export type QueueItem = unknown[];

export interface QueueAnswer {
  queue_running: QueueItem[];
  queue_pending: QueueItem[];
  /** The engine asked. */
  backend: string;
  /** Why the engine's part is empty, or null when it answered. */
  backend_down: string | null;
  /** The service's queued and running jobs, as GET /studio/jobs shows them. */
  studio_jobs: JobView[];
}

export interface QueueOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * The engine's items come first, untouched except that a partner-node key an older engine echoes back in
 * `extra_data` is removed. Then each queued or running job of the service as an item of its own (`prompt_id` =
 * the job id, an empty graph, the job in `extra_data.studio_job`), numbered after the engine's; a job the engine
 * already lists under its `backend_prompt_id` is not listed twice.
 */
export async function queueAnswer(
  services: Pick<Services, "home" | "env" | "now" | "jobs" | "caches">,
  opts: QueueOptions = {},
): Promise<QueueAnswer> {
  const address = engineAddress(await effectiveSettings(services));
  const [engine, jobs] = await Promise.all([engineQueue(address, opts), activeJobs(services)]);
  const running = engine.running.map(withoutKey);
  const pending = engine.pending.map(withoutKey);
  const known = new Set(
    [...running, ...pending].map((item) => item[1]).filter((id) => typeof id === "string"),
  );
  let next =
    Math.max(-1, ...[...running, ...pending].map((item) => (typeof item[0] === "number" ? item[0] : -1))) + 1;
  for (const job of jobs) {
    if (job.backend_prompt_id && known.has(job.backend_prompt_id)) continue;
    const item: QueueItem = [next++, job.id, {}, { studio_job: jobView(job) }, []];
    (job.status === "running" ? running : pending).push(item);
  }
  return {
    queue_running: running,
    queue_pending: pending,
    backend: address,
    backend_down: engine.down,
    studio_jobs: jobs.map(jobView),
  };
}

async function activeJobs(services: Pick<Services, "jobs">): Promise<Job[]> {
  const store = await services.jobs();
  const { jobs } = await store.list();
  return jobs.filter((j) => j.status === "running" || j.status === "queued");
}

interface EngineQueue {
  running: QueueItem[];
  pending: QueueItem[];
  down: string | null;
}

async function engineQueue(address: string, opts: QueueOptions): Promise<EngineQueue> {
  const empty = (down: string): EngineQueue => ({ running: [], pending: [], down });
  let res: Awaited<ReturnType<typeof callBackend>>;
  try {
    res = await callBackend(address, "/queue", {
      timeoutMs: opts.timeoutMs ?? QUEUE_TIMEOUT_MS,
      signal: opts.signal,
    });
  } catch (err) {
    if (err instanceof BackendUnreachable) return empty(err.message);
    throw err;
  }
  if (res.status !== 200) return empty(`${address} answered ${res.status} to /queue`);
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    return empty(`${address} did not answer JSON to /queue`);
  }
  const b = objectOr(body);
  const items = (v: unknown) => (Array.isArray(v) ? v.filter(Array.isArray) : null);
  const running = items(b.queue_running);
  const pending = items(b.queue_pending);
  if (!running || !pending)
    return empty(`${address} answered /queue without queue_running and queue_pending`);
  return { running, pending, down: null };
}

function withoutKey(item: QueueItem): QueueItem {
  const extra = item[3];
  if (!isObject(extra) || !("api_key_comfy_org" in extra)) return item;
  const { api_key_comfy_org: _dropped, ...rest } = extra;
  const copy = [...item];
  copy[3] = rest;
  return copy;
}
