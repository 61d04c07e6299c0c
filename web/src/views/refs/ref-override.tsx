// Editing a reference's overrides (PUT /studio/refs/override) and clearing them (DELETE): on the reference, or for a
// character on one of its views (a character's prompt is worded per view, so its prompt override needs a view). The
// form offers what the target it is made on takes: a negative prompt and sampling params only where it has them.
import { useState } from "preact/hooks";
import { api } from "../../api.ts";
import type { RefInfo, RefOverrideInfo, RefViewName } from "../../types.ts";
import { ErrorText, useAction } from "../../ui.tsx";
import {
  formTarget,
  offersNegative,
  PARAM_RANGES,
  type ParamName,
  paramsChange,
  paramsText,
  shownParams,
  targetOffers,
} from "./override-target.ts";
import {
  CHARACTER_VIEWS,
  overrideFieldsFor,
  type RefOverrideField,
  type RefOverrideText,
  refOverrideChange,
  refOverrideText,
  viewTitle,
} from "./refs-model.ts";
import type { TargetChoice } from "./use-targets.ts";

const LABELS: Record<RefOverrideField, string> = {
  prompt: "Prompt",
  negative: "Negative prompt",
  seed: "Seed",
  steps: "Steps",
  cfg: "CFG (0–30)",
  size: "Size (WxH, 256–4096)",
  model: "Model file",
  loras: "LoRAs (name:strength, comma-separated)",
  target: "Target",
  note: "Note kept with each candidate",
};

const PARAM_LABELS: Record<ParamName, string> = {
  sampler: "Sampler",
  scheduler: "Scheduler",
  denoise: "Denoise (0–1)",
  shift: "Shift (0–100)",
  guidance: "Guidance (0–100)",
};

export function RefOverride({
  ep,
  refInfo,
  targets,
  onSaved,
}: {
  ep: string;
  refInfo: RefInfo;
  targets: readonly TargetChoice[];
  onSaved(): Promise<void>;
}) {
  const character = refInfo.kind === "character";
  const [view, setView] = useState<RefViewName | null>(character ? "01_threequarter" : null);
  const listed = view ? refInfo.views.find((v) => v.view === view) : null;
  const info: RefOverrideInfo | null | undefined = view ? listed?.override : refInfo.override;
  const effective = (view ? listed?.effective : refInfo.effective) ?? {};
  return (
    <div class="ref-override">
      {character ? (
        <label class="inline">
          Overrides of
          <select
            value={view ?? ""}
            onChange={(e) => setView((e.currentTarget.value || null) as RefViewName | null)}
          >
            <option value="">the whole character (every view)</option>
            {CHARACTER_VIEWS.map((v) => (
              <option key={v} value={v}>
                the {viewTitle(v).toLowerCase()} view
              </option>
            ))}
          </select>
        </label>
      ) : null}
      <OverrideFields
        key={`${refInfo.id}|${view ?? ""}|${JSON.stringify(info?.values ?? {})}`}
        ep={ep}
        refInfo={refInfo}
        view={view}
        info={info ?? null}
        effective={effective}
        targets={targets}
        onSaved={onSaved}
      />
    </div>
  );
}

