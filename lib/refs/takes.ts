// A reference's candidates on disk: listing `refs/_takes/<key>/` (one folder read, sidecars from the JSON cache),
// reserving take numbers that are never reused (the trash counts), and adding a finished take (media file in
// place first under a temporary name, then the sidecar, both atomic), all under the ref home's lock.
import { copyFile, rm } from "node:fs/promises";
import path from "node:path";
import type { Services } from "../context.ts";
import { StudioError } from "../errors.ts";
import {
  type Fence,
  guardPath,
  listShowFiles,
  mkdirShow,
  readListedJson,
  readShowDirents,
  renameShow,
  writeShowFile,
} from "../paths/guarded.ts";
import { sidecarText } from "../render/sidecar.ts";
import { syncFile, syncFolder } from "../store/atomic.ts";
import { forgetJsonFile } from "../store/json-file.ts";
import { objectOr } from "../store/json-guards.ts";
import { withLock } from "../store/lock.ts";
import { tempPath } from "../store/temp-names.ts";
import { type RefId, type RefView, readTakeStem, takeStem } from "./ids.ts";
import { homeOf, type RefsPlace, takesDir, takesFence, trashDir } from "./place.ts";
import { mediaKindOf, type RefTakeRecord, type RefTakeStatus, refTakeRecord } from "./take-record.ts";

export interface RefTake {
  view: RefView | null;
  take: number;
  /** `<key>[_<view>]_tNN` */
  stem: string;
  /** The sidecar as read (an empty record when only the media file is there). */
  sidecar: RefTakeRecord;
  /** The sidecar's absolute path. */
  sidecarPath: string;
  /** The sidecar file is there (a picture placed by hand has none). */
  hasSidecar: boolean;
  /** The picture or sound beside it (absolute), or null when there is none. */
  file: string | null;
  status: RefTakeStatus;
  /** Finished with its file present: it can be picked, copied, stitched. */
  usable: boolean;
}

type StoreServices = Pick<Services, "caches" | "locks">;

/** The lock every write of one ref home takes (candidates, picks, overrides, live files of its refs). */
export const refsLockKey = (place: RefsPlace, ref: Pick<RefId, "scope">) => `refs:${homeOf(place, ref)}`;

export function withRefsLock<T>(
  services: StoreServices,
  place: RefsPlace,
  ref: Pick<RefId, "scope">,
  work: () => Promise<T>,
): Promise<T> {
  return withLock(services, refsLockKey(place, ref), work);
}

/** Every take of the ref (all views), ordered by view then number. A missing folder has none. */
export async function listTakes(services: StoreServices, place: RefsPlace, ref: RefId): Promise<RefTake[]> {
  const dir = takesDir(place, ref);
  const listing = await listShowFiles(takesFence(place, ref), dir);
  if (!listing) return [];
  const media = new Map<string, string>();
  const sidecars = new Set<string>();
  for (const name of listing.files) {
    if (name.startsWith(".")) continue;
    const dot = name.lastIndexOf(".");
    if (dot <= 0) continue;
    const stem = name.slice(0, dot);
    if (name.endsWith(".json")) sidecars.add(stem);
    else if (mediaKindOf(name) !== null && !media.has(stem)) media.set(stem, name);
  }
  const stems = new Set([...sidecars, ...media.keys()]);
  const out: RefTake[] = [];
  for (const stem of stems) {
    const parsed = readTakeStem(ref.key, stem);
    if (!parsed) continue;
    const raw = sidecars.has(stem)
      ? await readListedJson(services, listing, `${stem}.json`, "a reference take sidecar")
      : undefined;
    const sidecar = refTakeRecord.parse(raw) ?? {};
    const named = typeof sidecar.image === "string" ? sidecar.image : sidecar.audio;
    const mediaName =
      typeof named === "string" && listing.files.includes(named) && !named.includes("/")
        ? named
        : media.get(stem);
    const file = mediaName ? path.join(listing.real, mediaName) : null;
    // A media file with no sidecar was placed by hand or outlived a crash: it counts as a finished take.
    const status: RefTakeStatus = raw === undefined ? "ok" : (sidecar.status ?? "failed");
    out.push({
      view: parsed.view,
      take: parsed.take,
      stem,
      sidecar,
      sidecarPath: path.join(listing.real, `${stem}.json`),
      hasSidecar: raw !== undefined,
      file,
      status,
      usable: status === "ok" && file !== null,
    });
  }
  out.sort((a, b) => viewOrder(a.view) - viewOrder(b.view) || a.take - b.take);
  return out;
}

const ORDER = ["01_threequarter", "02_side", "03_back", "04_face", "sheet", "pano", "tour"];
const viewOrder = (v: RefView | null) => (v === null ? -1 : ORDER.indexOf(v));

/** The take of one view and number, or null. */
export async function findTake(
  services: StoreServices,
  place: RefsPlace,
  ref: RefId,
  view: RefView | null,
  take: number,
): Promise<RefTake | null> {
  const takes = await listTakes(services, place, ref);
  return takes.find((t) => t.view === view && t.take === take) ?? null;
}

