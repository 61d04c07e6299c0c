// Generate's `edit` and `pano` options without a browser: the edit form (an instruction, an edit target, further
// references, wrap, or turning a character view), the panorama form (other locations' plates, a 2:1 size), which
// targets and references each offers, and the POST /studio/refs/generate bodies they make. No DOM here.
import type { RefInfo, RefTakeInfo, RefViewName } from "../../types.ts";
import type { TargetFacts } from "./override-target.ts";
import { CHARACTER_VIEWS, viewTitle } from "./refs-model.ts";

/** The picture an edit changes: a candidate (its view and take), or the live picture (take null). */
export interface EditSource {
  view: RefViewName | null;
  take: number | null;
}

/** A further reference sent as image 2 onward: a ref, a character's view, or null for the ref's own picture. */
export interface WithChoice {
  key: string;
  ref: string;
  view: RefViewName | null;
  label: string;
}

export interface EditForm {
  instruction: string;
  /** An edit target id; empty: the service's default (the reference or keyframe target when it is an edit target). */
  target: string;
  /** Keys of `withChoices`, in the order chosen. */
  with: string[];
  wrap: boolean;
  /** A character view to draw by turning the camera from the source's view; null: a plain edit. */
  turn: RefViewName | null;
}

export const initialEdit = (): EditForm => ({
  instruction: "",
  target: "",
  with: [],
  wrap: true,
  turn: null,
});

/** Edit targets change pictures they are given (capabilities.mode edit). */
export const editTargets = <T extends TargetFacts>(targets: readonly T[]): T[] =>
  targets.filter((t) => t.capabilities?.mode === "edit");

/** Panorama targets outpaint a 2:1 canvas (capabilities.mode pano). */
export const panoTargets = <T extends TargetFacts>(targets: readonly T[]): T[] =>
  targets.filter((t) => t.capabilities?.mode === "pano");

/** The views a character picture can be turned to: the other three drawn views (never the sheet). */
export function turnViews(ref: RefInfo, from: RefViewName | null): RefViewName[] {
  if (ref.kind !== "character") return [];
  const source = from ?? "01_threequarter";
  return CHARACTER_VIEWS.filter((v) => v !== source);
}

/**
 * References that can be sent with an edit: every other picture reference that has a live file (a character by
 * each of its views, which the service finds as the picked take or the sheet's panel), never voices.
 */
export function withChoices(refs: readonly RefInfo[], self: RefInfo): WithChoice[] {
  const out: WithChoice[] = [];
  for (const r of refs) {
    if (r.id === self.id || r.kind === "voice") continue;
    if (r.kind === "character") {
      for (const v of CHARACTER_VIEWS) {
        const listed = r.views.find((x) => x.view === v);
        if (!r.exists && listed?.picked == null) continue;
        out.push({
          key: `${r.id}|${v}`,
          ref: r.id,
          view: v,
          label: `${r.name}, ${viewTitle(v).toLowerCase()}`,
        });
      }
    } else if (r.exists) out.push({ key: `${r.id}|`, ref: r.id, view: null, label: r.name });
  }
  return out;
}

/**
 * POST /studio/refs/generate's body for an edit. A plain edit makes a candidate of the source's view; a turn makes
 * the chosen view from the source's (from_view), with the instruction as an addition when typed.
 */
export function editBody(
  ep: string,
  ref: RefInfo,
  source: EditSource,
  form: EditForm,
  choices: readonly WithChoice[],
): Record<string, unknown> {
  const edit: Record<string, unknown> = { take: source.take };
  const turning = form.turn !== null && ref.kind === "character";
  if (turning) {
    edit.turn = true;
    edit.from_view = source.view ?? "01_threequarter";
  }
  const withs = form.with
    .map((k) => choices.find((c) => c.key === k))
    .filter((c): c is WithChoice => !!c)
    .map((c) => (c.view ? { ref: c.ref, view: c.view } : { ref: c.ref }));
  if (withs.length) edit.with = withs;
  if (!turning) edit.wrap = form.wrap;
  const body: Record<string, unknown> = { ep, ref: ref.id };
  const view = turning ? form.turn : source.view;
  if (view) body.view = view;
  if (form.instruction.trim()) body.prompt = form.instruction.trim();
  if (form.target) body.target = form.target;
  body.edit = edit;
  return body;
}

/** Whether the edit can be sent: an instruction, or a turn (whose phrase the service writes). */
export const editReady = (ref: RefInfo, form: EditForm): boolean =>
  !!form.instruction.trim() || (form.turn !== null && ref.kind === "character");

export const MAX_PANO_WITH = 2;
export const PANO_DEFAULT_SIZE = "2048x1024";

export interface PanoForm {
  /** Other location ids, most important first (at most two). */
  with: string[];
  size: string;
  target: string;
  prompt: string;
}

export const initialPano = (): PanoForm => ({ with: [], size: PANO_DEFAULT_SIZE, target: "", prompt: "" });

/** A location with a live plate: a panorama starts from it. */
export const canPano = (ref: RefInfo): boolean => ref.kind === "location" && ref.exists;

/** The other locations whose plates can join the canvas. */
export const panoPartners = (refs: readonly RefInfo[], self: RefInfo): RefInfo[] =>
  refs.filter((r) => r.id !== self.id && r.kind === "location" && r.exists);

/** Adds or removes a partner location, keeping at most two in the order chosen. */
export function togglePartner(form: PanoForm, id: string): PanoForm {
  if (form.with.includes(id)) return { ...form, with: form.with.filter((x) => x !== id) };
  if (form.with.length >= MAX_PANO_WITH) return form;
  return { ...form, with: [...form.with, id] };
}

/** POST /studio/refs/generate's body for a panorama; the size as typed (the service says when it is not 2:1). */
export function panoBody(ep: string, ref: RefInfo, form: PanoForm): Record<string, unknown> {
  const pano: Record<string, unknown> = {};
  if (form.with.length) pano.with = form.with.slice(0, MAX_PANO_WITH);
  const size = form.size.trim().replace(/\s*[×x*]\s*/i, "x");
  if (size && size !== PANO_DEFAULT_SIZE) pano.size = size;
  const body: Record<string, unknown> = { ep, ref: ref.id, pano };
  if (form.target) body.target = form.target;
  if (form.prompt.trim()) body.prompt = form.prompt.trim();
  return body;
}

/** A candidate an edit can change: a finished picture of a drawn view or of the ref itself (not a sheet, pano or hold). */
export const canEditTake = (t: Pick<RefTakeInfo, "view" | "usable" | "image">): boolean =>
  t.usable && !!t.image && t.view !== "sheet" && t.view !== "pano" && t.view !== "tour";

/** The live picture can be edited where it is one picture: not a voice, not a character (edit a view's pick). */
export const canEditLive = (ref: RefInfo): boolean =>
  ref.exists && ref.kind !== "voice" && ref.kind !== "character";

/** The source an Edit… action on a candidate names. */
export const takeSource = (t: Pick<RefTakeInfo, "view" | "take">): EditSource => ({
  view: t.view,
  take: t.take,
});
