// The entry a shot's render on a given target would use now: the built one on the built target, else the shot
// compiled for that target from shots.json (compileOneShot), with that target's pass defaults. Compiles are
// cached per story, series config and target registry, so a listing recompiles only after a rebuild.

import { compileOneShot } from "../compile/build.ts";
import { makeContext } from "../compile/context.ts";
import { passSettings, presetExtras } from "../compile/settings.ts";
import type { Entry, Pass } from "../compile/types.ts";
import type { Story } from "../script/types.ts";
import type { SeriesConfig } from "../series/types.ts";
import { type Caches, cacheSlot } from "../store/caches.ts";
import { errorMessage, num } from "../store/json-guards.ts";
import { targetFps } from "../targets/grid.ts";
import type { CompileEnv } from "./prepare.ts";
import type { Build, BuiltShot } from "./shotlists.ts";
import { identities } from "./view-inputs.ts";

export interface Current {
  entry: Entry;
  /** That target's pass defaults as a build would write them; null when they cannot be made. */
  defaults: Record<string, unknown> | null;
  fps: number;
  width: number | null;
  height: number | null;
}

export type CurrentResult = { ok: true; value: Current } | { ok: false; error: string };

export interface CompileSources {
  pass: Pass;
  build: Build;
  story: Story | null;
  series: SeriesConfig | null;
  seriesError: string | null;
  env: CompileEnv;
  caches: Caches;
}

/** The frame rate a target renders the episode at (the series fps where the target follows it). */
export function fpsOf(src: CompileSources, target: string): number {
  const seriesFps = src.story?.series.fps ?? 24;
  const spec = src.env.targets.get(target);
  if (spec) return targetFps(spec.template, seriesFps);
  return num(src.build.docs[target]?.defaults?.fps) ?? seriesFps;
}

const COMPILED = cacheSlot("entries compiled for another target", () => new Map<string, CurrentResult>());
const MAX_CACHED = 20_000;

function cacheKey(src: CompileSources, shot: string, target: string): string {
  const { identity, intern, registryKey } = identities(src);
  return [
    identity(src.build),
    identity(src.story),
    identity(src.series),
    intern(src.env.defaultTarget),
    registryKey(src.env.targets),
    src.pass,
    shot,
    target,
  ].join("\0");
}

/** Pass defaults for a target the build has no document for, as compileTarget would write their core keys. */
function defaultsFor(
  src: CompileSources,
  story: Story,
  series: SeriesConfig,
  target: string,
): Record<string, unknown> | null {
  const spec = src.env.targets.get(target);
  if (!spec) return null;
  try {
    const ctx = makeContext({ story, series, pass: src.pass, ...src.env });
    const ps = passSettings(ctx, spec, src.build.seriesTarget);
    const d: Record<string, unknown> = {
      width: ps.width,
      height: ps.height,
      fps: ps.fps,
      steps: ps.steps,
      model: ps.model,
      lora: ps.lora,
    };
    if (ps.loras !== undefined) d.loras = ps.loras;
    return { ...d, ...presetExtras(ps.preset) };
  } catch {
    return null;
  }
}

/** The shot as the build compiled it, on its built target: always there. */
export function builtEntry(src: CompileSources, built: BuiltShot): Current {
  const d = src.build.docs[built.target]?.defaults ?? null;
  return {
    entry: built.entry,
    defaults: d,
    fps: fpsOf(src, built.target),
    width: num(d?.width),
    height: num(d?.height),
  };
}

/** The entry `built` would render with on `target`, or why it cannot be compiled. */
export function currentEntry(src: CompileSources, built: BuiltShot, target: string): CurrentResult {
  if (target === built.target) return { ok: true, value: builtEntry(src, built) };
  const cache = src.caches.of(COMPILED);
  const key = cacheKey(src, built.id, target);
  const hit = cache.get(key);
  if (hit) return hit;
  let result: CurrentResult;
  if (!src.story) result = { ok: false, error: "shotlist/shots.json is missing: build the episode again" };
  else if (!src.series)
    result = { ok: false, error: `series.json does not load: ${src.seriesError ?? "missing"}` };
  else {
    try {
      const one = compileOneShot(src.story, src.series, built.id, src.pass, { ...src.env, target });
      result = {
        ok: true,
        value: {
          entry: one.entry,
          defaults: src.build.docs[target]?.defaults ?? defaultsFor(src, src.story, src.series, target),
          fps: one.fps,
          width: one.width,
          height: one.height,
        },
      };
    } catch (err) {
      result = { ok: false, error: errorMessage(err) };
    }
  }
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(key, result);
  return result;
}
