// One shot as the status and the inspector see it: the target its next render uses and why, the entry that
// render reads (compiled for a retarget), its reference slots, its override summary and the staleness inputs.
import path from "node:path";
import type { Shot } from "../script/types.ts";
import { cacheSlot } from "../store/caches.ts";
import { isObject } from "../store/json-guards.ts";
import { builtEntry, type Current, type CurrentResult, currentEntry } from "./current-entry.ts";
import { targetBlock } from "./overrides-file.ts";
import { type RefSlot, refSlots } from "./shot-refs.ts";
import type { BuiltShot } from "./shotlists.ts";
import {
  type ChainView,
  entryStoryHash,
  type FileProbe,
  isPreSidecar,
  refResolver,
  type StaleInputs,
  type StaleReason,
  takeStale,
} from "./staleness.ts";
import type { TakeRecord } from "./takes.ts";
import { type ShotTargetSource, shotTarget } from "./target-choice.ts";
import { identities, type ViewInputs } from "./view-inputs.ts";

/** Episode-relative, forward slashes (`../refs/x.png` beside a parent-folder series config). */
export const relTo = (ep: string, abs: string) => path.relative(ep, abs).split(path.sep).join("/");

/** The first sentence of the action, cut at a word past 160 characters; null when there is none. */
export function actionLine(action: string | undefined): string | null {
  const text = (action ?? "").replace(/\s+/g, " ").trim();
  if (!text) return null;
  const m = /^.*?[.!?](?=\s|$)/.exec(text);
  const first = m ? m[0] : text;
  if (first.length <= 160) return first;
  const cut = first.indexOf(" ", 160);
  return cut === -1 ? first : `${first.slice(0, cut)}…`;
}

type StoryShot = { shot: Shot; location: string };
const STORY_INDEX = cacheSlot("story shots by id", () => new WeakMap<object, Map<string, StoryShot>>());

/** The story's shot and its location key, by id (indexed once per story). */
function findShot(vi: ViewInputs, id: string): StoryShot | null {
  if (!vi.story) return null;
  const storyIndex = vi.caches.of(STORY_INDEX);
  let index = storyIndex.get(vi.story);
  if (!index) {
    index = new Map();
    for (const seq of vi.story.sequences) {
      for (const shot of seq.shots) index.set(shot.id, { shot, location: shot.plate || seq.location });
    }
    storyIndex.set(vi.story, index);
  }
  return index.get(id) ?? null;
}

export interface ShotContext {
  built: BuiltShot;
  target: string;
  source: ShotTargetSource;
  /** The entry the next render uses (on `target`). */
  next: CurrentResult;
  /** The entry whose refs the shot reads now: `next`, else the built one when the retarget does not compile. */
  reads: Current;
  story: { shot: Shot; location: string } | null;
  /** Current entries by target, for judging takes made on any target. */
  current(target: string): Current | null;
}

export function shotContext(vi: ViewInputs, built: BuiltShot, requested?: string | null): ShotContext {
  const { target, source } = shotTarget(built, vi.story, vi.targetInputs, requested);
  const results = new Map<string, CurrentResult>();
  const resultFor = (t: string) => {
    let r = results.get(t);
    if (!r) {
      r = currentEntry(vi, built, t);
      results.set(t, r);
    }
    return r;
  };
  const next = resultFor(target);
  return {
    built,
    target,
    source,
    next,
    reads: next.ok ? next.value : builtEntry(vi, built),
    story: findShot(vi, built.id),
    current: (t) => {
      const r = resultFor(t);
      return r.ok ? r.value : null;
    },
  };
}

const SLOTS = cacheSlot("reference slots", () => new WeakMap<object, { key: string; slots: RefSlot[] }>());

/** The slots of the entry the shot reads now (kept per entry object while its sources are the same). */
export function shotSlots(vi: ViewInputs, sc: ShotContext): RefSlot[] {
  const t = sc.next.ok ? sc.target : sc.built.target;
  const spec = vi.env.targets.get(t);
  const doc = vi.build.docs[t] ?? vi.build.docs[sc.built.target];
  const plateKey = sc.story?.location ?? null;
  const { identity } = identities(vi);
  const slotCache = vi.caches.of(SLOTS);
  const key = `${t}\0${identity(spec)}\0${identity(doc)}\0${identity(vi.series)}\0${plateKey}`;
  const hit = slotCache.get(sc.reads.entry);
  if (hit && hit.key === key) return hit.slots;
  const slots = refSlots({
    shot: sc.built.id,
    entry: sc.reads.entry,
    spec,
    doc,
    series: vi.series,
    plateKey,
  });
  slotCache.set(sc.reads.entry, { key, slots });
  return slots;
}

/** `{fields, stale}` of the shot's override for its current target and this pass, plus the shared ones. */
export function overrideSummary(vi: ViewInputs, sc: ShotContext): { fields: string[]; stale: boolean } {
  const shot = sc.built.id;
  const block = targetBlock(vi.overrides, shot, sc.target);
  const pass = block?.[vi.pass];
  const fields: string[] = [];
  if (isObject(pass)) {
    for (const [k, v] of Object.entries(pass))
      if (k !== "base_hash" && v !== undefined && v !== null) fields.push(k);
  }
  if (block?.seed !== undefined && block.seed !== null) fields.push("seed");
  if (typeof block?.note === "string" && block.note !== "") fields.push("note");
  const retarget = vi.overrides.shots?.[shot]?.target;
  if (typeof retarget === "string" && retarget !== "") fields.push("target");
  const base = isObject(pass) ? pass.base_hash : undefined;
  const stale = typeof base === "string" && sc.next.ok && base !== entryStoryHash(vi, sc.next.value.entry);
  return { fields: fields.sort(), stale };
}

/** A take's target renders no sound when its target says so (Wan); its mp4 then carries none. */
export function silentTarget(vi: ViewInputs, target: unknown): boolean {
  return typeof target === "string" && vi.env.targets.get(target)?.capabilities.audio === "none";
}

export function staleInputs(
  vi: ViewInputs,
  sc: ShotContext | null,
  probe: FileProbe,
  chain: ChainView,
): StaleInputs {
  return {
    pass: vi.pass,
    nextTarget: sc?.target ?? "",
    current: (t) => sc?.current(t) ?? null,
    resolve: refResolver(vi, vi.ep, vi.home),
    probe,
    chain,
    caches: vi.caches,
  };
}

/** Stale reasons of one take; an orphan's takes (no entry to compare) are only judged for being pre-sidecar. */
export function staleOf(t: TakeRecord, sc: ShotContext | null, inp: StaleInputs): Promise<StaleReason[]> {
  if (sc === null) return Promise.resolve(isPreSidecar(t.sidecar) ? ["unknown"] : []);
  return takeStale(t, inp);
}
