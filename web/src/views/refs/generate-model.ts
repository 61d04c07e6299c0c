// Generating candidates of a reference without a browser: the options form as text, what it offers on the target
// it would be made on, the body of POST /studio/refs/generate it makes, and each making candidate's job and
// progress. No DOM here.
import type { Pass } from "../../route.ts";
import type { Job, RefCandidateError, RefInfo, RefTakeInfo, RefViewName } from "../../types.ts";
import { type TargetFacts, targetOffers } from "./override-target.ts";
import { allTakes, takeLabel } from "./refs-model.ts";

export const MAX_COUNT = 16;

export type SeedMode = "auto" | "new" | "same" | "typed";

export const SEED_MODES: readonly { mode: SeedMode; label: string }[] = [
  { mode: "auto", label: "Stable until one is usable" },
  { mode: "new", label: "New seed" },
  { mode: "same", label: "Newest candidate's" },
  { mode: "typed", label: "This seed…" },
];

/** The options as the form holds them (text, as typed). */
export interface GenerateForm {
  /** A character's view; null: all four, sharing one seed. */
  view: RefViewName | null;
  count: string;
  seedMode: SeedMode;
  seed: string;
  target: string;
  backend: string;
  /** The prompt as shown: the effective one until edited. */
  prompt: string;
  size: string;
  steps: string;
  cfg: string;
  negative: string;
  /** A keyframe's pass (the render size it is drawn at). */
  pass: Pass;
  note: string;
}

/** The values a candidate would be made with now (the listing's `effective`, the view's for a character view). */
export function effectiveOf(ref: RefInfo, view: RefViewName | null): Record<string, unknown> {
  const listed = view ? ref.views.find((v) => v.view === view) : null;
  return (listed?.effective ?? ref.effective ?? {}) as Record<string, unknown>;
}

const text = (v: unknown) => (typeof v === "string" ? v : "");

/** The form a reference opens with: one candidate, the stable seed, its effective prompt. */
export function initialForm(ref: RefInfo, view: RefViewName | null, pass: Pass): GenerateForm {
  return {
    view,
    count: "1",
    seedMode: "auto",
    seed: "",
    target: "",
    backend: "",
    prompt: promptShown(ref, view),
    size: "",
    steps: "",
    cfg: "",
    negative: "",
    pass,
    note: "",
  };
}

/** The prompt a form shows for a view: the effective one; none for a whole character (a prompt is worded per view). */
export function promptShown(ref: RefInfo, view: RefViewName | null): string {
  if (ref.kind === "character" && !view) return "";
  return text(effectiveOf(ref, view).prompt);
}

/** What the form offers for a reference on a target. */
export interface GenerateOffers {
  prompt: boolean;
  size: boolean;
  pass: boolean;
  negative: boolean;
  steps: boolean;
  cfg: boolean;
}

/**
 * The fields the form shows: a prompt only where one view is made, a size except on keyframes (drawn at their
 * shot's size), the pass only on keyframes, and a negative prompt, steps and CFG only where the target takes them
 * (all three on a target the page does not know, so the service's answer decides).
 */
export function generateOffers(
  ref: RefInfo,
  view: RefViewName | null,
  target: TargetFacts | undefined,
): GenerateOffers {
  const bound = target?.widgets;
  const offers = targetOffers(target);
  const keyframe = ref.kind === "keyframe";
  return {
    prompt: ref.kind !== "character" || view !== null,
    size: !keyframe,
    pass: keyframe,
    negative: offers ? offers.negative : true,
    steps: bound ? "steps" in bound : true,
    cfg: bound ? "cfg" in bound : true,
  };
}

/** The target a candidate would be made on: the one chosen, else the effective one. */
export function formTargetId(form: GenerateForm, ref: RefInfo): string | null {
  if (form.target) return form.target;
  const t = effectiveOf(ref, form.view).target;
  return typeof t === "string" && t ? t : null;
}

/** Plain generate makes pictures from words: edit and panorama targets need pictures sent with them. */
export function plainTargets<T extends TargetFacts>(targets: readonly T[]): T[] {
  return targets.filter((t) => {
    const mode = t.capabilities?.mode;
    return mode !== "edit" && mode !== "pano";
  });
}

/** A number as typed, or the text itself when it is not one (so the service's refusal names the field). */
const numberOr = (v: string): number | string => (Number.isFinite(Number(v)) ? Number(v) : v);

