// Which video target each shot is built for; the machine default stands in last (script format 4.3).
import { continues } from "../script/story.ts";
import type { Continuous, Sequence, Shot } from "../script/types.ts";
import type { TargetSpec } from "../targets/registry.ts";
import type { BuildCtx } from "./context.ts";
import { BuildError, type ShotCtx, sequenceError, seriesError, shotError } from "./types.ts";

export interface TargetChoice {
  seriesTarget: string;
  /** Whether series.target named the series target or the default stood in. */
  seriesTargetFrom: "series" | "default";
  /** shot id → target id */
  byShot: Map<string, string>;
  warnings: string[];
}

/** Whether a target renders a continuation mode: `first` = it reads a first keyframe; `latent` only where declared. */
export function canRender(spec: TargetSpec, mode: Continuous): boolean {
  if (mode === "first") return spec.recipe.keyframes?.includes("first") ?? false;
  return spec.continuous?.modes?.includes(mode) ?? false;
}

export function capableTargets(ctx: BuildCtx, mode: Continuous): string[] {
  return ctx.targets.ids("video").filter((id) => canRender(ctx.targets.get(id)!, mode));
}

const knownList = (ctx: BuildCtx) => ctx.targets.ids("video").join(", ");

function isVideo(ctx: BuildCtx, id: string): boolean {
  return ctx.targets.get(id)?.kind === "video";
}

/** The series target: `series.target`, else the machine default. */
export function resolveSeriesTarget(ctx: BuildCtx): string {
  const declared = ctx.series.series?.target;
  if (declared !== undefined && declared !== null) {
    if (typeof declared !== "string" || !isVideo(ctx, declared)) {
      throw seriesError(
        `series.json series.target ${JSON.stringify(declared)} is not a video target (known: ${knownList(ctx)})`,
        "series.target",
      );
    }
    return declared;
  }
  if (!isVideo(ctx, ctx.defaultTarget)) {
    throw new BuildError(
      `the default video target '${ctx.defaultTarget}' is not a video target (known: ${knownList(ctx)})`,
      { file: "series", key: null },
    );
  }
  return ctx.defaultTarget;
}

export function checkProfileTargets(ctx: BuildCtx): void {
  for (const [name, p] of Object.entries(ctx.profiles)) {
    if (p.target !== undefined && !isVideo(ctx, p.target)) {
      throw seriesError(
        `series.json profile '${name}': target '${p.target}' is not a video target (known: ${knownList(ctx)})`,
        `profiles.${name}`,
      );
    }
  }
}

function unknownProfile(ctx: BuildCtx, name: string): string {
  const known = Object.keys(ctx.profiles).sort();
  const list = known.length ? `known: ${known.join(", ")}` : "series.json has no profiles";
  return `profile '${name}' is not in series.json profiles (${list})`;
}

export function checkSequence(ctx: BuildCtx, seq: Sequence): void {
  if (seq.profile !== undefined && !Object.hasOwn(ctx.profiles, seq.profile)) {
    throw sequenceError(seq.id, unknownProfile(ctx, seq.profile), "profile");
  }
  if (seq.target !== undefined && !isVideo(ctx, seq.target)) {
    throw sequenceError(
      seq.id,
      `target '${seq.target}' is not a video target (known: ${knownList(ctx)})`,
      "target",
    );
  }
}

export function checkShot(ctx: BuildCtx, shot: Shot): void {
  if (shot.profile !== undefined && !Object.hasOwn(ctx.profiles, shot.profile)) {
    throw shotError(shot.id, unknownProfile(ctx, shot.profile), "profile");
  }
  if (shot.target !== undefined && !isVideo(ctx, shot.target)) {
    throw shotError(
      shot.id,
      `target '${shot.target}' is not a video target (known: ${knownList(ctx)})`,
      "target",
    );
  }
}

/**
 * First match wins: shot line, shot profile, sequence line, sequence profile, series target, machine default
 * (script format 4.3).
 */
export function scriptTarget(ctx: BuildCtx, sc: ShotCtx, seriesTarget: string): string {
  const { shot, sequence } = sc;
  return (
    shot.target ??
    (shot.profile !== undefined ? ctx.profiles[shot.profile]?.target : undefined) ??
    sequence.target ??
    (sequence.profile !== undefined ? ctx.profiles[sequence.profile]?.target : undefined) ??
    seriesTarget
  );
}

/** The continuation adjustment: a partner for a mode the chosen target cannot render, else an error. */
export function adjustForContinuation(ctx: BuildCtx, sc: ShotCtx, chosen: string): string {
  const mode = continues(sc.shot, sc.sequence, sc.index);
  if (!mode) return chosen;
  const spec = ctx.targets.get(chosen)!;
  if (canRender(spec, mode)) return chosen;
  const id = sc.shot.id;
  const partner = spec.continuous?.[mode];
  if (typeof partner === "string" && sc.shot.target === undefined) {
    const p = ctx.targets.get(partner);
    if (p && p.kind === "video" && canRender(p, mode)) return partner;
  }
  const capable = capableTargets(ctx, mode).join(", ") || "none";
  const cannot =
    mode === "first" ? "does not read a first frame" : `cannot hold the previous take's ${mode} frames`;
  if (sc.shot.target !== undefined) {
    throw shotError(
      id,
      `target '${chosen}' cannot render continuous: ${mode} (it ${cannot}); targets that can: ${capable}`,
      "target",
    );
  }
  throw shotError(
    id,
    `continuous: ${mode} cannot render on ${chosen} (it ${cannot}); targets that can: ${capable}`,
    "continuous",
  );
}

/** One shot's target, after the checks of its own and its sequence's `target:`/`profile:` lines. */
export function chooseShot(ctx: BuildCtx, sc: ShotCtx, seriesTarget: string): string {
  checkSequence(ctx, sc.sequence);
  checkShot(ctx, sc.shot);
  return adjustForContinuation(ctx, sc, scriptTarget(ctx, sc, seriesTarget));
}

export function chooseTargets(ctx: BuildCtx): TargetChoice {
  const seriesTarget = resolveSeriesTarget(ctx);
  checkProfileTargets(ctx);
  const byShot = new Map<string, string>();
  const warnings: string[] = [];
  let seen = false;
  for (const sequence of ctx.story.sequences) {
    checkSequence(ctx, sequence);
    for (const shot of sequence.shots) {
      checkShot(ctx, shot);
      const sc = ctx.byId.get(shot.id)!;
      byShot.set(shot.id, adjustForContinuation(ctx, sc, scriptTarget(ctx, sc, seriesTarget)));
      if (!seen) {
        seen = true;
        const mode = continues(shot, sequence, sc.index);
        // Open point 11: it builds, but nothing can come before the episode's first shot in script order.
        if (mode)
          warnings.push(
            `${shot.id}: continuous: ${mode} on the episode's first shot: there is no earlier shot to continue`,
          );
      }
    }
  }
  const declared = ctx.series.series?.target;
  const seriesTargetFrom = declared !== undefined && declared !== null ? "series" : "default";
  return { seriesTarget, seriesTargetFrom, byShot, warnings };
}
