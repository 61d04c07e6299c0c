// References as GET /studio/refs lists them: the catalog joined with what is on disk (the live file and its
// SHA-1, candidates, picks, overrides) and with the settings a generation would use now. Every mutating refs
// route answers one reference "as listed", so one reference is listed on its own without the others.
import path from "node:path";
import type { Services } from "../context.ts";
import { FileProbe, keyframeGate } from "../episode/staleness.ts";
import { identities } from "../episode/view-inputs.ts";
import { folderFence, readShowJson } from "../paths/guarded.ts";
import { cacheSlot } from "../store/caches.ts";
import { isObject, type JsonObject, num } from "../store/json-guards.ts";
import { type Catalog, type CatalogRef, catalogRef, readCatalog } from "./catalog.ts";
import {
  canGenerate,
  effectiveRef,
  factsOf,
  type RefDefaults,
  type RefSettingsInputs,
  readRefSettings,
} from "./effective.ts";
import { isCharacterView, parseRefId } from "./ids.ts";
import { type Sibling, siblingsOf } from "./list-siblings.ts";
import { type ListedTakes, listedTakes, TakesFolders, wireTake } from "./list-takes.ts";
import type { LiveRef } from "./live.ts";
import { liveRefOf } from "./live-ref.ts";
import { overrideView, type RefOverridesFile, readRefOverrides } from "./overrides.ts";
import { type PicksFile, type RefPick, readPicks } from "./picks.ts";
import { liveFence, type RefsPlace, refsPlace } from "./place.ts";
import { mediaKindOf } from "./take-record.ts";

type ListServices = Pick<Services, "home" | "env" | "caches" | "locks" | "targets">;

export interface RefsListing {
  refs: JsonObject[];
  defaults: RefDefaults;
}

/** A listed reference and what the listing saw of it, for deciding what follows the answer. */
interface Listed {
  json: JsonObject;
  /** Where its JSON text is kept while it is unchanged. */
  memo: Memo;
  /** Some candidate is still `queued`: the sweep may close it. */
  queued: boolean;
  /** No live file, and a finished candidate auto-pick could make it from. */
  pickable: boolean;
}

/** What every reference of one listing reads once. */
interface Shared {
  place: RefsPlace;
  catalog: Catalog;
  settings: RefSettingsInputs;
  /** The defaults and the target registry as keys of the listing memo. */
  settingsKey: string;
  probe: FileProbe;
  folders: TakesFolders;
  picks: { series: PicksFile; shot: PicksFile };
  overrides: { series: RefOverridesFile; shot: RefOverridesFile };
  siblings: Sibling[];
  services: ListServices;
}

const SERIES = { scope: "series" } as const;
const SHOT = { scope: "shot" } as const;

async function shared(services: ListServices, place: RefsPlace): Promise<Shared> {
  const [catalog, settings, fence, seriesPicks, shotPicks, seriesOverrides, shotOverrides, siblings] =
    await Promise.all([
      readCatalog(services, place),
      readRefSettings(services, place),
      liveFence(place),
      readPicks(services, place, SERIES),
      readPicks(services, place, SHOT),
      readRefOverrides(services, place, SERIES),
      readRefOverrides(services, place, SHOT),
      siblingsOf(services, place),
    ]);
  return {
    place,
    catalog,
    settings,
    settingsKey: `${identities(services).registryKey(settings.registry)}\0${jsonOf(settings.defaults)}`,
    // Below refs/shots a keyframe whose shot folder is not there is missing without a stat of its own.
    probe: new FileProbe(services, fence, [keyframeGate(place.ep)]),
    folders: new TakesFolders(services),
    picks: { series: seriesPicks, shot: shotPicks },
    overrides: { series: seriesOverrides, shot: shotOverrides },
    siblings,
    services,
  };
}

/**
 * Every reference of the episode, with the defaults; and `pending`, the references the sweep or auto-pick may
 * change (a queued candidate, or no live file and a finished candidate), which is all that follows the answer
 * needs to look at: a show whose live files are in place costs nothing after its listings.
 */
export async function listRefsAt(
  services: ListServices,
  place: RefsPlace,
): Promise<RefsListing & { pending: CatalogRef[]; text: string }> {
  const sh = await shared(services, place);
  const listed = await Promise.all(sh.catalog.refs.map((c) => listWithState(sh, c)));
  const pending = sh.catalog.refs.filter((_, i) => listed[i].queued || listed[i].pickable);
  const defaults = sh.settings.defaults;
  return { refs: listed.map((l) => l.json), defaults, pending, text: answerText(sh, listed) };
}

/**
 * `{refs, defaults}` as JSON text, joined from each reference's kept text: while nothing changed it is the very
 * string of the last answer, so the runtime reuses its bytes and its gzip too.
 */
