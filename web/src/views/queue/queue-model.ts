// The queue answer turned into what the Queue view draws: one group per lane (running jobs, then waiting jobs in
// the lane's own order), finished jobs newest first, times taken, progress words, and where a move lands.
// Free of DOM imports so vitest can run it as plain TypeScript.
import type { Job, JobsAnswer } from "../../types.ts";

/** The fields of a job this module reads. */
export type QueueJob = Pick<
  Job,
  "id" | "lane" | "status" | "progress" | "step" | "steps" | "created" | "started" | "finished" | "info"
>;

export type QueueLaneState = JobsAnswer["lanes"][string];

export interface QueueAnswer<J extends QueueJob> {
  jobs: J[];
  lanes: Record<string, QueueLaneState>;
}

export interface LaneGroup<J extends QueueJob> {
  name: string;
  paused: boolean;
  parallel: number;
  running: J[];
  waiting: J[];
}

export interface QueueLayout<J extends QueueJob> {
  lanes: LaneGroup<J>[];
  finished: J[];
}

const ended = (j: QueueJob) => j.status === "succeeded" || j.status === "failed" || j.status === "canceled";

function time(iso: string | null): number {
  const t = iso ? Date.parse(iso) : Number.NaN;
  return Number.isFinite(t) ? t : 0;
}

/**
 * Groups the answer by lane. The lane's own lists give the order; a job an event has already moved (running, or
 * queued but not yet in a list) still shows in its lane, after the listed ones, until the next read of the queue.
 * A lane with nothing listed and no job still shows when the service names it (so it can be paused ahead).
 */
export function queueLayout<J extends QueueJob>(answer: QueueAnswer<J>): QueueLayout<J> {
  const byId = new Map(answer.jobs.map((j) => [j.id, j]));
  const names = new Set(Object.keys(answer.lanes));
  for (const j of answer.jobs) if (!ended(j)) names.add(j.lane);
  const lanes: LaneGroup<J>[] = [];
  for (const name of [...names].sort()) {
    const state = answer.lanes[name] ?? { paused: false, parallel: 1, waiting: [], running: [] };
    const pick = (ids: string[], status: QueueJob["status"]) => {
      const listed = ids.map((id) => byId.get(id)).filter((j): j is J => !!j && j.status === status);
      const seen = new Set(listed.map((j) => j.id));
      const extra = answer.jobs
        .filter((j) => j.lane === name && j.status === status && !seen.has(j.id))
        .sort((a, b) => time(a.created) - time(b.created));
      return [...listed, ...extra];
    };
    lanes.push({
      name,
      paused: state.paused,
      parallel: state.parallel,
      running: pick(state.running, "running"),
      waiting: pick(state.waiting, "queued"),
    });
  }
  const finished = answer.jobs
    .filter(ended)
    .sort((a, b) => time(b.finished ?? b.created) - time(a.finished ?? a.created));
  return { lanes, finished };
}

/** Counts for the top bar. */
export function queueCounts(answer: QueueAnswer<QueueJob>): { running: number; waiting: number } {
  let running = 0;
  let waiting = 0;
  for (const j of answer.jobs) {
    if (j.status === "running") running++;
    else if (j.status === "queued") waiting++;
  }
  return { running, waiting };
}

/** Milliseconds a job ran (to `now` while it runs); null when it never started. */
export function jobDuration(job: QueueJob, now: number): number | null {
  const start = time(job.started);
  if (!start) return null;
  return Math.max(0, (job.finished ? time(job.finished) : now) - start);
}

/** Milliseconds a job waited before it started (to `now` while it waits). */
export function waitDuration(job: QueueJob, now: number): number | null {
  const created = time(job.created);
  if (!created) return null;
  const until = job.started ? time(job.started) : job.finished ? time(job.finished) : now;
  return Math.max(0, until - created);
}

/** `0.8 s`, `12 s`, `4:05`, `1:02:03`. */
export function formatDuration(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return "–";
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  const total = Math.round(ms / 1000);
  if (total < 60) return `${total} s`;
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** The step a running job is on: the engine's phase, and `3/8` when it counts sampler steps. */
export function stepText(job: QueueJob): string {
  const parts: string[] = [];
  if (job.step) parts.push(job.step);
  if (job.steps && job.steps > 0) {
    const at = Math.min(job.steps, Math.max(0, Math.round(job.progress * job.steps)));
    parts.push(`${at}/${job.steps}`);
  }
  return parts.join(" ");
}

/** Progress as a whole percentage, clamped to 0–100. */
export function percent(progress: number): number {
  if (!Number.isFinite(progress)) return 0;
  return Math.round(Math.min(1, Math.max(0, progress)) * 100);
}

/** The index a waiting job moves to when it goes `delta` places (negative = sooner); null when it cannot. */
export function movedIndex(waiting: readonly string[], id: string, delta: number): number | null {
  const from = waiting.indexOf(id);
  if (from < 0) return null;
  const to = Math.min(waiting.length - 1, Math.max(0, from + delta));
  return to === from ? null : to;
}

/**
 * The index a dragged waiting job lands on when dropped before (or after) the job at `over`, counted in the
 * list without it (what POST /studio/jobs/move takes); null when it stays where it is.
 */
export function dropIndex(from: number, over: number, after: boolean): number | null {
  if (from < 0 || over < 0) return null;
  let at = over + (after ? 1 : 0);
  if (from < at) at -= 1;
  return at === from ? null : at;
}

/** Where a job's link goes: its episode's shots at its pass, its shot selected; null for a job of no episode. */
export function jobPlace(job: QueueJob): {
  ep: string;
  shot: string | null;
  view: "shots";
  pass: "final" | "proxy";
} | null {
  if (!job.info?.ep) return null;
  return { ep: job.info.ep, shot: job.info.shot ?? null, view: "shots", pass: job.info.pass ?? "proxy" };
}

/** The episode folder's name, for a job's link text. */
export function episodeName(ep: string): string {
  return ep.split(/[\\/]/).filter(Boolean).pop() ?? ep;
}
