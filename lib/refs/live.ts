// Live reference files: picking a take copies it into the path the series config names (a character's four views
// stitch into its sheet once all four are picked), unpicking removes the live file and records `cleared`, and
// auto-pick gives a reference with no live file its first finished candidate. Every change is recorded in
// `_picks.json` with the live file's SHA-1, so renders that used the old file read as `ref`-stale.
import { copyFile, rm } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import type { Services } from "../context.ts";
import { hashFile } from "../episode/staleness.ts";
import { badRequest, conflict, notFound, StudioError } from "../errors.ts";
import { stitchSheet } from "../media/stitch-sheet.ts";
import { type Fence, mkdirShow, removeShow, renameShow, statShowOrNull } from "../paths/guarded.ts";
import { syncFolder } from "../store/atomic.ts";
import { errorMessage, type JsonObject, objectOr } from "../store/json-guards.ts";
import { tempPath } from "../store/temp-names.ts";
import { type CharacterView, isCharacterView, type RefId, type RefView, VIEWS } from "./ids.ts";
import { type RefPick, readPicks, updatePickLocked } from "./picks.ts";
import { liveFence, type RefsPlace } from "./place.ts";
import { listTakes, type RefTake, withRefsLock } from "./takes.ts";

/** What picking needs to know of a reference: where its live file goes and whether views stitch into it. */
export interface LiveRef {
  ref: RefId;
  /** `character`, `prop`, `vehicle`, `location`, `voice`, `keyframe`. */
  kind: string;
  /** The live file's absolute path (checked by the caller against what the config opens). */
  file: string;
  /** Four views stitch into the file (a character whose sheet has four panels). */
  stitches: boolean;
}

type LiveServices = Pick<Services, "caches" | "locks" | "now" | "events" | "media">;

export interface PickOutcome {
  /** The take that became live (for a view: the view's take). */
  take: number;
  view: RefView | null;
  /** The four views were stitched into the sheet by this pick. */
  stitched: boolean;
}

/** Pick `take` of `view` for the reference: 404 no such take, 400 pano/tour or a view the ref has not, 409 unusable. */
export async function pickTake(
  services: LiveServices,
  place: RefsPlace,
  live: LiveRef,
  view: RefView | null,
  take: number,
  force = false,
): Promise<PickOutcome> {
  checkView(live, view, "pick");
  const outcome = await withRefsLock(services, place, live.ref, async () => {
    const takes = await listTakes(services, place, live.ref);
    const chosen = takes.find((t) => t.view === view && t.take === take);
    if (!chosen) throw notFound(`${live.ref.id} has no take ${take}${view ? ` of view ${view}` : ""}`);
    if (view === "pano" || view === "tour") {
      throw badRequest(
        view === "pano"
          ? "a panorama take cannot be picked: it is a source for plates, not a live picture"
          : "a tour hold cannot be picked in place: copy it into a location first (POST /studio/refs/copy-take)",
      );
    }
    if (!chosen.usable) {
      const why = chosen.file === null ? "its file is missing" : `its status is ${chosen.status}`;
      if (!force || chosen.file === null)
        throw conflict(`take ${take} of ${live.ref.id} is not usable: ${why}`);
    }
    return pickLocked(services, place, live, chosen, takes);
  });
  services.events.emit("studio.ref", { ep: place.ep, ref: live.ref.id, view, take, status: "picked" });
  services.events.emit("studio.episode", { ep: place.ep });
  if (outcome.stitchError) throw new StudioError(500, outcome.stitchError);
  return outcome.result;
}

function checkView(live: LiveRef, view: RefView | null, verb: string): void {
  if (live.stitches) {
    if (view === null)
      throw badRequest(
        `${live.ref.id} is a character: say which view to ${verb} (01_threequarter, 02_side, 03_back, 04_face or sheet)`,
      );
    return;
  }
  if (
    view !== null &&
    !(live.kind === "location" && (view === "pano" || view === "tour")) &&
    view !== "sheet"
  ) {
    throw badRequest(`${live.ref.id} has no views; leave view out (got ${view})`);
  }
}

