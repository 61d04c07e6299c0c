// One take of a shot as a card: its picture, status, target, seed, note and failure reason, staleness, and what can
// be done with it (play, pick, discard after a confirm, retry a failed job, render again with its seed, cancel).
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../../api.ts";
import type { Pass } from "../../route.ts";
import type { TakeDetail } from "../../types.ts";
import { type Action, ErrorText, useAction } from "../../ui.tsx";
import { RenderReportView, useRender } from "./render-report.tsx";
import { takeName } from "./report.ts";
import { Thumb } from "./thumb.tsx";

export function TakeCard({
  ep,
  pass,
  shot,
  take,
  nth,
  inCut,
  picked,
  playing,
  onPlay,
  pick,
  after,
}: {
  ep: string;
  pass: Pass;
  shot: string;
  take: TakeDetail;
  /** Its place in the list: the digit that picks it from the keyboard. */
  nth: number;
  /** The cut plays this take. */
  inCut: boolean;
  /** …because it was picked by hand. */
  picked: boolean;
  playing: boolean;
  onPlay(): void;
  pick: Action<[string, number | null]>;
  after(): Promise<void>;
}) {
  const name = takeName(shot, take.take);
  const [confirming, setConfirming] = useState(false);
  const confirmButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (confirming) confirmButton.current?.focus();
  }, [confirming]);
  const discard = useAction(async () => {
    await api.post("discard", { ep, pass, shot, take: take.take });
    setConfirming(false);
    await after();
  });
  const cancel = useAction(async () => {
    await api.post("cancel", { ep, pass, shot, take: take.take });
    await after();
  });
  // The queue's job id: the sidecar's `job`, else `backend_prompt_id`, which the contract says carries it.
  const job =
    typeof take.sidecar?.job === "string" && take.sidecar.job
      ? take.sidecar.job
      : (take.backend_prompt_id ?? null);
  const retry = useAction(async () => {
    if (job) await api.post("jobs/retry", { id: job });
  });
  const again = useRender();
  const usable = take.status === "ok" && take.has_video;
  const failed = take.status === "failed";
  return (
    <article
      class={`take-card take-${take.status}${playing ? " playing" : ""}`}
      aria-label={`Take ${take.take}`}
    >
      <button
        type="button"
        class="take-thumb"
        onClick={onPlay}
        disabled={!take.mp4}
        aria-label={take.mp4 ? `Play ${name}` : `${name} has no video`}
        aria-pressed={playing}
      >
        <Thumb ep={ep} take={take} width={256} label={name} />
      </button>
      <div class="take-info">
        <p class="take-head">
          {nth <= 9 ? <kbd title={`Press ${nth} to pick`}>{nth}</kbd> : null}
          <strong>t{String(take.take).padStart(2, "0")}</strong>
          <span class={`status ${take.status}`}>{take.status}</span>
          {inCut ? <span class="tag">{picked ? "picked" : "in cut"}</span> : null}
          {take.stale.map((s) => (
            <span key={s} class="tag stale" title={`Out of date: ${s} changed since this take`}>
              {s}
            </span>
          ))}
        </p>
        <dl class="take-facts">
          <dt>Target</dt>
          <dd>{take.target ?? "–"}</dd>
          <dt>Seed</dt>
          <dd>
            <code>{take.seed ?? "–"}</code>
          </dd>
          {take.frames ? (
            <>
              <dt>Length</dt>
              <dd>
                {take.frames}f{take.fps ? ` @ ${take.fps}` : ""}
                {take.width ? ` · ${take.width}×${take.height}` : ""}
              </dd>
            </>
          ) : null}
          {take.note ? (
            <>
              <dt>Note</dt>
              <dd>{take.note}</dd>
            </>
          ) : null}
        </dl>
        {take.save_notes ? <p class={failed ? "error" : "muted small"}>{take.save_notes}</p> : null}
        <div class="take-actions">
          {usable && !picked ? (
            <button type="button" onClick={() => pick.run(shot, take.take)} disabled={pick.busy}>
              Pick
            </button>
          ) : null}
          {picked ? (
            <button
              type="button"
              onClick={() => pick.run(shot, null)}
              disabled={pick.busy}
              title="Let the cut play the newest usable take again"
            >
              Unpick
            </button>
          ) : null}
          {take.status === "queued" ? (
            <button type="button" onClick={() => cancel.run()} disabled={cancel.busy}>
              Cancel
            </button>
          ) : null}
          {failed && job ? (
            <button
              type="button"
              onClick={() => retry.run()}
              disabled={retry.busy}
              title="Run the same job again: a new take with the same settings"
            >
              Retry
            </button>
          ) : null}
          {take.seed && take.status !== "queued" ? (
            <button
              type="button"
              onClick={() => again.run({ ep, pass, shots: [shot], redo: true, seed: take.seed ?? undefined })}
              disabled={again.busy}
              title="A new take with this take's seed and the shot's current settings"
            >
              Same seed
            </button>
          ) : null}
          {take.status !== "queued" && !confirming ? (
            <button type="button" class="ghost" onClick={() => setConfirming(true)}>
              Discard…
            </button>
          ) : null}
          {confirming ? (
            <fieldset class="confirm">
              <legend>Move {name} to the trash?</legend>
              <button
                type="button"
                class="danger"
                onClick={() => discard.run()}
                disabled={discard.busy}
                ref={confirmButton}
              >
                Discard
              </button>
              <button type="button" onClick={() => setConfirming(false)}>
                Keep
              </button>
            </fieldset>
          ) : null}
        </div>
        <ErrorText error={discard.error ?? cancel.error ?? retry.error ?? again.error} />
        {again.answer ? <RenderReportView answer={again.answer} onClose={again.dismiss} /> : null}
      </div>
    </article>
  );
}
