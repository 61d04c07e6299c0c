// The Finishing view: from picked takes to a delivered master. The master (plan, queue, assemble, ProRes, the
// job's live stage, the master to play) above the cut's shots with their upscales and post-processes; the chosen
// shot's finishing and the series recipes beside them. J/K move between shots.
import { useState } from "preact/hooks";
import { useStudio } from "../../context.ts";
import { useShortcuts } from "../../keys.tsx";
import { ErrorText } from "../../ui.tsx";
import { finishRows, stepShot } from "./finishing-model.ts";
import { type MasterChoices, MasterPanel } from "./master-panel.tsx";
import { RecipePanel } from "./recipe-panel.tsx";
import { ShotFinish } from "./shot-finish.tsx";
import { ShotTable } from "./shot-table.tsx";
import { useFinishing } from "./use-finishing.ts";

export function FinishingView() {
  const studio = useStudio();
  const { ep, pass, shot } = studio.router.route.value;
  if (!ep) return null;
  return <Finishing key={`${ep}\n${pass}`} ep={ep} pass={pass} shot={shot} />;
}

function Finishing({ ep, pass, shot }: { ep: string; pass: "final" | "proxy"; shot: string | null }) {
  const studio = useStudio();
  const [choices, setChoices] = useState<MasterChoices>({
    post: "off",
    conform: false,
    allowGaps: false,
    prores: false,
    order: "cut",
  });
  const fin = useFinishing(ep, pass, choices.post, choices.conform);
  const episode = studio.episode.value.value;
  const rows = episode ? finishRows(episode.shots, pass, fin.plan) : [];
  const selected = rows.find((r) => r.shot === shot) ?? rows[0] ?? null;
  const entry = selected ? episode?.shots.find((s) => s.shot === selected.shot) : undefined;
  const select = (s: string | null) => s && studio.router.go({ shot: s });
  useShortcuts(studio.keys, [
    {
      keys: ["j", "ArrowDown"],
      label: "Next shot",
      run: () => select(stepShot(rows, selected?.shot ?? null, 1)),
    },
    {
      keys: ["k", "ArrowUp"],
      label: "Previous shot",
      run: () => select(stepShot(rows, selected?.shot ?? null, -1)),
    },
  ]);
  const targets = [...new Set(episode?.shots.map((s) => s.target) ?? [])];
  return (
    <div class="finishing">
      <div class="finishing-main">
        <MasterPanel
          ep={ep}
          pass={pass}
          fin={fin}
          choices={choices}
          choose={(c) => setChoices((now) => ({ ...now, ...c }))}
        />
        <ErrorText error={studio.episode.error.value} />
        {episode ? (
          <ShotTable ep={ep} pass={pass} rows={rows} selected={selected?.shot ?? null} select={select} />
        ) : studio.episode.loading.value ? (
          <p class="muted finishing-wait">Reading the episode…</p>
        ) : null}
      </div>
      <aside class="finishing-side" aria-label="Finishing details">
        {selected && entry ? (
          <ShotFinish
            ep={ep}
            pass={pass}
            row={selected}
            shot={entry}
            options={fin.options}
            onChanged={fin.reload}
          />
        ) : null}
        <RecipePanel
          options={fin.options}
          postOptions={fin.postOptions}
          error={fin.optionsError}
          targets={targets}
        />
      </aside>
    </div>
  );
}
