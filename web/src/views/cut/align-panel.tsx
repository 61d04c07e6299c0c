// Align the script's dialogue to the episode's recording (POST /studio/align waits until it is done): whether the
// aligner can run here and, when not, what to install; a dry run or a real run, its three stages live from the
// `studio.align` events, then the windows it set beside the ones the shots had, its notes and align_report.md.
import { useEffect, useState } from "preact/hooks";
import { api } from "../../api.ts";
import { useStudio } from "../../context.ts";
import type { Pass } from "../../route.ts";
import type { AlignAnswer, EpisodeStatus } from "../../types.ts";
import { ErrorText, Panel, useAction } from "../../ui.tsx";
import {
  type AlignEvent,
  type AlignReady,
  alignEventOf,
  alignPct,
  changeRows,
  readyText,
  stageRows,
  takesModel,
} from "./align-model.ts";

type Before = Map<string, { audio_in: number | null; audio_out: number | null }>;

export function AlignPanel({ ep, pass, status }: { ep: string; pass: Pass; status: EpisodeStatus }) {
  const studio = useStudio();
  const [ready, setReady] = useState<AlignReady | null>(null);
  const [snap, setSnap] = useState(true);
  const [model, setModel] = useState<string>("");
  const [events, setEvents] = useState<AlignEvent[]>([]);
  const [answer, setAnswer] = useState<{ a: AlignAnswer; before: Before } | null>(null);

  const check = useAction(async () => {
    setReady(await api.get<AlignReady>("align/ready"));
  });
  useEffect(() => {
    void check.run();
  }, []);

  // Progress rows arrive while the run's request is still open.
  useEffect(
    () =>
      studio.on("studio.align", (data) => {
        const e = alignEventOf(data, ep);
        if (e) setEvents((list) => [...list, e]);
      }),
    [ep],
  );

  const run = useAction(async (dry: boolean) => {
    setAnswer(null);
    setEvents([]);
    const before: Before = new Map(
      status.shots.map((s) => [s.shot, { audio_in: s.audio_in ?? null, audio_out: s.audio_out ?? null }]),
    );
    const body: Record<string, unknown> = { ep, pass, snap, dry_run: dry };
    if (model && takesModel(ready)) body.model = model;
    const a = await api.post<AlignAnswer>("align", body);
    setAnswer({ a, before });
    if (!a.dry_run) await studio.refreshEpisode();
  });

  const words = ready ? readyText(ready) : null;
  const rows = answer ? changeRows(answer.a.changes, answer.before) : [];
  const stages = stageRows(events, !run.busy && answer !== null);
  const showStages = run.busy || events.length > 0;
  return (
    <Panel
      title="Align to the recording"
      actions={
        <>
          <label class="inline">
            <input type="checkbox" checked={snap} onChange={(e) => setSnap(e.currentTarget.checked)} />
            Snap to silences
          </label>
          {takesModel(ready) && ready ? (
            <label class="inline">
              Model
              <select value={model || ready.models.default} onChange={(e) => setModel(e.currentTarget.value)}>
                {ready.models.choices.map((m) => (
                  <option key={m} value={m}>
                    {m}
                  </option>
                ))}
              </select>
            </label>
          ) : null}
          <button
            type="button"
            onClick={() => run.run(true)}
            disabled={run.busy}
            title="Transcribe and match, and show the windows it would set: nothing is written"
          >
            Dry run
          </button>
          <button
            type="button"
            class="primary"
            onClick={() => run.run(false)}
            disabled={run.busy}
            title="Write each shot's audio: window into the script, with align_report.md, and rebuild"
          >
            {run.busy ? "Aligning…" : "Align"}
          </button>
        </>
      }
    >
      <div class="align-ready">
        {check.busy && !ready ? <span class="muted">Looking for an aligner…</span> : null}
        {words?.engine ? (
          <span>
            <span class="align-flag ok">ready</span> {words.engine}
          </span>
        ) : null}
        {words?.missing ? (
          <div>
            <p>
              <span class="align-flag bad">not ready</span> missing: {words.missing}. A recording with a fresh
              words file still aligns.
            </p>
            {words.commands.map((c) => (
              <pre key={c} class="align-cmd">
                {c}
              </pre>
            ))}
          </div>
        ) : null}
        {ready ? (
          <button type="button" class="ghost" onClick={() => check.run()} disabled={check.busy}>
            Check again
          </button>
        ) : null}
        <ErrorText error={check.error} />
      </div>
      {showStages ? (
        <ol class="align-stages" aria-label="Alignment stages">
          {stages.map((s) => (
            <li key={s.stage} class={`align-stage ${s.state}`}>
              <strong>{s.label}</strong>
              <span class="muted">{s.state === "waiting" ? "waiting" : s.text || s.state}</span>
            </li>
          ))}
          {run.busy ? (
            <li class="align-pct">
              <progress max={100} value={alignPct(events)} aria-label="Alignment progress" />
            </li>
          ) : null}
        </ol>
      ) : null}
      <ErrorText error={run.error} />
      {answer ? (
        <div class="align-result">
          <p>
            {answer.a.dry_run ? "Dry run: nothing written. " : ""}
            {answer.a.words} words heard in {answer.a.recording}
            {answer.a.report_path ? ` · report in ${answer.a.report_path}` : ""}
          </p>
          {rows.length ? (
            <table class="align-changes">
              <caption class="sr-only">Windows {answer.a.dry_run ? "the run would set" : "set"}</caption>
              <thead>
                <tr>
                  <th scope="col">Shot</th>
                  <th scope="col" class="num">
                    Before
                  </th>
                  <th scope="col" class="num">
                    {answer.a.dry_run ? "Would be" : "Now"}
                  </th>
                  <th scope="col" class="num">
                    Moved
                  </th>
                  <th scope="col">Note</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.shot}>
                    <td>{r.shot}</td>
                    <td class="num">{r.before}</td>
                    <td class="num">{r.after}</td>
                    <td class="num">
                      {r.shift === null ? "" : `${r.shift > 0 ? "+" : ""}${r.shift.toFixed(2)} s`}
                    </td>
                    <td>{r.note}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p class="muted">No window changed.</p>
          )}
          {answer.a.notes.length ? (
            <ul class="align-notes">
              {answer.a.notes.map((n) => (
                <li key={String(n)}>{String(n)}</li>
              ))}
            </ul>
          ) : null}
          <details class="align-report">
            <summary>Report</summary>
            <pre>{answer.a.report}</pre>
          </details>
        </div>
      ) : null}
    </Panel>
  );
}
