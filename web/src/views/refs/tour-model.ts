// Camera tours of a location without a browser: the moves and limits POST /studio/refs/tour takes, its body, the
// tours as the page lists them (with their job's progress while they run), and the time POST /studio/refs/tour-frame
// is sent for the frame under the scrubber. No DOM here.
import type { Job, RefInfo, RefTourInfo } from "../../types.ts";
import { frameAt } from "../shots/frame-index.ts";

export const MOVES: readonly { move: string; label: string }[] = [
  { move: "push_in", label: "Push in" },
  { move: "pull_out", label: "Pull out" },
  { move: "pan_left", label: "Pan left" },
  { move: "pan_right", label: "Pan right" },
  { move: "tilt_up", label: "Tilt up" },
  { move: "tilt_down", label: "Tilt down" },
  { move: "orbit", label: "Orbit (pan along an arc)" },
];
export const TOUR_SECONDS = { min: 2, max: 10, default: 6 } as const;
export const TOUR_COUNT = { min: 1, max: 4, default: 1 } as const;

export interface TourForm {
  move: string;
  seconds: string;
  count: string;
}

export const initialTour = (): TourForm => ({
  move: "push_in",
  seconds: String(TOUR_SECONDS.default),
  count: String(TOUR_COUNT.default),
});

const numberOr = (v: string): number | string => (Number.isFinite(Number(v)) ? Number(v) : v);

/** The request; text that is not a number goes as typed, so the service's refusal names the field. */
export function tourBody(ep: string, ref: string, form: TourForm): Record<string, unknown> {
  const body: Record<string, unknown> = { ep, ref, move: form.move };
  if (form.seconds.trim()) body.seconds = numberOr(form.seconds.trim());
  if (form.count.trim()) body.count = numberOr(form.count.trim());
  return body;
}

/** A location can be toured once it has a live plate. */
export function canTour(ref: RefInfo): boolean {
  return ref.kind === "location" && ref.exists;
}

export const moveLabel = (move: string | null) =>
  MOVES.find((m) => m.move === move)?.label ?? move?.replaceAll("_", " ") ?? "tour";

type JobLike = Pick<Job, "id" | "status" | "progress" | "step" | "kind" | "info">;

/** A tour as the list shows it, with its job while it waits or runs. */
export interface TourRow {
  tour: RefTourInfo;
  title: string;
  state: string;
  tone: "ok" | "bad" | "muted";
  job: JobLike | null;
}

/** The tours of a location, newest first, each with its state in words and its job's progress. */
export function tourRows<J extends JobLike>(ref: RefInfo, jobs: readonly J[]): TourRow[] {
  return [...(ref.tours ?? [])]
    .sort((a, b) => b.tour - a.tour)
    .map((tour) => {
      const job =
        tour.status === "queued"
          ? (jobs.find(
              (j) =>
                j.kind === "tour" &&
                j.info?.ref === ref.id &&
                j.info.tour === tour.tour &&
                (j.status === "queued" || j.status === "running"),
            ) ?? null)
          : null;
      const holds = tour.holds.length;
      let state: string;
      let tone: TourRow["tone"] = "muted";
      if (tour.status === "ok") {
        state = `${holds} held frame${holds === 1 ? "" : "s"}`;
        tone = "ok";
      } else if (tour.status === "failed") {
        state = `failed: ${tour.error ?? "no reason given"}`;
        tone = "bad";
      } else if (job?.status === "running") {
        state = `${Math.round(Math.max(0, Math.min(1, job.progress || 0)) * 100)}%${job.step ? ` · ${job.step}` : ""}`;
      } else state = job ? "waiting" : tour.status;
      const length = tour.seconds ? ` · ${tour.seconds} s` : "";
      return {
        tour,
        title: `Tour t${String(tour.tour).padStart(2, "0")} · ${moveLabel(tour.move)}${length}`,
        state,
        tone,
        job,
      };
    });
}

/** A finished tour's frame count: as measured, else its length at its rate. */
export function tourFrames(tour: RefTourInfo): number | null {
  if (tour.frames && tour.frames > 0) return tour.frames;
  if (tour.seconds && tour.fps) return Math.round(tour.seconds * tour.fps);
  return null;
}

/**
 * The frame under the scrubber and the `seconds` sent for it: the frame's own start, so the service's
 * round(seconds × fps) lands on the frame shown. Null without a rate.
 */
export function tourFrameAt(tour: RefTourInfo, time: number): { frame: number; seconds: number } | null {
  const fps = tour.fps ?? null;
  const frame = frameAt(time, fps, tourFrames(tour));
  if (frame === null || !fps) return null;
  return { frame, seconds: Number((frame / fps).toFixed(4)) };
}
