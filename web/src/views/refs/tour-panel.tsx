// Camera tours of a location: "Make a tour" from its live plate (move, length, how many; POST /studio/refs/tour),
// the tours with their state and job progress, and for a finished one a scrubber over its video that adds the
// frame under it as one more hold (POST /studio/refs/tour-frame). The holds themselves are candidates of the
// location (copied into a reference with Copy…; never picked in place).
import { useRef, useState } from "preact/hooks";
import { api, fileUrl } from "../../api.ts";
import { useStudio } from "../../context.ts";
import type { RefInfo, RefTourAnswer, RefTourInfo } from "../../types.ts";
import { ErrorText, useAction } from "../../ui.tsx";
import { frameTime, timeOfFrame } from "../shots/frame-index.ts";
import {
  canTour,
  initialTour,
  MOVES,
  TOUR_COUNT,
  TOUR_SECONDS,
  type TourForm,
  tourBody,
  tourFrameAt,
  tourFrames,
  tourRows,
} from "./tour-model.ts";

export function TourPanel({
  ep,
  refInfo: r,
  onChanged,
}: {
  ep: string;
  refInfo: RefInfo;
  /** A change's answer (null: read the list again). */
  onChanged(ref: RefInfo | null): void;
}) {
  const studio = useStudio();
  const [form, setForm] = useState<TourForm>(initialTour);
  // The tours this panel queued, named until they are made.
  const [queued, setQueued] = useState<number[]>([]);
  const make = useAction(async () => {
    const res = await api.post<RefTourAnswer>("refs/tour", tourBody(ep, r.id, form));
    setQueued(res.queued.map((q) => q.tour));
    onChanged(null);
  });
  const rows = tourRows(r, studio.jobs.value.value?.jobs ?? []);
  const waiting = queued.filter((n) => !r.tours?.some((t) => t.tour === n && t.status !== "queued"));
  const [open, setOpen] = useState<number | null>(null);
  if (r.kind !== "location") return null;
  const set = (k: keyof TourForm) => (e: { currentTarget: HTMLInputElement | HTMLSelectElement }) =>
    setForm((f) => ({ ...f, [k]: e.currentTarget.value }));
  return (
    <section class="tour-panel" aria-label={`Camera tours of ${r.name}`}>
      <h3>Camera tours</h3>
      {canTour(r) ? (
        <form
          class="tour-form"
          aria-label={`Make a tour of ${r.name}`}
          onSubmit={(e) => {
            e.preventDefault();
            void make.run();
          }}
        >
          <label>
            <span>Move</span>
            <select value={form.move} onChange={set("move")}>
              {MOVES.map((m) => (
                <option key={m.move} value={m.move}>
                  {m.label}
                </option>
              ))}
            </select>
          </label>
          <label>
            <span>Seconds</span>
            <input
              type="number"
              min={TOUR_SECONDS.min}
              max={TOUR_SECONDS.max}
              step="any"
              value={form.seconds}
              onInput={set("seconds")}
            />
          </label>
          <label>
            <span>How many</span>
            <input
              type="number"
              min={TOUR_COUNT.min}
              max={TOUR_COUNT.max}
              step={1}
              value={form.count}
              onInput={set("count")}
            />
          </label>
          <button type="submit" disabled={make.busy}>
            {make.busy ? "Queueing…" : "Make a tour"}
          </button>
          <span class="muted small">
            a slow camera move over the live plate; its still moments become holds
          </span>
        </form>
      ) : (
        <p class="muted small">A tour moves over the live plate: pick, import or generate one first.</p>
      )}
      <ErrorText error={make.error} />
      {waiting.length ? (
        <p class="muted small" aria-live="polite">
          Queued {waiting.map((n) => `tour t${String(n).padStart(2, "0")}`).join(", ")}: its held frames land
          below as it is made.
        </p>
      ) : null}
      {rows.length ? (
        <ul class="tour-list" aria-label={`Tours of ${r.name}`}>
          {rows.map((row) => {
            const t = row.tour;
            const scrub = t.status === "ok" && !!t.video && !!t.fps;
            return (
              <li key={t.tour}>
                <div class="tour-row">
                  <strong>{row.title}</strong>
                  {row.job?.status === "running" ? (
                    <progress
                      max={1}
                      value={row.job.progress || 0}
                      aria-label={`${row.title}: ${row.state}`}
                    />
                  ) : null}
                  <span class={`ref-state ${row.tone}`}>{row.state}</span>
                  {scrub ? (
                    <button
                      type="button"
                      class="ghost small"
                      aria-expanded={open === t.tour}
                      onClick={() => setOpen(open === t.tour ? null : t.tour)}
                    >
                      {open === t.tour ? "Close" : "Add a frame…"}
                    </button>
                  ) : null}
                </div>
                {scrub && open === t.tour ? (
                  <TourScrubber ep={ep} refInfo={r} tour={t} title={row.title} onChanged={onChanged} />
                ) : null}
              </li>
            );
          })}
        </ul>
      ) : null}
    </section>
  );
}

/** A finished tour's video under a frame slider, and the button that adds the frame shown as a hold. */
function TourScrubber({
  ep,
  refInfo: r,
  tour,
  title,
  onChanged,
}: {
  ep: string;
  refInfo: RefInfo;
  tour: RefTourInfo;
  title: string;
  onChanged(ref: RefInfo | null): void;
}) {
  const video = useRef<HTMLVideoElement>(null);
  const [frame, setFrame] = useState(0);
  const [added, setAdded] = useState<string | null>(null);
  const fps = tour.fps ?? 24;
  const frames = tourFrames(tour) ?? 1;
  const at = tourFrameAt(tour, frame / fps);
  const add = useAction(async () => {
    if (!at) return;
    setAdded(null);
    const take = await api.post<{ take: number }>("refs/tour-frame", {
      ep,
      ref: r.id,
      tour: tour.tour,
      seconds: at.seconds,
    });
    setAdded(`Frame ${at.frame} is tour hold t${String(take.take).padStart(2, "0")}.`);
    onChanged(null);
  });
  const seek = (i: number) => {
    setFrame(i);
    if (video.current) video.current.currentTime = timeOfFrame(i, fps);
  };
  return (
    <div class="tour-scrub">
      <video
        ref={video}
        src={fileUrl(ep, tour.video ?? "")}
        muted
        preload="auto"
        aria-label={`${title} video`}
        onLoadedMetadata={() => seek(frame)}
      />
      <div class="tour-scrub-controls">
        <label class="tour-slider">
          <span>
            Frame {frame} · {frameTime(frame, fps)}
          </span>
          <input
            type="range"
            min={0}
            max={frames - 1}
            step={1}
            value={frame}
            onInput={(e) => seek(Number(e.currentTarget.value))}
            aria-valuetext={`frame ${frame}, ${frameTime(frame, fps)}`}
          />
        </label>
        <button type="button" onClick={() => add.run()} disabled={add.busy || !at}>
          {add.busy ? "Cutting…" : `Add frame ${frame} as a hold`}
        </button>
      </div>
      <ErrorText error={add.error} />
      {added ? (
        <p class="muted small" aria-live="polite">
          {added}
        </p>
      ) : null}
    </div>
  );
}
