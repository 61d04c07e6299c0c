// Shapes of the build: its input, the compiled shot-list document, the per-target report and the build error.
import type { Sequence, Shot, Story } from "../script/types.ts";
import type { SeriesConfig } from "../series/types.ts";
import type { TargetRegistryView } from "../targets/registry.ts";

export type Pass = "final" | "proxy";

export interface BuildInput {
  story: Story;
  series: SeriesConfig;
  pass: Pass;
  /** The machine default video target (the settings' default, else `animatic`): used when neither the script nor `series.target` names one. */
  defaultTarget: string;
  targets: TargetRegistryView;
}

/** A shot with its sequence context (kept when a target compiles a subset of the episode). */
export interface ShotCtx {
  shot: Shot;
  sequence: Sequence;
  /** Index in its sequence (0 = first shot). */
  index: number;
  /** Index in the whole episode, script order. */
  order: number;
}

/** One compiled shot-list entry; key order is the order written to the file. */
export type Entry = Record<string, unknown>;

export interface ShotlistDoc {
  episode: string;
  title: string;
  /** Absent on H3 Ref2VA documents (the reference's default target). */
  target?: string;
  /** `""` on H3 Ref2VA documents only. */
  prompt_prefix?: string;
  defaults: Record<string, unknown>;
  subjects: Record<string, Record<string, unknown>>;
  shots: Entry[];
}

export interface NeededRef {
  kind: string;
  prompt: string;
}

export interface Report {
  episode: string;
  title: string;
  mode: Pass;
  /** `WxH` of the pass. */
  resolution: string;
  steps: number;
  model: string | null;
  lora: string | null;
  fps: number;
  /** Number of shots compiled for this target. */
  shots: number;
  /** Sequences of the episode when this target has every shot, else those holding at least one of its shots. */
  sequences: number;
  target_s: number;
  delivered_s: number;
  pad_frames: number;
  policies: Record<string, number>;
  /** Every reference file the shots need, by path. */
  needed: Record<string, NeededRef>;
  /** Shots that cannot render until the file at that path exists (needed refs and required keyframes). */
  blocked_shots: Record<string, string[]>;
  warnings: string[];
  target: string;
  size_hints: Record<string, string>;
}

export interface RefsTodoItem {
  path: string;
  kind: string;
  prompt: string;
  size_hint: string;
  blocks_shots: string[];
}

export interface BuildResult {
  ok: true;
  seriesTarget: string;
  /** `series`: series.target named it; `default`: the machine's (or show's) default stood in. */
  seriesTargetFrom: "series" | "default";
  /** The compiled document per target id; the series target first. */
  docs: Record<string, ShotlistDoc>;
  reports: Record<string, Report>;
  refsTodo: RefsTodoItem[];
  /** Every warning of every report, de-duplicated, in report order. */
  warnings: string[];
  /** The target each shot was built for. */
  shotTargets: Record<string, string>;
}

export type ErrorFile = "script" | "series";

/**
 * A fatal build problem (script format 4.15). The message starts with `shot <id>: `, `sequence <id>: ` or
 * talks about series.json; the structured fields let the editor find the line without reading the message
 * (open point 21).
 */
export class BuildError extends Error {
  readonly file: ErrorFile;
  readonly shot: string | null;
  readonly sequence: string | null;
  /** The script key line the error is about (`target`, `dur`, `policy`, …), or a dotted series.json key. */
  readonly key: string | null;

  constructor(
    message: string,
    where: { file?: ErrorFile; shot?: string | null; sequence?: string | null; key?: string | null } = {},
  ) {
    super(message);
    this.name = "BuildError";
    this.file = where.file ?? (where.shot || where.sequence ? "script" : "series");
    this.shot = where.shot ?? null;
    this.sequence = where.sequence ?? null;
    this.key = where.key ?? null;
  }
}

export function shotError(shot: string, message: string, key: string | null = null): BuildError {
  return new BuildError(`shot ${shot}: ${message}`, { file: "script", shot, key });
}

export function sequenceError(sequence: string, message: string, key: string | null = null): BuildError {
  return new BuildError(`sequence ${sequence}: ${message}`, { file: "script", sequence, key });
}

export function seriesError(message: string, key: string | null = null): BuildError {
  return new BuildError(message, { file: "series", key });
}
