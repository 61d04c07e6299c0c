// The Script view: the episode's script and series config side by side as two editors (one shown at a time), the
// history of saved versions and the promote panel in a drawer beside them. Ctrl/Cmd+S saves the file shown.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { useStudio } from "../../context.ts";
import type { SourceKind } from "./diagnostics.ts";
import { LABELS } from "./editor-setup.ts";
import { HistoryDrawer } from "./history-drawer.tsx";
import { PromotePanel } from "./promote-panel.tsx";
import { type PaneApi, SourcePane } from "./source-pane.tsx";

const FILES: SourceKind[] = ["script", "series"];

type Drawer = "history" | "promote" | null;

export function ScriptView() {
  const studio = useStudio();
  const { ep, shot } = studio.router.route.value;
  const [tab, setTab] = useState<SourceKind>("script");
  const [drawer, setDrawer] = useState<Drawer>(null);
  const [saves, setSaves] = useState(0);
  const [unsaved, setUnsaved] = useState<Record<SourceKind, boolean>>({ script: false, series: false });
  const panes = useRef<Partial<Record<SourceKind, PaneApi>>>({});
  const tabRef = useRef(tab);
  tabRef.current = tab;

  const register = useCallback((file: SourceKind, pane: PaneApi | null) => {
    if (pane) panes.current[file] = pane;
    else delete panes.current[file];
  }, []);
  const gotoOther = useCallback((file: SourceKind, line: number | null, col: number | null) => {
    setTab(file);
    // The other editor is shown on the next frame; the cursor moves once it can be seen.
    requestAnimationFrame(() => panes.current[file]?.goto(line, col));
  }, []);
  const onSaved = useCallback((file: SourceKind) => {
    setSaves((n) => n + 1);
    // Each file is checked against the other one on disk: the other's problems may have changed.
    for (const f of FILES) if (f !== file) panes.current[f]?.recheck();
  }, []);
  const onDirty = useCallback(
    (file: SourceKind, dirty: boolean) =>
      setUnsaved((u) => (u[file] === dirty ? u : { ...u, [file]: dirty })),
    [],
  );

  // Ctrl/Cmd+S with the focus anywhere in the page saves the file shown (the editors handle it themselves first).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || !(e.ctrlKey || e.metaKey) || e.altKey || e.key.toLowerCase() !== "s") return;
      e.preventDefault();
      panes.current[tabRef.current]?.save();
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, []);

  if (!ep) return null;
  const toggle = (d: Exclude<Drawer, null>) => setDrawer((now) => (now === d ? null : d));
  return (
    <div class="script-view">
      <div class="script-bar">
        <fieldset class="segmented" aria-label="File">
          {FILES.map((f) => (
            <button
              type="button"
              key={f}
              class={f === tab ? "on" : ""}
              aria-pressed={f === tab}
              aria-label={unsaved[f] ? `${LABELS[f]} (unsaved changes)` : undefined}
              onClick={() => setTab(f)}
            >
              {LABELS[f]}
              {unsaved[f] ? <span class="dot" title="Unsaved changes" /> : null}
            </button>
          ))}
        </fieldset>
        <span class="grow" />
        <button type="button" aria-pressed={drawer === "history"} onClick={() => toggle("history")}>
          History
        </button>
        <button type="button" aria-pressed={drawer === "promote"} onClick={() => toggle("promote")}>
          Promote overrides
        </button>
      </div>
      <div class={drawer ? "script-body with-drawer" : "script-body"}>
        <div class="panes">
          {FILES.map((f) => (
            <SourcePane
              key={`${ep}\n${f}`}
              ep={ep}
              file={f}
              active={f === tab}
              register={register}
              gotoOther={gotoOther}
              onSaved={onSaved}
              onDirty={onDirty}
              focusShot={shot}
            />
          ))}
        </div>
        {drawer === "history" ? (
          <HistoryDrawer
            key={`${ep}\n${tab}`}
            ep={ep}
            file={tab}
            saves={saves}
            current={() => panes.current[tab]?.text() ?? ""}
            restore={(text) => panes.current[tab]?.replace(text)}
            close={() => setDrawer(null)}
          />
        ) : null}
        {drawer === "promote" ? (
          <PromotePanel
            key={ep}
            ep={ep}
            unsaved={FILES.filter((f) => unsaved[f]).map((f) => LABELS[f].toLowerCase())}
            promoted={() => {
              for (const f of FILES) void panes.current[f]?.reloadIfClean();
              void studio.refreshEpisode();
            }}
            close={() => setDrawer(null)}
          />
        ) : null}
      </div>
    </div>
  );
}
