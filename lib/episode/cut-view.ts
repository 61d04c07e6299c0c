// Which take each cut entry plays and what is around it: shot folders' takes (kept by the folder's mtime), the
// cut's pick, the moved-shot flags and each latent continuation's neighbour.
import { stat } from "node:fs/promises";
import type { Pass } from "../compile/types.ts";
import { cacheSlot, type WithCaches } from "../store/caches.ts";
import type { CutEntry } from "./cut.ts";
import type { ChainView } from "./staleness.ts";
import { listTakes, shotFolder, type TakeRecord, takeStatus, takeUsable } from "./takes.ts";

const NO_TAKES: readonly TakeRecord[] = Object.freeze([]);
interface Listed {
  key: string;
  takes: readonly TakeRecord[];
  racy: boolean;
  queued: boolean;
}
const TAKE_LISTS = cacheSlot("shot folders' takes", () => new Map<string, Listed>());
/** A folder changed this recently may change again within the same timestamp tick: list it again next time. */
const RACY_MS = 100;

const sameRecords = (a: readonly TakeRecord[], b: readonly TakeRecord[]) =>
  a.length === b.length &&
  a.every((t, i) => t.sidecar === b[i].sidecar && t.files.join("\n") === b[i].files.join("\n"));

/**
 * A shot folder's takes, kept by the folder's mtime: the service and the saver replace files by rename, which
 * moves it. Queued takes are re-read every time anyway, since they are the ones about to change. The same array
 * comes back while nothing changed, so callers may key their own caches on it.
 */
export async function folderTakes(
  services: WithCaches,
  ep: string,
  pass: Pass,
  shot: string,
): Promise<readonly TakeRecord[]> {
  const takeLists = services.caches.of(TAKE_LISTS);
  const dir = shotFolder(ep, pass, shot);
  // A plain stat (times as fractional milliseconds, to the microsecond) costs a third less than a bigint one,
  // and this runs once per shot on every listing.
  const st = await stat(dir).catch(() => null);
  if (!st?.isDirectory()) {
    takeLists.delete(dir);
    return NO_TAKES;
  }
  const key = `${st.mtimeMs}:${st.ctimeMs}:${st.ino}`;
  const hit = takeLists.get(dir);
  if (hit && hit.key === key && !hit.racy && !hit.queued) return hit.takes;
  const racy = Date.now() - st.mtimeMs < RACY_MS;
  const takes = await listTakes(services, ep, pass, shot);
  const queued = takes.some((t) => takeStatus(t) === "queued");
  if (hit && sameRecords(hit.takes, takes)) {
    Object.assign(hit, { key, racy, queued });
    return hit.takes;
  }
  takeLists.set(dir, { key, takes, racy, queued });
  return takes;
}

// ------------------------------------------------------------------------------------------- the cut

export interface CutPick {
  /** The take the entry plays: the picked one, else the latest usable one. */
  take: TakeRecord | null;
  number: number | null;
  /** The pass that take belongs to (the other one for a placeholder). */
  pass: Pass;
  usable: boolean;
}

/** Which take a cut entry plays, from the takes of the pass it names. */
export function cutPick(entry: CutEntry, listPass: Pass, takes: readonly TakeRecord[]): CutPick {
  const pass = entry.pass ?? listPass;
  if (entry.take !== undefined) {
    const t = takes.find((x) => x.take === entry.take) ?? null;
    return { take: t, number: entry.take, pass, usable: t !== null && takeUsable(t) };
  }
  for (let i = takes.length - 1; i >= 0; i--) {
    if (takeUsable(takes[i])) return { take: takes[i], number: takes[i].take, pass, usable: true };
  }
  return { take: null, number: null, pass, usable: false };
}

/**
 * Which cut entries are off the script's order: those outside the longest run that is in script order, so
 * moving one shot flags that shot only. Orphans (null) are never flagged.
 */
export function outOfOrder(scriptIndex: readonly (number | null)[]): boolean[] {
  const items: { at: number; v: number }[] = [];
  scriptIndex.forEach((v, at) => {
    if (v !== null) items.push({ at, v });
  });
  const tails: number[] = [];
  const tailAt: number[] = [];
  const prev = new Array<number>(items.length).fill(-1);
  items.forEach((it, k) => {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (tails[mid] < it.v) lo = mid + 1;
      else hi = mid;
    }
    prev[k] = lo > 0 ? tailAt[lo - 1] : -1;
    tails[lo] = it.v;
    tailAt[lo] = k;
  });
  const keep = new Set<number>();
  for (let k = tailAt.length ? tailAt[tailAt.length - 1] : -1; k >= 0; k = prev[k]) keep.add(items[k].at);
  return scriptIndex.map((v, at) => v !== null && !keep.has(at));
}

export const NO_CHAIN: ChainView = { prevShot: null, prevTake: null, prevPass: null, prevFinished: null };

/** The chain view a shot gets when `e`, playing `pick`, is the shot before it. */
export function chainAfter(e: CutEntry, pick: CutPick): ChainView {
  const finished = pick.take?.sidecar?.finished;
  return {
    prevShot: e.shot,
    prevTake: pick.number,
    prevPass: pick.pass,
    prevFinished: typeof finished === "string" ? finished : null,
  };
}

/** Each entry's previous shot in the cut (orphans and `out` entries skipped) and the take playing there. */
export function chainViews(
  cut: readonly CutEntry[],
  picks: readonly CutPick[],
  isOrphan: (shot: string) => boolean,
): ChainView[] {
  const out: ChainView[] = [];
  let prev: ChainView = NO_CHAIN;
  cut.forEach((e, i) => {
    out.push(prev);
    if (!isOrphan(e.shot) && !e.out) prev = chainAfter(e, picks[i]);
  });
  return out;
}
