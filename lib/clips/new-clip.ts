// Simple-mode projects: a show folder named from a title, holding a series config marked `simple: true` and one
// episode `clips/` whose script gets one sequence and one shot per clip (the editor's Simple view writes them).
// The config carries what every build needs and nothing a clip would not use: the look, a narrator who is only
// heard (a config needs one subject), no locations until a clip adds its own.
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import type { Services } from "../context.ts";
import { badRequest, conflict, forbidden, StudioError } from "../errors.ts";
import { resolveFolder } from "../paths/episode.ts";
import { RESERVED_FOLDER_NAMES, validateFolderName } from "../paths/folder-name.ts";
import { folderFence, writeShowFile } from "../paths/guarded.ts";
import { realRoots } from "../paths/roots.ts";
import { errorCode, errorMessage } from "../store/json-guards.ts";

/** The one episode of a Simple project, and its script's name. */
export const CLIPS_EPISODE = "clips";
const MAX_NAME = 64;
const DEVICE = /^(con|prn|aux|nul|com[1-9]|lpt[1-9])$/i;

type RootServices = Pick<Services, "home" | "env" | "caches">;

/**
 * The show folder name for a title under the folder-name rules: accents dropped, every run of other characters a
 * `-`, at most 64 characters, no leading or trailing punctuation; a reserved or device name gets `-clips`.
 * 400 when the title has no letter or digit.
 */
export function projectFolderName(title: string): string {
  const plain = title.normalize("NFKD").replace(/[\u0300-\u036f]/g, "");
  let name = plain
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[^A-Za-z0-9]+/, "")
    .slice(0, MAX_NAME)
    .replace(/[^A-Za-z0-9]+$/, "");
  if (!/[A-Za-z0-9]/.test(name)) {
    throw badRequest(`title: ${JSON.stringify(title)} has no letters or digits to name a folder with`);
  }
  if (RESERVED_FOLDER_NAMES.includes(name.toLowerCase()) || DEVICE.test(name.split(".")[0])) {
    name = `${name.slice(0, MAX_NAME - 6)}-clips`;
  }
  return validateFolderName(name, "title");
}

/** A series id from a folder name: lower case, `_` for anything but letters and digits. */
export const seriesIdOf = (folder: string) =>
  folder
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "") || "clips";

/** The series config of a new Simple project. */
export function simpleSeries(title: string, folder: string): Record<string, unknown> {
  return {
    series: { id: seriesIdOf(folder), title, fps: 24, width: 1344, height: 768 },
    simple: true,
    proxy: { width: 448, height: 256 },
    style: { look: "cinematic live-action footage, natural light, shallow depth of field" },
    subjects: {
      narrator: { name: "Narrator", voice: "a calm, warm voice, close to the microphone" },
    },
    locations: {},
  };
}

/** The script of a new Simple project: its header only; each clip adds a sequence and a shot. */
export const simpleScript = (title: string) => `= ${CLIPS_EPISODE}  ${title.replace(/\s+/g, " ").trim()}\n`;

/**
 * The root a Simple project goes in: the one asked for (inside the roots: 403 outside), else the first configured
 * root that exists. 409 when there is none.
 */
export async function clipsRoot(services: RootServices, value: string | null | undefined): Promise<string> {
  if (value !== undefined && value !== null && value !== "") {
    try {
      return await resolveFolder(value, services, "root");
    } catch (err) {
      if (err instanceof StudioError && err.status === 404) throw conflict(err.message);
      throw err;
    }
  }
  const [first] = await realRoots(services);
  if (!first) {
    throw conflict(
      "no root exists to put clips in: add a folder to the roots first (PUT /studio/config or STUDIO_ROOTS)",
    );
  }
  return first;
}

/** The files of a Simple project, written into `show` (an existing folder inside a root); answers the episode. */
export async function writeProjectFiles(
  show: string,
  files: { series: string | null; script: string | null },
): Promise<string> {
  const ep = path.join(show, CLIPS_EPISODE);
  const fence = folderFence(show, "the project folder");
  if (files.series !== null) await writeShowFile(fence, path.join(show, "series.json"), files.series);
  if (files.script !== null) await writeShowFile(fence, path.join(ep, `${CLIPS_EPISODE}.md`), files.script);
  return ep;
}

export const configText = (obj: unknown) => `${JSON.stringify(obj, null, 2)}\n`;

/** POST /studio/clips/new: a new show folder named from the title (409 when it exists), its config and episode. */
export async function newSimpleProject(
  services: RootServices,
  title: string,
  rootValue: string | null | undefined,
): Promise<{ ep: string }> {
  const line = title.replace(/\s+/g, " ").trim();
  const folder = projectFolderName(line);
  const root = await clipsRoot(services, rootValue);
  const show = path.join(root, folder);
  try {
    await mkdir(show);
  } catch (err) {
    const code = errorCode(err);
    if (code === "EEXIST")
      throw conflict(`a folder named ${folder} already exists in ${root}; nothing was changed`);
    if (code === "EACCES" || code === "EPERM") throw forbidden(`root: cannot create a folder in ${root}`);
    throw new StudioError(500, `cannot create ${show}: ${errorMessage(err)}`);
  }
  try {
    const ep = await writeProjectFiles(show, {
      series: configText(simpleSeries(line, folder)),
      script: simpleScript(line),
    });
    return { ep };
  } catch (err) {
    // The folder was made by this request a moment ago: a half-written project is not left behind.
    await rm(show, { recursive: true, force: true }).catch(() => {});
    throw err;
  }
}
