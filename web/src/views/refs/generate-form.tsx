// Generate on a reference: a bar (views, count, the button) with its options folded under it (seed, target,
// backend, the prompt as it will be sent, size, steps, CFG, a negative prompt where the target takes one, the
// keyframe's pass, a note), POST /studio/refs/generate, what it queued and each candidate's problem in the
// service's words, and the candidates being made with their job's progress. A character's view columns each get
// a button that makes one candidate of that view with the same options.
import { useState } from "preact/hooks";
import { api } from "../../api.ts";
import { useStudio } from "../../context.ts";
import type { RefGenerateAnswer, RefInfo, RefViewName } from "../../types.ts";
import { type Action, ErrorText, useAction } from "../../ui.tsx";
import { useChoices } from "../shots/choices.ts";
import {
  buttonText,
  errorLine,
  formTargetId,
  type GenerateForm,
  generateBody,
  generateOffers,
  initialForm,
  MAX_COUNT,
  makingOf,
  plainTargets,
  progressText,
  promptShown,
  SEED_MODES,
  type SeedMode,
} from "./generate-model.ts";
import { CHARACTER_VIEWS, takeLabel, viewTitle } from "./refs-model.ts";
import type { TargetChoice } from "./use-targets.ts";

/** Where the last request was sent from: the bar, or one view's column. */
type From = "bar" | RefViewName;

export interface Generate {
  ref: RefInfo;
  form: GenerateForm;
  set(change: Partial<GenerateForm>): void;
  targets: TargetChoice[];
  action: Action<[From]>;
  answer: { from: From; answer: RefGenerateAnswer } | null;
  /** Which control sent the request that is running or failed. */
  from: From | null;
  dismiss(): void;
}

/** The generate state of one reference, shared by its bar and its view columns. */
export function useGenerate(ep: string, ref: RefInfo, targets: readonly TargetChoice[]): Generate {
  const studio = useStudio();
  const [form, setForm] = useState<GenerateForm>(() =>
    initialForm(ref, null, studio.router.route.value.pass),
  );
  const [answer, setAnswer] = useState<Generate["answer"]>(null);
  const [from, setFrom] = useState<From | null>(null);
  const plain = plainTargets(targets);
  const action = useAction(async (sender: From) => {
    setFrom(sender);
    setAnswer(null);
    // A column makes its own view; a typed prompt belongs to the view it was typed for.
    const sent: GenerateForm =
      sender === "bar"
        ? form
        : { ...form, view: sender, prompt: sender === form.view ? form.prompt : promptShown(ref, sender) };
    const target = plain.find((t) => t.id === formTargetId(sent, ref));
    const res = await api.post<RefGenerateAnswer>("refs/generate", generateBody(ep, ref, sent, target));
    setAnswer({ from: sender, answer: res });
  });
  return {
    ref,
    form,
    set(change) {
      setForm((f) => {
        const next = { ...f, ...change };
        // Another view shows its own prompt.
        if (change.view !== undefined && change.view !== f.view) next.prompt = promptShown(ref, next.view);
        return next;
      });
    },
    targets: plain,
    action,
    answer,
    from,
    dismiss: () => setAnswer(null),
  };
}

/** The answer of a request next to the control that sent it: what was queued, then each problem. */
function Outcome({ gen, from }: { gen: Generate; from: From }) {
  const error = gen.from === from ? gen.action.error : null;
  const shown = gen.answer?.from === from ? gen.answer.answer : null;
  if (!error && !shown) return null;
  return (
    <div class="gen-outcome" aria-live="polite">
      <ErrorText error={error} />
      {shown?.queued.length ? (
        <p class="muted small">
          Queued{" "}
          {shown.queued
            .map((q) => (q.take === null ? q.ref : takeLabel({ take: q.take, view: q.view })))
            .join(", ")}{" "}
          on {[...new Set(shown.queued.map((q) => q.target))].join(", ")}
        </p>
      ) : null}
      {shown?.errors.length ? (
        <ul class="gen-errors" aria-label="Candidates not queued">
          {shown.errors.map((e) => (
            <li key={errorLine(e)} class="error">
              {errorLine(e)}
            </li>
          ))}
        </ul>
      ) : null}
      {shown ? (
        <button type="button" class="link-button small" onClick={gen.dismiss}>
          Dismiss
        </button>
      ) : null}
    </div>
  );
}

