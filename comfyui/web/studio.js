// Episode Studio in ComfyUI's frontend: a sidebar tab and a command in the Extensions menu (current frontends)
// opening the editor, and a plain button in the floating menu on old frontends that have neither.
import { app } from "../../scripts/app.js";

const PAGE = "/studio/";
const COMMAND = "EpisodeStudio.Open";

function openStudio() {
  window.open(PAGE, "_blank", "noopener");
}

/**
 * The sidebar tab: the editor itself in a frame (it lets only this origin frame it), under a button opening it in
 * its own browser tab, where it has the whole window.
 */
function renderTab(el) {
  if (el.querySelector("iframe")) return;
  el.style.cssText =
    "display:flex;flex-direction:column;gap:6px;padding:6px;height:100%;box-sizing:border-box;";
  const button = document.createElement("button");
  button.textContent = "Open Episode Studio in a new tab";
  button.addEventListener("click", openStudio);
  const frame = document.createElement("iframe");
  frame.src = PAGE;
  frame.title = "Episode Studio";
  frame.style.cssText = "flex:1;width:100%;min-height:480px;border:0;";
  el.append(button, frame);
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