function OverrideFields({
  ep,
  refInfo,
  view,
  info,
  effective,
  targets,
  onSaved,
}: {
  ep: string;
  refInfo: RefInfo;
  view: RefViewName | null;
  info: RefOverrideInfo | null;
  effective: Record<string, unknown>;
  targets: readonly TargetChoice[];
  onSaved(): Promise<void>;
}) {
  // A view's form shows only what is set on the view itself; the rest comes from the character.
  const own = view && info?.own ? Object.fromEntries(info.own.map((f) => [f, info.values[f]])) : info?.values;
  const before = refOverrideText(own);
  const [text, setText] = useState<RefOverrideText>(before);
  const paramsBefore = paramsText(own?.params);
  const [params, setParams] = useState(paramsBefore);
  const change = { ...refOverrideChange(before, text), ...paramsChange(paramsBefore, params) };
  const changed = Object.keys(change).length > 0;
  const offers = targetOffers(
    targets.find((t) => t.id === formTarget(text.target, before.target, effective.target)),
  );
  const fields = overrideFieldsFor(refInfo.kind).filter(
    (f) =>
      (f !== "prompt" || view || refInfo.kind !== "character") &&
      (f !== "negative" || offersNegative(offers, before.negative)),
  );
  const paramFields = shownParams(offers, paramsBefore);
  const set = (f: RefOverrideField, v: string) => setText((t) => ({ ...t, [f]: v }));
  const save = useAction(async () => {
    await api.put("refs/override", { ep, ref: refInfo.id, view: view ?? undefined, fields: change });
    await onSaved();
  });
  const clear = useAction(async () => {
    await api.del("refs/override", {}, { ep, ref: refInfo.id, view: view ?? undefined });
    await onSaved();
  });
  const has = (view ? info?.own?.length : info?.fields.length) ?? 0;
  const hint = (f: RefOverrideField): string => {
    const v = f === "size" && effective.width ? `${effective.width}x${effective.height}` : effective[f];
    return v === null || v === undefined || typeof v === "object" ? "" : String(v);
  };
  const field = (f: RefOverrideField) => {
    if (f === "prompt" || f === "negative") {
      return (
        <label key={f} class="wide">
          {LABELS[f]}
          <textarea
            rows={f === "prompt" ? 3 : 2}
            value={text[f]}
            placeholder={hint(f)}
            onInput={(e) => set(f, e.currentTarget.value)}
          />
        </label>
      );
    }
    if (f === "target") {
      return (
        <label key={f}>
          {LABELS[f]}
          <select value={text.target} onChange={(e) => set("target", e.currentTarget.value)}>
            <option value="">
              {view ? "As the character says" : "As the defaults say"}
              {hint("target") ? ` (${hint("target")})` : ""}
            </option>
            {targets.map((t) => (
              <option key={t.id} value={t.id}>
                {t.label}
              </option>
            ))}
          </select>
        </label>
      );
    }
    const onInput = (e: { currentTarget: HTMLInputElement }) => set(f, e.currentTarget.value);
    if (f === "steps" || f === "cfg") {
      return (
        <label key={f}>
          {LABELS[f]}
          <input
            type="number"
            step={f === "cfg" ? "any" : "1"}
            value={text[f]}
            placeholder={hint(f)}
            onInput={onInput}
          />
        </label>
      );
    }
    return (
      <label key={f} class={f === "note" || f === "loras" ? "wide" : ""}>
        {LABELS[f]}
        <input type="text" value={text[f]} placeholder={hint(f)} onInput={onInput} />
      </label>
    );
  };
  const param = (p: ParamName) => {
    const range = PARAM_RANGES[p];
    const shown = (effective.params as Record<string, unknown> | undefined)?.[p];
    const placeholder = shown === null || shown === undefined ? "" : String(shown);
    const onInput = (e: { currentTarget: HTMLInputElement }) => {
      const v = e.currentTarget.value;
      setParams((now) => ({ ...now, [p]: v }));
    };
    if (range) {
      return (
        <label key={p}>
          {PARAM_LABELS[p]}
          <input
            type="number"
            step="any"
            min={range[0]}
            max={range[1]}
            value={params[p]}
            placeholder={placeholder}
            onInput={onInput}
          />
        </label>
      );
    }
    return (
      <label key={p}>
        {PARAM_LABELS[p]}
        <input type="text" value={params[p]} placeholder={placeholder} onInput={onInput} />
      </label>
    );
  };
  return (
    <form
      class="ref-override-form"
      aria-label={`Overrides of ${refInfo.name}${view ? ` ${viewTitle(view).toLowerCase()}` : ""}`}
      onSubmit={(e) => {
        e.preventDefault();
        if (changed) void save.run();
      }}
    >
      {info?.stale ? (
        <p class="warn">
          These overrides were made on an older prompt: check they still fit the series config.
        </p>
      ) : null}
      <div class="override-grid">
        {/* The sampling params sit with the model they tune. */}
        {fields.flatMap((f) => (f === "model" ? [field(f), ...paramFields.map(param)] : [field(f)]))}
      </div>
      <div class="row">
        <button type="submit" class="primary" disabled={!changed || save.busy}>
          Save overrides
        </button>
        <button
          type="button"
          disabled={!changed}
          onClick={() => {
            setText(before);
            setParams(paramsBefore);
          }}
        >
          Revert
        </button>
        {has ? (
          <button type="button" class="danger" onClick={() => clear.run()} disabled={clear.busy}>
            Clear {view ? "this view's" : "all"} overrides
          </button>
        ) : null}
      </div>
      <ErrorText error={save.error ?? clear.error} />
    </form>
  );
}
