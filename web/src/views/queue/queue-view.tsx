// The Queue view: every lane (backend) with its pause switch, running jobs with live progress, waiting jobs in the
// order they will start (move, drag, cancel), finished jobs newest first (retry), and the paid-run counter.
// The jobs come from the Studio (read once, patched by `studio.job` events); every action answers with the whole
// queue, which replaces it at once. The workers (machines, the lanes they run, engines they cannot reach) show
// when the service lists them; ComfyUI's own progress and failures join a job when the page runs inside ComfyUI.
import { useEffect, useState } from "preact/hooks";
import { api } from "../../api.ts";
import { engineNote, unsaidEngineError } from "../../comfy-events.ts";
import { useStudio } from "../../context.ts";
import type { Job, JobsAnswer, WorkerAd } from "../../types.ts";
import { ErrorText, Panel, useAction } from "../../ui.tsx";
import {
  dropIndex,
  episodeName,
  formatDuration,
  jobDuration,
  jobPlace,
  type LaneGroup,
  movedIndex,
  percent,
  queueCounts,
  queueLayout,
  stepText,
  waitDuration,
} from "./queue-model.ts";
import { laneReach, reachText, workerRows } from "./workers-model.ts";

/** A POST to one of the queue's actions; its answer (the whole queue) becomes the page's queue. */
function useQueueAction<A extends unknown[]>(body: (...args: A) => [action: string, payload: unknown]) {
  const studio = useStudio();
  return useAction(async (...args: A) => {
    const [action, payload] = body(...args);
    studio.jobs.value.value = await api.post<JobsAnswer>(`jobs/${action}`, payload);
  });
}

/** The current time, ticking each second while `live` (running clocks, waiting times). */
function useNow(live: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!live) return;
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [live]);
  return now;
}

export function QueueView() {
  const studio = useStudio();
  const answer = studio.jobs.value.value;
  const layout = answer ? queueLayout(answer) : null;
  const counts = answer ? queueCounts(answer) : { running: 0, waiting: 0 };
  const now = useNow(counts.running + counts.waiting > 0);
  return (
    <div class="queue">
      <div class="queue-head">
        <h1>Queue</h1>
        <span class="muted" role="status">
          {counts.running} running · {counts.waiting} waiting
        </span>
        {answer ? <PaidRuns paid={answer.paid} /> : null}
      </div>
      <ErrorText error={studio.jobs.error.value} />
      {layout && layout.lanes.length === 0 && layout.finished.length === 0 ? (
        <p class="muted queue-empty">
          Nothing queued yet. Renders and assemblies show here as they are asked for.
        </p>
      ) : null}
      {layout?.lanes.map((lane) => (
        <Lane key={lane.name} lane={lane} now={now} jobs={answer?.jobs ?? []} workers={answer?.workers} />
      ))}
      <Workers workers={answer?.workers} />
      {layout?.finished.length ? (
        <Panel title={`Finished · ${layout.finished.length}`}>
          <ul class="jobs" aria-label="Finished jobs">
            {layout.finished.map((j) => (
              <FinishedJob key={j.id} job={j} />
            ))}
          </ul>
        </Panel>
      ) : null}
    </div>
  );
}

function PaidRuns({ paid }: { paid: JobsAnswer["paid"] }) {
  const reset = useQueueAction(() => ["paid-reset", {}]);
  const over = paid.limit !== null && paid.count >= paid.limit;
  return (
    <span class="paid">
      <span class={over ? "warn" : "muted"}>
        Paid runs this session: <strong>{paid.count}</strong>
        {paid.limit === null ? " (no cap)" : ` of ${paid.limit}`}
      </span>
      {paid.count > 0 ? (
        <button type="button" class="ghost" onClick={() => reset.run()} disabled={reset.busy}>
          Reset count
        </button>
      ) : null}
      <ErrorText error={reset.error} />
    </span>
  );
}

/** Every worker process: its machine, the lanes it runs, the engines it cannot reach and why. */
function Workers({ workers }: { workers: WorkerAd[] | undefined }) {
  const rows = workerRows(workers, useNow(Boolean(workers?.length)));
  if (!rows.length) return null;
  return (
    <Panel title={`Workers · ${rows.length}`}>
      <ul class="workers" aria-label="Workers">
        {rows.map((w) => (
          <li key={w.owner} class="worker">
            <div class="job-line">
              <strong class="worker-where">{w.where}</strong>
              <span class="worker-lanes">
                {w.lanes.map((l) => (
                  <span key={l} class="badge">
                    {l}
                  </span>
                ))}
              </span>
              <span class="muted worker-seen">{w.seen}</span>
            </div>
            {w.down.length ? (
              <ul class="worker-down" aria-label={`Engines ${w.where} cannot reach`}>
                {w.down.map((d) => (
                  <li key={d.lane} class="warn">
                    {d.lane}: {d.why}
                  </li>
                ))}
              </ul>
            ) : null}
          </li>
        ))}
      </ul>
    </Panel>
  );
}

