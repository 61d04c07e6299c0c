// Discarding a video take: its files move to `renders[_proxy]/_trash/<shot>/`
// and every cut entry playing it, in either pass, loses its pick. Numbers are never given out again.
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { conflict, notFound } from "../errors.ts";
import {
  episodeFence,
  type Fence,
  guardPath,
  mkdirShow,
  readShowDir,
  renameShow,
  statShowOrNull,
} from "../paths/guarded.ts";
import { errorCode, isObject } from "../store/json-guards.ts";
import { withLock } from "../store/lock.ts";
import { PASSES, readCutFile, writeCut } from "./cut.ts";
import { historyStamp } from "./history.ts";
import { listTakes, passFolder, safeShot, shotFolder, type TakeRecord, takeStatus } from "./takes.ts";

export interface DiscardAnswer {
  shot: string;
  take: number;
  pass: Pass;
  /** New places of the moved files, relative to the episode. */
  moved: string[];
  cut_changed: boolean;
}

/** Sidecar fields that name an output file of the take (beside the sidecar). */
const NAMED_FILES = ["mp4", "thumb", "strip", "latent", "wav", "audio_file"];
/** Roles of sidecar `refs` that are files composed for this take alone. */
const OWN_REF_ROLES = new Set(["sheet", "reference", "audio"]);

export const trashFolder = (ep: string, pass: Pass, shot: string) =>
  path.join(ep, passFolder(pass), "_trash", safeShot(shot));

export function discardTake(
  services: Pick<Services, "caches" | "locks">,
  ep: string,
  pass: Pass,
  shot: string,
  take: number,
  now: Date,
): Promise<DiscardAnswer> {
  return withLock(services, ep, async () => {
    const record = (await listTakes(services, ep, pass, shot)).find((t) => t.take === take);
    if (!record) throw notFound(`${shot} has no ${pass} take ${take}`);
    if (takeStatus(record) === "queued") {
      throw conflict(`${shot} ${pass} take ${take} is still queued: cancel it first`);
    }
    // Takes and trash move only inside the episode: a renders folder linked out of it is refused (403).
    const fence = episodeFence(ep);
    const dir = shotFolder(ep, pass, shot);
    const files = await takeFiles(fence, ep, dir, record);
    const trash = await trashTarget(fence, trashFolder(ep, pass, shot), files, now);
    const moved: string[] = [];
    for (const rel of files) {
      const to = path.join(trash, rel);
      await mkdirShow(fence, path.dirname(to));
      await renameShow(fence, path.join(dir, rel), to);
      moved.push(path.relative(ep, to).split(path.sep).join("/"));
    }
    return { shot, take, pass, moved, cut_changed: await dropPicks(services, ep, pass, shot, take, now) };
  });
}

/**
 * The take's files, relative to the shot folder: every name sharing the stem, the files its sidecar names when
 * they sit in the shot folder, and frames kept under `frames/`.
 */
async function takeFiles(fence: Fence, ep: string, dir: string, t: TakeRecord): Promise<string[]> {
  const files = new Set(t.files);
  const named: unknown[] = NAMED_FILES.map((k) => t.sidecar?.[k]);
  for (const r of t.sidecar?.refs ?? []) if (OWN_REF_ROLES.has(String(r.role))) named.push(r.path);
  for (const n of named) {
    if (typeof n !== "string" || n === "") continue;
    // A bare name sits beside the sidecar; a path is relative to the episode. Only the shot folder's own files move.
    const full = path.basename(n) === n ? path.join(dir, n) : path.resolve(ep, n);
    if (path.dirname(full) !== dir) continue;
    if ((await statShowOrNull(fence, full).catch(() => null))?.isFile()) files.add(path.basename(full));
  }
  const frames = await readShowDir(fence, path.join(dir, "frames")).catch((): string[] => []);
  for (const name of frames) if (name.startsWith(`${t.stem}_`)) files.add(`frames/${name}`);
  return [...files].sort();
}

/** `_trash/<shot>/`, or a fresh `<YYYYmmdd-HHMMSS>[-n]/` inside it when any of the names is already there. */
export async function trashTarget(
  fence: Fence,
  base: string,
  files: readonly string[],
  now: Date,
): Promise<string> {
  await mkdirShow(fence, base);
  const taken = await Promise.all(
    files.map(async (f) => (await statShowOrNull(fence, path.join(base, f)).catch(() => null)) !== null),
  );
  if (!taken.some(Boolean)) return base;
  const stamp = historyStamp(now);
  for (let n = 1; ; n++) {
    const dir = path.join(base, n === 1 ? stamp : `${stamp}-${n}`);
    try {
      // A non-recursive mkdir claims the name, so two discards in one second get -2, -3.
      await mkdir(await guardPath(fence, dir));
      return dir;
    } catch (err) {
      if (errorCode(err) !== "EEXIST") throw err;
    }
  }
}

// Entries of either pass that play this take (a final-cut placeholder of a proxy take counts) lose their `take`.
async function dropPicks(
  services: Pick<Services, "caches">,
  ep: string,
  pass: Pass,
  shot: string,
  take: number,
  now: Date,
): Promise<boolean> {
  const stored = await readCutFile(ep);
  if (stored.bytes === null) return false;
  const file = structuredClone(stored.file);
  let changed = false;
  for (const listPass of PASSES) {
    const list = file[listPass];
    for (const entry of list ?? []) {
      if (!isObject(entry)) continue;
      if (entry.shot === shot && entry.take === take && (entry.pass ?? listPass) === pass) {
        delete entry.take;
        changed = true;
      }
    }
  }
  if (!changed) return false;
  await writeCut(services, ep, stored, file, now);
  return true;
}
