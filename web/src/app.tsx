// The page's frame: the top bar (episode, pass, views, the ComfyUI it runs in, connection state, shortcuts) and the
// view the route names.
// Which views exist is decided in main.tsx; the start view opens when no episode is chosen.
import { effect } from "@preact/signals";
import type { ComponentType } from "preact";
import { useEffect, useState } from "preact/hooks";
import { StudioContext } from "./context.ts";
import { keyName, useShortcuts } from "./keys.tsx";
import type { Pass, View } from "./route.ts";
import type { Studio } from "./studio.ts";
import { QueueSummary } from "./views/queue/queue-summary.tsx";

export type Views = Partial<Record<View, ComponentType>>;

const LABELS: Record<View, string> = {
  script: "Script",
  shots: "Shots",
  refs: "References",
  cut: "Cut",
  finishing: "Finishing",
  queue: "Queue",
  settings: "Settings",
  simple: "Simple",
};

/** Views that need no open episode. */
const WITHOUT_EPISODE: readonly View[] = ["queue", "settings", "simple"];

export function App({ studio, views, start: Start }: { studio: Studio; views: Views; start: ComponentType }) {
  return (
    <StudioContext.Provider value={studio}>
      <Frame studio={studio} views={views} Start={Start} />
    </StudioContext.Provider>
  );
}

function Frame({ studio, views, Start }: { studio: Studio; views: Views; Start: ComponentType }) {
  const { route } = studio.router;
  const { ep, view, pass } = route.value;
  const [help, setHelp] = useState(false);
  const order = (Object.keys(LABELS) as View[]).filter((v) => views[v]);
  useShortcuts(studio.keys, [
    { keys: ["?"], label: "Show or hide the shortcuts", run: () => setHelp((h) => !h) },
    { keys: ["Escape"], label: "Close this list", run: () => setHelp(false) },
  ]);
  useEffect(() => {
    // The open episode is read first and alone: the first render waits for it, not for the lists beside it,
    // which follow once it has arrived (or after a second, when it is slow).
    let started = false;
    const start = () => {
      if (started) return;
      started = true;
      void studio.refreshConfig();
      void studio.refreshEpisodes();
      void studio.refreshJobs();
    };
    const timer = setTimeout(start, 1000);
    const stop = effect(() => {
      if (!studio.episode.loading.value) start();
    });
    return () => {
      clearTimeout(timer);
      stop();
    };
  }, [studio]);
  const summary = studio.episodes.value.value?.find((e) => e.ep === ep);
  const title = summary
    ? `${summary.name}${summary.title ? ` · ${summary.title}` : ""}`
    : ep
      ? ep.split(/[\\/]/).pop()
      : null;
  useEffect(() => {
    document.title = title ? `${title} · Episode Studio` : "Episode Studio";
  }, [title]);
  const Shown = !ep && !WITHOUT_EPISODE.includes(view) ? Start : (views[view] ?? Start);
  const link = studio.socket.state.value;
  const mounted = studio.config.value.value?.mounted?.comfy ?? null;
  return (
    <div class="frame">
      <header class="topbar">
        <button
          type="button"
          class="brand"
          onClick={() => studio.router.go({ ep: null, view: "shots" })}
          title="All episodes"
        >
          Episode Studio
        </button>
        {ep ? (
          <span class="episode-name" title={ep}>
            {title}
          </span>
        ) : null}
        <nav class="tabs" aria-label="Views">
          {order.map((v) => (
            <button
              type="button"
              key={v}
              class={v === view ? "tab on" : "tab"}
              aria-current={v === view ? "page" : undefined}
              disabled={!ep && !WITHOUT_EPISODE.includes(v)}
              onClick={() => studio.router.go({ view: v })}
            >
              {LABELS[v]}
            </button>
          ))}
        </nav>
        <fieldset class="pass" aria-label="Pass">
          {(["proxy", "final"] as Pass[]).map((p) => (
            <label key={p} class={p === pass ? "on" : ""}>
              <input
                type="radio"
                name="pass"
                value={p}
                checked={p === pass}
                onChange={() => studio.router.go({ pass: p })}
              />
              {p}
            </label>
          ))}
        </fieldset>
        <QueueSummary />
        {mounted ? (
          <a
            class="mounted muted"
            href={mounted}
            title="This page runs inside ComfyUI, whose server is the local backend unless the settings name another; open ComfyUI's graph editor"
          >
            in ComfyUI at {mounted.replace(/^https?:\/\//, "")}
          </a>
        ) : null}
        <span class={`link ${link}`} role="status" aria-live="polite">
          {link === "open" ? "live" : link === "connecting" ? "connecting…" : "reconnecting…"}
        </span>
        <button
          type="button"
          class="ghost"
          onClick={() => setHelp((h) => !h)}
          aria-expanded={help}
          title="Shortcuts (?)"
        >
          ?
        </button>
      </header>
      <main class="view">
        <Shown />
      </main>
      {help ? <ShortcutList studio={studio} onClose={() => setHelp(false)} /> : null}
    </div>
  );
}

function ShortcutList({ studio, onClose }: { studio: Studio; onClose: () => void }) {
  const seen = new Set<string>();
  const rows = studio.keys.list.value.filter((s) => {
    const k = s.keys.join();
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  return (
    <div class="overlay" role="dialog" aria-modal="true" aria-label="Keyboard shortcuts">
      <div class="sheet">
        <h2>Keyboard shortcuts</h2>
        <dl class="shortcuts">
          {rows.map((s) => (
            <div key={s.keys.join()}>
              <dt>
                {s.keys.map((k) => (
                  <kbd key={k}>{keyName(k)}</kbd>
                ))}
              </dt>
              <dd>{s.label}</dd>
            </div>
          ))}
        </dl>
        <button type="button" onClick={onClose} ref={(b) => b?.focus()}>
          Close
        </button>
      </div>
    </div>
  );
}
