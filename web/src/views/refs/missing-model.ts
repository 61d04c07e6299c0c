// Generate missing without a browser: the body of POST /studio/refs/generate-missing (a dry run first, then the
// same request for real) and its answer as preview rows, each reference named as the list names it and each row
// saying what would happen to it and why. No DOM here.
import type { Pass } from "../../route.ts";
import type { RefInfo, RefMissingAnswer, RefViewName } from "../../types.ts";
import { viewTitle } from "./refs-model.ts";

export type MissingKind = "series" | "keyframe";
export const MISSING_KINDS: readonly { kind: MissingKind; label: string }[] = [
  { kind: "series", label: "Characters, props, vehicles, locations" },
  { kind: "keyframe", label: "Keyframes" },
];

export interface MissingForm {
  pass: Pass;
  kinds: MissingKind[];
  target: string;
  keyframeTarget: string;
}

/** The request: `kinds` only when not every kind, targets only when chosen; `dry_run` as asked. */
export function missingBody(ep: string, form: MissingForm, dryRun: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { ep, pass: form.pass, dry_run: dryRun };
  if (form.kinds.length < MISSING_KINDS.length) body.kinds = [...form.kinds];
  if (form.target) body.target = form.target;
  if (form.keyframeTarget) body.keyframe_target = form.keyframeTarget;
  return body;
}

export type RowAction = "queue" | "pick" | "skip" | "error";

export interface PreviewRow {
  key: string;
  action: RowAction;
  ref: string;
  /** The reference as the list names it (`Riley · side`, `sh020 first frame`). */
  name: string;
  /** What happens, and why or how. */
  detail: string;
}

const METHODS: Record<string, string> = {
  continuity: "a frame cut from the shot before",
  import: "the file the script names",
  generate: "generated",
};

function nameOf(refs: readonly RefInfo[], id: string, view: RefViewName | null | undefined): string {
  const r = refs.find((x) => x.id === id);
  const base = r ? (r.kind === "keyframe" ? `${r.shot ?? r.id} ${r.which ?? ""} frame`.trim() : r.name) : id;
  return view ? `${base} · ${viewTitle(view).toLowerCase()}` : base;
}

const take = (n: number | null | undefined) =>
  n === null || n === undefined ? "" : ` as t${String(n).padStart(2, "0")}`;

/**
 * One row per thing the answer names: what would be queued, then made live at once, then the problems, then what is
 * skipped (the longest list, mostly references that are there). A character's four views are a row each.
 */
export function previewRows(answer: RefMissingAnswer, refs: readonly RefInfo[]): PreviewRow[] {
  const rows: PreviewRow[] = [];
  answer.queued.forEach((q, i) => {
    const how = q.method && q.method !== "generate" ? `${METHODS[q.method] ?? q.method}, ` : "";
    rows.push({
      key: `q${i}`,
      action: "queue",
      ref: q.ref,
      name: nameOf(refs, q.ref, q.view),
      detail: `${how}on ${q.target}${take(q.take)}`,
    });
  });
  answer.picked.forEach((p, i) => {
    rows.push({
      key: `p${i}`,
      action: "pick",
      ref: p.ref,
      name: nameOf(refs, p.ref, p.view),
      detail: `${METHODS[p.method] ?? p.method}, made live${take(p.take)}`,
    });
  });
  answer.errors.forEach((e, i) => {
    rows.push({
      key: `e${i}`,
      action: "error",
      ref: e.ref,
      name: nameOf(refs, e.ref, e.view),
      detail: e.target ? `${e.error} (${e.target})` : e.error,
    });
  });
  answer.skipped.forEach((s, i) => {
    rows.push({
      key: `s${i}`,
      action: "skip",
      ref: s.ref,
      name: nameOf(refs, s.ref, s.view),
      detail: s.reason,
    });
  });
  return rows;
}

/**
 * The answer's one-line summary: `3 references to make, 1 made live at once, 5 skipped, 1 problem` for a preview,
 * `3 references queued, …` once done.
 */
export function previewSummary(answer: RefMissingAnswer, done = false): string {
  const parts: string[] = [];
  const n = (k: number, one: string, many = `${one}s`) => `${k} ${k === 1 ? one : many}`;
  // A character's four views share one request: count references, not pictures.
  const making = new Set(answer.queued.map((q) => q.ref)).size;
  if (making) parts.push(`${n(making, "reference")} ${done ? "queued" : "to make"}`);
  if (answer.picked.length) parts.push(`${answer.picked.length} made live${done ? "" : " at once"}`);
  if (answer.skipped.length) parts.push(`${answer.skipped.length} skipped`);
  if (answer.errors.length) parts.push(n(answer.errors.length, "problem"));
  return parts.length ? parts.join(", ") : "Nothing is missing.";
}

/** What a row's action is called, before and after the request is made. */
export function actionWord(action: RowAction, done: boolean): string {
  if (action === "queue") return done ? "queued" : "make";
  if (action === "pick") return "made live";
  if (action === "skip") return done ? "skipped" : "skip";
  return "problem";
}

/** True when the real request would do something. */
export function previewActs(answer: RefMissingAnswer): boolean {
  return answer.queued.length > 0 || answer.picked.length > 0;
}
