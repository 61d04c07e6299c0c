// "Models and node packs": what each shipped ComfyUI target needs (GET /studio/features) with download sizes
// (GET /studio/features/sizes), Install per feature and per file (POST /studio/features/install), each file's
// progress live from `studio.features` events, and Cancel (POST /studio/features/cancel). The install state is one
// hook shared with the targets panel, so both show the same progress.
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../../api.ts";
import { useStudio } from "../../context.ts";
import type { Job } from "../../types.ts";
import { ErrorText, Panel, useAction } from "../../ui.tsx";
import {
  type FeatureRow,
  type FeaturesAnswer,
  type FeaturesEvent,
  featureGroups,
  featureStatusText,
  formatBytes,
  type InstallTask,
  type ItemRow,
  installSummary,
  isActive,
  itemPlace,
  itemStatusText,
  type Sizes,
  taskFraction,
  taskText,
  withTask,
} from "./features-model.ts";
import { useAnswer } from "./use-answer.ts";

export interface InstallBody {
  features?: string[];
  files?: string[];
}

interface InstallAnswer {
  job: string | null;
  queued: string[];
  skipped: string[];
}

export interface InstallState {
  listing: ReturnType<typeof useAnswer<FeaturesAnswer>>;
  sizes: Sizes;
  tasks: InstallTask[];
  running: boolean;
  /** Counts install jobs that ended here, so readiness can be asked again after one. */
  ended: number;
  install(body: InstallBody): Promise<InstallAnswer>;
  cancel(): Promise<void>;
}

const ENDED = new Set(["succeeded", "failed", "canceled"]);

/** The features listing, its sizes and the install job's tasks, kept live; asked again when `generation` moves. */
export function useInstall(generation: number): InstallState {
  const studio = useStudio();
  const [ended, setEnded] = useState(0);
  const listing = useAnswer<FeaturesAnswer>("features", {}, `${generation}:${ended}`);
  const sizes = useAnswer<{ sizes: Sizes }>("features/sizes");
  const [tasks, setTasks] = useState<InstallTask[]>([]);
  useEffect(() => {
    if (listing.value) setTasks(listing.value.job.tasks);
  }, [listing.value]);
  const reload = useRef(listing.reload);
  reload.current = listing.reload;
  useEffect(() => {
    const offs = [
      studio.on("studio.features", (data) => {
        const e = data as FeaturesEvent;
        if (e?.task?.key) setTasks((ts) => withTask(ts, e.task));
      }),
      // A job that ends changes what is installed: read the listing (and, through `ended`, readiness) again.
      studio.on("studio.job", (data) => {
        const job = data as Job;
        if (job?.kind === "install" && ENDED.has(job.status)) setEnded((n) => n + 1);
      }),
    ];
    return () => {
      for (const off of offs) off();
    };
  }, [studio]);
  return {
    listing,
    sizes: sizes.value?.sizes ?? {},
    tasks,
    running: tasks.some(isActive),
    ended,
    async install(body) {
      const answer = await api.post<InstallAnswer>("features/install", body);
      if (answer.job) reload.current();
      return answer;
    },
    // The answer's tasks may be older than the worker's last event (it stops after the answer is written): the
    // listing read when the job ends is the word that counts, so only a fresh read is asked for here.
    async cancel() {
      await api.post("features/cancel");
      reload.current();
    },
  };
}

/** An install button with its own busy state, the service's error and what it left out, beside it. */
export function InstallButton({
  install,
  body,
  label,
  name,
  disabled,
  quiet,
}: {
  install: InstallState;
  body: InstallBody;
  label: string;
  /** What the button installs, for screen readers. */
  name: string;
  disabled?: boolean;
  /** A plain button, for the many per-file ones. */
  quiet?: boolean;
}) {
  const [said, setSaid] = useState<InstallAnswer | null>(null);
  const run = useAction(async () => {
    setSaid(null);
    setSaid(await install.install(body));
  });
  return (
    <span class="install-action">
      <button
        type="button"
        class={quiet ? undefined : "primary"}
        disabled={run.busy || disabled}
        aria-label={`${label}: ${name}`}
        onClick={() => run.run()}
      >
        {run.busy ? "Asking…" : label}
      </button>
      {said ? (
        <span class="muted install-said" role="status">
          {installSummary(said)}
          {said.skipped.map((s) => (
            <span key={s} class="skipped">
              {s}
            </span>
          ))}
        </span>
      ) : null}
      <ErrorText error={run.error} />
    </span>
  );
}

/** One task's line: name, a progress bar while it runs, its state, and its error and note as written. */
export function TaskLine({ task }: { task: InstallTask }) {
  const f = taskFraction(task);
  return (
    <li class={`task ${task.status}`}>
      <span class="task-name" title={`models/${task.folder}/${task.name}`}>
        {task.name}
      </span>
      {task.status === "running" || task.status === "queued" ? (
        <progress aria-label={`Download of ${task.name}`} max={1} {...(f === null ? {} : { value: f })} />
      ) : null}
      <span class="task-state">{taskText(task)}</span>
      {task.error ? <span class="error">{task.error}</span> : null}
      {task.note && task.status !== "done" ? <span class="muted">{task.note}</span> : null}
    </li>
  );
}

