// Edit… and Panorama… on a reference: the edit form changes one picture (a candidate or the live picture) on an edit
// target, with further references, the instruction wrapped or as typed, or turns a character view to another; the
// panorama form makes 360 panoramas of a location from its live plate and up to two others. Both post generate's
// option, show what was queued or the service's refusal beside the button, and the candidates arrive by events.
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../../api.ts";
import type { RefGenerateAnswer, RefInfo } from "../../types.ts";
import { ErrorText, useAction } from "../../ui.tsx";
import {
  type EditSource,
  editBody,
  editReady,
  editTargets,
  initialEdit,
  initialPano,
  MAX_PANO_WITH,
  panoBody,
  panoPartners,
  panoTargets,
  togglePartner,
  turnViews,
  withChoices,
} from "./edit-model.ts";
import { errorLine } from "./generate-model.ts";
import { takeLabel, viewTitle } from "./refs-model.ts";
import type { TargetChoice } from "./use-targets.ts";

/** What a request queued and each candidate's problem, in the service's words. */
function Answer({ answer }: { answer: RefGenerateAnswer | null }) {
  if (!answer) return null;
  return (
    <div class="gen-outcome" aria-live="polite">
      {answer.queued.length ? (
        <p class="muted small">
          Queued{" "}
          {answer.queued
            .map((q) => (q.take === null ? q.ref : takeLabel({ take: q.take, view: q.view })))
            .join(", ")}{" "}
          on {[...new Set(answer.queued.map((q) => q.target))].join(", ")}
        </p>
      ) : null}
      {answer.errors.length ? (
        <ul class="gen-errors" aria-label="Candidates not queued">
          {answer.errors.map((e) => (
            <li key={errorLine(e)} class="error">
              {errorLine(e)}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export function EditPanel({
  ep,
  refInfo,
  refs,
  targets,
  source,
  onClose,
}: {
  ep: string;
  refInfo: RefInfo;
  refs: readonly RefInfo[];
  targets: readonly TargetChoice[];
  source: EditSource;
  onClose(): void;
}) {
  const [form, setForm] = useState(initialEdit);
  const [answer, setAnswer] = useState<RefGenerateAnswer | null>(null);
  const set = (change: Partial<typeof form>) => setForm((f) => ({ ...f, ...change }));
  const edits = editTargets(targets);
  const choices = withChoices(refs, refInfo);
  const turns = turnViews(refInfo, source.view);
  const send = useAction(async () => {
    setAnswer(null);
    setAnswer(
      await api.post<RefGenerateAnswer>("refs/generate", editBody(ep, refInfo, source, form, choices)),
    );
  });
  const what =
    source.take === null
      ? `the live picture${source.view ? ` (${viewTitle(source.view).toLowerCase()})` : ""}`
      : takeLabel({ take: source.take, view: source.view });
  const unchosen = choices.filter((c) => !form.with.includes(c.key));
  // The form opens above the candidates: bring it into view with the instruction ready for typing.
  const first = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    first.current?.scrollIntoView({ block: "nearest" });
    first.current?.focus();
  }, []);
  return (
    <form
      class="edit-panel"
      aria-label={`Edit ${what} of ${refInfo.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        void send.run();
      }}
    >
      <header class="edit-head">
        <h3>
          Edit {what} of {refInfo.name}
        </h3>
        <button type="button" class="ghost small" onClick={onClose}>
          Close
        </button>
      </header>
      <div class="gen-options">
        {turns.length ? (
          <label>
            Change
            <select
              value={form.turn ?? ""}
              onChange={(e) => set({ turn: (e.currentTarget.value || null) as typeof form.turn })}
            >
              <option value="">This picture, by the instruction</option>
              {turns.map((v) => (
                <option key={v} value={v}>
                  Turn to {viewTitle(v).toLowerCase()}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <label>
          Edit target
          <select value={form.target} onChange={(e) => set({ target: e.currentTarget.value })}>
            <option value="">The reference's edit target</option>
            {edits.map((t) => (
              <option key={t.id} value={t.id}>
                {t.label}
              </option>
            ))}
          </select>
        </label>
        {form.turn === null ? (
          <label class="check">
            <input
              type="checkbox"
              checked={form.wrap}
              onChange={(e) => set({ wrap: e.currentTarget.checked })}
            />
            Introduce the pictures before the instruction
          </label>
        ) : null}
        <label class="wide">
          {form.turn ? "Also (optional)" : "Instruction"}
          <textarea
            ref={first}
            rows={3}
            value={form.instruction}
            placeholder={form.turn ? "" : "What to change, e.g. make it night, rain on the window"}
            onInput={(e) => set({ instruction: e.currentTarget.value })}
          />
        </label>
        <fieldset class="wide edit-with">
          <legend>Further references (image 2 onward)</legend>
          {form.with.length ? (
            <ul aria-label="References sent with the edit">
              {form.with.map((k, i) => {
                const c = choices.find((x) => x.key === k);
                return (
                  <li key={k}>
                    <span>
                      {i + 2}. {c?.label ?? k}
                    </span>
                    <button
                      type="button"
                      class="link-button small"
                      aria-label={`Remove ${c?.label ?? k}`}
                      onClick={() => set({ with: form.with.filter((x) => x !== k) })}
                    >
                      Remove
                    </button>
                  </li>
                );
              })}
            </ul>
          ) : null}
          {unchosen.length ? (
            <label>
              Add a reference
              <select
                value=""
                onChange={(e) => {
                  const k = e.currentTarget.value;
                  if (k) set({ with: [...form.with, k] });
                }}
              >
                <option value="">choose…</option>
                {unchosen.map((c) => (
                  <option key={c.key} value={c.key}>
                    {c.label}
                  </option>
                ))}
              </select>
            </label>
          ) : (
            <p class="muted small">No other reference has a live picture.</p>
          )}
        </fieldset>
      </div>
      <div class="gen-bar">
        <button type="submit" class="primary" disabled={send.busy || !editReady(refInfo, form)}>
          {send.busy ? "Queueing…" : form.turn ? `Turn to ${viewTitle(form.turn).toLowerCase()}` : "Edit"}
        </button>
      </div>
      <ErrorText error={send.error} />
      <Answer answer={answer} />
    </form>
  );
}

export function PanoPanel({
  ep,
  refInfo,
  refs,
  targets,
  onClose,
}: {
  ep: string;
  refInfo: RefInfo;
  refs: readonly RefInfo[];
  targets: readonly TargetChoice[];
  onClose(): void;
}) {
  const [form, setForm] = useState(initialPano);
  const [answer, setAnswer] = useState<RefGenerateAnswer | null>(null);
  const partners = panoPartners(refs, refInfo);
  const panos = panoTargets(targets);
  const send = useAction(async () => {
    setAnswer(null);
    setAnswer(await api.post<RefGenerateAnswer>("refs/generate", panoBody(ep, refInfo, form)));
  });
  return (
    <form
      class="edit-panel"
      aria-label={`Panorama of ${refInfo.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        void send.run();
      }}
    >
      <header class="edit-head">
        <h3>360 panorama of {refInfo.name}</h3>
        <button type="button" class="ghost small" onClick={onClose}>
          Close
        </button>
      </header>
      <div class="gen-options">
        <label>
          Size (WxH, 2:1)
          <input
            type="text"
            value={form.size}
            onInput={(e) => setForm({ ...form, size: e.currentTarget.value })}
          />
        </label>
        <label>
          Panorama target
          <select value={form.target} onChange={(e) => setForm({ ...form, target: e.currentTarget.value })}>
            <option value="">The engine's (klein)</option>
            {panos.map((t) => (
              <option key={t.id} value={t.id}>
                {t.label}
              </option>
            ))}
          </select>
        </label>
        <label class="wide">
          Wording (optional: one short sentence; the location's own otherwise)
          <input
            type="text"
            value={form.prompt}
            onInput={(e) => setForm({ ...form, prompt: e.currentTarget.value })}
          />
        </label>
        <fieldset class="wide edit-with">
          <legend>
            Other plates round the canvas (up to {MAX_PANO_WITH}, most important first
            {form.with.length ? `: ${form.with.join(", ")}` : ""})
          </legend>
          {partners.length ? (
            partners.map((p) => (
              <label key={p.id} class="check">
                <input
                  type="checkbox"
                  checked={form.with.includes(p.id)}
                  disabled={!form.with.includes(p.id) && form.with.length >= MAX_PANO_WITH}
                  onChange={() => setForm(togglePartner(form, p.id))}
                />
                {p.name}
              </label>
            ))
          ) : (
            <p class="muted small">No other location has a live plate.</p>
          )}
        </fieldset>
      </div>
      <div class="gen-bar">
        <button type="submit" class="primary" disabled={send.busy}>
          {send.busy ? "Queueing…" : "Make panorama"}
        </button>
      </div>
      <ErrorText error={send.error} />
      <Answer answer={answer} />
    </form>
  );
}
