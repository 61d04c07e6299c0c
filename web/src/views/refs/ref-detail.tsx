// One reference in full: its live file (or what is missing and who needs it), a character's views side by side with
// their candidates, another reference's candidates, panoramas and tour holds, imports, and its overrides.
import { useState } from "preact/hooks";
import type { RefInfo, RefTakeInfo, RefViewName } from "../../types.ts";
import { EditPanel, PanoPanel } from "./edit-form.tsx";
import { canEditLive, canPano, type EditSource, takeSource } from "./edit-model.ts";
import { GeneratePanel, GenerateViewButton, useGenerate } from "./generate-form.tsx";
import { ImportZone } from "./import-zone.tsx";
import { OwnerTakes } from "./owner-takes.tsx";
import { RefOverride } from "./ref-override.tsx";
import { LivePicture } from "./ref-picture.tsx";
import { RefTakeCard } from "./ref-take.tsx";
import { plainTakes, sideTakes, usedByText, viewColumns } from "./refs-model.ts";
import { TourPanel } from "./tour-panel.tsx";
import type { TargetChoice } from "./use-targets.ts";

export function RefDetail({
  ep,
  refInfo,
  refs,
  targets,
  pick,
  onPickChange,
  onChanged,
  reload,
}: {
  ep: string;
  refInfo: RefInfo;
  refs: readonly RefInfo[];
  targets: readonly TargetChoice[];
  /** Imports are made live (the view's one choice). */
  pick: boolean;
  onPickChange(pick: boolean): void;
  /** A change's answer: the ref as listed, or null to read the list again. */
  onChanged(ref: RefInfo | null): void;
  reload(): Promise<void>;
}) {
  const r = refInfo;
  const character = r.kind === "character";
  const gen = useGenerate(ep, r, targets);
  const [editing, setEditing] = useState<EditSource | null>(null);
  const [panoOpen, setPanoOpen] = useState(false);
  const generates = !!r.can_generate;
  const folder = (p: string) => p.split(/[\\/]/).pop() ?? p;
  // A sibling sharing the live file picked it last: this episode's own pick is recorded but no longer live.
  const overtaken =
    r.shared_with?.length && r.live_owner && r.live_owner !== ep ? folder(r.live_owner) : null;
  const card = (take: RefTakeInfo, picked: boolean) => (
    <RefTakeCard
      key={`${take.view ?? ""}:${take.take}`}
      ep={ep}
      refInfo={r}
      take={take}
      picked={picked}
      overtaken={overtaken}
      refs={refs}
      onChanged={onChanged}
      onEdit={() => setEditing(takeSource(take))}
    />
  );
  const zone = (view: RefViewName | null, compact = false) => (
    <ImportZone ep={ep} refInfo={r} view={view} pick={pick} onDone={onChanged} compact={compact} />
  );
  const takes = character ? [] : plainTakes(r);
  const panos = r.kind === "location" ? sideTakes(r, "pano") : [];
  const holds = r.kind === "location" ? sideTakes(r, "tour") : [];
  return (
    <section class="ref-detail" aria-label={`Reference ${r.name}`}>
      <header class="detail-head">
        <h2>{r.name}</h2>
        <code class="muted">{r.id}</code>
        {r.of ? <span class="tag">variant of {r.of}</span> : null}
        <label class="check pick-on-import">
          <input type="checkbox" checked={pick} onChange={(e) => onPickChange(e.currentTarget.checked)} />
          Make imports live
        </label>
      </header>
      <div class="ref-top">
        <div class="live-column">
          <LivePicture ep={ep} refInfo={r} width={512} />
          {canEditLive(r) || canPano(r) ? (
            <div class="live-actions">
              {canEditLive(r) ? (
                <button
                  type="button"
                  class="ghost"
                  onClick={() => setEditing({ view: null, take: null })}
                  aria-label={`Edit the live picture of ${r.name}…`}
                >
                  Edit…
                </button>
              ) : null}
              {canPano(r) ? (
                <button
                  type="button"
                  class="ghost"
                  onClick={() => setPanoOpen(true)}
                  aria-label={`Panorama of ${r.name}…`}
                >
                  Panorama…
                </button>
              ) : null}
            </div>
          ) : null}
        </div>
        <dl class="ref-facts">
          <dt>File</dt>
          <dd>
            <code>{r.path}</code>
          </dd>
          <dt>Shots</dt>
          <dd>{usedByText(r).replace(/^used by /, "")}</dd>
          {r.kind === "keyframe" ? (
            <>
              <dt>Keyframe</dt>
              <dd>
                {r.need ?? "not needed"} · {r.method}
                {r.import_path ? (
                  <>
                    {" "}
                    from <code>{r.import_path}</code>
                  </>
                ) : null}
              </dd>
            </>
          ) : null}
          {r.live_from ? (
            <>
              <dt>Live from</dt>
              <dd>{r.live_from === "sheet" ? "a ready-made sheet" : "the four views, stitched"}</dd>
            </>
          ) : null}
          {r.panels_conflict ? (
            <>
              <dt>Panels</dt>
              <dd class="warn">
                {typeof r.panels_conflict === "string"
                  ? r.panels_conflict
                  : `the live file does not have the ${r.panels ?? 4} panels the config says`}
              </dd>
            </>
          ) : null}
          {r.shared_with?.length ? (
            <>
              <dt>Shared with</dt>
              <dd title={r.shared_with.join("\n")}>
                {r.shared_with.map(folder).join(", ")}
                {overtaken ? <span class="muted"> · the live file was picked in {overtaken}</span> : null}
              </dd>
            </>
          ) : null}
          {r.why_not ? (
            <>
              <dt>Making it</dt>
              <dd class="muted">{r.why_not}</dd>
            </>
          ) : null}
        </dl>
      </div>
      {generates ? <GeneratePanel ep={ep} gen={gen} /> : null}
      {editing ? (
        <EditPanel
          key={`${editing.view ?? ""}:${editing.take ?? "live"}`}
          ep={ep}
          refInfo={r}
          refs={refs}
          targets={targets}
          source={editing}
          onClose={() => setEditing(null)}
        />
      ) : null}
      {panoOpen ? (
        <PanoPanel ep={ep} refInfo={r} refs={refs} targets={targets} onClose={() => setPanoOpen(false)} />
      ) : null}
      {character ? (
        <div class="view-columns">
          {viewColumns(r).map((col) => {
            const live = col.takes.find((t) => t.take === col.picked);
            return (
              <section key={col.view} class="view-column" aria-label={`${col.title} view of ${r.name}`}>
                <h3>
                  {col.title}
                  {col.picked !== null ? (
                    <span class="tag live">t{String(col.picked).padStart(2, "0")}</span>
                  ) : null}
                  {col.cleared ? <span class="tag">cleared</span> : null}
                </h3>
                {live?.image ? null : (
                  <p class="muted small view-missing">
                    {col.view === "sheet"
                      ? "No ready-made sheet: the four views stitch into one."
                      : col.takes.length
                        ? "Nothing picked."
                        : "No candidates."}
                  </p>
                )}
                {generates && col.view !== "sheet" ? <GenerateViewButton gen={gen} view={col.view} /> : null}
                {zone(col.view, true)}
                <div class="view-takes">{col.takes.map((t) => card(t, t.take === col.picked))}</div>
              </section>
            );
          })}
        </div>
      ) : (
        <>
          <h3>Candidates</h3>
          {zone(null)}
          {takes.length ? (
            <div class="ref-takes">{takes.map((t) => card(t, t.take === r.picked))}</div>
          ) : (
            <p class="muted">No candidates yet: {generates ? "generate or import one." : "import a file."}</p>
          )}
        </>
      )}
      {panos.length ? (
        <>
          <h3>Panoramas</h3>
          <div class="ref-takes">{panos.map((t) => card(t, false))}</div>
        </>
      ) : null}
      {r.kind === "location" ? <TourPanel ep={ep} refInfo={r} onChanged={onChanged} /> : null}
      {holds.length ? (
        <>
          <h3>Tour holds</h3>
          <div class="ref-takes">{holds.map((t) => card(t, false))}</div>
        </>
      ) : null}
      {r.live_owner && r.live_owner !== ep ? <OwnerTakes ep={ep} refInfo={r} /> : null}
      {r.built_prompt ? (
        <details class="built">
          <summary>The prompt as built</summary>
          <p class="prompt">{r.built_prompt}</p>
        </details>
      ) : null}
      <details class="ref-overrides">
        <summary>
          Overrides
          {r.override?.fields.length ? <span class="tag">set</span> : null}
          {r.override?.stale ? <span class="tag stale">stale</span> : null}
        </summary>
        <RefOverride ep={ep} refInfo={r} targets={targets} onSaved={reload} />
      </details>
    </section>
  );
}
