// The page's entry: builds the Studio once, names the views that exist, and mounts the frame.
import { render } from "preact";
import { App, type Views } from "./app.tsx";
import { createStudio } from "./studio.ts";
import { CutView } from "./views/cut/cut-view.tsx";
import { QueueView } from "./views/queue/queue-view.tsx";
import { ScriptView } from "./views/script/script-view.tsx";
import { SettingsView } from "./views/settings/settings-view.tsx";
import { ShotsView } from "./views/shots/shots-view.tsx";
import { StartView } from "./views/start.tsx";

const views: Views = {
  cut: CutView,
  queue: QueueView,
  script: ScriptView,
  settings: SettingsView,
  shots: ShotsView,
};

const root = document.getElementById("app");
if (root) render(<App studio={createStudio()} views={views} start={StartView} />, root);