async function pickLocked(
  services: LiveServices,
  place: RefsPlace,
  live: LiveRef,
  chosen: RefTake,
  takes: readonly RefTake[],
): Promise<{ result: PickOutcome; stitchError?: string }> {
  const fence = await liveFence(place);
  const now = services.now().toISOString();
  const source = chosen.file as string;
  if (live.stitches && chosen.view !== null && isCharacterView(chosen.view)) {
    const view = chosen.view;
    const viewSha1 = await hashFile(fence, source).catch(() => null);
    const picks = await readPicks(services, place, live.ref);
    const current = picks.refs[live.ref.id];
    const chosenViews = new Map<CharacterView, RefTake>();
    for (const v of VIEWS) {
      const t = v === view ? chosen : takeOfPick(current, v, takes);
      if (t) chosenViews.set(v, t);
    }
    let stitched = false;
    let stitchError: string | undefined;
    let sheetSha1: string | null = null;
    if (chosenViews.size === VIEWS.length) {
      try {
        const panels = VIEWS.map((v) => chosenViews.get(v)?.file as string);
        await placeLive(fence, live.file, (tmp) => stitchSheet(panels, tmp).then(() => undefined));
        sheetSha1 = await hashFile(fence, live.file);
        stitched = true;
      } catch (err) {
        stitchError = `the four views of ${live.ref.id} could not be stitched into a sheet: ${errorMessage(err)}`;
      }
    }
    await updatePickLocked(services, place, live.ref, (entry) => {
      const views = objectOr(entry.views);
      views[view] = { take: chosen.take, ...(viewSha1 ? { sha1: viewSha1 } : {}), picked: now };
      const next: JsonObject = { ...entry, views };
      delete next.cleared;
      if (stitched && sheetSha1) {
        next.sha1 = sheetSha1;
        next.stitched = now;
      }
      return next;
    });
    return { result: { take: chosen.take, view, stitched }, stitchError };
  }
  // A whole picture (a ready-made sheet, a prop, a plate, a keyframe) or a voice sample: copied, converted to the
  // live file's format when the extensions differ.
  await placeLive(fence, live.file, (tmp) => convertInto(services, source, tmp, live.file));
  const sha1 = await hashFile(fence, live.file);
  await updatePickLocked(services, place, live.ref, (entry) => {
    const pick = { take: chosen.take, ...(sha1 ? { sha1 } : {}), picked: now };
    if (chosen.view === "sheet") {
      const views = objectOr(entry.views);
      views.sheet = pick;
      const next: JsonObject = { ...entry, views, ...(sha1 ? { sha1 } : {}) };
      delete next.cleared;
      delete next.stitched;
      return next;
    }
    const next: JsonObject = { ...entry, ...pick };
    delete next.cleared;
    return next;
  });
  return { result: { take: chosen.take, view: chosen.view, stitched: false } };
}

/** The take a view's recorded pick names, when it is still there and usable. */
function takeOfPick(
  entry: RefPick | undefined,
  view: CharacterView,
  takes: readonly RefTake[],
): RefTake | null {
  const n = entry?.views?.[view]?.take;
  if (typeof n !== "number") return null;
  return takes.find((t) => t.view === view && t.take === n && t.usable) ?? null;
}

const extOf = (file: string) => path.extname(file).slice(1).toLowerCase();

/** Fill `tmp` with `source` in the format `target`'s extension names. */
async function convertInto(
  services: LiveServices,
  source: string,
  tmp: string,
  target: string,
): Promise<void> {
  const from = extOf(source);
  const to = extOf(target);
  const same = from === to || (["jpg", "jpeg"].includes(from) && ["jpg", "jpeg"].includes(to));
  if (same) {
    await copyFile(source, tmp);
    return;
  }
  if (["png", "jpg", "jpeg", "webp"].includes(to)) {
    await sharp(source)
      .toFormat(to === "jpg" ? "jpeg" : (to as "png" | "jpeg" | "webp"))
      .toFile(tmp);
    return;
  }
  // A missing ffmpeg is a 500 naming what to install.
  await services.media.run("ffmpeg", ["-v", "error", "-y", "-i", source, "-vn", tmp]);
}

/** Write a live file through a temporary beside it (a reader sees the old file or the new one). */
async function placeLive(fence: Fence, file: string, fill: (tmp: string) => Promise<void>): Promise<void> {
  const dir = await mkdirShow(fence, path.dirname(file));
  const target = path.join(dir, path.basename(file));
  const tmp = tempPath(target, path.extname(target));
  try {
    await fill(tmp);
    await renameShow(fence, tmp, target);
    await syncFolder(dir);
  } finally {
    await rm(tmp, { force: true });
  }
}

export interface UnpickOutcome {
  /** The take that was live (null when nothing was picked). */
  take: number | null;
  /** A live file was removed. */
  removed: boolean;
}

/**
 * Unpick: the live file is removed and `cleared` recorded (for a character view, that view's pick; the sheet
 * stitched from views goes too). A voice is refused: renders that clone it would lose their sample.
 */