function answerText(sh: Shared, listed: readonly Listed[]): string {
  const parts = listed.map((l) => {
    l.memo.text ??= jsonOf(l.json);
    return l.memo.text;
  });
  const defaults = jsonOf(sh.settings.defaults);
  const answers = sh.services.caches.of(ANSWERS);
  const last = answers.get(sh.place.ep);
  if (
    last &&
    last.defaults === defaults &&
    last.parts.length === parts.length &&
    last.parts.every((p, i) => p === parts[i])
  )
    return last.text;
  const text = `{"refs":[${parts.join(",")}],"defaults":${defaults}}`;
  if (answers.size > 50) answers.clear();
  answers.set(sh.place.ep, { parts, defaults, text });
  return text;
}

/** `{refs, defaults}` of GET /studio/refs. */
export async function listRefs(services: ListServices, epReal: string): Promise<RefsListing> {
  const { refs, defaults } = await listRefsAt(services, await refsPlace(services, epReal));
  return { refs, defaults };
}

/** One reference as listed: 400 for a malformed id, 404 for one the episode does not have. */
export async function listedRef(services: ListServices, epReal: string, refId: string): Promise<JsonObject> {
  const id = parseRefId(refId);
  const place = await refsPlace(services, epReal);
  const sh = await shared(services, place);
  return listOne(sh, catalogRef(sh.catalog, id.id));
}

/** What picking and auto-pick need of each of `refs` whose live file the config may place. */
export async function liveRefs(place: RefsPlace, refs: readonly CatalogRef[]): Promise<LiveRef[]> {
  // A config path that climbs where the config does not open is never written to: that ref is left out.
  const found = await Promise.all(refs.map((c) => liveRefOf(place, c).catch(() => null)));
  return found.filter((l): l is LiveRef => l !== null);
}

// -------------------------------------------------------------------------------------------- one reference

const isCleared = (block: { cleared?: unknown } | undefined) => typeof block?.cleared === "string";

/** The take a pick names, unless it was cleared since. */
function pickedTake(block: { take?: unknown; cleared?: unknown } | undefined): number | null {
  if (!block || isCleared(block)) return null;
  return typeof block.take === "number" ? block.take : null;
}

async function listOne(sh: Shared, c: CatalogRef): Promise<JsonObject> {
  return (await listWithState(sh, c)).json;
}

/** JSON text with bigints (seeds) as strings, as the runtime writes answers. */
const jsonOf = (value: unknown) =>
  JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? v.toString() : v)) ?? "null";

/**
 * A reference as last listed, with everything it was made from: the catalog entry and the takes listing (both
 * kept objects, compared by identity), the live file's state, and the rest as text. Listing an unchanged show
 * again then costs its reads and no recomputation (effective settings, seeds, overrides) or serialisation.
 */
interface Memo {
  deps: readonly unknown[];
  json: JsonObject;
  /** The effective target, which a keyframe's `edit_refs` follow. */
  target: string;
  /** `edit_refs` as text, for a keyframe. */
  edits: string | null;
  text: string | null;
}

const MEMOS = cacheSlot("reference listings", () => new WeakMap<CatalogRef, Memo>());
const ANSWERS = cacheSlot(
  "reference listing answers",
  () => new Map<string, { parts: string[]; defaults: string; text: string }>(),
);

const sameDeps = (a: readonly unknown[], b: readonly unknown[]) =>
  a.length === b.length && a.every((v, i) => v === b[i]);

async function listWithState(sh: Shared, c: CatalogRef): Promise<Listed> {
  const { ref } = c;
  const series = ref.scope === "series";
  const [listed, state] = await Promise.all([
    listedTakes(sh.services, sh.place, ref, sh.folders),
    sh.probe.state(c.file),
  ]);
  const sha1 = state.exists ? await sh.probe.sha1(c.file) : null;
  const entry: RefPick | undefined = (series ? sh.picks.series : sh.picks.shot).refs[ref.id];
  const override = (series ? sh.overrides.series : sh.overrides.shot).refs[ref.id];
  const shared = series ? sharedWith(sh, c) : [];
  const owner = sha1 ? await liveOwner(sh, c, entry, sha1) : null;
  const deps = [
    c,
    listed,
    state.exists,
    sha1,
    jsonOf(entry),
    jsonOf(override),
    sh.settingsKey,
    shared.join("\n"),
    owner,
  ];
  const memos = sh.services.caches.of(MEMOS);
  let memo = memos.get(c);
  if (!memo || !sameDeps(memo.deps, deps)) {
    const made = buildOne(sh, c, listed, state.exists, sha1, entry, override, shared, owner);
    memo = { deps, json: made.json, target: made.target, edits: null, text: null };
    memos.set(c, memo);
  }
  if (c.keyframe) {
    // What an edit target would be given follows other references' picks and files: read each time.
    const edits = await editRefs(sh, c, memo.target);
    const text = jsonOf(edits);
    if (memo.edits !== text) {
      memo.json = { ...memo.json, edit_refs: edits };
      memo.edits = text;
      memo.text = null;
    }
  }
  return {
    json: memo.json,
    memo,
    queued: listed.takes.some((t) => t.status === "queued"),
    pickable: !state.exists && c.kind !== "voice" && listed.takes.some((t) => t.usable),
  };
}

