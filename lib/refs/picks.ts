// `refs/_picks.json`: which take each reference's live file came from, and when a reference was cleared. One
// lenient schema per level (the file, a ref, a character view); written atomically under the ref home's lock.
import { z } from "zod";
import type { Services } from "../context.ts";
import { readShowJson, writeShowJson } from "../paths/guarded.ts";
import { forgetJsonFile } from "../store/json-file.ts";
import { isObject, type JsonObject, objectOr } from "../store/json-guards.ts";
import { type Lenient, recordKind } from "../store/record.ts";
import type { RefId } from "./ids.ts";
import { picksFile, type RefsPlace, takesFence } from "./place.ts";
import { withRefsLock } from "./takes.ts";

const txt = z.string();

/** One pick: the take copied into place, the live file's SHA-1 after the copy, and when. */
const PICK_SHAPE = {
  take: z.number().int(),
  sha1: txt,
  picked: txt,
  cleared: txt,
};
export type PickRecord = Lenient<typeof PICK_SHAPE>;
const pickKind = recordKind(PICK_SHAPE);

/** A ref's entry: a pick, or for a character its views and the stitched sheet's SHA-1. */
const REF_PICK_SHAPE = {
  ...PICK_SHAPE,
  views: z.record(z.string(), z.looseObject({})),
  stitched: txt,
};
export type RefPick = Lenient<Omit<typeof REF_PICK_SHAPE, "views">> & { views?: Record<string, PickRecord> };
const refPickKind = recordKind(REF_PICK_SHAPE);

export interface PicksFile {
  version: 1;
  refs: Record<string, RefPick>;
}

/** `_picks.json` of the ref's home as read (an empty record when missing). */
export async function readPicks(
  services: Pick<Services, "caches">,
  place: RefsPlace,
  ref: Pick<RefId, "scope">,
): Promise<PicksFile> {
  const raw = await readShowJson(services, takesFence(place, ref), picksFile(place, ref), "the picks record");
  const refs: Record<string, RefPick> = {};
  const block = isObject(raw) && isObject(raw.refs) ? raw.refs : {};
  for (const [id, entry] of Object.entries(block)) {
    const read = refPickKind.parse(entry);
    if (!read) continue;
    const views: Record<string, PickRecord> = {};
    if (isObject(entry) && isObject(entry.views)) {
      for (const [view, v] of Object.entries(entry.views)) {
        const p = pickKind.parse(v);
        if (p) views[view] = p;
      }
    }
    const { views: _raw, ...rest } = read;
    refs[id] = Object.keys(views).length ? { ...rest, views } : rest;
  }
  return { version: 1, refs };
}

/**
 * Changes one ref's entry under the lock: `change` gets a copy (an empty object when absent) and returns the
 * new entry, or null to drop it. Other refs' entries are written back as they were read.
 */
export async function updatePick(
  services: Pick<Services, "caches" | "locks">,
  place: RefsPlace,
  ref: RefId,
  change: (entry: JsonObject) => JsonObject | null,
): Promise<void> {
  await withRefsLock(services, place, ref, () => updatePickLocked(services, place, ref, change));
}

/** `updatePick` for a caller that already holds the ref home's lock. */
export async function updatePickLocked(
  services: Pick<Services, "caches">,
  place: RefsPlace,
  ref: RefId,
  change: (entry: JsonObject) => JsonObject | null,
): Promise<void> {
  const fence = takesFence(place, ref);
  const file = picksFile(place, ref);
  const raw = await readShowJson(services, fence, file, "the picks record");
  const doc: JsonObject = isObject(raw) ? structuredClone(raw) : {};
  const refs: JsonObject = isObject(doc.refs) ? doc.refs : {};
  const current = objectOr(refs[ref.id]);
  const next = change(structuredClone(current));
  if (next === null) delete refs[ref.id];
  else refs[ref.id] = next;
  await writeShowJson(fence, file, { ...doc, version: 1, refs });
  forgetJsonFile(services, file);
}
