// The build's public API: every target's shot list and report for one pass (script format 4.1, 5.3).
import type { Story } from "../script/types.ts";
import type { SeriesConfig } from "../series/types.ts";
import type { TargetRegistryView } from "../targets/registry.ts";
import { checkProfileTargets, chooseShot, chooseTargets, resolveSeriesTarget } from "./choose.ts";
import { compileTarget, type TargetCompile } from "./compile.ts";
import { makeContext } from "./context.ts";
import { mergeRefsTodo } from "./refs-todo.ts";
import { checkDesigns } from "./slots.ts";
import {
  BuildError,
  type BuildInput,
  type BuildResult,
  type Entry,
  type Pass,
  type Report,
  type ShotCtx,
  type ShotlistDoc,
  shotError,
} from "./types.ts";
import { storyWarnings } from "./warnings.ts";

export type { PaceReport, PaceRow } from "./pace.ts";
export { paceReport } from "./pace.ts";
export * from "./types.ts";

/** The default machine target when the settings name none: a timing animatic needs no model. */
export const FALLBACK_DEFAULT_TARGET = "animatic";

export function buildEpisode(input: BuildInput): BuildResult {
  const ctx = makeContext(input);
  const choice = chooseTargets(ctx);
  for (const sc of ctx.shots) checkDesigns(ctx, sc.shot);
  const story = [...choice.warnings, ...storyWarnings(ctx)];

  // The series target first and always, then the others in order of their first shot.
  const groups = new Map<string, ShotCtx[]>([[choice.seriesTarget, []]]);
  for (const sc of ctx.shots) {
    const t = choice.byShot.get(sc.shot.id)!;
    let list = groups.get(t);
    if (!list) {
      list = [];
      groups.set(t, list);
    }
    list.push(sc);
  }

  const docs: Record<string, ShotlistDoc> = {};
  const reports: Record<string, Report> = {};
  for (const [target, shots] of groups) {
    const spec = ctx.targets.get(target)!;
    const isSeries = target === choice.seriesTarget;
    const c = compileTarget(ctx, spec, shots, choice.seriesTarget, isSeries ? story : []);
    docs[target] = c.doc;
    reports[target] = c.report;
  }
  const ordered = Object.values(reports);
  const seen = new Set<string>();
  const warnings: string[] = [];
  for (const r of ordered) {
    for (const w of r.warnings) {
      if (!seen.has(w)) {
        seen.add(w);
        warnings.push(w);
      }
    }
  }
  return {
    ok: true,
    seriesTarget: choice.seriesTarget,
    seriesTargetFrom: choice.seriesTargetFrom,
    docs,
    reports,
    refsTodo: mergeRefsTodo(ordered),
    warnings,
    shotTargets: Object.fromEntries(choice.byShot),
  };
}

export interface OneShotOptions {
  /** Compile for this video target instead of the one the script chooses (a one-off target preview). */
  target?: string;
  defaultTarget: string;
  targets: TargetRegistryView;
}

export interface OneShot {
  entry: Entry;
  target: string;
  /** Warnings of the compile that mention this shot. */
  warnings: string[];
  fps: number;
  width: number;
  height: number;
}

const mentions = (text: string, id: string) => {
  const at = text.indexOf(id);
  if (at === -1) return false;
  const before = at === 0 ? "" : text[at - 1];
  const after = text[at + id.length] ?? "";
  return !/[A-Za-z0-9_]/.test(before) && !/[A-Za-z0-9_]/.test(after);
};

/**
 * Compile one shot exactly as the full build would (same sequence context, seed and continuation), for the
 * target the script chooses or for `opts.target`; nothing else is compiled (script format 5.3, open
 * point 19).
 */
export function compileOneShot(
  story: Story,
  series: SeriesConfig,
  shotId: string,
  pass: Pass,
  opts: OneShotOptions,
): OneShot {
  const ctx = makeContext({ story, series, pass, defaultTarget: opts.defaultTarget, targets: opts.targets });
  const sc = ctx.byId.get(shotId);
  if (!sc) throw new BuildError(`shot ${shotId} is not in the script`, { file: "script", shot: shotId });
  const seriesTarget = resolveSeriesTarget(ctx);
  checkProfileTargets(ctx);
  let target: string;
  if (opts.target !== undefined) {
    if (ctx.targets.get(opts.target)?.kind !== "video") {
      throw shotError(
        shotId,
        `target '${opts.target}' is not a video target (known: ${ctx.targets.ids("video").join(", ")})`,
        "target",
      );
    }
    target = opts.target;
  } else {
    target = chooseShot(ctx, sc, seriesTarget);
  }
  checkDesigns(ctx, sc.shot);
  const c: TargetCompile = compileTarget(ctx, ctx.targets.get(target)!, [sc], seriesTarget);
  return {
    entry: c.doc.shots[0],
    target,
    warnings: c.report.warnings.filter((w) => mentions(w, shotId)),
    fps: c.pass.fps,
    width: c.pass.width,
    height: c.pass.height,
  };
}
