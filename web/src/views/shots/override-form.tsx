// Editing a shot's overrides (PUT /studio/override) and clearing them (DELETE /studio/override), with a warning
// when they were made on an older version of the shot.
import { useState } from "preact/hooks";
import { api } from "../../api.ts";
import type { Pass } from "../../route.ts";
import type { ShotDetail, TargetInfo } from "../../types.ts";
import { ErrorText, useAction } from "../../ui.tsx";
import { type OverrideField, type OverrideText, overrideChange, overrideText } from "./overrides.ts";

const LABELS: Record<OverrideField, string> = {
  prompt: "Prompt",
  negative: "Negative prompt",
  seed: "Seed",
  steps: "Steps",
  model: "Model file",
  loras: "LoRAs (name:strength, comma-separated)",
  size: "Size (WxH)",
  note: "Note kept with each take",
  target: "Target",
};

export function OverrideForm({
  ep,
  pass,
  shot,
  detail,
  targets,
  after,
}: {
  ep: string;
  pass: Pass;
  shot: string;
  detail: ShotDetail;
  targets: readonly TargetInfo[];
  after(): Promise<void>;
}) {
  const before = overrideText(detail.override);
  const [text, setText] = useState<OverrideText>(before);
  const [both, setBoth] = useState(false);
  const change = overrideChange(before, text);
  const changed = Object.keys(change).length > 0;
  const set = (f: OverrideField, v: string) => setText((t) => ({ ...t, [f]: v }));
  const save = useAction(async () => {
    await api.put("override", { ep, pass, shot, both, fields: change });
    await after();
  });
  const clear = useAction(async (all: boolean) => {
    await api.del("override", {}, all ? { ep, shot } : { ep, shot, pass });
    await after();
  });
  const has = Object.keys(detail.override).length > 0;
  const input = (f: OverrideField, placeholder?: string) => {
    if (f === "prompt" || f === "negative") {
      return (
        <label key={f}>
          {LABELS[f]}
          <textarea
            rows={f === "prompt" ? 4 : 2}
            value={text[f]}
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
            <option value="">No retarget ({detail.built_target ?? "as built"})</option>
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
    if (f === "steps") {
      return (
        <label key={f}>
          {LABELS[f]}
          <input type="number" min={1} value={text[f]} placeholder={placeholder} onInput={onInput} />
        </label>
      );
    }
    return (
      <label key={f}>
        {LABELS[f]}
        <input type="text" value={text[f]} placeholder={placeholder} onInput={onInput} />
      </label>
    );
  };
  const eff = detail.built_values ?? detail.effective;
  return (
    <form
      class="override-form"
      aria-label="Overrides"
      onSubmit={(e) => {
        e.preventDefault();
        if (changed) void save.run();
      }}
    >
      {detail.override_stale ? (
        <p class="warn">
          These overrides were made on an older version of the shot: check they still fit the script.
        </p>
      ) : null}
      {input("prompt")}
      {input("negative")}
      <div class="override-grid">
        {input("seed", eff.seed)}
        {input("steps", eff.steps === null ? "" : String(eff.steps))}
        {input("target")}
        {input("model", eff.model ?? "")}
        {input("loras")}
        {input("size", `${eff.width}x${eff.height}`)}
      </div>
      {input("note")}
      <div class="row">
        <label class="check">
          <input type="checkbox" checked={both} onChange={(e) => setBoth(e.currentTarget.checked)} />
          Prompt, negative, steps, model, LoRAs and size on both passes
        </label>
        <button type="submit" class="primary" disabled={!changed || save.busy}>
          Save overrides
        </button>
        <button type="button" disabled={!changed} onClick={() => setText(before)}>
          Revert
        </button>
        {has ? (
          <>
            <button type="button" onClick={() => clear.run(false)} disabled={clear.busy}>
              Clear {pass} overrides
            </button>
            <button type="button" class="danger" onClick={() => clear.run(true)} disabled={clear.busy}>
              Clear all
            </button>
          </>
        ) : null}
      </div>
      <ErrorText error={save.error ?? clear.error} />
    </form>
  );
}