export function CancelInstall({ install }: { install: InstallState }) {
  const run = useAction(() => install.cancel());
  if (!install.running && !run.busy) return null;
  return (
    <span class="install-action">
      <button type="button" class="danger" disabled={run.busy} onClick={() => run.run()}>
        {run.busy ? "Canceling…" : "Cancel install"}
      </button>
      <ErrorText error={run.error} />
    </span>
  );
}

export function FeaturesPanel({ install }: { install: InstallState }) {
  const { listing } = install;
  const answer = listing.value;
  const groups = answer ? featureGroups(answer, install.sizes, install.tasks) : [];
  return (
    <Panel
      title="Models and node packs"
      actions={
        <>
          <CancelInstall install={install} />
          <button
            type="button"
            onClick={listing.reload}
            disabled={listing.busy}
            aria-label="Check the models and node packs again"
          >
            {listing.busy ? "Checking…" : "Check again"}
          </button>
        </>
      }
    >
      <ErrorText error={listing.error} />
      {!answer && listing.busy ? <p class="muted">Checking…</p> : null}
      {answer ? (
        <div class="features">
          <p class="features-place">
            {answer.place.why_not ? (
              <span class="warn">{answer.place.why_not}</span>
            ) : (
              <span class="muted">
                Installs go to <code>{answer.place.root}</code>
              </span>
            )}
            <span class="muted">
              {" · "}download token {answer.hf_token ? "set" : "not set"}
            </span>
          </p>
          {answer.job.restart ? (
            <p class="warn">ComfyUI loads what was installed when it starts again: restart it.</p>
          ) : null}
          {install.tasks.length ? (
            <div class="install-job">
              <span class="muted">{install.running ? "Installing" : "Last install"}</span>
              <ul class="tasks" aria-label="Install tasks">
                {install.tasks.map((t) => (
                  <TaskLine key={t.key} task={t} />
                ))}
              </ul>
            </div>
          ) : null}
          {groups.map((g) =>
            g.features.length ? (
              <section key={g.id} class="feature-group" aria-label={g.label}>
                <h3 title={g.about}>{g.label}</h3>
                <ul class="feature-list" aria-label={`${g.label}: features`}>
                  {g.features.map((f) => (
                    <FeatureLine key={f.id} feature={f} install={install} />
                  ))}
                </ul>
              </section>
            ) : null,
          )}
        </div>
      ) : null}
    </Panel>
  );
}

function FeatureLine({ feature: f, install }: { feature: FeatureRow; install: InstallState }) {
  const tone = f.status;
  return (
    <li class={`feature ${tone}`}>
      <div class="feature-line">
        <span class={`dot ${tone}`} aria-hidden="true" />
        <span class="feature-label" title={f.about}>
          {f.label}
        </span>
        <span class={`readiness ${tone}`}>{featureStatusText(f.status)}</span>
        {f.restart ? <span class="badge">needs a restart</span> : null}
        {f.installable ? (
          <span class="muted feature-size">
            {f.installable} file{f.installable === 1 ? "" : "s"} ·{" "}
            {f.missingBytes === null ? "size not known" : formatBytes(f.missingBytes)}
          </span>
        ) : null}
        {f.installable && !f.active ? (
          <InstallButton install={install} body={{ features: [f.id] }} label="Install" name={f.label} />
        ) : null}
      </div>
      <details class="feature-items">
        <summary>
          {f.items.length} item{f.items.length === 1 ? "" : "s"}
        </summary>
        <ul aria-label={`Files and packs of ${f.label}`}>
          {f.items.map((i) => (
            <ItemLine key={i.key} item={i} install={install} />
          ))}
        </ul>
      </details>
    </li>
  );
}

function ItemLine({ item: i, install }: { item: ItemRow; install: InstallState }) {
  const active = isActive(i.task);
  const fraction = i.task ? taskFraction(i.task) : null;
  return (
    <li class={`feature-item ${i.status}`}>
      <span class="badge">{i.kind}</span>
      <span class="item-main">
        <span class="item-name">{i.name}</span>
        <span class="item-facts">
          <code class="muted">{itemPlace(i)}</code>
          {i.tier && i.tier !== "required" ? <span class="badge">{i.feature ?? i.tier}</span> : null}
          {i.gated ? <span class="badge warn">gated: needs a token</span> : null}
          {i.licence ? <span class="badge">licence: {i.licence}</span> : null}
        </span>
      </span>
      <span class="muted item-size">{i.kind === "model" ? formatBytes(i.size) : ""}</span>
      <span class={`readiness ${i.status}`}>
        {active && i.task ? (
          <progress
            aria-label={`Download of ${i.name}`}
            max={1}
            {...(fraction === null ? {} : { value: fraction })}
          />
        ) : null}
        {i.task && i.status !== "installed" ? taskText(i.task) : itemStatusText(i.status)}
      </span>
      <span class="item-action">
        {i.installable && !active ? (
          <InstallButton install={install} body={{ files: [i.name] }} label="Install" name={i.name} quiet />
        ) : null}
      </span>
      {i.note ? <span class="muted item-note">{i.note}</span> : null}
    </li>
  );
}
