// Trying a shot on another target once: GET /studio/shot with `target=` shows what that render would use (nothing
// is saved), and Render queues one take of the shot on it.
import { useEffect, useState } from "preact/hooks";
import { api, errorText } from "../../api.ts";
import type { Pass } from "../../route.ts";
import type { ShotDetail, TargetInfo } from "../../types.ts";
import { ErrorText } from "../../ui.tsx";
import { RenderReportView, useRender } from "./render-report.tsx";
import { Values } from "./values.tsx";

export function OneOffTarget({
  ep,
  pass,
  shot,
  current,
  targets,
}: {
  ep: string;
  pass: Pass;
  shot: string;
  /** The target the shot renders on now (left out of the choices). */
  current: string;
  targets: readonly TargetInfo[];
}) {
  const [target, setTarget] = useState("");
  const [preview, setPreview] = useState<ShotDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const render = useRender();
  useEffect(() => {
    setPreview(null);
    setError(null);
    if (!target) return;
    let live = true;
    api.get<ShotDetail>("shot", { ep, pass, shot, target }).then(
      (d) => live && setPreview(d),
      (err) => live && setError(errorText(err)),
    );
    return () => {
      live = false;
    };
  }, [ep, pass, shot, target]);
  return (
    <div class="one-off">
      <div class="row">
        <label>
          Try on
          <select value={target} onChange={(e) => setTarget(e.currentTarget.value)}>
            <option value="">choose a target…</option>
            {targets
              .filter((t) => t.id !== current)
              .map((t) => (
                <option key={t.id} value={t.id}>
                  {t.label}
                </option>
              ))}
          </select>
        </label>
        <button
          type="button"
          disabled={!target || render.busy}
          onClick={() => render.run({ ep, pass, shots: [shot], redo: true, target })}
        >
          Render once on {target || "it"}
        </button>
      </div>
      <ErrorText error={error ?? render.error} />
      {render.answer ? <RenderReportView answer={render.answer} onClose={render.dismiss} /> : null}
      {preview ? <Values values={preview.effective} /> : null}
    </div>
  );
}
