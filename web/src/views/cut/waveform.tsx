// The episode's recording under the timeline: its waveform at the cut's zoom (only the stretch in view is asked
// of GET /studio/peaks, one bin per pixel, again on scroll and zoom), each shot's `audio:` window on it, and the
// recording played from wherever it is clicked. A window's edges and body drag (or take arrow keys); on release
// the script's `audio:` line is rewritten and saved through PUT /studio/source with the hash it was read at.
import type { ComponentChildren } from "preact";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { setAudioWindows } from "../../../../lib/align/script-windows.ts";
import { ApiError, api, fileUrl } from "../../api.ts";
import { useStudio } from "../../context.ts";
import type { EpisodeTrack, PeaksAnswer, ShotEntry, SourceAnswer } from "../../types.ts";
import { ErrorText, seconds, useAction } from "../../ui.tsx";
import {
  type AudioWindow,
  keyStep,
  lanes,
  moveWindow,
  type WindowPart,
  windowChanged,
  windowsOf,
  windowText,
} from "./audio-windows.ts";
import { bars, peakBytes, type Span, timeAtX, visibleSpan } from "./wave.ts";

const WAVE_HEIGHT = 72;
const LANE_HEIGHT = 20;
/** Keys held on a window are saved once they stop for this long, not at every step. */
const KEY_SETTLE_MS = 700;

interface Drawn {
  span: Span;
  peaks: Uint8Array;
  silent: boolean;
}

