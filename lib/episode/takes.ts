// Takes on disk: a shot's `renders[_proxy]/<shot>/` folder read into one record per take number.
import { stat } from "node:fs/promises";
import path from "node:path";
import type { Pass } from "../compile/types.ts";
import { StudioError } from "../errors.ts";
import {
  episodeFence,
  type Fence,
  guardPath,
  listShowFiles,
  readListedJson,
  readShowDirents,
  type ShowListing,
} from "../paths/guarded.ts";
import { parseSidecar, type Sidecar, UNREADABLE_SIDECAR } from "../render/sidecar-record.ts";
import { cacheSlot, type WithCaches } from "../store/caches.ts";

export type TakeStatus = "queued" | "ok" | "failed";

export interface TakeRecord {
  take: number;
  /** `<safe shot>_tNN`. */
  stem: string;
  /** The sidecar as stored (shared with the cache: do not mutate), or null for a take from before sidecars. */
  sidecar: Sidecar | null;
  /** Names in the shot folder that share the stem (the sidecar included). */
  files: string[];
}

/** The shot id made file-safe, as folder and file names use it. */
export const safeShot = (shot: string) => shot.replace(/[^A-Za-z0-9_.-]/g, "_");
export const passFolder = (pass: Pass) => (pass === "final" ? "renders" : "renders_proxy");
export const shotFolder = (ep: string, pass: Pass, shot: string) =>
  path.join(ep, passFolder(pass), safeShot(shot));
export const takeStem = (shot: string, take: number) => `${safeShot(shot)}_t${String(take).padStart(2, "0")}`;

const LISTINGS = cacheSlot(
  "take folder listings",
  () => new Map<string, { key: string; listing: ShowListing }>(),
);

/** Every take of the shot in the pass, by number. Reads only sidecars that changed since the last call. */
export async function listTakes(
  services: WithCaches,
  ep: string,
  pass: Pass,
  shot: string,
): Promise<TakeRecord[]> {
  const listing = await folderListing(services, episodeFence(ep), shotFolder(ep, pass, shot));
  if (listing === null) return [];
  const names = listing.files;
  const prefix = `${safeShot(shot)}_t`;
  const byTake = new Map<number, string[]>();
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const m = /^(\d{2,})/.exec(name.slice(prefix.length));
    if (!m) continue;
    const take = Number(m[1]);
    const list = byTake.get(take) ?? [];
    list.push(name);
    byTake.set(take, list);
  }
  const records = await Promise.all(
    [...byTake.entries()].map(async ([take, files]): Promise<TakeRecord | null> => {
      const stem = `${prefix}${files[0].slice(prefix.length).match(/^\d+/)![0]}`;
      const own = files.filter((f) => f === stem || f.startsWith(`${stem}.`) || f.startsWith(`${stem}_`));
      const sidecarName = `${stem}.json`;
      let sidecar: Sidecar | null = null;
      if (own.includes(sidecarName)) sidecar = await readSidecar(services, listing, sidecarName);
      else if (!own.includes(`${stem}.mp4`)) return null;
      return { take, stem, sidecar, files: own.sort() };
    }),
  );
  return records.filter((r): r is TakeRecord => r !== null).sort((a, b) => a.take - b.take);
}

// A folder's regular files, cached by its mtime: an atomic write renames into the folder, and swapping a file
// for a link changes the folder too, which moves the mtime. A renders folder that is a link leading out of the
// episode is refused (403), never listed.
async function folderListing(services: WithCaches, fence: Fence, dir: string): Promise<ShowListing | null> {
  const listCache = services.caches.of(LISTINGS);
  const real = await guardPath(fence, dir);
  const st = await stat(real).catch(() => null);
  if (!st?.isDirectory()) return null;
  const key = `${real}:${st.mtimeMs}:${st.ctimeMs}`;
  const hit = listCache.get(dir);
  if (hit && hit.key === key) return hit.listing;
  const listing = await listShowFiles(fence, dir);
  if (listing === null) return null;
  listCache.set(dir, { key, listing });
  return listing;
}

// Parsed once per change of the file: the JSON cache hands out the same value until then.
async function readSidecar(services: WithCaches, listing: ShowListing, name: string): Promise<Sidecar> {
  try {
    return parseSidecar(await readListedJson(services, listing, name, "take sidecar"));
  } catch (err) {
    if (!(err instanceof StudioError)) throw err;
  }
  // An unparsable sidecar reads as a queued take, so it is never mistaken for a finished one.
  return UNREADABLE_SIDECAR;
}

/** `queued`, `ok` or `failed`; without a sidecar a take is ok when its mp4 exists. */
export function takeStatus(t: TakeRecord): TakeStatus {
  const s = t.sidecar?.status;
  if (s === "queued" || s === "ok" || s === "failed") return s;
  if (t.sidecar === null) return t.files.includes(`${t.stem}.mp4`) ? "ok" : "failed";
  return "failed";
}

export const hasVideo = (t: TakeRecord) => t.files.includes(`${t.stem}.mp4`);

/** A take the cut may play: finished well and its mp4 is there. */
export const takeUsable = (t: TakeRecord) => takeStatus(t) === "ok" && hasVideo(t);

/** The newest usable take, or null. */
export function latestUsable(takes: readonly TakeRecord[]): TakeRecord | null {
  for (let i = takes.length - 1; i >= 0; i--) if (takeUsable(takes[i])) return takes[i];
  return null;
}

/** The next free take number: trashed takes count too, so a number is never reused. */
export async function nextTakeNumber(ep: string, pass: Pass, shot: string): Promise<number> {
  const prefix = `${safeShot(shot)}_t`;
  let max = 0;
  const fence = episodeFence(ep);
  const scan = async (dir: string, depth: number): Promise<void> => {
    const entries = await readShowDirents(fence, dir).catch(() => []);
    for (const e of entries) {
      if (e.isDirectory() && depth > 0) await scan(path.join(dir, e.name), depth - 1);
      else if (e.name.startsWith(prefix)) {
        const m = /^(\d{2,})/.exec(e.name.slice(prefix.length));
        if (m) max = Math.max(max, Number(m[1]));
      }
    }
  };
  await scan(shotFolder(ep, pass, shot), 0);
  // Trash: `_trash/<shot>/` and its timestamped subfolders.
  await scan(path.join(ep, passFolder(pass), "_trash", safeShot(shot)), 1);
  return max + 1;
}
