// The candidates of the sibling episode whose pick wrote a live file this episode shares
// (GET /studio/refs/owner-takes): shown read-only, so a person sees where the shared picture came from.
import { useEffect, useState } from "preact/hooks";
import { api, errorText, thumbUrl } from "../../api.ts";
import type { RefInfo, RefTakeInfo } from "../../types.ts";
import { ErrorText } from "../../ui.tsx";
import { takeLabel } from "./refs-model.ts";

type OwnerTake = RefTakeInfo & { episode: string; picked: boolean };

export function OwnerTakes({ ep, refInfo }: { ep: string; refInfo: RefInfo }) {
  const [takes, setTakes] = useState<OwnerTake[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    api.get<{ owner: string | null; takes: OwnerTake[] }>("refs/owner-takes", { ep, ref: refInfo.id }).then(
      (a) => live && setTakes(a.takes),
      (err) => live && setError(errorText(err)),
    );
    return () => {
      live = false;
    };
    // Read again when the live file changes (another pick in either episode).
  }, [ep, refInfo.id, refInfo.sha1]);
  const owner = (refInfo.live_owner ?? "").split(/[\\/]/).pop();
  if (error) return <ErrorText error={error} />;
  if (!takes?.length) return null;
  return (
    <>
      <h3>Candidates in {owner} (read-only)</h3>
      <div class="ref-takes">
        {takes.map((t) => {
          const name = `${takeLabel(t)} of ${refInfo.name} in ${owner}`;
          return (
            <article
              key={`${t.view ?? ""}:${t.take}`}
              class={`ref-take take-${t.status}${t.picked ? " picked" : ""}`}
              aria-label={`Candidate ${name}`}
            >
              {t.image ? (
                <img class="ref-take-picture" src={thumbUrl(ep, t.image, 256)} alt={name} loading="lazy" />
              ) : (
                <span class="ref-take-picture empty" role="img" aria-label={`${name}: ${t.status}`}>
                  {t.status}
                </span>
              )}
              <p class="ref-take-head">
                <strong>{takeLabel(t)}</strong>
                {t.picked ? <span class="tag live">picked there</span> : null}
                {t.source ? <span class="muted small">{t.source}</span> : null}
              </p>
            </article>
          );
        })}
      </div>
    </>
  );
}
