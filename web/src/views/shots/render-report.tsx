// A render's answer shown where it was asked for: queued takes, each shot skipped or refused in the service's
// words, and any warning about the build the takes come from.
import { useState } from "preact/hooks";
import { api } from "../../api.ts";
import type { Pass } from "../../route.ts";
import type { RenderAnswer } from "../../types.ts";
import { type Action, useAction } from "../../ui.tsx";
import { renderReport } from "./report.ts";

/** POST /studio/render's body, as the page sends it (the service's defaults apply to what is left out). */
export interface RenderBody {
  ep: string;
  pass: Pass;
  shots: string[] | null;
  redo?: boolean;
  seed_mode?: "auto" | "new" | "same";
  seed?: string;
  target?: string;
  backend?: string;
  allow_missing_refs?: boolean;
}

export interface Render extends Action<[RenderBody]> {
  answer: RenderAnswer | null;
  dismiss(): void;
}

export function useRender(): Render {
  const [answer, setAnswer] = useState<RenderAnswer | null>(null);
  const action = useAction(async (body: RenderBody) => {
    setAnswer(null);
    setAnswer(await api.post<RenderAnswer>("render", body));
  });
  return { ...action, answer, dismiss: () => setAnswer(null) };
}

export function RenderReportView({ answer, onClose }: { answer: RenderAnswer; onClose: () => void }) {
  const r = renderReport(answer);
  return (
    <div class="render-report" role="status">
      {r.warnings.map((w) => (
        <p key={w} class="warn">
          {w}
        </p>
      ))}
      <p>
        {r.queued ? (
          <>
            Queued {r.queued} take{r.queued === 1 ? "" : "s"}: <span class="muted">{r.takes.join(", ")}</span>
          </>
        ) : (
          "Nothing was queued."
        )}
      </p>
      {r.problems.length ? (
        <ul class="problems">
          {r.problems.map((p) => (
            <li key={`${p.kind}:${p.shot}`} class={p.kind === "error" ? "error" : "warn"}>
              <strong>{p.shot}</strong> {p.kind === "error" ? "refused" : "skipped"}: {p.text}
            </li>
          ))}
        </ul>
      ) : null}
      <button type="button" class="ghost" onClick={onClose} aria-label="Dismiss the render report">
        ✕
      </button>
    </div>
  );
}