/** A reference as listed from what was read of it (a keyframe's `edit_refs` aside). */
function buildOne(
  sh: Shared,
  c: CatalogRef,
  listed: ListedTakes,
  exists: boolean,
  sha1: string | null,
  entry: RefPick | undefined,
  override: RefOverridesFile["refs"][string] | undefined,
  shared: string[],
  owner: string | null,
): { json: JsonObject; target: string } {
  const { ref } = c;
  const { defaults, registry } = sh.settings;
  const refFacts = factsOf(c);
  const shotSize = c.keyframe?.size ?? null;
  const effective = effectiveRef({ ref: refFacts, view: null, override, defaults, registry, shotSize });
  const ov = overrideView(override, null, c.prompt);
  const can = canGenerate(refFacts, effective.target, registry);

  const parts = splitTakes(c, listed);
  const views = c.views.map((v) => {
    const viewEntry = entry?.views?.[v.view];
    const eff = effectiveRef({ ref: refFacts, view: v.view, override, defaults, registry });
    const vo = overrideView(override, v.view, v.prompt, c.prompt);
    return {
      view: v.view,
      picked: isCleared(entry) ? null : pickedTake(viewEntry),
      takes: parts.views.get(v.view) ?? [],
      prompt: eff.prompt,
      built_prompt: v.prompt,
      override: { fields: vo.fields, stale: vo.stale, values: vo.values, own: vo.own ?? [] },
      effective: eff,
      cleared: isCleared(viewEntry),
    };
  });
  const liveFrom = liveFromOf(entry, sha1, c);
  const out: JsonObject = {
    id: ref.id,
    scope: ref.scope,
    kind: c.kind,
    name: c.name,
    key: ref.key,
    subject: c.subject,
    ...(c.of !== undefined ? { of: c.of } : {}),
    path: c.path,
    exists,
    sha1,
    used_by: { final: [...c.used_by.final], proxy: [...c.used_by.proxy] },
    prompt: effective.prompt,
    built_prompt: c.prompt,
    override: { fields: ov.fields, stale: ov.stale, values: ov.values },
    override_values: ov.values,
    effective,
    can_generate: can.can_generate,
    why_not: can.why_not,
    views,
    takes: parts.takes,
    picked: pickedTake(entry) ?? pickedTake(entry?.views?.sheet),
    cleared: isCleared(entry),
    sheet_cleared: isCleared(entry?.views?.sheet),
    live_from: liveFrom,
    panels: c.panels,
    panels_conflict: c.built_panels !== null || (c.panels === 1 && parts.viewTakes > 0),
    shared_with: shared,
    live_owner: owner,
    panos: parts.panos,
    tours: listed.tours,
    tour_holds: parts.tourHolds,
  };
  if (c.keyframe) {
    const k = c.keyframe;
    Object.assign(out, {
      shot: k.shot,
      which: k.which,
      need: k.need,
      method: k.method,
      target: effective.target,
      requested: k.requested,
      script: k.script,
      reads: k.reads,
      import_path: k.import_path,
    });
  }
  return { json: out, target: effective.target };
}

/** A character's candidates by view; pano and tour takes apart; voices keep imported sound and clips of takes. */
function splitTakes(c: CatalogRef, listed: ListedTakes) {
  const views = new Map<string, JsonObject[]>();
  const takes: JsonObject[] = [];
  const panos: JsonObject[] = [];
  const tourHolds: JsonObject[] = [];
  let viewTakes = 0;
  listed.takes.forEach((t, i) => {
    const wire = listed.wire[i];
    if (c.kind === "voice") {
      const audio = t.file !== null && mediaKindOf(t.file) === "audio";
      const kept = t.sidecar.source === "imported" || t.sidecar.source === "from_take" || !t.hasSidecar;
      if (audio && kept && t.view === null) takes.push(wire);
      return;
    }
    if (t.view === "pano") panos.push(wire);
    else if (t.view === "tour") tourHolds.push(wire);
    else if (isCharacterView(t.view)) {
      viewTakes++;
      if (c.views.length > 0) {
        const list = views.get(t.view) ?? [];
        list.push(wire);
        views.set(t.view, list);
      } else takes.push(wire);
    } else takes.push(wire);
  });
  return { views, takes, panos, tourHolds, viewTakes };
}

