// The timeline strip: a ruler to seek on, one clip per cut entry (width by played length, the take's thumbnail,
// its id and length; out clips dimmed in place, gaps dashed), drag to reorder, edge handles to trim, and the
// playhead. Keyboard: arrows walk the clips, Alt+arrows move one, the trim handles are sliders of one frame.
import type { Signal } from "@preact/signals";
import { useRef, useState } from "preact/hooks";
import { seconds } from "../../ui.tsx";
import { dragTrim, dropIndex, type Layout, type Placed, pxToSeconds, type Trims } from "./timeline.ts";

/** What the strip shows of a clip beyond its timing. */
export interface ClipLook {
  take: string | null;
  thumb: string | null;
  locked: boolean;
  flag: boolean;
  note: string | null;
  why: string | null;
}

interface Props {
  layout: Layout;
  looks: readonly ClipLook[];
  zoom: number;
  selected: string | null;
  playhead: Signal<number>;
  onSelect(shot: string, at: number): void;
  onSeek(t: number): void;
  onMove(from: number, to: number): void;
  onTrim(shot: string, edge: "in" | "out", trims: Trims | null, commit: boolean): void;
}

/** The ruler's step: the smallest of these that leaves 70 px between labels. */
const STEPS = [0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300];

export function Track(p: Props) {
  const strip = useRef<HTMLDivElement>(null);
  const [drag, setDrag] = useState<{ from: number; dx: number; to: number } | null>(null);
  const width = Math.max(p.layout.total * p.zoom + 200, 400);
  const timeAt = (clientX: number) => {
    const box = strip.current?.getBoundingClientRect();
    return box ? Math.max(0, pxToSeconds(clientX - box.left, p.zoom)) : 0;
  };

  const step = STEPS.find((s) => s * p.zoom >= 70) ?? STEPS[STEPS.length - 1];
  const ticks: number[] = [];
  for (let t = 0; t <= p.layout.total + step; t += step) ticks.push(t);

  const startClipDrag = (e: PointerEvent, c: Placed) => {
    if (e.button !== 0) return;
    const el = e.currentTarget as HTMLElement;
    el.setPointerCapture(e.pointerId);
    const x0 = e.clientX;
    let moved = false;
    const onMove = (ev: PointerEvent) => {
      const dx = ev.clientX - x0;
      if (!moved && Math.abs(dx) < 4) return;
      moved = true;
      setDrag({ from: c.index, dx, to: dropIndex(p.layout, c.index, timeAt(ev.clientX)) });
    };
    const onUp = (ev: PointerEvent) => {
      el.removeEventListener("pointermove", onMove);
      el.removeEventListener("pointerup", onUp);
      el.removeEventListener("pointercancel", onUp);
      setDrag(null);
      if (ev.type === "pointercancel") return;
      if (moved) {
        const to = dropIndex(p.layout, c.index, timeAt(ev.clientX));
        if (to !== c.index) p.onMove(c.index, to);
      } else {
        p.onSelect(c.shot, Math.min(timeAt(ev.clientX), c.start + c.duration));
      }
    };
    el.addEventListener("pointermove", onMove);
    el.addEventListener("pointerup", onUp);
    el.addEventListener("pointercancel", onUp);
  };

  const startTrimDrag = (e: PointerEvent, c: Placed, edge: "in" | "out") => {
    if (e.button !== 0) return;
    e.stopPropagation();
    const el = e.currentTarget as HTMLElement;
    el.setPointerCapture(e.pointerId);
    const x0 = e.clientX;
    let last: Trims | null = null;
    const onMove = (ev: PointerEvent) => {
      last = dragTrim(c, edge, ev.clientX - x0, p.zoom, p.layout.fps);
      p.onTrim(c.shot, edge, last, false);
    };
    const onUp = () => {
      el.removeEventListener("pointermove", onMove);
      el.removeEventListener("pointerup", onUp);
      el.removeEventListener("pointercancel", onUp);
      p.onTrim(c.shot, edge, last, last !== null);
    };
    el.addEventListener("pointermove", onMove);
    el.addEventListener("pointerup", onUp);
    el.addEventListener("pointercancel", onUp);
  };

  const trimKey = (e: KeyboardEvent, c: Placed, edge: "in" | "out") => {
    const by = e.shiftKey ? Math.round(p.layout.fps) : 1;
    const d =
      e.key === "ArrowRight" || e.key === "ArrowUp"
        ? by
        : e.key === "ArrowLeft" || e.key === "ArrowDown"
          ? -by
          : 0;
    if (!d) return;
    e.preventDefault();
    e.stopPropagation();
    // The slider's value is the trim itself: right/up trims more off that edge.
    const trims = { trimIn: c.trimIn, trimOut: c.trimOut };
    if (edge === "in") trims.trimIn = Math.max(0, c.trimIn + d);
    else trims.trimOut = Math.max(0, c.trimOut + d);
    p.onTrim(c.shot, edge, dragTrim({ ...c, ...trims }, edge, 0, p.zoom, p.layout.fps), true);
  };

  const clipKey = (e: KeyboardEvent, c: Placed) => {
    const n = p.layout.clips.length;
    const focusAt = (i: number) => {
      const el = strip.current?.querySelector<HTMLElement>(`[data-index="${i}"]`);
      el?.focus();
      const to = p.layout.clips[i];
      if (to) p.onSelect(to.shot, to.start);
    };
    if (e.altKey && (e.key === "ArrowLeft" || e.key === "ArrowRight")) {
      e.preventDefault();
      const to = c.index + (e.key === "ArrowLeft" ? -1 : 1);
      if (to >= 0 && to < n) p.onMove(c.index, to);
      return;
    }
    if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
      e.preventDefault();
      focusAt(Math.max(0, Math.min(n - 1, c.index + (e.key === "ArrowLeft" ? -1 : 1))));
    } else if (e.key === "Home" || e.key === "End") {
      e.preventDefault();
      focusAt(e.key === "Home" ? 0 : n - 1);
    } else if (e.key === "Enter") {
      e.preventDefault();
      p.onSelect(c.shot, c.start);
    }
  };

  return (
    <div class="cut-track-scroll">
      <div class="cut-track" ref={strip} style={{ width: `${width}px` }}>
        <div
          class="cut-ruler"
          role="presentation"
          onPointerDown={(e) => {
            p.onSeek(timeAt(e.clientX));
            const el = e.currentTarget;
            el.setPointerCapture(e.pointerId);
            const onMove = (ev: PointerEvent) => p.onSeek(timeAt(ev.clientX));
            const onUp = () => {
              el.removeEventListener("pointermove", onMove);
              el.removeEventListener("pointerup", onUp);
            };
            el.addEventListener("pointermove", onMove);
            el.addEventListener("pointerup", onUp);
          }}
        >
          {ticks.map((t) => (
            <span key={t} class="cut-tick" style={{ left: `${t * p.zoom}px` }}>
              {rulerLabel(t)}
            </span>
          ))}
        </div>
        <div
          class="cut-clips"
          role="listbox"
          aria-label="Clips of the cut in play order"
          aria-orientation="horizontal"
        >
          {p.layout.clips.map((c) => {
            const look = p.looks[c.index];
            const dragged = drag?.from === c.index;
            const w = Math.max(c.duration * p.zoom, 6);
            const cls = [
              "cut-clip",
              c.kind,
              c.out ? "out" : "",
              p.selected === c.shot ? "selected" : "",
              dragged ? "dragging" : "",
              look.locked ? "locked" : "",
            ].join(" ");
            const label =
              c.kind === "gap"
                ? `${c.shot}, no usable take${c.duration ? `, planned ${seconds(c.duration)}` : ""}`
                : `${c.shot}, take ${look.take ?? "?"}, ${seconds(c.duration)}`;
            return (
              <div
                key={c.shot}
                data-index={c.index}
                class={cls}
                role="option"
                aria-selected={p.selected === c.shot}
                aria-label={`${label}${c.out ? ", left out" : ""}${look.locked ? ", locked" : ""}${look.flag ? ", flagged" : ""}`}
                tabIndex={p.selected === c.shot || (!p.selected && c.index === 0) ? 0 : -1}
                title={look.note ?? look.why ?? undefined}
                style={{
                  left: `${c.start * p.zoom}px`,
                  width: `${w}px`,
                  transform: dragged && drag ? `translateX(${drag.dx}px)` : undefined,
                }}
                onPointerDown={(e) => startClipDrag(e, c)}
                onKeyDown={(e) => clipKey(e, c)}
              >
                {look.thumb && c.kind === "clip" ? <img src={look.thumb} alt="" draggable={false} /> : null}
                <span class="cut-clip-label">
                  <strong>{c.shot}</strong>
                  {look.take ? <span> {look.take}</span> : null}
                  <span class="cut-clip-len">
                    {" "}
                    {c.kind === "gap" ? (c.duration ? seconds(c.duration) : "–") : seconds(c.duration)}
                  </span>
                </span>
                {c.kind === "gap" ? <span class="cut-clip-why">{look.why ?? "no take"}</span> : null}
                {look.flag ? <span class="cut-flag" aria-hidden="true" /> : null}
                {look.locked ? (
                  <span class="cut-lock" aria-hidden="true">
                    locked
                  </span>
                ) : null}
                {c.kind === "clip" && !look.locked ? (
                  <>
                    <div
                      class="cut-handle in"
                      role="slider"
                      tabIndex={p.selected === c.shot ? 0 : -1}
                      aria-label={`Trim in of ${c.shot} (frames)`}
                      aria-valuenow={c.trimIn}
                      aria-valuemin={0}
                      onPointerDown={(e) => startTrimDrag(e, c, "in")}
                      onKeyDown={(e) => trimKey(e, c, "in")}
                    />
                    <div
                      class="cut-handle out"
                      role="slider"
                      tabIndex={p.selected === c.shot ? 0 : -1}
                      aria-label={`Trim out of ${c.shot} (frames)`}
                      aria-valuenow={c.trimOut}
                      aria-valuemin={0}
                      onPointerDown={(e) => startTrimDrag(e, c, "out")}
                      onKeyDown={(e) => trimKey(e, c, "out")}
                    />
                  </>
                ) : null}
              </div>
            );
          })}
          {drag ? <DropMarker layout={p.layout} drag={drag} zoom={p.zoom} /> : null}
        </div>
        <Playhead playhead={p.playhead} zoom={p.zoom} />
      </div>
    </div>
  );
}

function rulerLabel(t: number): string {
  const m = Math.floor(t / 60);
  const s = t - m * 60;
  const ss = Number.isInteger(s) ? String(s) : s.toFixed(1);
  return m ? `${m}:${ss.padStart(2, "0")}` : `${ss}s`;
}

/** Where a dragged clip would land: a bar at the left edge of the clip it would precede, else after the last. */
function DropMarker({
  layout,
  drag,
  zoom,
}: {
  layout: Layout;
  drag: { from: number; to: number };
  zoom: number;
}) {
  const others = layout.clips.filter((c) => c.index !== drag.from);
  const before = others[drag.to];
  const last = others[others.length - 1];
  const t = before ? before.start : last ? last.start + last.duration : 0;
  return <div class="cut-drop" style={{ left: `${t * zoom}px` }} />;
}

/** The playhead line: the only part that redraws while the cut plays. */
function Playhead({ playhead, zoom }: { playhead: Signal<number>; zoom: number }) {
  return <div class="cut-playhead" style={{ transform: `translateX(${playhead.value * zoom}px)` }} />;
}