/**
 * POST /studio/refs/generate's body: only what the form sets (the service fills in the rest by its precedence).
 * The prompt goes only when it differs from the effective one; fields the target does not take are left out.
 */
export function generateBody(
  ep: string,
  ref: RefInfo,
  form: GenerateForm,
  target: TargetFacts | undefined,
): Record<string, unknown> {
  const offers = generateOffers(ref, form.view, target);
  const body: Record<string, unknown> = { ep, ref: ref.id };
  if (form.view) body.view = form.view;
  const count = form.count.trim();
  if (count && count !== "1") body.count = numberOr(count);
  if (form.seedMode === "typed") {
    if (form.seed.trim()) body.seed = form.seed.trim();
  } else body.seed_mode = form.seedMode;
  if (form.target) body.target = form.target;
  if (form.backend) body.backend = form.backend;
  if (offers.prompt) {
    const prompt = form.prompt.trim();
    if (prompt && prompt !== promptShown(ref, form.view).trim()) body.prompt = form.prompt;
  }
  if (offers.size && form.size.trim()) body.size = form.size.trim().replace(/\s*[×x*]\s*/i, "x");
  if (offers.steps && form.steps.trim()) body.steps = numberOr(form.steps.trim());
  if (offers.cfg && form.cfg.trim()) body.cfg = numberOr(form.cfg.trim());
  if (offers.negative && form.negative.trim()) body.negative = form.negative;
  if (offers.pass) body.pass = form.pass;
  if (form.note.trim()) body.note = form.note.trim();
  return body;
}

/** How many candidates the button makes (a whole character: four pictures each). */
export function buttonText(ref: RefInfo, form: GenerateForm): string {
  const n = Number(form.count);
  const count = Number.isInteger(n) && n >= 1 ? n : 1;
  const what = ref.kind === "character" && !form.view ? "four-view set" : "candidate";
  return `Generate ${count} ${what}${count === 1 ? "" : "s"}`;
}

/** A per-candidate error as the page lists it: where it went wrong, then the service's words. */
export function errorLine(e: RefCandidateError): string {
  const where = [e.view ? e.view : null, e.take !== undefined ? `t${String(e.take).padStart(2, "0")}` : null]
    .filter(Boolean)
    .join(" ");
  const files = e.missing_files?.length
    ? ` (missing: ${e.missing_files.map((f) => f.want ?? f.param ?? "?").join(", ")})`
    : "";
  return `${where ? `${where}: ` : ""}${e.error}${files}`;
}

/** A candidate being made, with its job's progress when the queue knows it. */
export interface Making {
  key: string;
  label: string;
  take: RefTakeInfo;
  job: Pick<Job, "id" | "status" | "progress" | "step"> | null;
}

type JobLike = Pick<Job, "id" | "status" | "progress" | "step" | "kind" | "info">;

/** The job that makes a candidate: the one its sidecar names, else a `ref` job for the same ref, view and take. */
export function jobOf<J extends JobLike>(
  ref: string,
  take: Pick<RefTakeInfo, "take" | "view" | "backend_prompt_id">,
  jobs: readonly J[],
): J | null {
  if (take.backend_prompt_id) {
    const byId = jobs.find((j) => j.id === take.backend_prompt_id);
    if (byId) return byId;
  }
  return (
    jobs.find(
      (j) =>
        j.info?.ref === ref && j.info.take === take.take && (j.info.view ?? null) === (take.view ?? null),
    ) ?? null
  );
}

/** The queued candidates of a reference (every view), oldest first, each with its job. */
export function makingOf<J extends JobLike>(ref: RefInfo, jobs: readonly J[]): Making[] {
  return allTakes(ref)
    .filter((t) => t.status === "queued" && t.view !== "tour")
    .sort((a, b) => a.take - b.take || (a.view ?? "").localeCompare(b.view ?? ""))
    .map((t) => ({
      key: `${t.view ?? ""}:${t.take}`,
      label: takeLabel(t),
      take: t,
      job: jobOf(ref.id, t, jobs),
    }));
}

/** A job's progress as words: `waiting`, `42% · sampling`. */
export function progressText(job: Making["job"]): string {
  if (!job) return "queued";
  if (job.status === "queued") return "waiting";
  if (job.status !== "running") return job.status;
  const pct = Math.round(Math.max(0, Math.min(1, job.progress || 0)) * 100);
  return `${pct}%${job.step ? ` · ${job.step}` : ""}`;
}