function Lane({
  lane,
  now,
  jobs,
  workers,
}: {
  lane: LaneGroup<Job>;
  now: number;
  jobs: Job[];
  workers: WorkerAd[] | undefined;
}) {
  const reach = reachText(laneReach(workers, lane.name));
  const pause = useQueueAction((paused: boolean) => ["pause", { lane: lane.name, paused }]);
  const drop = useQueueAction((id: string, index: number) => ["move", { id, index }]);
  const [dragging, setDragging] = useState<string | null>(null);
  const titles = new Map(jobs.map((j) => [j.id, j.title]));
  const waitingIds = lane.waiting.map((j) => j.id);
  return (
    <Panel
      title={`${lane.name}${lane.paused ? " · paused" : ""}`}
      actions={
        <>
          <span class="muted lane-facts">
            {lane.running.length} running · {lane.waiting.length} waiting · {lane.parallel} at a time
            {reach ? ` · ${reach}` : ""}
          </span>
          <button
            type="button"
            class={lane.paused ? "primary" : ""}
            aria-label={`${lane.paused ? "Resume" : "Pause"} the ${lane.name} lane`}
            onClick={() => pause.run(!lane.paused)}
            disabled={pause.busy}
          >
            {lane.paused ? "Resume" : "Pause"}
          </button>
        </>
      }
    >
      <ErrorText error={pause.error ?? drop.error} />
      {lane.running.length ? (
        <ul class="jobs" aria-label={`Running on ${lane.name}`}>
          {lane.running.map((j) => (
            <RunningJob key={j.id} job={j} now={now} />
          ))}
        </ul>
      ) : null}
      {lane.waiting.length ? (
        <ol class="jobs waiting" aria-label={`Waiting on ${lane.name}, next first`}>
          {lane.waiting.map((j, i) => (
            <WaitingJob
              key={j.id}
              job={j}
              index={i}
              ids={waitingIds}
              now={now}
              after={j.after ? (titles.get(j.after) ?? j.after) : null}
              dragging={dragging}
              setDragging={setDragging}
              onDrop={(id, to) => void drop.run(id, to)}
            />
          ))}
        </ol>
      ) : null}
      {lane.running.length + lane.waiting.length === 0 ? (
        <p class="muted">Idle{lane.paused ? ": paused, nothing waits" : ""}.</p>
      ) : lane.paused && lane.waiting.length ? (
        <p class="warn">Paused: waiting jobs start when the lane is resumed.</p>
      ) : null}
    </Panel>
  );
}

/** The job's episode and shot as a link to the Shots view (plain text when the job belongs to no episode). */
function JobPlace({ job }: { job: Job }) {
  const studio = useStudio();
  const place = jobPlace(job);
  if (!place) return <span class="job-place muted">{job.kind}</span>;
  const text = `${episodeName(place.ep)}${place.shot ? ` · ${place.shot}` : ""} · ${place.pass}`;
  const href = `/studio/?ep=${encodeURIComponent(place.ep)}${place.shot ? `&shot=${encodeURIComponent(place.shot)}` : ""}${place.pass === "final" ? "&pass=final" : ""}`;
  return (
    <a
      class="job-place"
      href={href}
      title={place.ep}
      onClick={(e) => {
        e.preventDefault();
        studio.router.go(place);
      }}
    >
      {text}
    </a>
  );
}

function JobTitle({ job }: { job: Job }) {
  return (
    <span class="job-title">
      <strong>{job.title}</strong>
      {job.info.target ? <span class="badge">{job.info.target}</span> : null}
      {job.kind !== "render" ? <span class="badge">{job.kind}</span> : null}
    </span>
  );
}

function JobLog({ job }: { job: Job }) {
  if (!job.log.length) return null;
  return (
    <details class="job-log">
      <summary>Log · {job.log.length}</summary>
      <pre>{job.log.join("\n")}</pre>
    </details>
  );
}

