// Episode Studio in ComfyUI's frontend: a sidebar tab and a command in the Extensions menu (current frontends)
// opening the editor, and a plain button in the floating menu on old frontends that have neither.
import { app } from "../../scripts/app.js";

const PAGE = "/studio/";
const COMMAND = "EpisodeStudio.Open";

function openStudio() {
  window.open(PAGE, "_blank", "noopener");
}

/**
 * The sidebar tab: a button opening the editor in its own browser tab (the editor refuses to be framed, and it
 * needs the whole window anyway).
 */
function renderTab(el) {
  if (el.querySelector("button")) return;
  el.style.cssText = "display:flex;flex-direction:column;gap:8px;padding:12px;";
  const text = document.createElement("p");
  text.textContent = "Scripts to shots, takes, cut and the assembled episode, rendered on this ComfyUI.";
  const button = document.createElement("button");
  button.textContent = "Open Episode Studio";
  button.addEventListener("click", openStudio);
  el.append(text, button);
}

function addMenuButton() {
  const menu = document.querySelector(".comfy-menu");
  if (!menu || menu.querySelector("#episode-studio-button")) return;
  const button = document.createElement("button");
  button.id = "episode-studio-button";
  button.textContent = "Episode Studio";
  button.addEventListener("click", openStudio);
  menu.append(button);
}

app.registerExtension({
  name: "EpisodeStudio",
  commands: [{ id: COMMAND, label: "Episode Studio", icon: "pi pi-video", function: openStudio }],
  menuCommands: [{ path: ["Extensions"], commands: [COMMAND] }],
  async setup() {
    const manager = app.extensionManager;
    if (manager && typeof manager.registerSidebarTab === "function") {
      manager.registerSidebarTab({
        id: "episode-studio",
        icon: "pi pi-video",
        title: "Episode Studio",
        tooltip: "Episode Studio",
        type: "custom",
        render: renderTab,
      });
    } else {
      addMenuButton();
    }
  },
});
