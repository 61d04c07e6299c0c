// The page's entry: builds the Studio once, names the views that exist, and mounts the frame. The Shots view (an
// episode's default) is in the entry script; the others are fetched when first opened, or once the page is idle.
import { effect } from "@preact/signals";
import { render } from "preact";
import { App, type Views } from "./app.tsx";
import { type LazyView, lazyView } from "./lazy-view.tsx";
import { createStudio } from "./studio.ts";
import { ShotsView } from "./views/shots/shots-view.tsx";
import { StartView } from "./views/start.tsx";

const later = {
  cut: lazyView("Cut", () => import("./views/cut/cut-view.tsx").then((m) => m.CutView)),
  finishing: lazyView("Finishing", () =>
    import("./views/finishing/finishing-view.tsx").then((m) => m.FinishingView),
  ),
  queue: lazyView("Queue", () => import("./views/queue/queue-view.tsx").then((m) => m.QueueView)),
  refs: lazyView("References", () => import("./views/refs/refs-view.tsx").then((m) => m.RefsView)),
  script: lazyView("Script", () => import("./views/script/script-view.tsx").then((m) => m.ScriptView)),
  settings: lazyView("Settings", () =>
    import("./views/settings/settings-view.tsx").then((m) => m.SettingsView),
  ),
  simple: lazyView("Simple", () => import("./views/simple/simple-view.tsx").then((m) => m.SimpleView)),
};

const views: Views = { ...later, shots: ShotsView };

const studio = createStudio();
const opened = studio.router.route.value.view;
if (opened !== "shots") void later[opened].load().catch(() => undefined);

// The other views' code waits until the open episode has arrived and been drawn, so it never competes with the
// first render; then a tab opens without a wait.
effect(function waitForEpisode(this: { dispose(): void }) {
  if (studio.episode.loading.value) return;
  this.dispose();
  const all = () => {
    for (const view of Object.values(later) as LazyView[]) void view.load().catch(() => undefined);
  };
  if ("requestIdleCallback" in window) requestIdleCallback(all, { timeout: 2000 });
  else setTimeout(all, 500);
});

const root = document.getElementById("app");
if (root) render(<App studio={studio} views={views} start={StartView} />, root);