function RunningJob({ job, now }: { job: Job; now: number }) {
  const studio = useStudio();
  const note = engineNote(job, studio.engine.value);
  const cancel = useQueueAction(() => ["cancel", { id: job.id }]);
  const pct = percent(job.progress);
  const last = job.log[job.log.length - 1];
  return (
    <li class="job running">
      <div class="job-line">
        <JobTitle job={job} />
        <JobPlace job={job} />
        <span class="job-step">{stepText(job)}</span>
        <span class="num job-time" title="Running for">
          {formatDuration(jobDuration(job, now))}
        </span>
        <button
          type="button"
          class="ghost"
          aria-label={`Cancel ${job.title}`}
          onClick={() => cancel.run()}
          disabled={cancel.busy}
        >
          Cancel
        </button>
      </div>
      <div
        class="bar"
        role="progressbar"
        aria-label={`${job.title} progress`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct}
      >
        <span style={{ width: `${pct}%` }} />
      </div>
      <div class="job-line">
        <span class="job-last muted" title={last}>
          {last ?? "starting…"}
        </span>
        <span class="num muted">{pct}%</span>
      </div>
      {note?.text ? (
        <div class="job-line engine-note" role="status">
          <span class="muted">{note.text}</span>
        </div>
      ) : null}
      {note?.error ? <p class="error engine-error">{note.error}</p> : null}
      <JobLog job={job} />
      <ErrorText error={cancel.error} />
    </li>
  );
}

function WaitingJob({
  job,
  index,
  ids,
  now,
  after,
  dragging,
  setDragging,
  onDrop,
}: {
  job: Job;
  index: number;
  ids: string[];
  now: number;
  after: string | null;
  dragging: string | null;
  setDragging: (id: string | null) => void;
  /** A job dragged onto this row lands at `index` of the waiting list. */
  onDrop: (id: string, index: number) => void;
}) {
  const move = useQueueAction((to: number) => ["move", { id: job.id, index: to }]);
  const cancel = useQueueAction(() => ["cancel", { id: job.id }]);
  const [over, setOver] = useState<"before" | "after" | null>(null);
  const up = movedIndex(ids, job.id, -1);
  const down = movedIndex(ids, job.id, 1);
  const busy = move.busy || cancel.busy;
  return (
    <li
      class={`job waiting${dragging === job.id ? " dragging" : ""}${over ? ` drop-${over}` : ""}`}
      draggable
      onDragStart={(e) => {
        e.dataTransfer?.setData("text/plain", job.id);
        setDragging(job.id);
      }}
      onDragEnd={() => setDragging(null)}
      onDragOver={(e) => {
        if (!dragging || dragging === job.id) return;
        e.preventDefault();
        const box = e.currentTarget.getBoundingClientRect();
        setOver(e.clientY > box.top + box.height / 2 ? "after" : "before");
      }}
      onDragLeave={() => setOver(null)}
      onDrop={(e) => {
        e.preventDefault();
        const side = over;
        setOver(null);
        if (!dragging || !side) return;
        const to = dropIndex(ids.indexOf(dragging), index, side === "after");
        setDragging(null);
        if (to !== null) onDrop(dragging, to);
      }}
    >
      <div class="job-line">
        <span class="num job-index muted">{index + 1}</span>
        <JobTitle job={job} />
        <JobPlace job={job} />
        {after ? <span class="muted">after {after}</span> : null}
        <span class="num job-time muted" title="Waiting for">
          {formatDuration(waitDuration(job, now))}
        </span>
        <span class="job-buttons">
          <button
            type="button"
            class="ghost"
            aria-label={`Move ${job.title} up`}
            title="Start sooner"
            onClick={() => up !== null && move.run(up)}
            disabled={busy || up === null}
          >
            ↑
          </button>
          <button
            type="button"
            class="ghost"
            aria-label={`Move ${job.title} down`}
            title="Start later"
            onClick={() => down !== null && move.run(down)}
            disabled={busy || down === null}
          >
            ↓
          </button>
          <button
            type="button"
            class="ghost"
            aria-label={`Cancel ${job.title}`}
            onClick={() => cancel.run()}
            disabled={busy}
          >
            Cancel
          </button>
        </span>
      </div>
      <ErrorText error={move.error ?? cancel.error} />
    </li>
  );
}

function FinishedJob({ job }: { job: Job }) {
  const studio = useStudio();
  const engineError = unsaidEngineError(job, studio.engine.value);
  const retry = useQueueAction(() => ["retry", { id: job.id }]);
  return (
    <li class={`job finished ${job.status}`}>
      <div class="job-line">
        <span class={`status ${job.status}`}>{job.status}</span>
        <JobTitle job={job} />
        <JobPlace job={job} />
        <span class="num job-time muted" title="Time taken">
          {formatDuration(jobDuration(job, job.finished ? Date.parse(job.finished) : Date.now()))}
        </span>
        {job.can_retry ? (
          <button
            type="button"
            class="ghost"
            aria-label={`Retry ${job.title}`}
            onClick={() => retry.run()}
            disabled={retry.busy}
          >
            Retry
          </button>
        ) : null}
      </div>
      {job.error ? <p class="error job-error">{job.error}</p> : null}
      {engineError ? <p class="error job-error">{engineError}</p> : null}
      <JobLog job={job} />
      <ErrorText error={retry.error} />
    </li>
  );
}