/** Highest take number of a view among names like `<key>[_<view>]_tNN.*` in a folder and its subfolders (trash). */
async function highestIn(fence: Fence, dir: string, key: string, view: RefView | null, depth: number) {
  let high = 0;
  const entries = await readShowDirents(fence, dir).catch(() => []);
  for (const e of entries) {
    if (e.isDirectory()) {
      if (depth > 0)
        high = Math.max(high, await highestIn(fence, path.join(dir, e.name), key, view, depth - 1));
      continue;
    }
    const dot = e.name.lastIndexOf(".");
    const parsed = dot > 0 ? readTakeStem(key, e.name.slice(0, dot)) : null;
    if (parsed && parsed.view === view) high = Math.max(high, parsed.take);
  }
  return high;
}

/** The next number for a view: one past every number ever given, in the takes folder and in its trash. */
export async function nextTakeNumber(place: RefsPlace, ref: RefId, view: RefView | null): Promise<number> {
  const fence = takesFence(place, ref);
  const [live, trashed] = await Promise.all([
    highestIn(fence, takesDir(place, ref), ref.key, view, 0),
    highestIn(fence, trashDir(place, ref), ref.key, view, 1),
  ]);
  return Math.max(live, trashed) + 1;
}

export interface NewTake {
  view: RefView | null;
  /** The file's extension without the dot, lower case (`png`, `wav`). */
  ext: string;
  /** Fills the take's media file, given its temporary absolute path in the takes folder. */
  write(tmp: string): Promise<void>;
  /** Sidecar fields besides those the store sets (version, ref, view, take, ep, status, finished, image|audio). */
  fields: Record<string, unknown>;
}

/**
 * Adds a finished take: the media lands under a temporary name, then is renamed to `<stem>.<ext>`, then the
 * sidecar is written; the number is taken under the lock so two adds never share one. A crash leaves either a
 * temporary (swept as a leftover) or a media file that lists as a finished take.
 */
export async function addTake(
  services: StoreServices & Pick<Services, "now">,
  place: RefsPlace,
  ref: RefId,
  input: NewTake,
): Promise<RefTake> {
  const fence = takesFence(place, ref);
  const dir = await mkdirShow(fence, takesDir(place, ref));
  const kind = mediaKindOf(`x.${input.ext}`);
  if (kind === null)
    throw new StudioError(400, `.${input.ext} is not a picture or sound a reference can hold`);
  // Filled outside the lock (a copy or an upload can take a while), named for this process so a crash is swept.
  const tmp = tempPath(path.join(dir, `incoming.${input.ext}`), `.${input.ext}`);
  try {
    await input.write(tmp);
    await syncFile(tmp);
    return await withRefsLock(services, place, ref, async () => {
      const take = await nextTakeNumber(place, ref, input.view);
      const stem = takeStem(ref.key, input.view, take);
      const name = `${stem}.${input.ext}`;
      await renameShow(fence, tmp, path.join(dir, name));
      await syncFolder(dir);
      const sidecarPath = path.join(dir, `${stem}.json`);
      const now = services.now().toISOString();
      const record: Record<string, unknown> = {
        version: 1,
        ref: ref.id,
        view: input.view,
        take,
        ep: place.ep,
        status: "ok",
        queued: now,
        ...input.fields,
        [kind]: name,
        finished: now,
      };
      await writeShowFile(fence, sidecarPath, sidecarText(record));
      forgetJsonFile(services, sidecarPath);
      const sidecar = refTakeRecord.parse(record) ?? {};
      return {
        view: input.view,
        take,
        stem,
        sidecar,
        sidecarPath,
        hasSidecar: true,
        file: path.join(dir, name),
        status: "ok",
        usable: true,
      } satisfies RefTake;
    });
  } finally {
    await rm(tmp, { force: true });
  }
}

/** A take's media filled by copying a checked file. */
export function copyFrom(fence: Fence, source: string): (tmp: string) => Promise<void> {
  return async (tmp) => {
    const real = await guardPath(fence, source);
    await copyFile(real, tmp);
  };
}

/** Rewrites a take's sidecar with `change` applied, under the lock (status updates, sweep). */
export async function updateTake(
  services: StoreServices,
  place: RefsPlace,
  ref: RefId,
  take: RefTake,
  change: (record: Record<string, unknown>) => Record<string, unknown>,
): Promise<void> {
  const fence = takesFence(place, ref);
  await withRefsLock(services, place, ref, async () => {
    const listing = await listShowFiles(fence, path.dirname(take.sidecarPath));
    const raw = listing
      ? await readListedJson(services, listing, `${take.stem}.json`, "a reference take sidecar")
      : undefined;
    const base = objectOr(raw);
    // Seeds read back as bigints (integer literals) and are written the same way.
    await writeShowFile(fence, take.sidecarPath, sidecarText(change({ ...base })));
    forgetJsonFile(services, take.sidecarPath);
  });
}