export function Waveform({
  ep,
  track,
  shots,
  zoom,
  selected,
  timeline,
  onSelect,
  tools,
}: {
  ep: string;
  track: EpisodeTrack;
  shots: readonly ShotEntry[];
  /** Pixels a second: the timeline's, so the two read at the same scale. */
  zoom: number;
  selected: string | null;
  /** The timeline's box: its strip scrolls with this one. */
  timeline: { current: HTMLElement | null };
  onSelect(shot: string): void;
  /** Controls shown at the end of the bar (replace or clear the recording). */
  tools?: ComponentChildren;
}) {
  const studio = useStudio();
  const scroller = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const audio = useRef<HTMLAudioElement>(null);
  const head = useRef<HTMLDivElement>(null);
  const [duration, setDuration] = useState<number | null>(null);
  const [drawn, setDrawn] = useState<Drawn | null>(null);
  const [peaksError, setPeaksError] = useState<string | null>(null);
  const [view, setView] = useState({ left: 0, width: 0 });
  const [playing, setPlaying] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  /** A window being moved and not yet saved (or saved and not yet back in the episode). */
  const [moving, setMoving] = useState<AudioWindow | null>(null);
  const keyTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const windows = useMemo(() => windowsOf(shots), [shots]);
  const shown = useMemo(
    () => windows.map((w) => (moving && w.shot === moving.shot ? moving : w)),
    [windows, moving],
  );
  const laneOf = useMemo(() => lanes(shown), [shown]);
  const laneCount = Math.max(1, ...laneOf.map((l) => l + 1));
  const src = fileUrl(ep, track.path);

  // A new recording starts over: its length, its peaks.
  useEffect(() => {
    setDuration(null);
    setDrawn(null);
    setPeaksError(null);
  }, [src]);

  // The strip's scroll and width, read on scroll and resize; the timeline's strip follows it and back.
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const read = () => setView({ left: el.scrollLeft, width: el.clientWidth });
    read();
    const other = () => timeline.current?.querySelector<HTMLElement>(".cut-track-scroll") ?? null;
    const mine = () => {
      read();
      const o = other();
      if (o && Math.abs(o.scrollLeft - el.scrollLeft) > 1) o.scrollLeft = el.scrollLeft;
    };
    const theirs = () => {
      const o = other();
      if (o && Math.abs(o.scrollLeft - el.scrollLeft) > 1) el.scrollLeft = o.scrollLeft;
    };
    el.addEventListener("scroll", mine, { passive: true });
    const o = other();
    o?.addEventListener("scroll", theirs, { passive: true });
    const ro = new ResizeObserver(read);
    ro.observe(el);
    return () => {
      el.removeEventListener("scroll", mine);
      o?.removeEventListener("scroll", theirs);
      ro.disconnect();
    };
  }, [timeline.current]);

  // The peaks of the stretch in view, asked again (the last ask aborted) when it moves or the zoom changes.
  const span = visibleSpan(view.left, view.width, zoom, duration);
  const spanKey = span ? `${span.start}|${span.end}|${span.bins}` : "";
  useEffect(() => {
    if (!span || !track.exists) return;
    const ctl = new AbortController();
    const timer = setTimeout(() => {
      api
        .get<PeaksAnswer>(
          "peaks",
          { ep, path: track.path, bins: span.bins, start: span.start, end: span.end },
          ctl.signal,
        )
        .then((a) => {
          setDuration(a.duration);
          setPeaksError(null);
          setDrawn({
            span: { start: a.start, end: a.end, bins: a.bins },
            peaks: peakBytes(a.peaks),
            silent: a.silent === true,
          });
        })
        .catch((err) => {
          if (!ctl.signal.aborted) setPeaksError(err instanceof Error ? err.message : String(err));
        });
    }, 60);
    return () => {
      clearTimeout(timer);
      ctl.abort();
    };
  }, [spanKey, src, track.exists]);

  // Draw the peaks: mirrored bars about the middle, at the screen's pixel density.
  useEffect(() => {
    const c = canvas.current;
    if (!c || !drawn) return;
    const w = Math.max(1, Math.round((drawn.span.end - drawn.span.start) * zoom));
    const dpr = window.devicePixelRatio || 1;
    c.width = Math.round(w * dpr);
    c.height = Math.round(WAVE_HEIGHT * dpr);
    c.style.width = `${w}px`;
    c.style.left = `${drawn.span.start * zoom}px`;
    const g = c.getContext("2d");
    if (!g) return;
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, w, WAVE_HEIGHT);
    const css = getComputedStyle(c);
    g.fillStyle = css.getPropertyValue("--wave").trim() || "#7fb3e6";
    const mid = WAVE_HEIGHT / 2;
    for (const b of bars(drawn.peaks, w, WAVE_HEIGHT))
      g.fillRect(b.x, mid - b.half, Math.max(1, b.width), b.half * 2);
  }, [drawn, zoom]);

  // The recording's playhead follows the audio on every frame while it plays.
  useEffect(() => {
    const a = audio.current;
    if (!a) return;
    let raf = 0;
    const place = () => {
      if (head.current) head.current.style.transform = `translateX(${a.currentTime * zoom}px)`;
    };
    const tick = () => {
      place();
      raf = requestAnimationFrame(tick);
    };
    const on = () => {
      setPlaying(true);
      cancelAnimationFrame(raf);
      tick();
    };
    const off = () => {
      setPlaying(false);
      cancelAnimationFrame(raf);
      place();
    };
    a.addEventListener("play", on);
    a.addEventListener("pause", off);
    a.addEventListener("ended", off);
    a.addEventListener("seeked", place);
    place();
    return () => {
      cancelAnimationFrame(raf);
      a.removeEventListener("play", on);
      a.removeEventListener("pause", off);
      a.removeEventListener("ended", off);
      a.removeEventListener("seeked", place);
    };
  }, [zoom, src]);

  /** Play the recording from `t`, stopping at `until` when given (a window played alone). */
  const playFrom = (t: number, until?: number) => {
    const a = audio.current;
    if (!a) return;
    a.currentTime = Math.max(0, t);
    a.ontimeupdate =
      until === undefined
        ? null
        : () => {
            if (a.currentTime < until) return;
            a.pause();
            a.ontimeupdate = null;
          };
    void a.play().catch((err) => setNotice(`The recording does not play: ${String(err?.message ?? err)}`));
  };
  const toggle = () => {
    const a = audio.current;
    if (!a) return;
    if (a.paused) playFrom(a.currentTime);
    else a.pause();
  };

  const save = useAction(async (w: AudioWindow) => {
    setNotice(null);
    try {
      const src0 = await api.get<SourceAnswer>("source", { ep, file: "script" });
      const next = setAudioWindows(src0.text, [w]);
      if (next.missing.length)
        throw new Error(`${w.shot} is not in the script: its window cannot be written`);
      if (!next.changed.length) return;
      await api.put("source", { ep, file: "script", text: next.text, base_hash: src0.hash });
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) {
        setNotice(
          "The script changed while the window was saved: the windows were read again, drag once more.",
        );
        return;
      }
      throw err;
    } finally {
      await studio.refreshEpisode();
      setMoving(null);
    }
  });

  const commit = (w: AudioWindow) => {
    const before = windows.find((x) => x.shot === w.shot);
    if (before && windowChanged(before, w)) void save.run(w);
    else setMoving(null);
  };

  const startDrag = (e: PointerEvent, w: AudioWindow, part: WindowPart) => {
    if (e.button !== 0 || save.busy) return;
    e.stopPropagation();
    const el = e.currentTarget as HTMLElement;
    el.setPointerCapture(e.pointerId);
    const x0 = e.clientX;
    let moved = false;
    let last = w;
    const onMove = (ev: PointerEvent) => {
      const dx = ev.clientX - x0;
      if (!moved && Math.abs(dx) < 3) return;
      moved = true;
      last = moveWindow(w, part, dx / zoom, duration);
      setMoving(last);
    };
    const onUp = (ev: PointerEvent) => {
      el.removeEventListener("pointermove", onMove);
      el.removeEventListener("pointerup", onUp);
      el.removeEventListener("pointercancel", onUp);
      if (ev.type === "pointercancel") {
        setMoving(null);
        return;
      }
      if (moved) commit(last);
      else if (part === "body") {
        onSelect(w.shot);
        playFrom(w.audio_in, w.audio_out);
      }
    };
    el.addEventListener("pointermove", onMove);
    el.addEventListener("pointerup", onUp);
    el.addEventListener("pointercancel", onUp);
  };

  const windowKey = (e: KeyboardEvent, w: AudioWindow, part: WindowPart) => {
    if (part === "body" && (e.key === "Enter" || e.key === " ")) {
      e.preventDefault();
      onSelect(w.shot);
      playFrom(w.audio_in, w.audio_out);
      return;
    }
    const by = keyStep(e.key, e.shiftKey);
    if (by === null || save.busy) return;
    e.preventDefault();
    e.stopPropagation();
    const next = moveWindow(w, part, by, duration);
    setMoving(next);
    clearTimeout(keyTimer.current);
    keyTimer.current = setTimeout(() => commit(next), KEY_SETTLE_MS);
  };
  useEffect(() => () => clearTimeout(keyTimer.current), []);

  const total = duration ?? 0;
  const width = Math.max(total * zoom + 200, view.width);
  const seekAt = (e: PointerEvent) => {
    if (e.button !== 0) return;
    const box = (e.currentTarget as HTMLElement).getBoundingClientRect();
    const t = timeAtX(e.clientX - box.left, zoom);
    if (duration !== null && t > duration) return;
    playFrom(t);
  };

  return (
    <section class="wave" aria-label="Recording">
      <div class="wave-bar">
        <button type="button" onClick={toggle} aria-pressed={playing} disabled={!track.exists}>
          {playing ? "Pause recording" : "Play recording"}
        </button>
        <span class="wave-name" title={track.path}>
          {track.path}
        </span>
        <span class="muted">
          {duration !== null ? seconds(duration) : ""}
          {windows.length ? ` · ${windows.length} shot windows` : " · no shot has a window yet"}
        </span>
        {save.busy ? <span class="muted">saving the window…</span> : null}
        {tools}
      </div>
      {track.exists ? null : (
        <p class="error" role="alert">
          The recording {track.path} is missing from the episode.
        </p>
      )}
      {/* biome-ignore lint/a11y/useMediaCaption: a dialogue recording; the script beside it is its text */}
      <audio ref={audio} src={track.exists ? src : undefined} preload="metadata" />
      <div class="wave-scroll" ref={scroller}>
        <div
          class="wave-strip"
          style={{ width: `${width}px`, height: `${WAVE_HEIGHT + laneCount * LANE_HEIGHT + 4}px` }}
        >
          <div
            class="wave-area"
            role="presentation"
            title="Click to play the recording from here"
            style={{ height: `${WAVE_HEIGHT}px`, width: `${Math.max(0, total * zoom)}px` }}
            onPointerDown={seekAt}
          >
            <canvas ref={canvas} class="wave-canvas" style={{ height: `${WAVE_HEIGHT}px` }} />
            {drawn?.silent ? <span class="wave-silent muted">no sound in this recording</span> : null}
          </div>
          <ul
            class="wave-windows"
            aria-label="Shot windows on the recording"
            style={{ top: `${WAVE_HEIGHT + 2}px` }}
          >
            {shown.map((w, i) => {
              const sel = w.shot === selected;
              return (
                <li
                  key={w.shot}
                  class={`wave-window${sel ? " selected" : ""}${moving?.shot === w.shot ? " moving" : ""}`}
                  style={{
                    left: `${w.audio_in * zoom}px`,
                    width: `${Math.max(4, (w.audio_out - w.audio_in) * zoom)}px`,
                    top: `${laneOf[i] * LANE_HEIGHT}px`,
                  }}
                >
                  <button
                    type="button"
                    class="wave-window-body"
                    aria-label={`${w.shot} window ${windowText(w)}: Enter plays it, arrows move it`}
                    title={`${w.shot} · ${windowText(w)} · ${seconds(w.audio_out - w.audio_in)}`}
                    onPointerDown={(e) => startDrag(e, w, "body")}
                    onKeyDown={(e) => windowKey(e, w, "body")}
                  >
                    {w.shot}
                  </button>
                  {(["in", "out"] as const).map((part) => (
                    <div
                      key={part}
                      class={`wave-edge ${part}`}
                      role="slider"
                      tabIndex={0}
                      aria-label={`${part === "in" ? "Start" : "End"} of ${w.shot}'s window (seconds)`}
                      aria-valuenow={part === "in" ? w.audio_in : w.audio_out}
                      aria-valuemin={0}
                      aria-valuemax={duration ?? undefined}
                      onPointerDown={(e) => startDrag(e, w, part)}
                      onKeyDown={(e) => windowKey(e, w, part)}
                    />
                  ))}
                </li>
              );
            })}
          </ul>
          <div class="wave-head" ref={head} />
        </div>
      </div>
      <ErrorText error={peaksError ?? save.error} />
      {notice ? (
        <p class="muted" role="status">
          {notice}
        </p>
      ) : null}
    </section>
  );
}
