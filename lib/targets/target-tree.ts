// Targets read from disk: a tree of `<kind>/<id>/target.json` folders, and a show's own `<show>/targets/<id>`
// merged over the shipped targets it is handed (no shadowing).
import type { Dirent } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
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
  const dir = path.join(showDir, "targets");
  const ids = await listDirs(dir, reader);
  const targets: TargetSpec[] = [];
  const errors: string[] = [];
  await Promise.all(
    ids.map(async (id) => {
      if (base.get(id)) return;
      try {
        const raw = await readTargetFile(path.join(dir, id, "target.json"), id, reader);
        if (raw !== undefined) targets.push(parseTarget(raw, id, undefined, true));
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
 * The shipped targets `base` plus the show's own, as one view (what a build of an episode of that show uses). A
 * show whose targets/ leads out of its folder compiles with the shipped targets only: a compile thread cannot carry
 * the refusal's status, and the listing of the show's targets refuses it.
 */
export async function targetsForShow(
  base: TargetRegistryView,
  showDir: string | null,
): Promise<TargetRegistryView> {
  if (!showDir) return base;
  const { targets } = await loadShowTargets(base, showDir).catch((err: unknown) => {
    if (err instanceof StudioError && err.status === 403) return { targets: [] };
    throw err;
  });
  if (targets.length === 0) return base;
  const all: TargetSpec[] = [];
  for (const kind of TARGET_KINDS)
    for (const id of base.ids(kind)) {
      const spec = base.get(id);
      if (spec) all.push(spec);
    }
  return registryView([...all, ...targets]);
}
