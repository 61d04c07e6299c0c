// Every target by kind with its readiness on its backend (GET /studio/targets?kind=…&ready=1): ready, or which model
// files are missing by tier (with where to get them) and which nodes the engine lacks; missing files the service
// records an address for are installed from here, with the same progress as the models panel.
import { ErrorText, Panel } from "../../ui.tsx";
import { downloadableFiles, isActive, tasksForFiles } from "./features-model.ts";
import { InstallButton, type InstallState, TaskLine } from "./features-panel.tsx";
import {
  detailSummary,
  passesNote,
  type ReadinessRow,
  type ReadyTarget,
  readinessRows,
  tierMeaning,
} from "./settings-model.ts";
import { useAnswer } from "./use-answer.ts";

type Kind = "video" | "image" | "audio";
const KINDS: Kind[] = ["video", "image", "audio"];
const TITLES: Record<Kind, string> = {
  video: "Video targets",
  image: "Image targets",
  audio: "Audio targets",
};

interface TargetsAnswer {
  targets: ReadyTarget[];
  default: Partial<Record<Kind, string>>;
}

/**
 * Asks again whenever `generation` changes (a saved setting can change what the engines have) and when an install
 * job ends.
 */
export function TargetsPanel({ generation, install }: { generation: number; install: InstallState }) {
  return (
    <>
      {KINDS.map((kind) => (
        <KindTargets key={kind} kind={kind} ask={`${generation}:${install.ended}`} install={install} />
      ))}
    </>
  );
}

function KindTargets({ kind, ask, install }: { kind: Kind; ask: string; install: InstallState }) {
  const load = useAnswer<TargetsAnswer>("targets", { kind, ready: 1 }, ask);
  const answer = load.value;
  const rows = answer ? readinessRows(answer.targets, answer.default[kind] ?? null) : [];
  const ready = rows.filter((r) => r.status === "ready" || r.status === "degraded").length;
  return (
    <Panel
      title={`${TITLES[kind]}${answer ? ` · ${ready} of ${rows.length} ready` : ""}`}
      actions={
        <button
          type="button"
          onClick={load.reload}
          disabled={load.busy}
          aria-label={`Check the ${kind} targets again`}
        >
          {load.busy ? "Checking…" : "Check again"}
        </button>
      }
    >
      <ErrorText error={load.error} />
      {answer ? (
        <ul class="targets" aria-label={TITLES[kind]}>
          {rows.map((r) => (
            <TargetRow key={r.id} row={r} install={install} />
          ))}
        </ul>
      ) : load.busy ? (
        <p class="muted">Checking…</p>
      ) : null}
    </Panel>
  );
}

function TargetRow({ row, install }: { row: ReadinessRow; install: InstallState }) {
  const tone = row.status.replace(" ", "_");
  const files = downloadableFiles(row.missing.flatMap((g) => g.files));
  const tasks = tasksForFiles(install.tasks, files);
  return (
    <li class={`target ${tone}`}>
      <div class="target-line">
        <span class={`dot ${tone}`} aria-hidden="true" />
        <span class="target-label">{row.label}</span>
        <code class="muted">{row.id}</code>
        {row.isDefault ? <span class="badge">default</span> : null}
        <span class={`readiness ${tone}`}>{row.summary}</span>
      </div>
      {row.missing.length || row.nodes.length || row.featuresOff.length || row.error ? (
        <details
          class="target-details"
          open={row.status === "not_ready" && row.missing.some((g) => g.tier === "required")}
        >
          <summary>{detailSummary(row)}</summary>
          {row.missing.map((g) => (
            <div key={g.tier} class="missing">
              <span class="muted">{tierMeaning(g.tier)}</span>
              <ul>
                {g.files.map((m) => (
                  <li key={`${m.param}:${m.want}`}>
                    <code>{m.param}</code> {m.want}
                    {m.folder ? <span class="muted"> (models/{m.folder})</span> : null}
                    {passesNote(m) ? <span class="badge">{passesNote(m)}</span> : null}
                    {m.feature ? <span class="badge">{m.feature}</span> : null}
                    {m.url ? (
                      <a href={m.url} target="_blank" rel="noreferrer" class="download" title={m.source}>
                        download
                      </a>
                    ) : m.source ? (
                      <span class="muted source"> · {m.source}</span>
                    ) : null}
                  </li>
                ))}
              </ul>
            </div>
          ))}
          {files.length ? (
            <div class="target-install">
              <InstallButton
                install={install}
                body={{ files }}
                label="Install missing files"
                name={row.label}
                quiet
                disabled={tasks.some(isActive)}
              />
              {tasks.length ? (
                <ul class="tasks" aria-label={`Installs for ${row.label}`}>
                  {tasks.map((t) => (
                    <TaskLine key={t.key} task={t} />
                  ))}
                </ul>
              ) : null}
            </div>
          ) : null}
          {row.nodes.length ? (
            <div class="missing">
              <span class="muted">nodes the engine lacks</span>
              <ul>
                {row.nodes.map((n) => (
                  <li key={n}>
                    <code>{n}</code>
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          {row.featuresOff.length ? <p class="muted">off: {row.featuresOff.join(", ")}</p> : null}
          {row.error ? <p class={row.status === "unknown" ? "muted" : "warn"}>{row.error}</p> : null}
        </details>
      ) : null}
    </li>
  );
}
