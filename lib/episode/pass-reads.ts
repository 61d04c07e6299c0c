// One request's reads of an episode pass: its build and its shot folders' takes, each read once however many
// parts of the answer ask (GET /studio/episode's sweep of dead takes, then its status). A shot whose folder the
// pass folder does not hold has no takes, without a failing stat of its own.
import { stat } from "node:fs/promises";
import path from "node:path";
import type { Pass } from "../compile/types.ts";
import { StudioError } from "../errors.ts";
import { episodeFence, readShowDir } from "../paths/guarded.ts";
import { cacheSlot, type WithCaches } from "../store/caches.ts";
import { RACY_FOLDER_MS } from "../store/json-file.ts";
import { folderTakes } from "./cut-view.ts";
import { type Build, readBuild } from "./shotlists.ts";
import { passFolder, safeShot, type TakeRecord } from "./takes.ts";

export interface PassReads {
  /** The pass's build, or null when it has none. */
  build(): Promise<Build | null>;
  /** A shot folder's takes of either pass (a placeholder or a sound source may name the other). */
  takes(pass: Pass, shot: string): Promise<readonly TakeRecord[]>;
}

const NO_TAKES: readonly TakeRecord[] = Object.freeze([]);

// A pass folder's entry names while its mtime holds: a shot folder made, removed or swapped changes it.
const PASS_FOLDERS = cacheSlot(
  "pass folders' names",
  () => new Map<string, { key: string; names: Set<string> }>(),
);
const MAX_PASS_FOLDERS = 64;

/**
 * The names in the episode's pass folder (empty when there is none), or null when they cannot be listed through
 * the door (a folder linked out): then each shot folder is asked, and refused, as before.
 */
async function passFolderNames(services: WithCaches, ep: string, pass: Pass): Promise<Set<string> | null> {
  const kept = services.caches.of(PASS_FOLDERS);
  const dir = path.join(ep, passFolder(pass));
  const st = await stat(dir).catch(() => null);
  if (!st?.isDirectory()) {
    kept.delete(dir);
    return st ? null : new Set();
  }
  const key = `${st.mtimeMs}:${st.ctimeMs}:${st.ino}`;
  const hit = kept.get(dir);
  if (hit?.key === key) return hit.names;
  let names: Set<string>;
  try {
    names = new Set(await readShowDir(episodeFence(ep), dir));
  } catch (err) {
    if (err instanceof StudioError) return null;
    throw err;
  }
  // A folder changed moments ago may change again within the same timestamp tick: listed again next time.
  if (Date.now() - st.mtimeMs >= RACY_FOLDER_MS) {
    if (kept.size >= MAX_PASS_FOLDERS) kept.clear();
    kept.set(dir, { key, names });
  }
  return names;
}

/** Reads made on first ask and shared after; make new ones once something was written. */
export function passReads(services: WithCaches, ep: string, pass: Pass): PassReads {
  let build: Promise<Build | null> | undefined;
  const folders = new Map<Pass, Promise<Set<string> | null>>();
  const lists = new Map<string, Promise<readonly TakeRecord[]>>();
  const namesOf = (p: Pass) => {
    let names = folders.get(p);
    if (!names) {
      names = passFolderNames(services, ep, p);
      folders.set(p, names);
    }
    return names;
  };
  return {
    build() {
      build ??= readBuild(services, ep, pass);
      return build;
    },
    takes(p, shot) {
      const key = `${p}\0${shot}`;
      let list = lists.get(key);
      if (!list) {
        list = namesOf(p).then((names) =>
          names && !names.has(safeShot(shot)) ? NO_TAKES : folderTakes(services, ep, p, shot),
        );
        lists.set(key, list);
      }
      return list;
    },
  };
}
