// Many files dropped on the References view (or chosen with its button): their names matched to reference slots
// by the service (POST /studio/refs/match), each matched file imported into its slot in turn with its progress
// shown, and what stayed out listed with the reason.
import type { JSX } from "preact";
import { useRef, useState } from "preact/hooks";
import { api, errorText } from "../../api.ts";
import type { RefInfo } from "../../types.ts";
import { ErrorText } from "../../ui.tsx";
import { importPlan, type Left, type MatchAnswer, matchRequest } from "./bulk-import.ts";
import { byteSize, importFields, uploadPercent } from "./refs-model.ts";
import { type Progress, uploadFile } from "./upload.ts";

type State =
  | { phase: "idle" }
  | { phase: "matching"; count: number }
  | { phase: "sending"; at: number; of: number; name: string; where: string; progress: Progress }
  | { phase: "done"; imported: { file: string; where: string }[]; left: Left[]; failed: Left[] };

export interface BulkDrop {
  /** The view's drag-and-drop handlers (a drop a reference's own zone took is left to it). */
  handlers: {
    onDragOver(e: DragEvent): void;
    onDragLeave(e: DragEvent): void;
    onDrop(e: DragEvent): void;
  };
  /** Files are dragged over the view, outside any reference's own zone. */
  over: boolean;
  /** Import these files, each into the reference its name matches. */
  send(files: File[]): Promise<void>;
  busy: boolean;
  report: JSX.Element | null;
}

export function useBulkDrop({
  ep,
  refs,
  pick,
  onDone,
}: {
  ep: string;
  refs: readonly RefInfo[];
  /** Make each imported file live. */
  pick: boolean;
  /** A ref as listed after its import. */
  onDone(ref: RefInfo | null): void;
}): BulkDrop {
  const [state, setState] = useState<State>({ phase: "idle" });
  const [over, setOver] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const stop = useRef<(() => void) | null>(null);
  const busy = state.phase === "matching" || state.phase === "sending";

  const send = async (files: File[]) => {
    if (busy || !files.length) return;
    setError(null);
    setState({ phase: "matching", count: files.length });
    const asked = matchRequest(files);
    let answer: MatchAnswer = { matched: [], unmatched: [] };
    try {
      if (asked.names.length) answer = await api.post<MatchAnswer>("refs/match", { ep, names: asked.names });
    } catch (err) {
      setState({ phase: "idle" });
      setError(errorText(err));
      return;
    }
    const plan = importPlan(files, answer, refs);
    const imported: { file: string; where: string }[] = [];
    const failed: Left[] = [];
    let stopped = false;
    for (const [at, job] of plan.imports.entries()) {
      if (stopped) {
        failed.push({ file: job.file, why: "not sent: the import was stopped" });
        continue;
      }
      const file = files[job.index];
      const upload = uploadFile<RefInfo>(
        "refs/import",
        importFields(ep, job.ref, job.view, pick),
        file,
        (progress) => setState((s) => (s.phase === "sending" ? { ...s, progress } : s)),
      );
      stop.current = () => {
        stopped = true;
        upload.abort();
      };
      setState({
        phase: "sending",
        at: at + 1,
        of: plan.imports.length,
        name: job.file,
        where: job.where,
        progress: { loaded: 0, total: file.size },
      });
      try {
        const ref = await upload.done;
        onDone(ref && typeof ref === "object" && typeof ref.id === "string" ? ref : null);
        imported.push({ file: job.file, where: job.where });
      } catch (err) {
        failed.push({ file: job.file, why: errorText(err) });
      }
    }
    stop.current = null;
    setState({ phase: "done", imported, left: [...asked.left, ...plan.left], failed });
  };

  const handlers: BulkDrop["handlers"] = {
    onDragOver(e) {
      // A reference's own zone took it (it prevents the default first, being inside).
      if (e.defaultPrevented || !e.dataTransfer?.types.includes("Files")) {
        setOver(false);
        return;
      }
      e.preventDefault();
      e.dataTransfer.dropEffect = "copy";
      setOver(true);
    },
    onDragLeave(e) {
      const to = e.relatedTarget as Node | null;
      if (!to || !(e.currentTarget as Node).contains(to)) setOver(false);
    },
    onDrop(e) {
      setOver(false);
      if (e.defaultPrevented) return;
      e.preventDefault();
      void send([...(e.dataTransfer?.files ?? [])]);
    },
  };

  return {
    handlers,
    over,
    send,
    busy,
    report: <Report state={state} error={error} stop={stop} close={() => setState({ phase: "idle" })} />,
  };
}

function Report({
  state,
  error,
  stop,
  close,
}: {
  state: State;
  error: string | null;
  stop: { current: (() => void) | null };
  close(): void;
}) {
  if (state.phase === "idle") return error ? <ErrorText error={error} /> : null;
  if (state.phase === "matching") {
    return (
      <section class="bulk-import" aria-label="Import of dropped files">
        <p class="muted">
          Matching {state.count} file{state.count === 1 ? "" : "s"} to references…
        </p>
      </section>
    );
  }
  if (state.phase === "sending") {
    const pct = uploadPercent(state.progress.loaded, state.progress.total);
    return (
      <section class="bulk-import" aria-label="Import of dropped files">
        <div class="upload">
          <span class="muted num">
            {state.at} of {state.of}
          </span>
          <span class="upload-name">
            {state.name} → {state.where}
          </span>
          <progress
            max={100}
            value={pct ?? undefined}
            aria-label={`Uploading ${state.name}`}
            aria-valuetext={pct === null ? "sending" : `${pct}%`}
          />
          <span class="muted num">
            {pct === null ? "…" : `${pct}%`}
            {state.progress.total ? ` of ${byteSize(state.progress.total)}` : ""}
          </span>
          <button type="button" class="ghost" onClick={() => stop.current?.()}>
            Stop
          </button>
        </div>
      </section>
    );
  }
  const out = [...state.failed, ...state.left];
  return (
    <section class="bulk-import" aria-label="Import of dropped files">
      <header class="bulk-head">
        <strong>
          {state.imported.length} of {state.imported.length + out.length} file
          {state.imported.length + out.length === 1 ? "" : "s"} imported
        </strong>
        <button type="button" class="ghost" onClick={close} aria-label="Close the import report">
          Close
        </button>
      </header>
      {state.imported.length ? (
        <ul class="bulk-list done" aria-label="Files imported">
          {state.imported.map((f) => (
            <li key={f.file}>
              <span class="bulk-file">{f.file}</span>
              <span class="muted">into {f.where}</span>
            </li>
          ))}
        </ul>
      ) : null}
      {out.length ? (
        <ul class="bulk-list" aria-label="Files not imported">
          {out.map((f, i) => (
            <li key={`${f.file}:${i}`}>
              <span class="bulk-file">{f.file}</span>
              <span class="warn">{f.why}</span>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
