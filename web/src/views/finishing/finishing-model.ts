// The Finishing view's mapping of the service's answers: one row per shot of the cut with its upscale and
// post-process as badges (fresh, stale, queued, failed), the master plan's row beside it, the plan's counts and
// what still stands before an assembly, and the master job's stage in words. Pure, so it is tested without a page.
import type { Pass } from "../../route.ts";
import type {
  MasterJob,
  MasterPlan,
  MasterRow,
  MasterRowStatus,
  PostSummary,
  ShotEntry,
  TakeSummary,
  UpscaleSummary,
} from "../../types.ts";

export type Tone = "ok" | "warn" | "bad" | "busy" | "muted";

export interface Badge {
  text: string;
  tone: Tone;
  /** The longer reason, for the tooltip and screen readers. */
  title: string;
}

export interface FinishRow {
  shot: string;
  /** The cut's take on this pass (null when none, or when the cut plays the other pass's take). */
  take: number | null;
  /** The other pass whose take the cut plays, when it does. */
  placeholderPass: Pass | null;
  out: boolean;
  /** The cut take's picture (episode-relative), for the row. */
  thumb: string | null;
  upscale: Badge;
  post: Badge;
  /** The take's upscale and post summaries, as the episode gives them. */
  upscaleSummary: UpscaleSummary | null;
  postSummary: PostSummary | null;
  /** The master plan's row for the shot (null without a plan, or for a shot the master leaves out). */
  master: MasterRow | null;
}

const size = (w: number | null | undefined, h: number | null | undefined) =>
  typeof w === "number" && typeof h === "number" ? `${w}×${h}` : "";

/** The take the cut plays from this pass, when it is one of the shot's own. */
export function cutTake(shot: ShotEntry): TakeSummary | null {
  const { cut } = shot;
  if (cut.take === null || cut.placeholder) return null;
  return shot.takes.find((t) => t.take === cut.take) ?? null;
}

export function upscaleBadge(up: UpscaleSummary | null | undefined): Badge {
  if (!up) return { text: "none", tone: "muted", title: "not upscaled yet" };
  if (up.status === "queued") return { text: "queued", tone: "busy", title: "its upscale is on its way" };
  if (up.status === "failed")
    return { text: "failed", tone: "bad", title: up.save_notes || "its last upscale failed" };
  const dims = size(up.width, up.height) || "upscaled";
  if (!up.fresh)
    return {
      text: `stale ${dims}`.trim(),
      tone: "warn",
      title: "made from an older take (or its file is gone): upscale again",
    };
  const kept = up.keep ? " · keep" : "";
  if (up.recipe_match === "different")
    return {
      text: `${dims}${kept}`,
      tone: "warn",
      title: "fresh, made with other settings than the series recipe's",
    };
  return {
    text: `${dims}${kept}`,
    tone: "ok",
    title: up.keep ? "fresh, marked Keep" : "fresh",
  };
}

export function postBadge(post: PostSummary | null | undefined): Badge {
  if (!post) return { text: "none", tone: "muted", title: "no post-process" };
  if (post.status === "queued")
    return { text: "queued", tone: "busy", title: "its post-process is on its way" };
  if (post.status === "failed")
    return { text: "failed", tone: "bad", title: post.save_notes || "its last post-process failed" };
  const dims = size(post.width, post.height) || "made";
  if (!post.fresh)
    return {
      text: `stale ${dims}`,
      tone: "warn",
      title: "made from an older upscale (or its upscale is stale): post-process again",
    };
  return { text: dims, tone: "ok", title: "fresh" };
}

const MASTER_TONE: Record<MasterRowStatus, Tone> = {
  ok: "ok",
  kept: "ok",
  queued: "busy",
  upscale: "warn",
  post: "warn",
  gap: "bad",
};

export function masterTone(status: MasterRowStatus): Tone {
  return MASTER_TONE[status] ?? "muted";
}

/** Every shot of the cut in cut order (shots left out too, marked), with its versions and its master row. */
export function finishRows(shots: ShotEntry[], pass: Pass, plan: MasterPlan | null): FinishRow[] {
  const planned = new Map((plan?.rows ?? []).map((r) => [r.shot, r]));
  const inCut = shots.filter((s) => !s.orphan || s.cut.in_cut_file);
  return inCut
    .slice()
    .sort((a, b) => a.cut.order - b.cut.order)
    .map((s) => {
      const t = cutTake(s);
      const other = s.cut.placeholder && s.cut.pass && s.cut.pass !== pass ? s.cut.pass : null;
      const up = t?.upscale ?? null;
      const post = t?.post ?? null;
      const noTake: Badge = other
        ? { text: `${other} take`, tone: "muted", title: `the cut plays its ${other} take` }
        : { text: "no take", tone: "muted", title: "no usable take picked" };
      return {
        shot: s.shot,
        take: t ? t.take : null,
        placeholderPass: other,
        out: s.cut.out,
        thumb: t?.thumb ?? null,
        upscale: t ? upscaleBadge(up) : noTake,
        post: t ? postBadge(post) : noTake,
        upscaleSummary: up,
        postSummary: post,
        master: planned.get(s.shot) ?? null,
      };
    });
}