export async function unpick(
  services: LiveServices,
  place: RefsPlace,
  live: LiveRef,
  view: RefView | null,
): Promise<UnpickOutcome> {
  if (live.kind === "voice") {
    throw badRequest(`${live.ref.id} is a voice: its sample cannot be unpicked, pick another take instead`);
  }
  if (view === "pano" || view === "tour")
    throw badRequest(`${view} takes are never picked, so there is nothing to unpick`);
  if (view !== null && !live.stitches && view !== "sheet") {
    throw badRequest(`${live.ref.id} has no views; leave view out (got ${view})`);
  }
  const outcome = await withRefsLock(services, place, live.ref, async () => {
    const fence = await liveFence(place);
    const picks = await readPicks(services, place, live.ref);
    const entry = picks.refs[live.ref.id];
    const now = services.now().toISOString();
    const viewPick = view !== null ? entry?.views?.[view] : undefined;
    const take =
      view !== null ? (viewPick?.take ?? null) : (entry?.take ?? entry?.views?.sheet?.take ?? null);
    const existed = (await statShowOrNull(fence, live.file)) !== null;
    // A view's unpick removes the sheet only when the sheet is the one stitched from the views.
    const liveSha1 = existed ? await hashFile(fence, live.file) : null;
    const fromViews =
      view !== null &&
      isCharacterView(view) &&
      liveSha1 !== null &&
      liveSha1 === entry?.sha1 &&
      !!entry?.stitched;
    const removeFile = existed && (view === null || view === "sheet" || fromViews);
    if (removeFile) await removeShow(fence, live.file);
    await updatePickLocked(services, place, live.ref, (e) => {
      if (view === null) return { ...e, cleared: now };
      const views = objectOr(e.views);
      views[view] = { cleared: now };
      const next: JsonObject = { ...e, views };
      if (view === "sheet" && removeFile) next.cleared = now;
      if (fromViews) delete next.stitched;
      return next;
    });
    return { take, removed: removeFile };
  });
  services.events.emit("studio.ref", {
    ep: place.ep,
    ref: live.ref.id,
    view,
    take: outcome.take,
    status: "cleared",
  });
  services.events.emit("studio.episode", { ep: place.ep });
  return outcome;
}

/** Is the reference (or the view) cleared: skipped by auto-pick until something is picked. */
export function isCleared(entry: RefPick | undefined, view: RefView | null): boolean {
  if (view === null) return typeof entry?.cleared === "string";
  return typeof entry?.views?.[view]?.cleared === "string" || typeof entry?.cleared === "string";
}

/**
 * Auto-pick for one reference with no live file: the first finished candidate (per view for a stitching
 * character; the sheet stitched once all four have one). Nothing happens when the live file exists, the ref is
 * a voice or it is cleared. Answers the picks made, for events.
 */
export async function autoPickRef(
  services: LiveServices,
  place: RefsPlace,
  live: LiveRef,
): Promise<{ view: RefView | null; take: number }[]> {
  if (live.kind === "voice") return [];
  const made: { view: RefView | null; take: number }[] = [];
  const fence = await liveFence(place);
  if (await statShowOrNull(fence, live.file).catch(() => null)) return [];
  const picks = await readPicks(services, place, live.ref);
  const entry = picks.refs[live.ref.id];
  if (typeof entry?.cleared === "string") return [];
  const takes = await listTakes(services, place, live.ref);
  const first = (view: RefView | null) => takes.find((t) => t.view === view && t.usable) ?? null;
  const pickOne = async (t: RefTake) => {
    await withRefsLock(services, place, live.ref, async () => {
      // Someone may have picked meanwhile: the live file existing now means hands off.
      if (await statShowOrNull(fence, live.file)) return;
      const fresh = await listTakes(services, place, live.ref);
      const { stitchError } = await pickLocked(services, place, live, t, fresh);
      if (stitchError) throw new StudioError(500, stitchError);
      made.push({ view: t.view, take: t.take });
    });
  };
  if (live.stitches) {
    const viewTakes = VIEWS.map((v) =>
      isCleared(entry, v) ? null : (takeOfPick(entry, v, takes) ?? first(v)),
    );
    if (viewTakes.every((t) => t !== null)) {
      for (const t of viewTakes) {
        if (t && takeOfPick(entry, t.view as CharacterView, takes)?.take !== t.take) await pickOne(t);
      }
      // Every view was already recorded but the sheet is gone: stitch again from the recorded picks.
      if (made.length === 0) {
        const last = viewTakes[viewTakes.length - 1];
        if (last) await pickOne(last);
      }
      return made;
    }
    // Views not all there yet: record the ones that are, so the page shows them picked.
    for (const t of viewTakes) {
      if (t && takeOfPick(entry, t.view as CharacterView, takes) === null) await pickOne(t);
    }
    const sheet = isCleared(entry, "sheet") ? null : first("sheet");
    if (sheet && !(await statShowOrNull(fence, live.file))) await pickOne(sheet);
    return made;
  }
  const t = first(null) ?? (live.kind === "character" ? first("sheet") : null);
  if (t) await pickOne(t);
  return made;
}
