// Promote overrides: the plan (what the script and series config can take over from overrides.json, verified by
// the service, and what stays with its reason), the diffs it makes, and promoting the items chosen. A plan made
// before the files changed is refused (409) and read again.
import { useEffect, useState } from "preact/hooks";
import { ApiError, api } from "../../api.ts";
import type { PromotePlan, PromoteResult } from "../../types.ts";
import { ErrorText, useAction } from "../../ui.tsx";
import { diffLines } from "./diff-lines.ts";
import { LABELS } from "./editor-setup.ts";

export function PromotePanel({
  ep,
  unsaved,
  promoted,
  close,
}: {
  ep: string;
  /** Files with unsaved text in the editors (promote writes the files on disk). */
  unsaved: string[];
  promoted: () => void;
  close: () => void;
}) {
  const [plan, setPlan] = useState<PromotePlan | null>(null);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [result, setResult] = useState<PromoteResult | null>(null);
  const [stale, setStale] = useState<string | null>(null);
  const load = useAction(async () => {
    const p = await api.get<PromotePlan>("promote", { ep });
    setPlan(p);
    setChosen(new Set(p.items.map((i) => i.id)));
  });
  const run = useAction(async () => {
    if (!plan) return;
    setStale(null);
    try {
      setResult(await api.post<PromoteResult>("promote", { ep, items: [...chosen], hashes: plan.hashes }));
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) {
        setStale(`${err.message} The plan was read again: check it and promote again.`);
        await load.run();
        return;
      }
      throw err;
    }
    promoted();
    await load.run();
  });
  useEffect(() => {
    setResult(null);
    void load.run();
  }, [ep]);
  const toggle = (id: string) => {
    const next = new Set(chosen);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setChosen(next);
  };
  return (
    <aside class="drawer promote" aria-label="Promote overrides">
      <header class="drawer-head">
        <h2>Promote overrides</h2>
        <button type="button" class="ghost" onClick={() => void load.run()} disabled={load.busy}>
          Read again
        </button>
        <button type="button" class="ghost" onClick={close} aria-label="Close promote">
          ×
        </button>
      </header>
      <p class="muted">
        Moves what the script and series config can say out of the editor's overrides, checked to render the
        same.
      </p>
      <ErrorText error={load.error} />
      {unsaved.length ? (
        <p class="warn" role="alert">
          Unsaved text in {unsaved.join(" and ")}: promote writes the files on disk, so saving afterwards will
          show both versions.
        </p>
      ) : null}
      {stale ? (
        <p class="warn" role="alert">
          {stale}
        </p>
      ) : null}
      {result ? (
        <p class="ok" role="status">
          Promoted {result.promoted.length} item{result.promoted.length === 1 ? "" : "s"}
          {result.build && !result.build.ok ? `; the rebuild failed: ${result.build.error ?? ""}` : "."}
        </p>
      ) : null}
      {plan && plan.items.length === 0 ? <p class="muted">Nothing to promote.</p> : null}
      {plan?.items.length ? (
        <fieldset class="promote-items">
          <legend>Promote</legend>
          {plan.items.map((item) => (
            <label key={item.id} class="promote-item">
              <input type="checkbox" checked={chosen.has(item.id)} onChange={() => toggle(item.id)} />
              <span>{item.summary}</span>
              <span class="badge">{LABELS[item.dest]}</span>
            </label>
          ))}
        </fieldset>
      ) : null}
      {plan?.items.length ? (
        <div class="row">
          <button
            type="button"
            class="primary"
            onClick={() => void run.run()}
            disabled={run.busy || chosen.size === 0}
          >
            {run.busy ? "Promoting…" : `Promote ${chosen.size} of ${plan.items.length}`}
          </button>
        </div>
      ) : null}
      <ErrorText error={run.error} />
      {plan?.left.length ? (
        <div>
          <h3>Staying in overrides</h3>
          <ul class="left-items">
            {plan.left.map((l, i) => (
              <li key={`${i}:${l.field}`}>
                <strong>
                  {[l.shot ?? l.ref ?? l.scope, l.view, l.pass, l.field].filter(Boolean).join(" · ")}
                </strong>{" "}
                <span class="muted">{l.reason}</span>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {plan
        ? (["script", "series"] as const).map((f) =>
            plan.diffs[f] ? (
              <div key={f}>
                <h3>{LABELS[f]} changes (all items)</h3>
                <pre class="diff">
                  {diffLines(plan.diffs[f]).map((l, i) => (
                    <span key={i} class={`diff-${l.kind}`}>
                      {l.text}
                      {"\n"}
                    </span>
                  ))}
                </pre>
              </div>
            ) : null,
          )
        : null}
    </aside>
  );
}