/** `sheet` when the live file is the picked ready-made sheet, `views` when it is the sheet stitched from views. */
function liveFromOf(
  entry: RefPick | undefined,
  sha1: string | null,
  c: CatalogRef,
): "sheet" | "views" | null {
  if (!sha1 || c.kind !== "character") return null;
  if (entry?.views?.sheet?.sha1 === sha1) return "sheet";
  if (typeof entry?.stitched === "string" && entry.sha1 === sha1) return "views";
  return null;
}

function sharedWith(sh: Shared, c: CatalogRef): string[] {
  return sh.siblings.filter((s) => s.files.has(c.file)).map((s) => s.ep);
}

/** The episode whose recorded pick has the live file's SHA-1: this one, else a sibling keeping its own picks. */
async function liveOwner(
  sh: Shared,
  c: CatalogRef,
  entry: RefPick | undefined,
  sha1: string,
): Promise<string | null> {
  if (entry?.sha1 === sha1 && !isCleared(entry)) return sh.place.ep;
  if (c.ref.scope !== "series") return null;
  for (const s of sh.siblings) {
    const id = s.files.get(c.file);
    if (!id || s.home === sh.place.series.home) continue;
    const picks = await readShowJson(
      sh.services,
      folderFence(s.home, "its folder"),
      path.join(s.home, "refs", "_picks.json"),
      "the picks record",
    ).catch(() => undefined);
    const theirs = isObject(picks) && isObject(picks.refs) ? picks.refs[id] : undefined;
    if (isObject(theirs) && theirs.sha1 === sha1 && typeof theirs.cleared !== "string") return s.ep;
  }
  return null;
}

/**
 * The pictures an edit target is given to draw a keyframe, up to its `max_refs`: each only when its file exists
 * (a character's chosen view as picked, the others' live files). None for a target that does not edit.
 */
async function editRefs(sh: Shared, c: CatalogRef, target: string): Promise<JsonObject[]> {
  const spec = sh.settings.registry.get(target);
  if (spec?.capabilities.mode !== "edit") return [];
  const max = num(spec.capabilities.max_refs) ?? 1;
  const out: JsonObject[] = [];
  const rel = (abs: string) => path.relative(sh.place.ep, abs).split(path.sep).join("/");
  for (const want of c.keyframe?.edit_candidates ?? []) {
    if (out.length >= max) break;
    const other = sh.catalog.byId.get(want.ref);
    if (!other) continue;
    if (want.view) {
      const pick = pickedTake(sh.picks.series.refs[want.ref]?.views?.[want.view]);
      if (pick === null) continue;
      const { takes } = await listedTakes(sh.services, sh.place, other.ref);
      const t = takes.find((x) => x.view === want.view && x.take === pick && x.usable);
      if (t?.file) out.push({ ref: want.ref, view: want.view, path: rel(t.file) });
    } else if (await sh.probe.exists(other.file)) {
      out.push({ ref: want.ref, view: null, path: rel(other.file) });
    }
  }
  return out;
}

// ------------------------------------------------------------------------------------------- owner's takes

/**
 * `{owner, takes}` of GET /studio/refs/owner-takes: when a sibling episode's pick wrote the shared live file,
 * that sibling's candidates of the reference (read-only, paths relative to this episode, each with `episode`
 * and whether the sibling picked it); no takes when this episode owns the file or nobody does.
 */
export async function ownerTakes(
  services: ListServices,
  epReal: string,
  refId: string,
): Promise<{ owner: string | null; takes: JsonObject[] }> {
  const id = parseRefId(refId);
  const place = await refsPlace(services, epReal);
  const sh = await shared(services, place);
  const c = catalogRef(sh.catalog, id.id);
  const listed = await listOne(sh, c);
  const owner = typeof listed.live_owner === "string" ? listed.live_owner : null;
  const sibling = sh.siblings.find((s) => s.ep === owner);
  const theirId = sibling?.files.get(c.file);
  if (!owner || owner === place.ep || !sibling || !theirId) return { owner, takes: [] };
  const theirRef = parseRefId(theirId);
  const theirPlace = await refsPlace(services, sibling.ep);
  const [{ takes }, picks] = await Promise.all([
    listedTakes(services, theirPlace, theirRef),
    readPicks(services, theirPlace, theirRef),
  ]);
  const entry = picks.refs[theirRef.id];
  const rel = (abs: string) => path.relative(place.ep, abs).split(path.sep).join("/");
  return {
    owner,
    takes: takes.map((t) => {
      const block =
        t.view === null || t.view === "sheet"
          ? t.view
            ? entry?.views?.sheet
            : entry
          : entry?.views?.[t.view];
      return { ...wireTake(t, rel), episode: sibling.ep, picked: pickedTake(block) === t.take };
    }),
  };
}