const COUNT_WORDS: [MasterRowStatus, string][] = [
  ["ok", "ok"],
  ["kept", "kept"],
  ["queued", "queued"],
  ["upscale", "to upscale"],
  ["post", "to post-process"],
  ["gap", "gap"],
];

/** The plan's counts in words, zeros left out: `5 ok · 2 to upscale · 1 gap`. */
export function countsText(plan: MasterPlan): string {
  const parts = COUNT_WORDS.filter(([k]) => (plan.counts[k] ?? 0) > 0).map(([k, word]) => {
    const n = plan.counts[k];
    return `${n} ${word}${k === "gap" && n !== 1 ? "s" : ""}`;
  });
  return parts.length ? parts.join(" · ") : "no shots";
}

/** What stands between the plan and an assembly, in words (the service decides; this only says why ahead). */
export function planHint(plan: MasterPlan, allowGaps: boolean): { text: string; tone: Tone } {
  const todo = plan.counts.upscale + plan.counts.post + plan.counts.queued;
  if (todo > 0) {
    const queued = plan.counts.queued ? ` (${plan.counts.queued} on the way)` : "";
    return {
      text: `${todo} shot${todo === 1 ? "" : "s"} still to finish${queued}: queue them, then assemble`,
      tone: "warn",
    };
  }
  if (plan.counts.gap > 0 && !allowGaps)
    return {
      text: `${plan.counts.gap} gap${plan.counts.gap === 1 ? "" : "s"}: fill them, or allow gaps (scaled up from their takes)`,
      tone: "bad",
    };
  if (plan.rows.length === 0) return { text: "the cut is empty", tone: "muted" };
  return { text: `ready to assemble at ${plan.size[0]}×${plan.size[1]}`, tone: "ok" };
}

const STAGES: Record<string, string> = {
  start: "starting",
  probe: "reading the clips",
  clips: "preparing clips",
  join: "joining",
  prores: "making the ProRes copy",
  verify: "checking the result",
  done: "done",
  titles: "drawing titles",
  reencode: "re-encoding",
};

/** The time of day of a timestamp, `HH:MM` (local). */
export function clock(iso: string | null | undefined): string {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  return `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
}

/** The master job in one line: what it is doing now, or how it ended. */
export function jobLine(job: MasterJob): { text: string; tone: Tone } {
  if (job.elsewhere)
    return {
      text: `being assembled by ${job.by || "another process"}${job.started ? ` since ${clock(job.started)}` : ""}`,
      tone: "busy",
    };
  if (job.state === "failed")
    return { text: `failed: ${job.error || "the master was not made"}`, tone: "bad" };
  if (job.state === "done")
    return { text: `master made${job.finished ? ` at ${clock(job.finished)}` : ""}`, tone: "ok" };
  const step = job.step === "titles" ? "Titles" : "Assembling";
  const stage = job.stage ? (STAGES[job.stage] ?? job.stage) : "waiting";
  const count =
    typeof job.done === "number" && typeof job.total === "number" ? ` ${job.done}/${job.total}` : "";
  const text = job.text ? ` · ${job.text}` : "";
  return { text: `${step} · ${stage}${count}${text}`, tone: "busy" };
}

/** How far the running stage is (0–1), or null when it has no count. */
export function jobFraction(job: MasterJob): number | null {
  if (job.state !== "running" || typeof job.done !== "number" || typeof job.total !== "number") return null;
  if (job.total <= 0) return null;
  return Math.min(1, Math.max(0, job.done / job.total));
}

/** Episode paths as events carry them: either slash, no trailing one (a Windows show may write either). */
export function sameEpisode(a: string | null | undefined, b: string | null | undefined): boolean {
  if (!a || !b) return false;
  const norm = (p: string) => p.replace(/\\/g, "/").replace(/\/+$/, "");
  return norm(a) === norm(b);
}

/** The next or previous shot of the rows (wrapping stops at the ends), for J/K. */
export function stepShot(rows: FinishRow[], current: string | null, by: 1 | -1): string | null {
  if (rows.length === 0) return null;
  const at = rows.findIndex((r) => r.shot === current);
  if (at < 0) return rows[by > 0 ? 0 : rows.length - 1].shot;
  return rows[Math.min(rows.length - 1, Math.max(0, at + by))].shot;
}

/** A queue answer (upscale or post) in one line: `2 queued · 1 skipped · 1 error`. */
export function queuedText(a: { queued: unknown[]; skipped: unknown[]; errors: unknown[] }): string {
  const n = (k: number, w: string) => `${k} ${w}${k === 1 || w !== "error" ? "" : "s"}`;
  return [n(a.queued.length, "queued"), n(a.skipped.length, "skipped"), n(a.errors.length, "error")].join(
    " · ",
  );
}
