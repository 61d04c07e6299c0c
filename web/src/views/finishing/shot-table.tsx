// Every shot of the cut with its upscale and post-process (fresh, stale, queued, failed) and the master plan's
// status and reason; a row opens the shot's finishing beside the table. The cut-wide upscale and post-process
// run from here, with what they queued, skipped and refused.
import { useState } from "preact/hooks";
import { api, thumbUrl } from "../../api.ts";
import type { Pass } from "../../route.ts";
import type { FinishQueueAnswer } from "../../types.ts";
import { ErrorText, Panel, useAction } from "../../ui.tsx";
import { type Badge, type FinishRow, masterTone, queuedText } from "./finishing-model.ts";

function Tag({ badge }: { badge: Badge }) {
  return (
    <span class={`tag tone-${badge.tone}`} title={badge.title}>
      {badge.text}
      <span class="sr-only"> ({badge.title})</span>
    </span>
  );
}

export function QueueReport({ answer }: { answer: FinishQueueAnswer }) {
  return (
    <div class="finish-answer" role="status">
      <p class="muted">{queuedText(answer)}</p>
      {answer.skipped.length || answer.errors.length ? (
        <ul aria-label="Skipped or refused">
          {answer.errors.map((e) => (
            <li key={`e${e.shot}${e.take ?? ""}`} class="error">
              {e.shot}
              {e.take ? ` t${e.take}` : ""}: {e.error}
            </li>
          ))}
          {answer.skipped.map((s) => (
            <li key={`s${s.shot}${s.take ?? ""}`} class="muted">
              {s.shot}
              {s.take ? ` t${s.take}` : ""}: {s.reason}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export function ShotTable({
  ep,
  pass,
  rows,
  selected,
  select,
}: {
  ep: string;
  pass: Pass;
  rows: FinishRow[];
  selected: string | null;
  select(shot: string): void;
}) {
  const [answer, setAnswer] = useState<FinishQueueAnswer | null>(null);
  const upscaleCut = useAction(async () => {
    setAnswer(null);
    setAnswer(await api.post<FinishQueueAnswer>("upscale", { ep, pass, recipe: true }));
  });
  const postCut = useAction(async () => {
    setAnswer(null);
    setAnswer(await api.post<FinishQueueAnswer>("post", { ep, pass }));
  });
  return (
    <Panel
      title={`Shots · ${rows.length}`}
      actions={
        <>
          <button
            type="button"
            disabled={upscaleCut.busy}
            onClick={() => upscaleCut.run()}
            title="Upscale every shot of the cut by the series recipe (fresh and kept ones are skipped)"
          >
            {upscaleCut.busy ? "Queueing…" : "Upscale the cut"}
          </button>
          <button
            type="button"
            disabled={postCut.busy}
            onClick={() => postCut.run()}
            title="Post-process every upscaled shot of the cut by the post recipe"
          >
            {postCut.busy ? "Queueing…" : "Post-process the cut"}
          </button>
        </>
      }
    >
      <ErrorText error={upscaleCut.error ?? postCut.error} />
      {answer ? <QueueReport answer={answer} /> : null}
      {rows.length === 0 ? (
        <p class="muted">The cut is empty: render and pick takes first.</p>
      ) : (
        <table class="finish-rows" aria-label="Shots of the cut">
          <thead>
            <tr>
              <th scope="col">Shot</th>
              <th scope="col">Take</th>
              <th scope="col">Upscale</th>
              <th scope="col">Post</th>
              <th scope="col">Master</th>
              <th scope="col">Why</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.shot} class={`${r.shot === selected ? "on" : ""}${r.out ? " out" : ""}`}>
                <td class="shot">
                  {r.thumb ? (
                    <img src={thumbUrl(ep, r.thumb, 96)} alt="" loading="lazy" />
                  ) : (
                    <span class="no-thumb" />
                  )}
                  <button
                    type="button"
                    class="link-button"
                    aria-current={r.shot === selected ? "true" : undefined}
                    onClick={() => select(r.shot)}
                  >
                    {r.shot}
                  </button>
                  {r.out ? <span class="tag tone-muted">out</span> : null}
                </td>
                <td class="take">{r.take === null ? "–" : `t${String(r.take).padStart(2, "0")}`}</td>
                <td>
                  <Tag badge={r.upscale} />
                </td>
                <td>
                  <Tag badge={r.post} />
                </td>
                <td>
                  {r.master ? (
                    <span class={`tag tone-${masterTone(r.master.status)}`}>{r.master.status}</span>
                  ) : (
                    <span class="muted">{r.out ? "left out" : "–"}</span>
                  )}
                </td>
                <td class="why">
                  {r.master?.why ? <span>{r.master.why}</span> : null}
                  {r.master?.recipe ? <span class="muted"> {r.master.recipe}</span> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Panel>
  );
}
