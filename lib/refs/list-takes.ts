// A reference's candidates as the listing shows them, kept per takes folder: every write of a candidate is an
// atomic rename into `refs/_takes/<key>/`, which moves the folder's mtime, so while the folder (and a location's
// `_tours/`) is unchanged one stat stands in for the folder read and every sidecar read behind it.
import type { BigIntStats } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import type { Services } from "../context.ts";
import { listShowFiles, readListedJson, readShowDirents } from "../paths/guarded.ts";
import { cacheSlot } from "../store/caches.ts";
import { RACY_FOLDER_MS } from "../store/json-file.ts";
import { isObject, type JsonObject } from "../store/json-guards.ts";
import type { RefId } from "./ids.ts";
import { type RefsPlace, takesDir, takesFence } from "./place.ts";
import { mediaKindOf } from "./take-record.ts";
import { listTakes, type RefTake } from "./takes.ts";

/** A camera tour of a location as listed: its sidecar's state and the holds it gave. */
export interface ListedTour {
  tour: number;
  status: string;
  move: string | null;
  holds: number[];
  error: string | null;
  /** The tour's video, episode-relative (null until it is made): the page scrubs it to add a frame. */
  video: string | null;
  /** Its length as asked, its frame rate and (once made) its frame count. */
  seconds: number | null;
  fps: number | null;
  frames: number | null;
}

export interface ListedTakes {
  takes: readonly RefTake[];
  /** The wire form of each take, in the same order (paths relative to the episode). */
  wire: readonly JsonObject[];
  tours: readonly ListedTour[];
}

type ListServices = Pick<Services, "caches" | "locks">;

const HELD = cacheSlot(
  "reference take listings",
  () => new Map<string, { key: string; listed: ListedTakes }>(),
);

const folderKey = (st: BigIntStats | null) => (st ? `${st.ino}:${st.mtimeNs}:${st.ctimeNs}` : "-");
const racy = (st: BigIntStats | null) =>
  st !== null && Date.now() - Number(st.mtimeNs / 1_000_000n) < RACY_FOLDER_MS;

const FOLDERS = cacheSlot(
  "reference takes folders",
  () => new Map<string, { key: string; names: Set<string> }>(),
);

/**
 * The takes folders under each `refs/_takes/` one listing looks in: the parent's folder names are read once per
 * listing (and again only when the parent changed), so a reference with no candidates yet (most keyframes) costs
 * no failed stat of its own.
 */
export class TakesFolders {
  private readonly parents = new Map<string, Promise<ReadonlySet<string>>>();
  private readonly services: ListServices;

  constructor(services: ListServices) {
    this.services = services;
  }

  /** False when the ref's takes folder is surely not there. */
  async mayExist(place: RefsPlace, ref: RefId): Promise<boolean> {
    const parent = path.dirname(takesDir(place, ref));
    let names = this.parents.get(parent);
    if (!names) {
      names = this.names(place, ref, parent);
      this.parents.set(parent, names);
    }
    return (await names).has(ref.key);
  }

  private async names(place: RefsPlace, ref: RefId, parent: string): Promise<ReadonlySet<string>> {
    const folders = this.services.caches.of(FOLDERS);
    const st = await stat(parent, { bigint: true }).catch(() => null);
    if (!st?.isDirectory()) {
      folders.delete(parent);
      return new Set();
    }
    const key = folderKey(st);
    const hit = folders.get(parent);
    if (hit && hit.key === key) return hit.names;
    const entries = await readShowDirents(takesFence(place, ref), parent).catch(() => []);
    const names = new Set(entries.filter((e) => e.isDirectory()).map((e) => e.name));
    if (!racy(st)) {
      if (folders.size > 5000) folders.clear();
      folders.set(parent, { key, names });
    }
    return names;
  }
}

/**
 * The ref's candidates (every view, nothing from the trash), read again only when its folder changed. `folders`
 * (one per listing) skips the stat of a folder its parent does not hold.
 */
export async function listedTakes(
  services: ListServices,
  place: RefsPlace,
  ref: RefId,
  folders?: TakesFolders,
): Promise<ListedTakes> {
  const dir = takesDir(place, ref);
  const toursDir = path.join(dir, "_tours");
  const withTours = ref.family === "location";
  const there = folders ? await folders.mayExist(place, ref) : true;
  const [st, toursSt] = there
    ? await Promise.all([
        stat(dir, { bigint: true }).catch(() => null),
        withTours ? stat(toursDir, { bigint: true }).catch(() => null) : null,
      ])
    : [null, null];
  const key = `${place.ep}\0${folderKey(st)}\0${folderKey(toursSt)}`;
  const held = services.caches.of(HELD);
  const hit = held.get(dir);
  if (hit && hit.key === key) return hit.listed;
  const takes = st?.isDirectory() ? await listTakes(services, place, ref) : [];
  const rel = (abs: string) => path.relative(place.ep, abs).split(path.sep).join("/");
  const tours = toursSt?.isDirectory() ? await readTours(services, place, ref, toursDir, rel) : [];
  const listed: ListedTakes = { takes, wire: takes.map((t) => wireTake(t, rel)), tours };
  if (!racy(st) && !racy(toursSt)) {
    if (held.size > 5000) held.clear();
    held.set(dir, { key, listed });
  }
  return listed;
}

