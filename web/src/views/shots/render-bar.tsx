// The render controls above the shot list: which shots (the selection, the open shot, a sequence or all), on which
// target and backend, with which seed, then POST /studio/render and its answer in place.
import { useState } from "preact/hooks";
import type { Pass } from "../../route.ts";
import { ErrorText } from "../../ui.tsx";
import { useChoices } from "./choices.ts";
import { RenderReportView, useRender } from "./render-report.tsx";
import type { ShotRow } from "./rows.ts";
import { sequencesOf } from "./rows.ts";

type Scope = "selected" | "shot" | "all" | `seq:${string}`;

export function RenderBar({
  ep,
  pass,
  rows,
  selected,
  current,
}: {
  ep: string;
  pass: Pass;
  rows: readonly ShotRow[];
  selected: ReadonlySet<string>;
  current: string | null;
}) {
  const choices = useChoices(ep);
  const render = useRender();
  const [chosen, setChosen] = useState<Scope | null>(null);
  const [target, setTarget] = useState("");
  const [backend, setBackend] = useState("");
  const [seedMode, setSeedMode] = useState<"auto" | "new" | "same">("auto");
  const [onlyNew, setOnlyNew] = useState(false);
  const [allowMissing, setAllowMissing] = useState(false);
  const sequences = sequencesOf(rows);
  const chosenSelected = selected.size > 0;
  // Until the user chooses, the scope follows what is there: the selection, else the open shot, else everything.
  const scope: Scope = chosen ?? (chosenSelected ? "selected" : current ? "shot" : "all");
  const shots = (): string[] | null => {
    if (scope === "all") return null;
    if (scope === "shot") return current ? [current] : [];
    if (scope === "selected") return rows.map((r) => r.entry.shot).filter((s) => selected.has(s));
    const seq = scope.slice(4);
    return rows.filter((r) => r.entry.sequence === seq).map((r) => r.entry.shot);
  };
  const list = shots();
  const count = list === null ? rows.length : list.length;
  return (
    <div class="render-bar">
      <form
        class="toolbar"
        aria-label="Render"
        onSubmit={(e) => {
          e.preventDefault();
          void render.run({
            ep,
            pass,
            shots: list,
            redo: !onlyNew,
            seed_mode: seedMode,
            target: target || undefined,
            backend: backend || undefined,
            allow_missing_refs: allowMissing || undefined,
          });
        }}
      >
        <label>
          <span>Shots</span>
          <select value={scope} onChange={(e) => setChosen(e.currentTarget.value as Scope)}>
            <option value="selected" disabled={!chosenSelected}>
              Selected ({selected.size})
            </option>
            <option value="shot" disabled={!current}>
              {current ? `This shot (${current})` : "This shot"}
            </option>
            {sequences.map((s) => (
              <option key={s} value={`seq:${s}`}>
                Sequence {s}
              </option>
            ))}
            <option value="all">All shots ({rows.length})</option>
          </select>
        </label>
        <label>
          <span>Target</span>
          <select value={target} onChange={(e) => setTarget(e.currentTarget.value)}>
            <option value="">Each shot's own</option>
            {choices.targets.map((t) => (
              <option key={t.id} value={t.id}>
                {t.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span>Backend</span>
          <select value={backend} onChange={(e) => setBackend(e.currentTarget.value)}>
            <option value="">Each job's own</option>
            {choices.backends.map((b) => (
              <option key={b.name} value={b.name} title={b.down ?? b.where ?? ""}>
                {b.name}
                {b.down ? " (not answering)" : ""}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span>Seed</span>
          <select value={seedMode} onChange={(e) => setSeedMode(e.currentTarget.value as typeof seedMode)}>
            <option value="auto">As built</option>
            <option value="new">New seed</option>
            <option value="same">Last take's</option>
          </select>
        </label>
        <label class="check">
          <input type="checkbox" checked={onlyNew} onChange={(e) => setOnlyNew(e.currentTarget.checked)} />
          Only shots without a take
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={allowMissing}
            onChange={(e) => setAllowMissing(e.currentTarget.checked)}
          />
          Render with missing refs
        </label>
        <button type="submit" class="primary" disabled={render.busy || count === 0}>
          {render.busy ? "Queueing…" : `Render ${count} shot${count === 1 ? "" : "s"} · ${pass}`}
        </button>
      </form>
      <ErrorText error={render.error ?? choices.error} />
      {render.answer ? <RenderReportView answer={render.answer} onClose={render.dismiss} /> : null}
    </div>
  );
}
