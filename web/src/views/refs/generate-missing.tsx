// Generate missing, opened from the References bar: a dry run first (POST /studio/refs/generate-missing with dry_run),
// shown as a preview of what would be made, made live at once, skipped and why; then the same request for real,
// whose answer replaces the preview. Options: the pass whose shots decide what is needed, the kinds, the targets.
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../../api.ts";
import { useStudio } from "../../context.ts";
import type { RefInfo, RefMissingAnswer } from "../../types.ts";
import { ErrorText, useAction } from "../../ui.tsx";
import { plainTargets } from "./generate-model.ts";
import {
  actionWord,
  MISSING_KINDS,
  type MissingForm,
  type MissingKind,
  missingBody,
  previewActs,
  previewRows,
  previewSummary,
} from "./missing-model.ts";
import type { TargetChoice } from "./use-targets.ts";

export function GenerateMissing({
  ep,
  refs,
  targets,
  onOpen,
  onClose,
}: {
  ep: string;
  refs: readonly RefInfo[];
  targets: readonly TargetChoice[];
  /** Choose a reference the preview names. */
  onOpen(ref: string): void;
  onClose(): void;
}) {
  const studio = useStudio();
  const [form, setForm] = useState<MissingForm>(() => ({
    pass: studio.router.route.value.pass,
    kinds: MISSING_KINDS.map((k) => k.kind),
    target: "",
    keyframeTarget: "",
  }));
  // The preview answers the form as it was sent; a changed form asks again before anything is made.
  const [preview, setPreview] = useState<{ key: string; answer: RefMissingAnswer } | null>(null);
  const [done, setDone] = useState<RefMissingAnswer | null>(null);
  const key = JSON.stringify(form);
  const dry = useAction(async () => {
    setDone(null);
    const answer = await api.post<RefMissingAnswer>("refs/generate-missing", missingBody(ep, form, true));
    setPreview({ key, answer });
  });
  const real = useAction(async () => {
    const answer = await api.post<RefMissingAnswer>("refs/generate-missing", missingBody(ep, form, false));
    setDone(answer);
    setPreview(null);
  });
  const first = useRef<HTMLSelectElement>(null);
  // Opening it asks for the preview at once.
  useEffect(() => {
    first.current?.focus();
    void dry.run();
  }, []);
  const current = preview?.key === key ? preview.answer : null;
  const shown = done ?? current;
  const image = plainTargets(targets);
  const toggleKind = (k: MissingKind, on: boolean) =>
    setForm((f) => ({
      ...f,
      kinds: on
        ? MISSING_KINDS.map((x) => x.kind).filter((x) => x === k || f.kinds.includes(x))
        : f.kinds.filter((x) => x !== k),
    }));
  const rows = shown ? previewRows(shown, refs) : [];
  return (
    <section class="gen-missing" aria-label="Generate missing references">
      <header class="gen-missing-head">
        <h3>{done ? "Generate missing: queued" : "Generate missing: preview"}</h3>
        <button type="button" class="ghost" onClick={onClose} aria-label="Close generate missing">
          ✕
        </button>
      </header>
      <form
        class="gen-missing-form"
        onSubmit={(e) => {
          e.preventDefault();
          void dry.run();
        }}
      >
        <label>
          <span>Shots of</span>
          <select
            ref={first}
            value={form.pass}
            onChange={(e) => setForm((f) => ({ ...f, pass: e.currentTarget.value as MissingForm["pass"] }))}
          >
            <option value="proxy">proxy</option>
            <option value="final">final</option>
          </select>
        </label>
        <fieldset class="gen-kinds">
          <legend class="sr-only">Kinds of reference</legend>
          {MISSING_KINDS.map((k) => (
            <label key={k.kind} class="check">
              <input
                type="checkbox"
                checked={form.kinds.includes(k.kind)}
                onChange={(e) => toggleKind(k.kind, e.currentTarget.checked)}
              />
              {k.label}
            </label>
          ))}
        </fieldset>
        <label>
          <span>Pictures on</span>
          <select
            value={form.target}
            onChange={(e) => setForm((f) => ({ ...f, target: e.currentTarget.value }))}
          >
            <option value="">the default target</option>
            {image.map((t) => (
              <option key={t.id} value={t.id}>
                {t.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span>Keyframes on</span>
          <select
            value={form.keyframeTarget}
            onChange={(e) => setForm((f) => ({ ...f, keyframeTarget: e.currentTarget.value }))}
          >
            <option value="">the default keyframe target</option>
            {image.map((t) => (
              <option key={t.id} value={t.id}>
                {t.label}
              </option>
            ))}
          </select>
        </label>
        {!current ? (
          <button type="submit" disabled={dry.busy || !form.kinds.length}>
            {dry.busy ? "Looking…" : done ? "Preview again" : "Preview"}
          </button>
        ) : null}
      </form>
      <ErrorText error={dry.error} />
      {shown ? (
        <>
          <p class={done ? "ok-text" : "muted"} aria-live="polite">
            {done ? `Done: ${previewSummary(done, true)}` : previewSummary(shown)}
          </p>
          {rows.length ? (
            <table class="gen-missing-rows">
              <thead>
                <tr>
                  <th scope="col">Reference</th>
                  <th scope="col">{done ? "Done" : "Would"}</th>
                  <th scope="col">How, or why not</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr key={row.key} class={`row-${row.action}`}>
                    <td>
                      <button type="button" class="link-button" onClick={() => onOpen(row.ref)}>
                        {row.name}
                      </button>
                    </td>
                    <td class={`act act-${row.action}`}>{actionWord(row.action, !!done)}</td>
                    <td>{row.detail}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </>
      ) : null}
      {current && !done ? (
        <div class="row">
          <button
            type="button"
            class="primary"
            disabled={real.busy || !previewActs(current)}
            onClick={() => real.run()}
          >
            {real.busy ? "Queueing…" : "Generate"}
          </button>
          <span class="muted small">
            queues what the preview lists; a reference with no live file takes its first finished candidate
          </span>
        </div>
      ) : null}
      <ErrorText error={real.error} />
    </section>
  );
}
