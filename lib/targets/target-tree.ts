// Targets read from disk: a tree of `<kind>/<id>/target.json` folders, and the custom ones, a show's own
// `<show>/targets/<id>` and the settings' `<settings dir>/targets/<id>`, merged over the shipped targets it is handed
// (no shadowing; a show's own wins over the settings').
import type { Dirent } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { studioDataDir } from "../config/home.ts";
import { StudioError } from "../errors.ts";
import { folderFence, readShowDirents, readShowText } from "../paths/guarded.ts";
import { errorCode, errorMessage } from "../store/json-guards.ts";
import {
  parseTarget,
  registryView,
  TARGET_KINDS,
  TargetError,
  type TargetRegistryView,
  type TargetSpec,
} from "./registry.ts";

// How a folder is listed and a file read: plainly for a tree of the service's own, through the guarded door for a
// show's own.
interface TreeReader {
  dirents(dir: string): Promise<Dirent[]>;
  text(file: string): Promise<string>;
}

const PLAIN_READER: TreeReader = {
  dirents: (dir) => readdir(dir, { withFileTypes: true }),
  text: (file) => readFile(file, "utf8"),
};

async function listDirs(dir: string, reader: TreeReader): Promise<string[]> {
  try {
    const entries = await reader.dirents(dir);
    return entries
      .filter((e) => e.isDirectory() && !e.name.startsWith(".") && !e.name.startsWith("_"))
      .map((e) => e.name)
      .sort();
  } catch (err) {
    if (errorCode(err) === "ENOENT") return [];
    throw err;
  }
}

async function readTargetFile(
  file: string,
  folderId: string,
  reader: TreeReader,
): Promise<unknown | undefined> {
  let text: string;
  try {
    text = await reader.text(file);
  } catch (err) {
    if (errorCode(err) === "ENOENT") return undefined;
    throw err;
  }
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (err) {
    throw new TargetError(
      `target ${folderId}: target.json is not valid JSON (${errorMessage(err)})`,
      folderId,
    );
  }
}

/** Load every `<root>/<kind>/<id>/target.json`, kinds in the order video, image, audio, folders sorted by name. */
export async function loadTargetTree(root: string): Promise<TargetSpec[]> {
  const out: TargetSpec[] = [];
  for (const kind of TARGET_KINDS) {
    const dir = path.join(root, kind);
    const ids = await listDirs(dir, PLAIN_READER);
    const specs = await Promise.all(
      ids.map(async (id) => {
        const raw = await readTargetFile(path.join(dir, id, "target.json"), id, PLAIN_READER);
        return raw === undefined ? undefined : parseTarget(raw, id, kind);
      }),
    );
    for (const s of specs) if (s) out.push(s);
  }
  return out;
}

/** Custom targets of one folder (`<root>/targets/<id>/target.json`), ids of `base` ignored, broken files reported. */
async function loadCustomTargets(
  base: TargetRegistryView,
  root: string,
  reader: TreeReader,
  scope: "show" | "settings",
): Promise<{ targets: TargetSpec[]; errors: string[] }> {
  const dir = path.join(root, "targets");
  const ids = await listDirs(dir, reader);
  const targets: TargetSpec[] = [];
  const errors: string[] = [];
  await Promise.all(
    ids.map(async (id) => {
      if (base.get(id)) return;
      try {
        const raw = await readTargetFile(path.join(dir, id, "target.json"), id, reader);
        if (raw === undefined) return;
        const spec = parseTarget(raw, id, undefined, true);
        targets.push({ ...spec, scope, dir: path.join(dir, id) });
      } catch (err) {
        errors.push(errorMessage(err));
      }
    }),
  );
  targets.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  errors.sort();
  return { targets, errors };
}

/**
 * A show's own targets (`<show>/targets/<id>/target.json`, kind read from the file). An id of `base` (the shipped
 * targets) is ignored (no shadowing); a broken file is reported in `errors` and skipped so it cannot stop a build.
 * `showDir` is a checked real folder: a targets/ folder that leads out of it is refused (403), and a target.json
 * that does is reported and skipped, never read.
 */
export async function loadShowTargets(
  base: TargetRegistryView,
  showDir: string,
): Promise<{ targets: TargetSpec[]; errors: string[] }> {
  const fence = folderFence(showDir, "the show folder");
  const reader: TreeReader = {
    dirents: (d) => readShowDirents(fence, d),
    text: (f) => readShowText(fence, f),
  };
  return loadCustomTargets(base, showDir, reader, "show");
}

/**
 * The settings' targets (`<settings dir>/targets/<id>/target.json`, beside settings.json): every show's. The
 * settings folder is the service's own, read plainly; ids of `base` are ignored and broken files reported.
 */
export function loadSettingsTargets(
  base: TargetRegistryView,
  settingsDir: string,
): Promise<{ targets: TargetSpec[]; errors: string[] }> {
  return loadCustomTargets(base, settingsDir, PLAIN_READER, "settings");
}

/** The folder whose targets/ every show shares (beside settings.json); null for a service with no home of its own. */
export const settingsTargetsRoot = (services: { home: string }): string | null =>
  services.home ? studioDataDir(services.home) : null;

/** A custom target's folder (where its loader found it, else the show's); undefined for a shipped target. */
export function customTargetDir(spec: TargetSpec, showDir: string | null): string | undefined {
  if (!spec.custom) return undefined;
  return spec.dir ?? (showDir ? path.join(showDir, "targets", spec.id) : undefined);
}

/**
 * The shipped targets `base`, the show's own and the settings' (what a build of an episode of that show uses), as
 * one view: a show's own target wins over a settings' one of the same id, and neither shadows a shipped one. A show
 * whose targets/ leads out of its folder compiles without its own: a compile thread cannot carry the refusal's
 * status, and the listing of the show's targets refuses it.
 */
export async function targetsForShow(
  base: TargetRegistryView,
  showDir: string | null,
  settingsDir: string | null,
): Promise<TargetRegistryView> {
  const [own, shared] = await Promise.all([
    showDir
      ? loadShowTargets(base, showDir).catch((err: unknown) => {
          if (err instanceof StudioError && err.status === 403) return { targets: [] };
          throw err;
        })
      : { targets: [] },
    settingsDir ? loadSettingsTargets(base, settingsDir) : { targets: [] },
  ]);
  if (own.targets.length === 0 && shared.targets.length === 0) return base;
  const all: TargetSpec[] = [];
  for (const kind of TARGET_KINDS)
    for (const id of base.ids(kind)) {
      const spec = base.get(id);
      if (spec) all.push(spec);
    }
  // The view keeps the first of an id: the shipped, then the show's, then the settings'.
  return registryView([...all, ...own.targets, ...shared.targets]);
}
