// The Shots view, an open episode's default: the render controls, the shot list in script order and the open
// shot's detail beside it; J/K or the arrows move between shots, Space plays, 1–9 pick a take, Enter opens.
import { useMemo, useRef, useState } from "preact/hooks";
import { api } from "../../api.ts";
import { useStudio } from "../../context.ts";
import { useShortcuts } from "../../keys.tsx";
import { ErrorText, useAction } from "../../ui.tsx";
import { BuildButton } from "./build.tsx";
import { RenderBar } from "./render-bar.tsx";
import { type ClickMode, clickSelect, type Selection, shotRows, stepShot } from "./rows.ts";
import { ShotDetailPanel } from "./shot-detail.tsx";
import { ShotList } from "./shot-list.tsx";

const DIGITS = ["1", "2", "3", "4", "5", "6", "7", "8", "9"];

export function ShotsView() {
  const studio = useStudio();
  const { ep, pass, shot } = studio.router.route.value;
  const status = studio.episode.value.value;
  const rows = useMemo(() => (status ? shotRows(status.shots, pass) : []), [status, pass]);
  const order = useMemo(() => rows.map((r) => r.entry.shot), [rows]);
  const [selection, setSelection] = useState<Selection>({ ids: new Set(), anchor: null });
  const [open, setOpen] = useState(true);
  const player = useRef<HTMLVideoElement>(null);
  const pick = useAction(async (id: string, take: number | null) => {
    if (!ep) return;
    await api.put("pick", { ep, pass, shot: id, take });
    await studio.refreshEpisode();
  });
  const go = (id: string | null) => {
    if (id) studio.router.go({ shot: id });
  };
  const openShot = (id: string) => {
    // Opening a shot leaves the render selection alone; it only marks where a shift-click range starts.
    setSelection((s) => ({ ...s, anchor: id }));
    setOpen(true);
    go(id);
  };
  const select = (id: string, mode: ClickMode) => setSelection((s) => clickSelect(s, order, id, mode));
  const entry = status?.shots.find((s) => s.shot === shot);
  useShortcuts(studio.keys, [
    { keys: ["j", "ArrowDown"], label: "Next shot", run: () => go(stepShot(order, shot, 1)) },
    { keys: ["k", "ArrowUp"], label: "Previous shot", run: () => go(stepShot(order, shot, -1)) },
    {
      keys: [" "],
      label: "Play or pause the shot's take",
      run: (e) => {
        // Space on a focused checkbox still ticks it (the page's keys take Space first).
        if (e.target instanceof HTMLInputElement && e.target.type === "checkbox") {
          e.target.click();
          return;
        }
        const v = player.current;
        if (!v) return;
        if (v.paused) void v.play().catch(() => undefined);
        else v.pause();
      },
    },
    {
      keys: DIGITS,
      label: "Pick the shot's 1st–9th take",
      run: (e) => {
        const take = entry?.takes[Number(e.key) - 1];
        if (entry && take) void pick.run(entry.shot, take.take);
      },
    },
    {
      keys: ["Enter"],
      label: "Open the shot's detail",
      run: () => {
        if (!shot) go(order[0] ?? null);
        setOpen(true);
      },
    },
  ]);
  if (!ep) return null;
  if (!status) return <NotLoaded ep={ep} />;
  const detailShown = open && shot !== null;
  return (
    <div class={`shots${detailShown ? " with-detail" : ""}`}>
      <div class="shots-top">
        <RenderBar ep={ep} pass={pass} rows={rows} selected={selection.ids} current={shot} />
        <BuildButton ep={ep} />
      </div>
      <div class="shots-body">
        <div class="shots-list-pane">
          <div class="shots-head" aria-hidden="true">
            <span>{rows.length} shots</span>
            {selection.ids.size ? (
              <span>
                {selection.ids.size} selected{" "}
                <button
                  type="button"
                  class="link-button"
                  onClick={() => setSelection({ ids: new Set(), anchor: null })}
                >
                  clear
                </button>
              </span>
            ) : (
              <span class="muted">shift/ctrl-click or tick to select</span>
            )}
          </div>
          {rows.length ? (
            <ShotList
              ep={ep}
              rows={rows}
              current={shot}
              selected={selection.ids}
              onOpen={openShot}
              onSelect={select}
            />
          ) : (
            <p class="muted empty">This pass has no shots: write some in the script and build.</p>
          )}
        </div>
        {detailShown && shot ? (
          <ShotDetailPanel
            key={`${ep}\n${pass}\n${shot}`}
            ep={ep}
            pass={pass}
            shot={shot}
            entry={entry}
            player={player}
            pick={pick}
            onClose={() => setOpen(false)}
          />
        ) : null}
      </div>
    </div>
  );
}

/** The episode answer is not there: still loading, the pass not built (offer the build), or the service's error. */
function NotLoaded({ ep }: { ep: string }) {
  const studio = useStudio();
  const { pass } = studio.router.route.value;
  const error = studio.episode.error.value;
  const summary = studio.episodes.value.value?.find((e) => e.ep === ep);
  const unbuilt = summary ? !summary.built[pass] : false;
  // The episodes list, which tells an unbuilt pass from an error, is read once the episode has answered.
  const listing = !studio.episodes.value.value && studio.episodes.loading.value;
  if ((!error && !unbuilt) || (error && listing)) return <p class="muted empty">Loading the episode…</p>;
  return (
    <div class="not-built">
      {unbuilt ? (
        <>
          <h2>The {pass} pass is not built yet</h2>
          <p class="muted">Building compiles the script into shot lists for both passes.</p>
        </>
      ) : (
        <ErrorText error={error} />
      )}
      <BuildButton ep={ep} primary />
    </div>
  );
}
