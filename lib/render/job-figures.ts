// The figures a built-in take draws: the subject pictures its sidecar recorded (the `sheet panel` slots), read
// from where they are when the job starts, and which panel of each sheet the card shows (the compile's panel rule).

import { subjectPanels } from "../compile/slots.ts";
import type { Entry } from "../compile/types.ts";
import type { JobFigure } from "../engines/types.ts";
import { refResolver } from "../episode/staleness.ts";
import type { ViewInputs } from "../episode/view-inputs.ts";
import { fileInside, showFence } from "../paths/guarded.ts";
import { isObject, isWhole, strings, trimmed } from "../store/json-guards.ts";
import type { PanelLayout } from "../targets/registry.ts";

export interface FigureInputs {
  /** `subject:<id>` → the picture's real path, for the pictures that are there now. */
  inputs: Record<string, string>;
  /** Every subject the take recorded a picture for, in slot order (one whose file is absent has no input). */
  figures: JobFigure[];
}

/** Panel `view` of a sheet cut into `of` panels, kept inside the sheet. */
function panelIndex(layout: PanelLayout, view: "face" | "body", of: number): number {
  const declared = layout.views?.[view];
  const index = isWhole(declared) ? declared : view === "face" ? of - 1 : 0;
  return Math.min(of - 1, Math.max(0, index));
}

/**
 * The figures of a take on a target that reads subject pictures through an optional reference sheet. The paths are
 * the sidecar's own (what staleness compares), so a picture picked after queueing is read and then recorded.
 */
export async function jobFigures(
  vi: ViewInputs,
  layout: PanelLayout,
  entry: Entry,
  refs: unknown,
): Promise<FigureInputs> {
  const recorded = new Map<string, string>();
  for (const r of Array.isArray(refs) ? refs : []) {
    if (!isObject(r) || r.role !== "subject" || typeof r.subject !== "string" || typeof r.path !== "string")
      continue;
    if (!recorded.has(r.subject)) recorded.set(r.subject, r.path);
  }
  const subjects = vi.series?.subjects ?? {};
  const subjectFor = (id: string) => (Object.hasOwn(subjects, id) ? subjects[id] : undefined);
  const panels = subjectPanels(subjectFor, trimmed(entry.size) ?? "", strings(entry.subjects), layout);
  const resolve = refResolver(vi, vi.ep, vi.home);
  const fence = showFence(vi.ep);
  const out: FigureInputs = { inputs: {}, figures: [] };
  for (const p of panels) {
    const id = p.subject;
    const file = id === undefined ? undefined : recorded.get(id);
    if (id === undefined || file === undefined) continue;
    const s = subjectFor(id);
    const input = `subject:${id}`;
    const of = isWhole(s?.sheet_panels) && s.sheet_panels > 1 ? s.sheet_panels : (layout.sheet_panels ?? 4);
    out.figures.push({
      input,
      subject: id,
      name: trimmed(s?.name) ?? id,
      panel: p.view ? { index: panelIndex(layout, p.view, of), of } : null,
    });
    const real = await fileInside(fence, resolve(file));
    if (real) out.inputs[input] = real;
  }
  return out;
}