async function readTours(
  services: ListServices,
  place: RefsPlace,
  ref: RefId,
  dir: string,
  rel: (abs: string) => string,
): Promise<ListedTour[]> {
  const listing = await listShowFiles(takesFence(place, ref), dir).catch(() => null);
  if (!listing) return [];
  const out: ListedTour[] = [];
  for (const name of listing.files) {
    const m = /^tour_t(\d{2,})\.json$/.exec(name);
    if (!m) continue;
    const raw = await readListedJson(services, listing, name, "a tour sidecar").catch(() => undefined);
    const record = isObject(raw) ? raw : {};
    out.push({
      tour: typeof record.tour === "number" ? record.tour : Number(m[1]),
      status: typeof record.status === "string" ? record.status : "failed",
      move: typeof record.move === "string" ? record.move : null,
      holds: Array.isArray(record.holds)
        ? record.holds.filter((h): h is number => typeof h === "number")
        : [],
      error: typeof record.error === "string" ? record.error : null,
      // Only a name the tour job writes is trusted, and only when that file is in the folder.
      video:
        typeof record.video === "string" &&
        /^tour_t\d{2,}\.mp4$/.test(record.video) &&
        listing.files.includes(record.video)
          ? rel(path.join(dir, record.video))
          : null,
      seconds: typeof record.seconds === "number" ? record.seconds : null,
      fps: typeof record.fps === "number" ? record.fps : null,
      frames: typeof record.frames === "number" ? record.frames : null,
    });
  }
  return out.sort((a, b) => a.tour - b.tour);
}

const orNull = (v: unknown) => (v === undefined ? null : v);

/**
 * Where a frame cut or a voice clip came from: the sidecar's `from`, else its `source_*` fields (a clip's span as
 * `start`/`end`, a frame's index as `frame`/`frames`); null for other takes.
 */
function fromOf(s: RefTake["sidecar"]): JsonObject | null {
  if (s.source === "from_take" && s.source_start !== undefined) {
    return {
      shot: orNull(s.source_shot),
      take: orNull(s.source_take),
      pass: orNull(s.source_pass),
      start: orNull(s.source_start),
      end: orNull(s.source_end),
    };
  }
  if (isObject(s.from)) {
    const f = s.from;
    return {
      shot: orNull(f.shot),
      take: orNull(f.take),
      pass: orNull(f.pass),
      frame: orNull(f.frame),
      frames: orNull(f.frames),
    };
  }
  if (s.source_shot === undefined && s.source_take === undefined) return null;
  return {
    shot: orNull(s.source_shot),
    take: orNull(s.source_take),
    pass: orNull(s.source_pass),
    frame: orNull(s.source_frame),
    frames: orNull(s.source_frames),
  };
}

/** One candidate as the listing shows it: its sidecar's fields, its file relative to the episode, seeds as text. */
export function wireTake(t: RefTake, rel: (abs: string) => string): JsonObject {
  const s = t.sidecar;
  const media = t.file ? mediaKindOf(t.file) : null;
  const out: JsonObject = {
    take: t.take,
    view: t.view,
    status: t.status,
    usable: t.usable,
    seed: s.seed === undefined || s.seed === null ? null : String(s.seed),
    seed_source: orNull(s.seed_source),
  };
  out[media === "audio" ? "audio" : "image"] = t.file ? rel(t.file) : null;
  Object.assign(out, {
    source: orNull(s.source),
    note: orNull(s.note),
    prompt: orNull(s.prompt),
    model: orNull(s.model),
    loras: orNull(s.loras),
    steps: orNull(s.steps),
    cfg: orNull(s.cfg),
    params: orNull(s.params),
    width: orNull(s.width),
    height: orNull(s.height),
    queued: orNull(s.queued),
    finished: orNull(s.finished),
    backend_prompt_id: s.backend_prompt_id ?? s.comfy_prompt_id ?? null,
    save_notes: orNull(s.save_notes),
    overrides: orNull(s.overrides),
    edit: orNull(s.edit),
    target: orNull(s.target),
    from: fromOf(s),
    original_name: orNull(s.original_name),
  });
  return out;
}
