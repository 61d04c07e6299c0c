// What the episode status and the shot detail read besides takes: the pass's build, the story, overrides.json,
// cut.json, the series config and the targets in force. Every file read is cached by its mtime, so an unchanged
// episode costs a handful of stats; `key` fingerprints all of it for the callers' own caches.
import path from "node:path";
import type { Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { StudioError } from "../errors.ts";
import { episodeFence, folderFence, readShowJson } from "../paths/guarded.ts";
import { seriesHome } from "../paths/series-home.ts";
import type { Story } from "../script/types.ts";
import { loadSeries, type Profile, validateProfiles } from "../series/load.ts";
import type { SeriesConfig } from "../series/types.ts";
import { type Caches, cacheSlot, type WithCaches } from "../store/caches.ts";
import { errorMessage, isObject } from "../store/json-guards.ts";
import type { TargetRegistryView } from "../targets/registry.ts";
import { compileEnv } from "./compile-env.ts";
import { type CutEntry, type CutFile, cutPath, normaliseList } from "./cut.ts";
import { cutEntryRecord, cutRecord } from "./cut-record.ts";
import { type OverridesFile, overridesPath } from "./overrides-file.ts";
import { parseOverrides } from "./overrides-record.ts";
import type { CompileEnv } from "./prepare.ts";
import { type Build, readBuild, readStory } from "./shotlists.ts";
import type { TargetInputs } from "./target-choice.ts";

export interface ViewInputs {
  ep: string;
  pass: Pass;
  build: Build;
  story: Story | null;
  /** overrides.json as cached (shared: read only); `{}` when absent. */
  overrides: OverridesFile;
  /** The pass's cut as read: duplicates dropped, missing script shots inserted, orphans kept in place. */
  cut: CutEntry[];
  /** Shots the pass's list in cut.json names (the others were inserted by the reading rules). */
  cutInFile: ReadonlySet<string>;
  /** The folder of the series config in force (where its reference paths start); the episode when none. */
  home: string;
  seriesRaw: Record<string, unknown> | null;
  /** The loaded config, or null when it does not load (then `seriesError` says why). */
  series: SeriesConfig | null;
  seriesError: string | null;
  profiles: Record<string, Profile>;
  env: CompileEnv;
  targetInputs: TargetInputs;
  /** Changes whenever any input above changes. */
  key: string;
  /** The caches of the services that read these inputs (what is derived from them is kept there too). */
  caches: Caches;
}

/** Small numbers standing for objects and strings, to build cache keys from (see `identities`). */
export interface Identities {
  /** The object's number: cached reads hand back the same object while the file is unchanged. 0 for non-objects. */
  identity(value: unknown): number;
  /** A short stable number for a long string (registry fingerprints, paths). */
  intern(text: string): number;
  /** A target registry's number, by content: a show's own targets are re-read on every call (new objects). */
  registryKey(view: TargetRegistryView): number;
}

const IDENTITIES = cacheSlot("identities", (): Identities => {
  const ids = new WeakMap<object, number>();
  let nextId = 1;
  const interned = new Map<string, number>();
  const registryKeys = new WeakMap<TargetRegistryView, number>();
  const intern = (text: string) => {
    let n = interned.get(text);
    if (n === undefined) {
      n = interned.size + 1;
      interned.set(text, n);
    }
    return n;
  };
  return {
    identity(value) {
      if (value === null || typeof value !== "object") return 0;
      let id = ids.get(value);
      if (id === undefined) {
        id = nextId++;
        ids.set(value, id);
      }
      return id;
    },
    intern,
    registryKey(view) {
      let key = registryKeys.get(view);
      if (key === undefined) {
        const parts = view.ids().map((id) => {
          const spec = view.get(id);
          return spec?.custom ? `${id}=${JSON.stringify(spec)}` : id;
        });
        key = intern(parts.join("\n"));
        registryKeys.set(view, key);
      }
      return key;
    },
  };
});

/** The identities kept in `services`' caches. */
export const identities = (services: WithCaches): Identities => services.caches.of(IDENTITIES);

type LoadedConfig = { series: SeriesConfig | null; error: string | null; profiles: Record<string, Profile> };
const LOADED = cacheSlot("series configs loaded", () => new WeakMap<object, LoadedConfig>());

function loadConfig(services: WithCaches, raw: Record<string, unknown>): LoadedConfig {
  const loaded = services.caches.of(LOADED);
  let hit = loaded.get(raw);
  if (!hit) {
    let series: SeriesConfig | null = null;
    let error: string | null = null;
    let profiles: Record<string, Profile> = {};
    try {
      series = loadSeries(raw);
      profiles = validateProfiles(raw);
    } catch (err) {
      error = errorMessage(err);
    }
    hit = { series, error, profiles };
    loaded.set(raw, hit);
  }
  return hit;
}

interface CutView {
  list: CutEntry[];
  inFile: Set<string>;
}
const CUT_VIEWS = cacheSlot("cut views", () => new WeakMap<object, { cut: unknown; view: CutView }>());

/** The pass's cut list, normalised once per (build, cut.json) pair. */
function cutView(services: WithCaches, file: CutFile, pass: Pass, build: Build): CutView {
  const cutCache = services.caches.of(CUT_VIEWS);
  const list = file[pass];
  const hit = cutCache.get(build);
  if (hit && hit.cut === list) return hit.view;
  const inFile = new Set<string>();
  for (const item of list ?? []) {
    const shot = cutEntryRecord.parse(item)?.shot;
    if (typeof shot === "string") inFile.add(shot);
  }
  const view = { list: normaliseList(list, pass, build.order), inFile };
  cutCache.set(build, { cut: list, view });
  return view;
}

/** The `series.target` the config names, or null. */
export function configSeriesTarget(raw: Record<string, unknown> | null): string | null {
  const block = raw?.series;
  const t = isObject(block) ? block.target : undefined;
  return typeof t === "string" && t.trim() !== "" ? t.trim() : null;
}

/** Everything but the takes, or null when the pass has no build (`known.build`: the build already read). */
export async function loadViewInputs(
  services: Pick<Services, "home" | "targets" | "caches">,
  ep: string,
  pass: Pass,
  known?: { build: Build | null },
): Promise<ViewInputs | null> {
  const build = known ? known.build : await readBuild(services, ep, pass);
  if (!build) return null;
  const [story, overridesRaw, cutRaw, home] = await Promise.all([
    readStory(services, ep),
    readShowJson(services, episodeFence(ep), overridesPath(ep), "overrides.json"),
    readShowJson(services, episodeFence(ep), cutPath(ep), "cut.json"),
    seriesHome(services, ep),
  ]);
  const overrides = overridesRaw === undefined ? {} : parseOverrides(overridesRaw);
  if (overrides === null) {
    throw new StudioError(500, `overrides.json in ${ep} is not a JSON object; fix or remove it`);
  }
  const cutFile = cutRaw === undefined ? {} : cutRecord.parse(cutRaw);
  if (cutFile === null) {
    throw new StudioError(500, `cut.json in ${ep} is not a JSON object; fix or remove it`);
  }
  let seriesRaw: Record<string, unknown> | null = null;
  let seriesError: string | null = null;
  if (home.config) {
    try {
      const raw = await readShowJson(
        services,
        folderFence(path.dirname(home.config), "its folder"),
        home.config,
        "series.json",
      );
      if (isObject(raw)) seriesRaw = raw;
      else seriesError = "series.json is not a JSON object";
    } catch (err) {
      // A config linked out of its folder is refused outright, never shown as a load error.
      if (err instanceof StudioError && err.status === 403) throw err;
      // A config being edited may not parse; the build on disk still lists the episode.
      seriesError = errorMessage(err);
    }
  }
  const config = seriesRaw
    ? loadConfig(services, seriesRaw)
    : { series: null, error: seriesError, profiles: {} };
  const env = await compileEnv(services, home.config ? path.dirname(home.config) : null, ep);
  const targetInputs: TargetInputs = {
    overrides,
    seriesTarget: configSeriesTarget(seriesRaw),
    defaultTarget: env.defaultTarget,
    profiles: config.profiles,
  };
  const { identity, intern, registryKey } = identities(services);
  const key = [
    identity(build),
    identity(story),
    identity(overridesRaw),
    identity(cutRaw),
    identity(seriesRaw),
    intern(home.home),
    intern(env.defaultTarget),
    registryKey(env.targets),
  ].join(".");
  const cut = cutView(services, cutFile, pass, build);
  return {
    ep,
    pass,
    build,
    story,
    overrides,
    cut: cut.list,
    cutInFile: cut.inFile,
    home: home.home,
    seriesRaw,
    series: config.series,
    seriesError: config.error ?? seriesError,
    profiles: config.profiles,
    env,
    targetInputs,
    key,
    caches: services.caches,
  };
}
