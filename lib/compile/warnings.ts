// Story warnings: target-independent, reported once on the series target's report (script format 4.16).
import { sizeInfo, sizeStepsApart } from "../script/sizes.ts";
import { keyframeMethod } from "../script/story.ts";
import type { Sequence } from "../script/types.ts";
import { type BuildCtx, personOf } from "./context.ts";
import { checkPost, checkUpscale } from "./master-check.ts";
import { article, joinList, nameOf } from "./prompts/text.ts";

/** Distinct persons of a cast (a variant counts as its base), in cast order. */
function persons(ctx: BuildCtx, cast: readonly string[]): string[] {
  const out: string[] = [];
  for (const id of cast) {
    const p = personOf(ctx, id);
    if (!out.includes(p)) out.push(p);
  }
  return out;
}

const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x) => b.includes(x));

function jumpCuts(ctx: BuildCtx, seq: Sequence, out: string[]): void {
  if (seq.continuous !== false) return;
  for (let i = 1; i < seq.shots.length; i++) {
    const a = seq.shots[i - 1];
    const b = seq.shots[i];
    if (keyframeMethod(b, "first", seq, i) === "continuity") continue;
    if (a.plate !== b.plate) continue;
    const pa = persons(ctx, a.cast);
    if (pa.length === 0 || !sameSet(pa, persons(ctx, b.cast))) continue;
    const steps = sizeStepsApart(a.size, b.size);
    if (steps === null || steps >= 2) continue;
    const ta = sizeInfo(a.size)!.term;
    const tb = sizeInfo(b.size)!.term;
    out.push(
      `sequence ${seq.id}: jump cut ${a.id} -> ${b.id}: ${article(ta)} ${ta} and ${article(tb)} ${tb} of ` +
        `${joinList(pa.map((p) => nameOf(ctx, p)))} on the same plate (${a.plate}): change the framing more, ` +
        "the angle (plate:), or put a cutaway between them",
    );
  }
}

function singles(ctx: BuildCtx, seq: Sequence, out: string[]): void {
  const byPlate = new Map<string, string[]>();
  for (const shot of seq.shots) {
    if (shot.cast.length !== 1) continue;
    const person = personOf(ctx, shot.cast[0]);
    const list = byPlate.get(shot.plate) ?? [];
    if (!list.includes(person)) list.push(person);
    byPlate.set(shot.plate, list);
  }
  for (const [plate, list] of byPlate) {
    if (list.length < 2) continue;
    out.push(
      `sequence ${seq.id}: ${joinList(list.map((p) => nameOf(ctx, p)))} each appear alone on the same plate (${plate}): ` +
        "give each speaker their own angle",
    );
  }
}

export function storyWarnings(ctx: BuildCtx): string[] {
  const out: string[] = [];
  for (const seq of ctx.story.sequences) {
    if (seq.legacy) out.push(...seq.legacy);
    for (const shot of seq.shots) if (shot.legacy) out.push(...shot.legacy);
  }
  for (const seq of ctx.story.sequences) {
    singles(ctx, seq, out);
    jumpCuts(ctx, seq, out);
  }
  out.push(...checkUpscale(ctx.series.raw), ...checkPost(ctx.series.raw));
  return out;
}
