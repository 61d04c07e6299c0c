// Promote's check: the edited files, compiled in memory, must leave every shot rendering with the same target,
// model, LoRAs and steps in both passes; candidates that would change a render are left with the reason.
import { applyEdits, type EditState } from "./edit.ts";
import { describeFailure, renderView, sameJson, showValue } from "./render-view.ts";
import {
  type Candidate,
  type Inputs,
  type LeftEntry,
  PASSES,
  SETTINGS,
  type ShotRender,
  type View,
} from "./types.ts";

export interface Checked {
  accepted: Candidate[];
  failed: LeftEntry[];
  state: EditState;
}

/**
 * Every promote must leave every shot rendering with the same target, model, LoRAs and steps in both passes.
 * All together first (the usual case); when that fails, one by one, keeping those that pass.
 */
export function verify(inputs: Inputs, before: View, candidates: Candidate[]): Checked {
  if (candidates.length === 0) return { accepted: [], failed: [], state: applyEdits(inputs, before, []) };
  const all = attempt(inputs, before, candidates);
  if (all.reason === null)
    return { accepted: candidates, failed: [], state: withLines(all.state, candidates) };
  const accepted: Candidate[] = [];
  const failed: LeftEntry[] = [];
  for (const c of candidates) {
    const r = attempt(inputs, before, [...accepted, c]);
    if (r.reason === null) accepted.push(c);
    else {
      const { scope, shot, ref, view, field } = c.item;
      failed.push({
        scope,
        ...(shot ? { shot } : {}),
        ...(ref ? { ref } : {}),
        ...(view ? { view } : {}),
        field,
        reason: r.reason,
      });
    }
  }
  const state = applyEdits(inputs, before, accepted);
  return { accepted, failed, state: withLines(state, accepted) };
}

function withLines(state: EditState, accepted: Candidate[]): EditState {
  for (const c of accepted) {
    const line = state.lines.get(c.item.id);
    if (line !== undefined) c.item.line = line;
  }
  return state;
}

function attempt(
  inputs: Inputs,
  before: View,
  chosen: Candidate[],
): { reason: string | null; state: EditState } {
  const state = applyEdits(inputs, before, chosen);
  let after: View;
  try {
    after = renderView(state.seriesText, state.scriptText, state.overrides, inputs.env);
  } catch (err) {
    return { reason: `the edited files would not build: ${describeFailure(err, state2(state))}`, state };
  }
  for (const [id, was] of before.shots) {
    const now = after.shots.get(id);
    const diff = renderDifference(was, now);
    if (diff) return { reason: `${id} would render differently: ${diff}`, state };
  }
  return { reason: null, state };
}

const state2 = (s: EditState) => ({ script: { text: s.scriptText }, series: { text: s.seriesText } });

function renderDifference(was: ShotRender, now: ShotRender | undefined): string | null {
  if (!now) return "it is no longer in the script";
  if (was.target !== now.target) return `target ${was.target} → ${now.target}`;
  for (const pass of PASSES) {
    const a = was[pass];
    const b = now[pass];
    if (a.error !== b.error) return `${pass} pass: ${b.error ?? "it compiles now"}`;
    for (const field of SETTINGS) {
      if (!sameJson(a[field], b[field])) {
        return `${pass} ${field} ${showValue(a[field])} → ${showValue(b[field])}`;
      }
    }
  }
  return null;
}
