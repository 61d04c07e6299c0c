// What every compile step reads: the story flattened once, the series blocks the build uses, validated up front.
import { isPace, type Pace } from "../script/pacing.ts";
import type { DialogueLine, Shot } from "../script/types.ts";
import { SeriesError } from "../series/errors.ts";
import { type Profile, validateProfiles } from "../series/load.ts";
import type { Location, SeriesConfig, Subject } from "../series/types.ts";
import { isObject, trimmed } from "../store/json-guards.ts";
import type { TargetRegistryView } from "../targets/registry.ts";
import { type BuildInput, type Pass, type ShotCtx, seriesError } from "./types.ts";

export interface AudioConfig {
  /** `audio.mode`, replaced by `proxy.audio_mode` in the proxy pass. */
  mode: string;
  track: string;
  defaultPolicy: string | null;
  retention: string | null;
}

export interface BuildCtx {
  story: BuildInput["story"];
  series: SeriesConfig;
  pass: Pass;
  targets: TargetRegistryView;
  defaultTarget: string;
  profiles: Record<string, Profile>;
  shots: ShotCtx[];
  byId: Map<string, ShotCtx>;
  audio: AudioConfig;
  /** `speech.pace`, checked when the first shot compiles. */
  defaultPace: Pace;
  /** `series` (final) or `proxy` (proxy) block; undefined when the series has none. */
  passBlock: Record<string, unknown> | undefined;
  /** Episode-wide default latent hold (`continuous.overlap`). */
  overlap: number | undefined;
  /** What this build works out once and reads many times (a build's own, so nothing outlives it). */
  memo: BuildMemo;
}

export interface BuildMemo {
  /** Each speaker's longest line, made on first use. */
  longest?: Map<string, string>;
  /** Syllables and pauses of each shot's lines. */
  measures: WeakMap<readonly DialogueLine[], { syl: number; pauses: number }>;
}

export function flattenShots(story: BuildInput["story"]): ShotCtx[] {
  const out: ShotCtx[] = [];
  for (const sequence of story.sequences) {
    sequence.shots.forEach((shot, index) => {
      out.push({ shot, sequence, index, order: out.length });
    });
  }
  return out;
}

function readPace(raw: Record<string, unknown>): Pace {
  const speech = raw.speech;
  if (speech === undefined || speech === null) return "normal";
  if (!isObject(speech))
    throw seriesError('series.json `speech` must be an object like {"pace": "normal"}', "speech");
  const p = speech.pace;
  if (p === undefined || p === null) return "normal";
  const v = typeof p === "string" ? p.trim().toLowerCase() : "";
  if (!isPace(v)) {
    throw seriesError(
      `series.json speech.pace ${JSON.stringify(p)} is not one of fast, normal, slow`,
      "speech.pace",
    );
  }
  return v;
}

function readAudio(series: SeriesConfig, pass: Pass): AudioConfig {
  const block = isObject(series.raw.audio) ? series.raw.audio : {};
  let mode = trimmed(block.mode) ?? "source_track";
  if (pass === "proxy") mode = trimmed(series.proxy?.audio_mode) ?? mode;
  return {
    mode,
    track: trimmed(block.track) ?? "",
    defaultPolicy: trimmed(block.default_policy),
    retention: trimmed(block.retention),
  };
}

export function makeContext(input: BuildInput): BuildCtx {
  const { story, series, pass } = input;
  const shots = flattenShots(story);
  let profiles: Record<string, Profile>;
  try {
    profiles = validateProfiles(series.raw);
  } catch (err) {
    if (err instanceof SeriesError) {
      const msg = err.message.startsWith("series.json") ? err.message : `series.json ${err.message}`;
      throw seriesError(msg, err.key ?? "profiles");
    }
    throw err;
  }
  const cont = isObject(series.raw.continuous) ? series.raw.continuous.overlap : undefined;
  return {
    story,
    series,
    pass,
    targets: input.targets,
    defaultTarget: input.defaultTarget,
    profiles,
    shots,
    byId: new Map(shots.map((s) => [s.shot.id, s])),
    audio: readAudio(series, pass),
    defaultPace: shots.length ? readPace(series.raw) : "normal",
    passBlock: pass === "final" ? (isObject(series.series) ? series.series : undefined) : series.proxy,
    overlap: typeof cont === "number" ? cont : undefined,
    memo: { measures: new WeakMap() },
  };
}

export function shotPace(ctx: BuildCtx, shot: Shot): Pace {
  const p = shot.pace?.toLowerCase();
  return p && isPace(p) ? p : ctx.defaultPace;
}

export function subjectOf(ctx: BuildCtx, id: string): Subject | undefined {
  return Object.hasOwn(ctx.series.subjects, id) ? ctx.series.subjects[id] : undefined;
}

export function locationOf(ctx: BuildCtx, key: string): Location | undefined {
  return Object.hasOwn(ctx.series.locations, key) ? ctx.series.locations[key] : undefined;
}

/** A person for continuity checks: a variant counts as its base. */
export function personOf(ctx: BuildCtx, id: string): string {
  return ctx.series.variants[id] ?? id;
}

/** Cast, then props not already in the cast (slot order). */
export function shotSubjects(shot: Shot): string[] {
  const out = [...shot.cast];
  for (const p of shot.props) if (!out.includes(p)) out.push(p);
  return out;
}

/** Distinct speakers in order of their first line (V.O./O.S. included). */
export function speakers(shot: Shot): string[] {
  const out: string[] = [];
  for (const d of shot.dialogue) if (!out.includes(d.speaker)) out.push(d.speaker);
  return out;
}

const REF_KEYS: Readonly<Record<string, "image" | "audio">> = {
  target: "image",
  keyframe_target: "image",
  voice_target: "audio",
};

/**
 * `series.refs`: which image/audio targets make references, keyframes and voices (script format 3.9).
 * Checked when a compile needs pictures from the image target; ids are checked against the registry once it
 * holds targets of that kind.
 */
/**
 * Image and audio targets of the reference implementation (targets 2.1) that a series config may already name
 * while this service does not ship them yet: accepted so existing shows still build, and typos are still caught.
 */
const REFERENCE_TARGETS: Record<string, readonly string[]> = {
  image: [
    "krea2",
    "flux2_klein",
    "flux2_klein_edit",
    "flux_kontext",
    "klein_erp_360",
    "minimax_h3_still",
    "qwen_image_21",
    "qwen_rapid_aio",
    "z_image_turbo",
  ],
  audio: ["ltx2_voice"],
};

export function checkRefsBlock(ctx: BuildCtx): void {
  const refs = ctx.series.raw.refs;
  if (refs === undefined || refs === null) return;
  if (!isObject(refs))
    throw seriesError('series.json `refs` must be an object like {"target": "krea2"}', "refs");
  for (const [key, kind] of Object.entries(REF_KEYS)) {
    const v = refs[key];
    if (v === undefined || v === null) continue;
    const known = [...new Set([...ctx.targets.ids(kind), ...(REFERENCE_TARGETS[kind] ?? [])])].sort();
    const ok = typeof v === "string" && v.trim() !== "" && known.includes(v);
    if (!ok) {
      const list = known.length ? ` (known: ${known.join(", ")})` : "";
      throw seriesError(
        `series.json refs.${key} ${JSON.stringify(v)} is not an ${kind} target${list}`,
        `refs.${key}`,
      );
    }
  }
}
