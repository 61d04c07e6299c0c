// The pacing table ("pace" mode): load, parse, choose targets, one row per dialogue shot (script format 4.13).
import {
  CEILING,
  dialogueSyllables,
  fitsSeconds,
  forcedRate,
  type Pace,
  speechSeconds,
  type Verdict,
  verdict,
} from "../script/pacing.ts";
import { roundHalfEven, roundHalfEvenTo } from "../script/rounding.ts";
import { snapFrames, targetFps } from "../targets/grid.ts";
import { chooseTargets } from "./choose.ts";
import { makeContext, shotPace } from "./context.ts";
import { gridOf } from "./length.ts";
import type { BuildInput } from "./types.ts";

export interface PaceRow {
  shot: string;
  target: string;
  /** Seconds the lines get: frames on the target's grid / the target's fps (open point 12). */
  held: number;
  frames: number;
  syllables: number;
  forced_rate: number;
  fits: number;
  verdict: Verdict;
  pace: Pace;
}

export interface PaceReport {
  rows: PaceRow[];
  counts: Record<Verdict, number>;
  default_pace: Pace;
  ceiling: number;
  /** Runtime the suggested fixes would add, seconds. */
  adds_s: number;
}

export function paceReport(input: BuildInput): PaceReport {
  const ctx = makeContext(input);
  const { byShot } = chooseTargets(ctx);
  const rows: PaceRow[] = [];
  const counts: Record<Verdict, number> = { ok: 0, tight: 0, CRAMMED: 0 };
  let adds = 0;
  for (const sc of ctx.shots) {
    const { shot } = sc;
    const syl = dialogueSyllables(shot.dialogue);
    if (syl === 0) continue;
    const spec = ctx.targets.get(byShot.get(shot.id)!)!;
    const fps = targetFps(spec.template, ctx.story.series.fps);
    const pace = shotPace(ctx, shot);
    const t = shot.timing;
    let seconds: number;
    if (t && "audio_in" in t) seconds = t.audio_out - t.audio_in;
    else if (t && "seconds" in t) seconds = t.seconds;
    else if (t) seconds = speechSeconds(shot.dialogue, pace);
    else continue;
    const grid = gridOf(spec);
    const frames = snapFrames(Math.max(1, roundHalfEven(seconds * fps)), grid);
    const held = frames / fps;
    const v = verdict(shot.dialogue, held, pace);
    const fits = fitsSeconds(shot.dialogue, pace, fps, (f) => snapFrames(f, grid));
    counts[v] += 1;
    if (v === "CRAMMED") adds += fits - held;
    else if (v === "tight") adds += Math.max(0, fits - held);
    rows.push({
      shot: shot.id,
      target: spec.id,
      held: roundHalfEvenTo(held, 3),
      frames,
      syllables: syl,
      forced_rate: roundHalfEvenTo(forcedRate(shot.dialogue, held), 2),
      fits: roundHalfEvenTo(fits, 3),
      verdict: v,
      pace,
    });
  }
  return { rows, counts, default_pace: ctx.defaultPace, ceiling: CEILING, adds_s: roundHalfEvenTo(adds, 3) };
}
