// Every reference of an episode as the series config and the builds name it, before anything on disk is looked
// at: subjects (characters with their four views, props, vehicles, groups; variants with `of`), locations (angles
// with `of`), voices, and the keyframes of built shots whose render reads them; with the built wording of each,
// where its live file goes, and which shots of each pass read it. Kept per episode until the config, the builds
// or the targets change, so a warm listing does no recomputation.
import path from "node:path";
import { type BuildCtx, makeContext } from "../compile/context.ts";
import { plateRef, subjectRef, viewRef, voiceRef } from "../compile/refs.ts";
import { voiceSamplePath } from "../compile/slots.ts";
import type { Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { compileEnv } from "../episode/compile-env.ts";
import { shotContext, shotSlots } from "../episode/shot-context.ts";
import type { RefSlot } from "../episode/shot-refs.ts";
import { identities, loadViewInputs, type ViewInputs } from "../episode/view-inputs.ts";
import { StudioError } from "../errors.ts";
import { folderFence, readShowJson } from "../paths/guarded.ts";
import { canonicalSize } from "../script/sizes.ts";
import { keyframeMethod } from "../script/story.ts";
import type { Sequence, Shot, Story } from "../script/types.ts";
import { loadSeries } from "../series/load.ts";
import type { Location, SeriesConfig, Subject } from "../series/types.ts";
import { cacheSlot } from "../store/caches.ts";
import { isObject, num, textOf } from "../store/json-guards.ts";
import { keyframePrompt } from "../targets/prompts/keyframe.ts";
import type { TargetRegistryView } from "../targets/registry.ts";
import { type CharacterView, KEYFRAME_ENDS, type KeyframeEnd, type RefId, readRefId, VIEWS } from "./ids.ts";
import { keyframeFile, type RefsPlace } from "./place.ts";

export type RefKind = "character" | "prop" | "vehicle" | "location" | "voice" | "keyframe";
export type KeyframeMethod = "continuity" | "generate" | "import";

export interface KeyframeFacts {
  shot: string;
  which: KeyframeEnd;
  /** `required` when a pass's target cannot render the shot without it, `optional` when it reads it, else null. */
  need: "required" | "optional" | null;
  method: KeyframeMethod;
  /** The `first:` / `last:` value the script gives the shot (its own line, else its sequence's), or null. */
  script: string | null;
  /** The script asks for this end itself (a line other than `none`). */
  requested: boolean;
  /** Some pass's render of the shot reads this end. */
  reads: boolean;
  /** The picture the script names to import, as written (relative to the episode). */
  import_path: string | null;
  /** The shot's render size (final pass, else proxy), which a keyframe is drawn at. */
  size: { width: number; height: number } | null;
  /** The shot's render size in each pass (null where that pass has no build of it). */
  sizes: Record<Pass, { width: number; height: number } | null>;
  /** What an edit target would be given to draw it, strongest first (each only when its file exists). */
  edit_candidates: { ref: string; view: CharacterView | null }[];
}

export interface CatalogRef {
  ref: RefId;
  kind: RefKind;
  name: string;
  /** The subject id (subjects, and a voice's character); null for locations and keyframes. */
  subject: string | null;
  /** A wardrobe variant's base subject, or an angle's base location. */
  of?: string;
  /** The live file as listed: config-relative for series references, episode-relative for keyframes. */
  path: string;
  /** The live file's absolute path (series references: from the config's folder), lexically resolved. */
  file: string;
  /** The built wording (the sheet's, object's, plate's, voice's or keyframe's); null when it cannot be written. */
  prompt: string | null;
  /** A character's four views with their own wording; `[]` for every other reference. */
  views: { view: CharacterView; prompt: string | null }[];
  used_by: Record<Pass, string[]>;
  /** 4 for a character sheet of four panels, 1 for a whole picture (props, vehicles, groups, sheet_panels 1). */
  panels: 1 | 4;
  /** What a build recorded as the subject's panel count, when it differs from the config's. */
  built_panels: number | null;
  keyframe?: KeyframeFacts;
}

export interface Catalog {
  refs: CatalogRef[];
  byId: Map<string, CatalogRef>;
  /** The show's targets: the shipped ones and the show's own. */
  registry: TargetRegistryView;
  seriesRaw: Record<string, unknown> | null;
  /** Why the series config gave no series references, when it did not load. */
  seriesError: string | null;
  /** Changes whenever the config, a build or the targets change. */
  key: string;
}

type CatalogServices = Pick<Services, "home" | "env" | "caches" | "targets">;

const CATALOGS = cacheSlot("reference catalogs", () => new Map<string, { key: string; catalog: Catalog }>());
const LOADED = cacheSlot("series configs loaded for references", () => new WeakMap<object, LoadResult>());

type LoadResult = { series: SeriesConfig | null; error: string | null };

/** The episode's catalog, rebuilt only when its inputs changed. */
export async function readCatalog(services: CatalogServices, place: RefsPlace): Promise<Catalog> {
  const ep = place.ep;
  const [final, proxy] = await Promise.all([
    loadViewInputs(services, ep, "final"),
    loadViewInputs(services, ep, "proxy"),
  ]);
  const passes = { final, proxy };
  const any = final ?? proxy;
  let seriesRaw: Record<string, unknown> | null;
  let loaded: LoadResult;
  let registry: TargetRegistryView;
  if (any) {
    seriesRaw = any.seriesRaw;
    loaded = { series: any.series, error: any.seriesError };
    registry = any.env.targets;
  } else {
    seriesRaw = await readConfig(services, place);
    loaded = seriesRaw ? loadConfig(services, seriesRaw) : { series: null, error: null };
    registry = (await compileEnv(services, place.series.config ? place.series.home : null)).targets;
  }
  const { identity, intern, registryKey } = identities(services);
  const key = [
    final?.key ?? "-",
    proxy?.key ?? "-",
    identity(seriesRaw),
    registryKey(registry),
    intern(place.series.home),
  ].join("|");
  const cache = services.caches.of(CATALOGS);
  const hit = cache.get(ep);
  if (hit && hit.key === key) return hit.catalog;
  const refs = buildRefs(place, loaded.series, passes);
  const catalog: Catalog = {
    refs,
    byId: new Map(refs.map((r) => [r.ref.id, r])),
    registry,
    seriesRaw,
    seriesError: loaded.error,
    key,
  };
  if (cache.size > 200) cache.clear();
  cache.set(ep, { key, catalog });
  return catalog;
}

/** One reference of the catalog: 404 when the episode has no such reference. */
export function catalogRef(catalog: Catalog, id: string): CatalogRef {
  const found = catalog.byId.get(id);
  if (found) return found;
  const why = catalog.seriesError ? ` (the series config does not load: ${catalog.seriesError})` : "";
  throw new StudioError(404, `${id} is not a reference of this episode${why}`);
}

async function readConfig(
  services: CatalogServices,
  place: RefsPlace,
): Promise<Record<string, unknown> | null> {
  const config = place.series.config;
  if (!config) return null;
  try {
    const raw = await readShowJson(
      services,
      folderFence(path.dirname(config), "its folder"),
      config,
      "series.json",
    );
    return isObject(raw) ? raw : null;
  } catch (err) {
    // A config linked out of its folder is refused outright; one being edited may not parse.
    if (err instanceof StudioError && err.status === 403) throw err;
    return null;
  }
}

function loadConfig(services: CatalogServices, raw: Record<string, unknown>): LoadResult {
  const loaded = services.caches.of(LOADED);
  let hit = loaded.get(raw);
  if (!hit) {
    try {
      hit = { series: loadSeries(raw), error: null };
    } catch (err) {
      hit = { series: null, error: err instanceof Error ? err.message : String(err) };
    }
    loaded.set(raw, hit);
  }
  return hit;
}

// ------------------------------------------------------------------------------------------------ building

/** A story with no shots, for wording references of an episode that has no build yet. */
const emptyStory = (): Story => ({
  episode: "",
  title: "",
  series: { fps: 24, width: 0, height: 0 },
  sequences: [],
});

/** A build context for the wording helpers (they read the config, and the story for voices' longest lines). */
function wordingContext(series: SeriesConfig, story: Story | null, vi: ViewInputs | null): BuildCtx | null {
  try {
    return makeContext({
      story: story ?? emptyStory(),
      series,
      pass: vi?.pass ?? "final",
      targets: vi?.env.targets ?? { get: () => undefined, ids: () => [] },
      defaultTarget: vi?.env.defaultTarget ?? "",
    });
  } catch {
    // A config whose profiles or pacing do not check builds nothing either; the wording falls back to none.
    return null;
  }
}

/** A location's plate as its config names it; one with no plate yet gets the conventional place a drawn one is kept. */
export const platePath = (key: string, loc: Location): string => textOf(loc.plate) ?? `refs/_bg/${key}.png`;

const nameOf = (id: string, s: Subject | undefined) =>
  typeof s?.name === "string" && s.name.trim() ? s.name.trim() : id;

function subjectKind(s: Subject): "character" | "prop" | "vehicle" {
  return s.kind === "prop" || s.kind === "vehicle" ? s.kind : "character";
}

/** Four panels for a character sheet; one whole picture for groups, props, vehicles and `sheet_panels: 1`. */
function panelsOf(s: Subject): 1 | 4 {
  if (subjectKind(s) !== "character") return 1;
  if (typeof s.members === "number") return 1;
  return s.sheet_panels === 1 ? 1 : 4;
}

const seriesId = (text: string): RefId => {
  const id = readRefId(text);
  if (!id)
    throw new StudioError(500, `the series config names ${JSON.stringify(text)}, which is no reference id`);
  return id;
};

/** The reference ids each pass's shots read, by shot (in cut order of the build). */
function readers(passes: Record<Pass, ViewInputs | null>) {
  const usedBy = new Map<string, Record<Pass, string[]>>();
  const slotsOf = new Map<string, Partial<Record<Pass, RefSlot[]>>>();
  const entries = new Map<
    string,
    Partial<Record<Pass, { keyframes: Record<string, unknown>; size: Size | null }>>
  >();
  for (const pass of ["final", "proxy"] as const) {
    const vi = passes[pass];
    if (!vi) continue;
    for (const id of vi.build.order) {
      const built = vi.build.shots.get(id);
      if (!built) continue;
      const sc = shotContext(vi, built);
      const slots = shotSlots(vi, sc);
      const perShot = slotsOf.get(id) ?? {};
      perShot[pass] = slots;
      slotsOf.set(id, perShot);
      for (const slot of slots) {
        if (!slot.id) continue;
        let row = usedBy.get(slot.id);
        if (!row) {
          row = { final: [], proxy: [] };
          usedBy.set(slot.id, row);
        }
        if (!row[pass].includes(id)) row[pass].push(id);
      }
      const kf = sc.reads.entry.keyframes;
      if (isObject(kf)) {
        const t = sc.next.ok ? sc.target : built.target;
        const defaults = vi.build.docs[t]?.defaults ?? vi.build.docs[built.target]?.defaults ?? {};
        const width = num(sc.reads.entry.width) ?? num(defaults.width);
        const height = num(sc.reads.entry.height) ?? num(defaults.height);
        const perEntry = entries.get(id) ?? {};
        perEntry[pass] = { keyframes: kf, size: width && height ? { width, height } : null };
        entries.set(id, perEntry);
      }
    }
  }
  return { usedBy, slotsOf, entries };
}

type Size = { width: number; height: number };

const KEYFRAME_WORDS = new Set(["continuity", "generate", "import", "none"]);

function buildRefs(place: RefsPlace, series: SeriesConfig | null, passes: Record<Pass, ViewInputs | null>) {
  const vi = passes.final ?? passes.proxy;
  const story = vi?.story ?? null;
  const { usedBy, slotsOf, entries } = readers(passes);
  const used = (id: string) => {
    const row = usedBy.get(id);
    return { final: [...(row?.final ?? [])], proxy: [...(row?.proxy ?? [])] };
  };
  const home = place.series.home;
  const fileOf = (p: string) => path.resolve(home, p.replaceAll("\\", "/"));
  const out: CatalogRef[] = [];
  const ctx = series ? wordingContext(series, story, vi) : null;
  const builtPanels = (id: string): number | null => {
    for (const p of [passes.final, passes.proxy]) {
      for (const doc of Object.values(p?.build.docs ?? {})) {
        const n = num(doc.subjects?.[id]?.sheet_panels);
        if (n !== null) return n;
      }
    }
    return null;
  };

  if (series) {
    for (const [id, s] of Object.entries(series.subjects)) {
      const kind = subjectKind(s);
      const base = series.variants[id];
      const panels = panelsOf(s);
      const made = ctx ? subjectRef(ctx, id) : null;
      const p = made?.path ?? (typeof s.sheet === "string" ? s.sheet : `refs/${id}/${id}_sheet_4panel.png`);
      const built = builtPanels(id);
      out.push({
        ref: seriesId(`subject:${id}`),
        kind,
        name: base ? nameOf(base, series.subjects[base]) : nameOf(id, s),
        subject: id,
        ...(base ? { of: base } : {}),
        path: p,
        file: fileOf(p),
        prompt: made?.ref.prompt ?? null,
        views:
          kind === "character" && panels === 4
            ? VIEWS.map((view) => ({ view, prompt: ctx ? viewRef(ctx, id, view).prompt : null }))
            : [],
        used_by: used(`subject:${id}`),
        panels,
        built_panels: built !== null && built !== panels ? built : null,
      });
    }
    for (const [key, loc] of Object.entries(series.locations)) {
      const p = platePath(key, loc);
      out.push({
        ref: seriesId(`location:${key}`),
        kind: "location",
        name: key,
        subject: null,
        ...(typeof loc.of === "string" ? { of: loc.of } : {}),
        path: p,
        file: fileOf(p),
        prompt: ctx ? plateRef(ctx, key).prompt : null,
        views: [],
        used_by: used(`location:${key}`),
        panels: 1,
        built_panels: null,
      });
    }
    for (const [id, s] of Object.entries(series.subjects)) {
      // Variants share their base's voice; only characters with a voice or a sample have one.
      if (series.variants[id] || subjectKind(s) !== "character") continue;
      if (!textOf(s.voice) && !textOf(s.voice_sample)) continue;
      const made = ctx ? voiceRef(ctx, id) : null;
      const p = made?.path ?? voiceSamplePath(id, s);
      out.push({
        ref: seriesId(`voice:${id}`),
        kind: "voice",
        name: nameOf(id, s),
        subject: id,
        path: p,
        file: fileOf(p),
        prompt: made?.ref.prompt ?? null,
        views: [],
        used_by: used(`voice:${id}`),
        panels: 1,
        built_panels: null,
      });
    }
  }

  // Keyframes: script order first, then shots only a build knows.
  const located = storyShots(story);
  const shotIds = [...located.keys(), ...[...entries.keys()].filter((id) => !located.has(id))];
  for (const shot of shotIds) {
    const perPass = entries.get(shot);
    if (!perPass) continue;
    const where = located.get(shot) ?? null;
    for (const which of KEYFRAME_ENDS) {
      const id = seriesIdOrNull(`shot:${shot}:${which}`);
      if (!id) continue;
      const facts = keyframeFacts(shot, which, where, perPass, slotsOf.get(shot) ?? {}, series);
      const file = keyframeFile(place, shot, which);
      let prompt: string | null = null;
      if (series && where) {
        try {
          prompt = keyframePrompt({ shot: where.shot, sequence: where.sequence, series, which });
        } catch {
          prompt = null;
        }
      }
      out.push({
        ref: id,
        kind: "keyframe",
        name: `${shot} ${which} frame`,
        subject: null,
        path: path.relative(place.ep, file).split(path.sep).join("/"),
        file,
        prompt,
        views: [],
        used_by: used(id.id),
        panels: 1,
        built_panels: null,
        keyframe: facts,
      });
    }
  }
  return out;
}

const seriesIdOrNull = (text: string) => readRefId(text);

type Located = { shot: Shot; sequence: Sequence; index: number };

function storyShots(story: Story | null): Map<string, Located> {
  const out = new Map<string, Located>();
  for (const sequence of story?.sequences ?? []) {
    sequence.shots.forEach((shot, index) => {
      out.set(shot.id, { shot, sequence, index });
    });
  }
  return out;
}

function keyframeFacts(
  shot: string,
  which: KeyframeEnd,
  where: Located | null,
  perPass: Partial<Record<Pass, { keyframes: Record<string, unknown>; size: Size | null }>>,
  slots: Partial<Record<Pass, RefSlot[]>>,
  series: SeriesConfig | null,
): KeyframeFacts {
  const role = which;
  let need: KeyframeFacts["need"] = null;
  for (const pass of ["final", "proxy"] as const) {
    for (const slot of slots[pass] ?? []) {
      if (slot.role !== role) continue;
      if (!slot.optional) need = "required";
      else need ??= "optional";
    }
  }
  const reads = (["final", "proxy"] as const).some((p) => textOf(perPass[p]?.keyframes[which]) !== null);
  const script = where ? (where.shot[which] ?? where.sequence[which] ?? null) : null;
  const derived = where ? keyframeMethod(where.shot, which, where.sequence, where.index) : null;
  let method: KeyframeMethod = "generate";
  let importPath: string | null = null;
  if (derived === "continuity" && which === "first") method = "continuity";
  else if (derived === "import") method = "import";
  else if (derived !== null && !KEYFRAME_WORDS.has(derived.toLowerCase())) {
    method = "import";
    importPath = derived;
  }
  return {
    shot,
    which,
    need,
    method,
    script,
    requested: script !== null && script.toLowerCase() !== "none",
    reads,
    import_path: importPath,
    size: perPass.final?.size ?? perPass.proxy?.size ?? null,
    sizes: { final: perPass.final?.size ?? null, proxy: perPass.proxy?.size ?? null },
    edit_candidates: where && series ? editCandidates(where, series) : [],
  };
}

/**
 * What an edit target is given to draw a keyframe, in order: characters in script order, then props and
 * vehicles, then the plate. A character gives its face view on a single-subject close shot, else its
 * three-quarter view.
 */
function editCandidates(where: Located, series: SeriesConfig): { ref: string; view: CharacterView | null }[] {
  const { shot } = where;
  const plate = shot.plate || where.sequence.location;
  const onScreen = [...shot.cast, ...shot.props.filter((p) => !shot.cast.includes(p))];
  const subject = (id: string) => (Object.hasOwn(series.subjects, id) ? series.subjects[id] : undefined);
  const size = canonicalSize(shot.size);
  const close = size !== null && ["close", "cu"].some((f) => canonicalSize(f) === size);
  const out: { ref: string; view: CharacterView | null }[] = [];
  const people = onScreen.filter((id) => subject(id) && subjectKind(subject(id) as Subject) === "character");
  for (const id of people) {
    const s = subject(id) as Subject;
    const view: CharacterView | null =
      panelsOf(s) === 4 ? (close && onScreen.length === 1 ? "04_face" : "01_threequarter") : null;
    out.push({ ref: `subject:${id}`, view });
  }
  for (const id of onScreen)
    if (!people.includes(id) && subject(id)) out.push({ ref: `subject:${id}`, view: null });
  if (plate && Object.hasOwn(series.locations, plate)) out.push({ ref: `location:${plate}`, view: null });
  return out;
}
