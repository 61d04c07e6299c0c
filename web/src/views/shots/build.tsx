// Building the episode (POST /studio/build compiles both passes) and what the build said per pass, offered where a
// pass has no build yet and beside the render controls once it has.
import { useState } from "preact/hooks";
import { api } from "../../api.ts";
import { useStudio } from "../../context.ts";
import type { Pass } from "../../route.ts";
import type { BuildAnswer } from "../../types.ts";
import { ErrorText, useAction } from "../../ui.tsx";

export function BuildButton({ ep, primary }: { ep: string; primary?: boolean }) {
  const studio = useStudio();
  const [answer, setAnswer] = useState<BuildAnswer | null>(null);
  const build = useAction(async () => {
    setAnswer(null);
    const a = await api.post<BuildAnswer>("build", { ep });
    setAnswer(a);
    await Promise.all([studio.refreshEpisode(), studio.refreshEpisodes()]);
  });
  return (
    <div class="build">
      <button
        type="button"
        class={primary ? "primary" : ""}
        onClick={() => build.run()}
        disabled={build.busy}
      >
        {build.busy ? "Building…" : "Build"}
      </button>
      <ErrorText error={build.error} />
      {answer ? <BuildReport answer={answer} onClose={() => setAnswer(null)} /> : null}
    </div>
  );
}

function BuildReport({ answer, onClose }: { answer: BuildAnswer; onClose: () => void }) {
  const passes = (["final", "proxy"] as Pass[]).filter((p) => answer.passes[p]);
  return (
    <div class="build-report" role="status">
      {answer.ok ? <p class="ok">Built.</p> : null}
      {!answer.ok && answer.error ? <p class="error">{answer.error}</p> : null}
      {passes.map((p) => {
        const r = answer.passes[p];
        if (!r) return null;
        return (
          <div key={p}>
            <p class={r.ok ? "ok" : "error"}>
              {p}: {r.ok ? "built" : (r.error ?? "did not build")}
            </p>
            {(r.report?.warnings ?? []).map((w) => (
              <p key={w} class="warn">
                {w}
              </p>
            ))}
          </div>
        );
      })}
      <button type="button" class="ghost" onClick={onClose} aria-label="Dismiss the build report">
        ✕
      </button>
    </div>
  );
}