/** The candidates of the reference being made, with their job's progress. */
function Making({ gen }: { gen: Generate }) {
  const studio = useStudio();
  const making = makingOf(gen.ref, studio.jobs.value.value?.jobs ?? []);
  if (!making.length) return null;
  return (
    <ul class="gen-making" aria-label={`Candidates of ${gen.ref.name} being made`}>
      {making.map((m) => {
        const share = m.job?.status === "running" ? Math.max(0, Math.min(1, m.job.progress || 0)) : 0;
        return (
          <li key={m.key}>
            <span>{m.label}</span>
            <progress
              max={1}
              value={m.job?.status === "running" ? share : undefined}
              aria-label={`${m.label}: ${progressText(m.job)}`}
            />
            <span class="muted small">{progressText(m.job)}</span>
          </li>
        );
      })}
    </ul>
  );
}

/** The bar and its options, at the top of a reference's candidates. */
export function GeneratePanel({ ep, gen }: { ep: string; gen: Generate }) {
  const { ref, form, set } = gen;
  const choices = useChoices(ep);
  const [open, setOpen] = useState(false);
  const character = ref.kind === "character";
  const targetId = formTargetId(form, ref);
  const target = gen.targets.find((t) => t.id === targetId);
  const offers = generateOffers(ref, form.view, target);
  const effective = (form.view ? ref.views.find((v) => v.view === form.view)?.effective : ref.effective) as
    | Record<string, unknown>
    | null
    | undefined;
  const hint = (k: string) => {
    const v = effective?.[k];
    return v === null || v === undefined || typeof v === "object" ? "" : String(v);
  };
  const shownPrompt = promptShown(ref, form.view);
  const edited = offers.prompt && form.prompt.trim() !== shownPrompt.trim();
  const busy = gen.action.busy && gen.from === "bar";
  return (
    <form
      class="gen-panel"
      aria-label={`Generate candidates of ${ref.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        void gen.action.run("bar");
      }}
    >
      <div class="gen-bar">
        {character ? (
          <label>
            <span>Views to make</span>
            <select
              value={form.view ?? ""}
              onChange={(e) => set({ view: (e.currentTarget.value || null) as RefViewName | null })}
            >
              <option value="">All four, one seed</option>
              {CHARACTER_VIEWS.map((v) => (
                <option key={v} value={v}>
                  {viewTitle(v)} only
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <label>
          <span>Count</span>
          <input
            type="number"
            class="gen-count"
            min={1}
            max={MAX_COUNT}
            step={1}
            value={form.count}
            onInput={(e) => set({ count: e.currentTarget.value })}
          />
        </label>
        <button type="submit" class="primary" disabled={busy}>
          {busy ? "Queueing…" : buttonText(ref, form)}
        </button>
        <span class="muted small gen-on">
          on {target?.label ?? targetId ?? "the default target"}
          {form.seedMode !== "auto" ? ` · ${SEED_MODES.find((m) => m.mode === form.seedMode)?.label}` : ""}
          {edited ? " · own prompt" : ""}
        </span>
        <button type="button" class="ghost gen-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? "Fewer options" : "Options…"}
        </button>
      </div>
      {open ? (
        <div class="gen-options">
          <label>
            Seed
            <select
              value={form.seedMode}
              onChange={(e) => set({ seedMode: e.currentTarget.value as SeedMode })}
            >
              {SEED_MODES.map((m) => (
                <option key={m.mode} value={m.mode}>
                  {m.label}
                </option>
              ))}
            </select>
          </label>
          {form.seedMode === "typed" ? (
            <label>
              Seed value
              <input
                type="text"
                inputMode="numeric"
                value={form.seed}
                placeholder={hint("seed")}
                onInput={(e) => set({ seed: e.currentTarget.value })}
              />
            </label>
          ) : null}
          <label>
            Image target
            <select value={form.target} onChange={(e) => set({ target: e.currentTarget.value })}>
              <option value="">The reference's own{hint("target") ? ` (${hint("target")})` : ""}</option>
              {gen.targets.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.label}
                </option>
              ))}
            </select>
          </label>
          <label>
            Backend
            <select value={form.backend} onChange={(e) => set({ backend: e.currentTarget.value })}>
              <option value="">The target's own</option>
              {choices.backends.map((b) => (
                <option key={b.name} value={b.name} title={b.down ?? b.where ?? ""}>
                  {b.name}
                  {b.down ? " (not answering)" : ""}
                </option>
              ))}
            </select>
          </label>
          {offers.pass ? (
            <label>
              Drawn for
              <select
                value={form.pass}
                onChange={(e) => set({ pass: e.currentTarget.value as GenerateForm["pass"] })}
              >
                <option value="final">final (its render size)</option>
                <option value="proxy">proxy</option>
              </select>
            </label>
          ) : null}
          {offers.size ? (
            <label>
              Size (WxH)
              <input
                type="text"
                value={form.size}
                placeholder={effective?.width ? `${effective.width}x${effective.height}` : ""}
                onInput={(e) => set({ size: e.currentTarget.value })}
              />
            </label>
          ) : null}
          {offers.steps ? (
            <label>
              Steps
              <input
                type="number"
                min={1}
                step={1}
                value={form.steps}
                placeholder={hint("steps")}
                onInput={(e) => set({ steps: e.currentTarget.value })}
              />
            </label>
          ) : null}
          {offers.cfg ? (
            <label>
              CFG (0–30)
              <input
                type="number"
                min={0}
                max={30}
                step="any"
                value={form.cfg}
                placeholder={hint("cfg")}
                onInput={(e) => set({ cfg: e.currentTarget.value })}
              />
            </label>
          ) : null}
          {offers.prompt ? (
            <label class="wide">
              <span>
                Prompt, as it will be sent
                {edited ? <span class="tag">edited: this request only</span> : null}
              </span>
              <textarea
                rows={4}
                value={form.prompt}
                onInput={(e) => set({ prompt: e.currentTarget.value })}
              />
            </label>
          ) : (
            <p class="muted small wide">
              Each view is made from its own prompt; choose one view to word it yourself.
            </p>
          )}
          {edited ? (
            <button type="button" class="link-button small wide" onClick={() => set({ prompt: shownPrompt })}>
              Back to the reference's prompt
            </button>
          ) : null}
          {offers.negative ? (
            <label class="wide">
              Negative prompt
              <textarea
                rows={2}
                value={form.negative}
                placeholder={hint("negative")}
                onInput={(e) => set({ negative: e.currentTarget.value })}
              />
            </label>
          ) : null}
          <label class="wide">
            Note kept with each candidate
            <input type="text" value={form.note} onInput={(e) => set({ note: e.currentTarget.value })} />
          </label>
        </div>
      ) : null}
      <Outcome gen={gen} from="bar" />
      <ErrorText error={choices.error} />
      <Making gen={gen} />
    </form>
  );
}

/** One view's own button in its column: a candidate of that view with the bar's options. */
export function GenerateViewButton({ gen, view }: { gen: Generate; view: RefViewName }) {
  const busy = gen.action.busy && gen.from === view;
  return (
    <div class="gen-view">
      <button
        type="button"
        class="small"
        disabled={gen.action.busy}
        onClick={() => gen.action.run(view)}
        aria-label={`Generate the ${viewTitle(view).toLowerCase()} view of ${gen.ref.name}`}
        title="With the options above; the count applies"
      >
        {busy ? "Queueing…" : "Generate"}
      </button>
      <Outcome gen={gen} from={view} />
    </div>
  );
}
