// Where installs go: the local engine's folder (settings `path`, else COMFYUI_PATH), its custom_nodes folder and
// its Python, or why nothing can be installed on this machine.
import { stat } from "node:fs/promises";
import path from "node:path";
import type { Services } from "../context.ts";
import { localComfyPath } from "../render/model-check.ts";

export interface Place {
  root: string | null;
  custom_nodes: string | null;
  python: string | null;
  why_not: string | null;
}

const isDir = (p: string) =>
  stat(p).then(
    (s) => s.isDirectory(),
    () => false,
  );
const isFile = (p: string) =>
  stat(p).then(
    (s) => s.isFile(),
    () => false,
  );

// The usual places a ComfyUI install keeps its Python: a venv inside it, or the portable build's embedded one.
const PYTHONS = [
  ".venv/bin/python",
  "venv/bin/python",
  ".venv/Scripts/python.exe",
  "venv/Scripts/python.exe",
  "../python_embeded/python.exe",
];

export async function installPlace(services: Pick<Services, "home" | "caches" | "env">): Promise<Place> {
  const root = await localComfyPath(services);
  if (!root)
    return {
      root: null,
      custom_nodes: null,
      python: null,
      why_not:
        "no place to install files: the engine's folder is not known (set path in the settings, or COMFYUI_PATH, to the ComfyUI folder)",
    };
  if (!path.isAbsolute(root) || !(await isDir(root)))
    return {
      root,
      custom_nodes: null,
      python: null,
      why_not: `no place to install files: the engine's folder ${root} is not a folder on this machine`,
    };
  const nodes = path.join(root, "custom_nodes");
  let python: string | null = null;
  for (const rel of PYTHONS) {
    const p = path.join(root, rel);
    if (await isFile(p)) {
      python = path.normalize(p);
      break;
    }
  }
  return { root, custom_nodes: (await isDir(nodes)) ? nodes : null, python, why_not: null };
}

/** The models folder an item goes into (`<root>/models/<folder>`). */
export const modelsDir = (root: string, folder: string) => path.join(root, "models", ...folder.split("/"));
