// One candidate of a reference: its picture (or sound), status and where it came from, and what can be done with it:
// pick it (making it the live file), clear the pick, discard it after a confirm, or copy it into another reference.
import { useEffect, useRef, useState } from "preact/hooks";
import { api, fileUrl, thumbUrl } from "../../api.ts";
import type { RefInfo, RefTakeInfo } from "../../types.ts";
import { ErrorText, useAction } from "../../ui.tsx";
import { canEditTake } from "./edit-model.ts";
import { copyBody, copyDestinations, takeActions, takeLabel, viewTitle } from "./refs-model.ts";

export function RefTakeCard({
  ep,
  refInfo,
  take,
  picked,
  overtaken = null,
  refs,
  onChanged,
  onEdit,
}: {
  ep: string;
  refInfo: RefInfo;
  take: RefTakeInfo;
  /** This take is the live one (of its view, for a character). */
  picked: boolean;
  /** The episode whose pick wrote the shared live file since, when it is not this one. */
  overtaken?: string | null;
  /** Every reference of the episode: where a copy may go. */
  refs: readonly RefInfo[];
  /** The ref as the service lists it after a change (null: read the list again). */
  onChanged(ref: RefInfo | null): void;
  /** Opens the edit form on this candidate (left out where edits are not offered). */
  onEdit?: () => void;
}) {
  const label = takeLabel(take);
  const name = `${label} of ${refInfo.name}`;
  // A pick a sibling has overtaken can be made again, which writes this take back into the shared file.
  const can = takeActions(take, picked && !overtaken);
  const [confirming, setConfirming] = useState(false);
  const [copying, setCopying] = useState(false);
  const confirmButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (confirming) confirmButton.current?.focus();
  }, [confirming]);
  const view = take.view ?? undefined;
  const pick = useAction(async () => {
    onChanged(await api.put<RefInfo>("refs/pick", { ep, ref: refInfo.id, view, take: take.take }));
  });
  const clear = useAction(async () => {
    onChanged(await api.del<RefInfo>("refs/pick", {}, { ep, ref: refInfo.id, view }));
  });
  const discard = useAction(async () => {
    onChanged(await api.post<RefInfo>("refs/discard", { ep, ref: refInfo.id, view, take: take.take }));
    setConfirming(false);
  });
  const destinations = copying ? copyDestinations(refs, refInfo, take.view) : [];
  const [dest, setDest] = useState("");
  const copy = useAction(async () => {
    const to = destinations.find((d) => `${d.ref}|${d.view ?? ""}` === dest);
    if (!to) return;
    await api.post("refs/copy-take", copyBody(ep, refInfo.id, take, to));
    setCopying(false);
    // The copy lands in another ref: the list is read again rather than patched.
    onChanged(null);
  });
  const notes = Array.isArray(take.save_notes) ? take.save_notes.join("; ") : take.save_notes;
  return (
    <article
      class={`ref-take take-${take.status}${picked ? " picked" : ""}`}
      aria-label={`Candidate ${name}`}
    >
      {take.image ? (
        <img
          class="ref-take-picture"
          src={thumbUrl(ep, take.image, 256)}
          alt={name}
          loading="lazy"
          decoding="async"
        />
      ) : take.audio ? (
        // biome-ignore lint/a11y/useMediaCaption: a voice candidate is the voice itself; there is nothing to caption
        <audio controls preload="none" src={fileUrl(ep, take.audio)} aria-label={`Play ${name}`} />
      ) : (
        <span class="ref-take-picture empty" role="img" aria-label={`${name}: ${take.status}`}>
          {take.status === "queued" ? "making…" : take.status}
        </span>
      )}
      <p class="ref-take-head">
        <strong>{label}</strong>
        {picked && !overtaken ? <span class="tag live">live</span> : null}
        {picked && overtaken ? (
          <span class="tag" title={`The shared live file was picked in ${overtaken} since`}>
            picked here
          </span>
        ) : null}
        {take.status !== "ok" ? <span class={`status ${take.status}`}>{take.status}</span> : null}
        {take.source ? <span class="muted small">{take.source}</span> : null}
      </p>
      {take.original_name || take.note ? (
        <p class="muted small ref-take-note" title={take.note ?? take.original_name ?? ""}>
          {take.note ?? take.original_name}
        </p>
      ) : null}
      {notes ? <p class={take.status === "failed" ? "error small" : "muted small"}>{notes}</p> : null}
      <div class="ref-take-actions">
        {can.pick ? (
          <button type="button" onClick={() => pick.run()} disabled={pick.busy} aria-label={`Pick ${name}`}>
            Pick
          </button>
        ) : null}
        {picked && refInfo.kind !== "voice" ? (
          <button
            type="button"
            onClick={() => clear.run()}
            disabled={clear.busy}
            aria-label={`Clear the pick of ${refInfo.name}${take.view ? ` ${viewTitle(take.view).toLowerCase()}` : ""}`}
            title="Remove the live file; the candidate stays"
          >
            Clear
          </button>
        ) : null}
        {onEdit && canEditTake(take) ? (
          <button type="button" class="ghost" onClick={onEdit} aria-label={`Edit ${name}…`}>
            Edit…
          </button>
        ) : null}
        {can.copy && !copying ? (
          <button type="button" class="ghost" onClick={() => setCopying(true)} aria-label={`Copy ${name}…`}>
            Copy…
          </button>
        ) : null}
        {can.discard && !confirming ? (
          <button
            type="button"
            class="ghost"
            onClick={() => setConfirming(true)}
            aria-label={`Discard ${name}…`}
          >
            Discard…
          </button>
        ) : null}
      </div>
      {confirming ? (
        <fieldset class="confirm">
          <legend>Move {label} to the trash?</legend>
          <button
            type="button"
            class="danger"
            onClick={() => discard.run()}
            disabled={discard.busy}
            ref={confirmButton}
            aria-label={`Discard ${name}`}
          >
            Discard
          </button>
          <button type="button" onClick={() => setConfirming(false)}>
            Keep
          </button>
        </fieldset>
      ) : null}
      {copying ? (
        <form
          class="copy-form"
          onSubmit={(e) => {
            e.preventDefault();
            void copy.run();
          }}
        >
          <label>
            Copy {label} into
            <select value={dest} onChange={(e) => setDest(e.currentTarget.value)}>
              <option value="">choose a reference…</option>
              {destinations.map((d) => (
                <option key={`${d.ref}|${d.view ?? ""}`} value={`${d.ref}|${d.view ?? ""}`}>
                  {d.label}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" disabled={!dest || copy.busy}>
            Copy
          </button>
          <button type="button" class="ghost" onClick={() => setCopying(false)}>
            Cancel
          </button>
        </form>
      ) : null}
      <ErrorText error={pick.error ?? clear.error ?? discard.error ?? copy.error} />
    </article>
  );
}
