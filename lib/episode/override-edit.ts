// Shot overrides and the episode target in overrides.json (api extras 5.5; 6, rules 8 and 9): checked values,
// pass fields stamped with the base story hash, retargets, and the answer the override routes give.
import { compileOneShot } from "../compile/build.ts";
import type { Entry, Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { badRequest, conflict, notFound } from "../errors.ts";
import { isTargetId, TARGET_ID_RULE } from "../schema/fields.ts";
import { storyHash } from "../script/canonical.ts";
import { parseSeed } from "../script/seeds.ts";
import type { Story } from "../script/types.ts";
import { loadSeries, type Profile, parseLoras, parseSeriesJson, validateProfiles } from "../series/load.ts";
import { errorMessage, isObject, isWhole, oneOf } from "../store/json-guards.ts";
import { withLock } from "../store/lock.ts";
import { compileEnv } from "./compile-env.ts";
import { episodeName, PASSES } from "./cut.ts";
import {
  type EpisodeTargets,
  episodeTarget,
  type OverridesFile,
  PASS_FIELDS,
  type PassField,
  type PassOverride,
  readOverrides,
  type ShotOverrides,
  type TargetOverride,
  targetBlock,
  writeOverrides,
} from "./overrides-file.ts";
import type { CompileEnv } from "./prepare.ts";
import { type Build, type BuiltShot, readBuild, readStory } from "./shotlists.ts";
import { readSources, type Sources } from "./sources.ts";
import { type EpisodeTargetSource, episodeDefault, shotTarget, type TargetInputs } from "./target-choice.ts";

/** The fields PUT /override takes, in the order its refusal lists them. */
export const OVERRIDE_FIELDS = [
  "prompt",
  "seed",
  "model",
  "loras",
  "steps",
  "note",
  "target",
  "negative",
  "model_low",
  "size",
] as const;

// ------------------------------------------------------------------------------------------- what targets are

export interface EpisodeTargeting {
  env: CompileEnv;
  sources: Sources;
  /** `series.target` of the series config in force, or null. */
  seriesTarget: string | null;
  profiles: Record<string, Profile>;
}

/** What target choice needs besides overrides.json: the series target, profiles and the show's targets. */
export async function episodeTargeting(
  services: Pick<Services, "home" | "targets" | "caches" | "locks">,
  ep: string,
): Promise<EpisodeTargeting> {
  const sources = await readSources(ep);
  const env = await compileEnv(services, sources.showDir, ep);
  let seriesTarget: string | null = null;
  let profiles: Record<string, Profile> = {};
  if (sources.series) {
    try {
      const raw = parseSeriesJson(sources.series.text);
      if (isObject(raw)) {
        const declared = isObject(raw.series) ? raw.series.target : undefined;
        if (typeof declared === "string" && declared !== "") seriesTarget = declared;
        profiles = validateProfiles(raw);
      }
    } catch {
      // A config that does not load names no target here; the build reports its problem.
    }
  }
  return { env, sources, seriesTarget, profiles };
}

const inputsOf = (t: EpisodeTargeting, overrides: OverridesFile): TargetInputs => ({
  overrides,
  seriesTarget: t.seriesTarget,
  defaultTarget: t.env.defaultTarget,
  profiles: t.profiles,
});

function checkVideoTarget(env: CompileEnv, target: string, field = "target"): void {
  if (env.targets.get(target)?.kind !== "video") {
    throw badRequest(
      `${field}: '${target}' is not a video target (known: ${env.targets.ids("video").join(", ")})`,
    );
  }
}

// ------------------------------------------------------------------------------------------ checking values

export interface OverrideChange {
  /** `undefined`: not in the request; null: clear. */
  seed?: bigint | null;
  note?: string | null;
  target?: string | null;
  pass: Partial<Record<PassField, PassOverride[PassField] | null>>;
}

const text = (field: string, v: unknown): string | null => {
  if (v === null) return null;
  if (typeof v !== "string") throw badRequest(`${field} must be text or null`);
  return v;
};

/** Check `fields` of PUT /override: unknown names, types and shapes, each refusal naming the field. */
export function checkOverrideFields(fields: Record<string, unknown>): OverrideChange {
  const unknown = Object.keys(fields)
    .filter((k) => !oneOf(OVERRIDE_FIELDS, k))
    .sort();
  if (unknown.length) {
    throw badRequest(`unknown override field(s) ${unknown.join(", ")}: one of ${OVERRIDE_FIELDS.join(", ")}`);
  }
  const change: OverrideChange = { pass: {} };
  const has = (k: string) => Object.hasOwn(fields, k);
  if (has("seed")) change.seed = seedValue(fields.seed);
  if (has("note")) {
    const note = text("note", fields.note);
    change.note = note?.trim() ? note : null;
  }
  if (has("target")) {
    const target = text("target", fields.target);
    // The target is stored and later named in every render's plan: only a real id shape is kept.
    if (target && !isTargetId(target)) throw badRequest(`target ${TARGET_ID_RULE}, or null`);
    change.target = target || null;
  }
  for (const k of ["prompt", "model", "model_low"] as const) {
    if (has(k)) change.pass[k] = text(k, fields[k]) || null;
  }
  // `""` is an explicit empty negative (no negative at all), unlike the other text fields.
  if (has("negative")) change.pass.negative = text("negative", fields.negative);
  if (has("loras")) change.pass.loras = lorasValue(fields.loras);
  if (has("steps")) {
    const v = fields.steps;
    if (v !== null && !(isWhole(v) && v >= 1)) {
      throw badRequest("steps must be a whole number of at least 1, or null");
    }
    change.pass.steps = v;
  }
  if (has("size")) change.pass.size = sizeValue(fields.size);
  return change;
}

function seedValue(v: unknown): bigint | null {
  if (v === null || v === "") return null;
  const parsed =
    typeof v === "string"
      ? parseSeed(v)
      : typeof v === "number" && Number.isSafeInteger(v) && v >= 0
        ? BigInt(v)
        : null;
  if (parsed === null) {
    throw badRequest("seed must be a string of digits from 0 to 2^63-1, or null to clear it");
  }
  return parsed;
}

function lorasValue(v: unknown): PassOverride["loras"] | null {
  if (v === null || v === "") return null;
  try {
    return parseLoras(v);
  } catch (err) {
    throw badRequest(`loras: ${errorMessage(err)}`);
  }
}

function sizeValue(v: unknown): string | null {
  if (v === null || v === "") return null;
  const m = typeof v === "string" ? /^\s*(\d+)\s*[xX]\s*(\d+)\s*$/.exec(v) : null;
  if (!m || Number(m[1]) < 1 || Number(m[2]) < 1) {
    throw badRequest(`size must be WxH (e.g. 1344x768), or null; got ${JSON.stringify(v)}`);
  }
  return `${Number(m[1])}x${Number(m[2])}`;
}

// -------------------------------------------------------------------------------------------- the shot's builds

interface ShotBuilds {
  builds: Record<Pass, Build | null>;
  /** The shot as the request's pass built it, else as the other pass did. */
  primary: BuiltShot;
  builtIn(pass: Pass): BuiltShot | undefined;
  targeting: EpisodeTargeting;
  story: Story | null;
}

async function shotBuilds(
  services: Pick<Services, "home" | "targets" | "caches" | "locks">,
  ep: string,
  shot: string,
  pass: Pass,
): Promise<ShotBuilds> {
  const builds = {
    final: await readBuild(services, ep, "final"),
    proxy: await readBuild(services, ep, "proxy"),
  };
  const builtIn = (p: Pass) => builds[p]?.shots.get(shot);
  const primary = builtIn(pass) ?? builtIn(pass === "final" ? "proxy" : "final");
  if (!primary) throw notFound(`${shot} is in no build of this episode: build the episode first`);
  const [targeting, story] = await Promise.all([episodeTargeting(services, ep), readStory(services, ep)]);
  return { builds, primary, builtIn, targeting, story };
}

/**
 * The entry `pass` would render the shot with on `target` now: the built one on the built target, else the shot
 * compiled for `target` from the story IR. Throws the compile's problem; null when the pass does not build it.
 */
function currentEntry(sb: ShotBuilds, shot: string, pass: Pass, target: string): Entry | null {
  const built = sb.builtIn(pass);
  if (!built) return null;
  if (target === built.target) return built.entry;
  const series = sb.targeting.sources.series;
  if (!sb.story || !series) throw new Error("the episode's build or series config is missing");
  const { env } = sb.targeting;
  return compileOneShot(sb.story, loadSeries(series.text), shot, pass, {
    target,
    defaultTarget: env.defaultTarget,
    targets: env.targets,
  }).entry;
}

/**
 * The base hash pass fields are stamped with: the story hash of the entry they apply to. A retargeted shot whose
 * story no longer compiles for its target is a 409.
 */
function baseHashFor(sb: ShotBuilds, shot: string, pass: Pass, target: string): string {
  let entry: Entry | null;
  try {
    entry = currentEntry(sb, shot, pass, target);
  } catch (err) {
    throw conflict(
      `${shot} cannot be compiled for ${target} in the ${pass} pass (${errorMessage(err)}): ` +
        "fix the retarget first",
    );
  }
  if (!entry) throw conflict(`${shot} has no ${pass} build: build the episode first`);
  return storyHash(entry);
}

/** The same hash for the answer's `stale`, or null when it cannot be made. */
function hashNow(sb: ShotBuilds, shot: string, pass: Pass, target: string): string | null {
  try {
    const entry = currentEntry(sb, shot, pass, target);
    return entry ? storyHash(entry) : null;
  } catch {
    return null;
  }
}

// ------------------------------------------------------------------------------------------------- the answer

export interface OverrideAnswer {
  override: Record<string, unknown>;
  stale: boolean;
  target: string;
  built_target: string;
}

function answer(
  file: OverridesFile,
  shot: string,
  target: string,
  sb: ShotBuilds,
  pass: Pass,
): OverrideAnswer {
  const block = targetBlock(file, shot, target);
  const view: Record<string, unknown> = {};
  for (const p of PASSES) {
    const { base_hash: _hash, ...fields } = block?.[p] ?? {};
    view[p] = fields;
  }
  if (block?.seed != null) view.seed = String(block.seed);
  if (block?.note != null) view.note = block.note;
  const retarget = file.shots?.[shot]?.target;
  if (typeof retarget === "string" && retarget) view.target = retarget;
  const stored = block?.[pass]?.base_hash;
  const now = typeof stored === "string" ? hashNow(sb, shot, pass, target) : null;
  return {
    override: view,
    stale: typeof stored === "string" && now !== null && stored !== now,
    target,
    built_target: sb.primary.target,
  };
}

// --------------------------------------------------------------------------------------------------- PUT / DELETE

export interface PutOverrideInput {
  pass: Pass;
  shot: string;
  both: boolean;
  change: OverrideChange;
}

export function putOverride(
  services: Pick<Services, "home" | "targets" | "caches" | "locks">,
  ep: string,
  input: PutOverrideInput,
): Promise<OverrideAnswer> {
  const { pass, shot, change } = input;
  return withLock(services, ep, async () => {
    const sb = await shotBuilds(services, ep, shot, pass);
    const file = await readOverrides(services, ep);

    const retarget = change.target;
    if (retarget !== undefined) {
      if (retarget !== null) checkVideoTarget(sb.targeting.env, retarget, "fields.target");
      // The built target clears the retarget, unless an episode target would then win: it pins the shot instead.
      const keep = retarget !== null && (retarget !== sb.primary.target || episodeTarget(file) !== null);
      const current = shotBlockOf(file, shot);
      if (keep) setShotBlock(file, shot, { target: retarget, ...withoutTarget(current) });
      else delete current.target;
    }
    const target = shotTarget(sb.primary, sb.story, inputsOf(sb.targeting, file)).target;

    const passes: readonly Pass[] = input.both ? PASSES : [pass];
    const hashes = new Map<Pass, string>();
    if (Object.keys(change.pass).length) {
      const missing = passes.filter((p) => !sb.builtIn(p));
      if (missing.length) {
        throw conflict(`${shot} has no ${missing.join("/")} build: build the episode first`);
      }
      for (const p of passes) hashes.set(p, baseHashFor(sb, shot, p, target));
    }

    const shotBlock = shotBlockOf(file, shot);
    const stored = shotBlock[target];
    const block: TargetOverride = typeof stored === "object" && stored !== null ? stored : {};
    if (change.seed !== undefined) setOrDelete(block, "seed", change.seed);
    if (change.note !== undefined) setOrDelete(block, "note", change.note);
    for (const [p, hash] of hashes) block[p] = passBlock(block[p], change.pass, hash);
    shotBlock[target] = ordered(block);
    if (file.episode === undefined) file.episode = await episodeName(services, ep);
    await writeOverrides(services, ep, file);
    return answer(file, shot, target, sb, pass);
  });
}

/** DELETE /override: with `pass` that pass's fields only; without, the current target's block and the retarget. */
export function deleteOverride(
  services: Pick<Services, "home" | "targets" | "caches" | "locks">,
  ep: string,
  shot: string,
  pass: Pass | null,
): Promise<OverrideAnswer> {
  return withLock(services, ep, async () => {
    const sb = await shotBuilds(services, ep, shot, pass ?? "proxy");
    const file = await readOverrides(services, ep);
    const before = JSON.stringify(file, bigintText);
    let target = shotTarget(sb.primary, sb.story, inputsOf(sb.targeting, file)).target;
    const shotBlock = file.shots?.[shot];
    if (shotBlock) {
      if (pass) {
        const block = targetBlock(file, shot, target);
        if (block) delete block[pass];
      } else {
        delete shotBlock[target];
        delete shotBlock.target;
        target = shotTarget(sb.primary, sb.story, inputsOf(sb.targeting, file)).target;
      }
    }
    if (JSON.stringify(file, bigintText) !== before) await writeOverrides(services, ep, file);
    return answer(file, shot, target, sb, pass ?? "proxy");
  });
}

/** The shot's block of overrides.json, made (with `shots`) when missing. */
function shotBlockOf(file: OverridesFile, shot: string): ShotOverrides {
  const shots = file.shots ?? {};
  file.shots = shots;
  const block = shots[shot] ?? {};
  shots[shot] = block;
  return block;
}

function setShotBlock(file: OverridesFile, shot: string, block: ShotOverrides): void {
  file.shots = { ...file.shots, [shot]: block };
}

const bigintText = (_key: string, v: unknown) => (typeof v === "bigint" ? v.toString() : v);

function withoutTarget(block: ShotOverrides): ShotOverrides {
  const { target: _t, ...rest } = block;
  return rest;
}

function setOrDelete<K extends "seed" | "note">(
  block: TargetOverride,
  key: K,
  value: TargetOverride[K] | null,
) {
  if (value === null || value === undefined) delete block[key];
  else block[key] = value;
}

function passBlock(
  current: PassOverride | undefined,
  change: OverrideChange["pass"],
  hash: string,
): PassOverride {
  const merged: PassOverride = { ...(current ?? {}) };
  for (const [k, v] of Object.entries(change)) {
    if (v === null || v === undefined) delete merged[k];
    else merged[k] = v;
  }
  const out: PassOverride = { base_hash: hash };
  for (const k of PASS_FIELDS) copyField(out, merged, k);
  for (const [k, v] of Object.entries(merged)) if (!(k in out)) out[k] = v;
  return out;
}

function copyField<K extends PassField>(to: PassOverride, from: PassOverride, key: K): void {
  if (from[key] !== undefined) to[key] = from[key];
}

// Shared fields first, then the passes, as the file format lists them.
function ordered(block: TargetOverride): TargetOverride {
  const { seed, note, final, proxy, ...rest } = block;
  const out: TargetOverride = {};
  if (seed !== undefined) out.seed = seed;
  if (note !== undefined) out.note = note;
  if (final !== undefined) out.final = final;
  if (proxy !== undefined) out.proxy = proxy;
  return Object.assign(out, rest);
}

// ------------------------------------------------------------------------------------------ the episode target

export interface EpisodeTargetAnswer {
  target: string;
  target_source: EpisodeTargetSource;
  series_target: string | null;
}

/** PUT /episode-target: store `episode.target` (null clears; the plain name comes back when nothing else is set). */
export function setEpisodeTarget(
  services: Pick<Services, "home" | "targets" | "caches" | "locks">,
  ep: string,
  target: string | null,
): Promise<EpisodeTargetAnswer> {
  return withLock(services, ep, async () => {
    const targeting = await episodeTargeting(services, ep);
    if (target !== null) checkVideoTarget(targeting.env, target);
    if (!(await readBuild(services, ep, "final")) && !(await readBuild(services, ep, "proxy"))) {
      throw notFound(`${ep} has no build: build the episode first`);
    }
    const file = await readOverrides(services, ep);
    const stored = file.episode;
    const current: EpisodeTargets =
      typeof stored === "object" && stored !== null
        ? { ...stored }
        : { id: typeof stored === "string" && stored ? stored : await episodeName(services, ep) };
    const { id, target: _old, ...rest } = current;
    const name = id || (await episodeName(services, ep));
    const next: EpisodeTargets = target === null ? { id: name, ...rest } : { id: name, target, ...rest };
    const others = Object.entries(next).filter(([k, v]) => k !== "id" && v !== null && v !== undefined);
    file.episode = others.length ? next : name;
    await writeOverrides(services, ep, file);
    const chosen = episodeDefault(inputsOf(targeting, file));
    return { target: chosen.target, target_source: chosen.source, series_target: targeting.seriesTarget };
  });
}
