// The Cut view: the pass's cut as a timeline under a monitor. Play all plays it in order; clips are reordered by
// drag (or Alt+arrows), trimmed by their edges (or [ and ] at the playhead, or the inspector), left out, flagged,
// locked, noted and given a sound; every edit writes the whole list with PUT /studio/cut and shows at once.
// Reset, copy from the other pass and assembly sit below. Edits made elsewhere arrive with the episode's events.
import { useSignal } from "@preact/signals";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, fileUrl, thumbUrl } from "../../api.ts";
import { useStudio } from "../../context.ts";
import { useShortcuts } from "../../keys.tsx";
import { ErrorText, seconds, useAction } from "../../ui.tsx";
import { AssemblePanel } from "./assemble.tsx";
import { CutTools } from "./cut-tools.tsx";
import {
  applyEntries,
  type CutEntryBody,
  clipInputOf,
  type EntryPatch,
  entriesOf,
  patchEntry,
} from "./entries.ts";
import { ExportMenu } from "./export-menu.tsx";
import { Inspector } from "./inspector.tsx";
import { cutTake, useOtherTakes } from "./media.ts";
import { Player, type PlayItem } from "./player.ts";
import { Recording } from "./recording.tsx";
import {
  clipAt,
  fitZoom,
  layout,
  move,
  type Placed,
  playFrom,
  type Trims,
  timecode,
  trimAt,
} from "./timeline.ts";
import { type ClipLook, Track } from "./track.tsx";

const ZOOM_MIN = 4;
const ZOOM_MAX = 400;
const tNN = (n: number) => `t${String(n).padStart(2, "0")}`;

export function CutView() {
  const studio = useStudio();
  const { ep, pass, shot: selected } = studio.router.route.value;
  const status = studio.episode.value.value;
  const other = useOtherTakes(ep ?? "", status);
  const [zoom, setZoom] = useState<number | null>(null);
  const [preview, setPreview] = useState<{ shot: string; trims: Trims; edge: "in" | "out" } | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [shown, setShown] = useState<{ item: PlayItem | null; playing: boolean }>({
    item: null,
    playing: false,
  });
  const playhead = useSignal(0);
  const trackBox = useRef<HTMLDivElement>(null);
  const videoA = useRef<HTMLVideoElement>(null);
  const videoB = useRef<HTMLVideoElement>(null);
  const player = useRef<Player | null>(null);

  const inputs = useMemo(
    () =>
      (status?.shots ?? []).map((s) => {
        const input = clipInputOf(s);
        return preview?.shot === s.shot ? { ...input, ...preview.trims } : input;
      }),
    [status, preview],
  );
  const fps = status?.fps ?? 24;
  const lay = useMemo(() => layout(inputs, fps), [inputs, fps]);
  const looks: ClipLook[] = useMemo(
    () =>
      (status?.shots ?? []).map((s) => {
        const t = cutTake(s, other.takes);
        return {
          take: s.cut.take === null ? null : `${tNN(s.cut.take)}${s.cut.placeholder ? ` ${s.cut.pass}` : ""}`,
          thumb: t?.thumb && ep ? thumbUrl(ep, t.thumb, 256) : null,
          locked: s.cut.locked,
          flag: s.cut.flag,
          note: s.cut.note,
          why: s.cut.usable ? s.cut.audio_why : s.cut.take === null ? "not rendered yet" : "take not usable",
        };
      }),
    [status, other.takes, ep],
  );
  const items: PlayItem[] = useMemo(
    () =>
      lay.clips.map((c) => {
        const s = status?.shots[c.index];
        const t = s ? cutTake(s, other.takes) : null;
        const src = c.kind === "clip" && t?.mp4 && ep ? fileUrl(ep, t.mp4) : null;
        return {
          index: c.index,
          shot: c.shot,
          kind: src ? "clip" : "gap",
          src,
          start: c.start,
          duration: c.duration,
          sourceIn: c.sourceIn,
          sourceOut: c.sourceOut,
        };
      }),
    [lay, status, other.takes, ep],
  );

  // The zoom fits the cut into the strip the first time the episode shows.
  useEffect(() => {
    if (zoom !== null || !status || !trackBox.current) return;
    setZoom(fitZoom(lay.total, trackBox.current.clientWidth - 40, ZOOM_MIN, 120));
  }, [status, zoom, lay.total]);
  const z = zoom ?? 40;

  useEffect(() => {
    if (!videoA.current || !videoB.current) return;
    const p = new Player(videoA.current, videoB.current, {
      time: (t) => {
        playhead.value = t;
        follow(trackBox.current, t * (zoomRef.current ?? 40));
      },
      state: (item, playing) => setShown({ item, playing }),
    });
    player.current = p;
    return () => p.destroy();
  }, [status !== null]);
  const zoomRef = useRef(zoom);
  zoomRef.current = z;

  /** Put the playhead at `t` and show that frame (when paused). */
  const seek = (t: number) => {
    const at = Math.max(0, Math.min(t, lay.total));
    playhead.value = at;
    const p = player.current;
    if (!p) return;
    if (p.running) p.pause();
    const k = clipAt(lay, at);
    p.show(k >= 0 ? items[k] : null, at);
  };

  // A new layout (an edit, a take arriving) shows the frame under the playhead again.
  useEffect(() => {
    if (!player.current?.running && !preview) seek(playhead.value);
  }, [items]);

  // While an edge is dragged, the monitor shows the frame the clip now starts or ends on.
  useEffect(() => {
    if (!preview) return;
    const c = lay.clips.find((x) => x.shot === preview.shot);
    if (!c) return;
    const t = preview.edge === "in" ? c.start : c.start + Math.max(0, c.duration - 1 / fps);
    player.current?.show(items[c.index], t);
  }, [preview, lay]);

  const save = useAction(async (entries: CutEntryBody[]) => {
    if (!ep || !status) return;
    // The timeline moves at once; the service's answer (and its event) bring the episode as stored.
    studio.episode.value.value = applyEntries(status, entries);
    try {
      await api.put("cut", { ep, pass, entries });
    } finally {
      await studio.refreshEpisode();
    }
  });
  const edit = (shot: string, patch: EntryPatch) => {
    if (!status) return;
    setNotice(null);
    void save.run(patchEntry(entriesOf(status), shot, patch));
  };
  const reorder = (from: number, to: number) => {
    if (!status || from === to) return;
    setNotice(null);
    void save.run(move(entriesOf(status), from, to));
  };
  const togglePlay = () => {
    const p = player.current;
    if (!p) return;
    if (p.running) {
      p.pause();
      return;
    }
    const start = playhead.value >= lay.played && playhead.value >= lay.total - 1e-6 ? 0 : playhead.value;
    const list = playFrom(lay, start)
      .map((c) => items[c.index])
      .filter((i) => i.duration > 0);
    if (!list.length) {
      setNotice("Nothing to play: every clip is left out or has no length.");
      return;
    }
    playhead.value = Math.max(start, list[0].start);
    p.play(list, playhead.value);
  };
  const trimHere = (edge: "in" | "out") => {
    const k = clipAt(lay, playhead.value);
    const c = lay.clips[k];
    const s = status?.shots[k];
    if (!c || !s) return;
    if (s.cut.locked) {
      setNotice(`${s.shot} is locked: unlock it to trim.`);
      return;
    }
    const trims = trimAt(c, edge, playhead.value, fps);
    if (!trims) {
      setNotice(`${s.shot} has no take to trim.`);
      return;
    }
    edit(s.shot, { trim_in: trims.trimIn, trim_out: trims.trimOut });
  };
  const select = (shot: string, at: number) => {
    studio.router.go({ shot });
    seek(at);
  };
  const stepFrames = (n: number) => seek(Math.round(playhead.value * fps + n) / fps);

  useShortcuts(studio.keys, [
    { keys: [" "], label: "Play or pause the cut", run: togglePlay },
    { keys: ["["], label: "Set the clip's in point at the playhead", run: () => trimHere("in") },
    { keys: ["]"], label: "Set the clip's out point at the playhead", run: () => trimHere("out") },
    {
      keys: ["ArrowLeft"],
      label: "Playhead one frame back (on a clip: the previous clip)",
      run: () => stepFrames(-1),
    },
    {
      keys: ["ArrowRight"],
      label: "Playhead one frame on (on a clip: the next clip)",
      run: () => stepFrames(1),
    },
    { keys: ["Home"], label: "Playhead to the start", run: () => seek(0) },
    { keys: ["End"], label: "Playhead to the end", run: () => seek(lay.total) },
  ]);

  if (!ep) return null;
  if (!status) {
    return (
      <div class="cut-view">
        {studio.episode.error.value ? (
          <ErrorText error={studio.episode.error.value} />
        ) : (
          <p class="muted">Loading the cut…</p>
        )}
      </div>
    );
  }
  const selIndex = status.shots.findIndex((s) => s.shot === selected);
  const selShot = selIndex >= 0 ? status.shots[selIndex] : null;
  const selClip: Placed | null = selIndex >= 0 ? lay.clips[selIndex] : null;
  const current = shown.item ? status.shots[shown.item.index] : null;
  return (
    <div class="cut-view">
      <div class="cut-top">
        <div class="cut-monitor" style={{ aspectRatio: `${status.width || 16} / ${status.height || 9}` }}>
          {/* biome-ignore lint/a11y/useMediaCaption: takes carry no caption track */}
          <video ref={videoA} aria-label="Monitor (A)" />
          {/* biome-ignore lint/a11y/useMediaCaption: takes carry no caption track */}
          <video ref={videoB} aria-label="Monitor (B)" />
          {shown.item?.kind === "gap" ? (
            <div class="cut-card">
              <strong>{shown.item.shot}</strong>
              <span>
                {current?.cut.take === null ? "not rendered yet" : "no usable take"} ·{" "}
                {seconds(shown.item.duration)}
              </span>
            </div>
          ) : null}
          {shown.item ? <span class="cut-monitor-label">{shown.item.shot}</span> : null}
        </div>
        {selShot && selClip ? (
          <Inspector
            status={status}
            shot={selShot}
            clip={selClip}
            busy={save.busy}
            error={save.error}
            onPatch={(patch) => edit(selShot.shot, patch)}
          />
        ) : (
          <section class="cut-inspector empty" aria-label="Clip">
            <p class="muted">
              Select a clip to trim it, leave it out, flag, lock, note it or choose its sound.
            </p>
          </section>
        )}
      </div>
      <div class="cut-bar">
        <button type="button" class="primary" onClick={togglePlay} aria-pressed={shown.playing}>
          {shown.playing ? "Pause" : "Play all"}
        </button>
        <TimeReadout playhead={playhead} fps={fps} />
        <span class="muted">
          / {timecode(lay.played, fps)} played
          {lay.total > lay.played ? ` (${seconds(lay.total - lay.played)} left out)` : ""} ·{" "}
          {status.shots.length} clips · {fps} fps
        </span>
        <label class="inline cut-zoom">
          Zoom
          <input
            type="range"
            min={Math.log(ZOOM_MIN)}
            max={Math.log(ZOOM_MAX)}
            step={0.01}
            value={Math.log(z)}
            aria-valuetext={`${Math.round(z)} pixels a second`}
            onInput={(e) => setZoom(Math.exp(Number(e.currentTarget.value)))}
          />
        </label>
        <button
          type="button"
          onClick={() =>
            setZoom(fitZoom(lay.total, (trackBox.current?.clientWidth ?? 800) - 40, ZOOM_MIN, ZOOM_MAX))
          }
        >
          Fit
        </button>
        <CutTools ep={ep} pass={pass} onDone={studio.refreshEpisode} />
        <ExportMenu ep={ep} pass={pass} episode={status.episode} />
      </div>
      <div ref={trackBox}>
        <Track
          layout={lay}
          looks={looks}
          zoom={z}
          selected={selected}
          playhead={playhead}
          onSelect={select}
          onSeek={seek}
          onMove={reorder}
          onTrim={(shot, edge, trims, commit) => {
            if (!commit) {
              setPreview(trims ? { shot, trims, edge } : null);
              return;
            }
            setPreview(null);
            if (trims) edit(shot, { trim_in: trims.trimIn, trim_out: trims.trimOut });
          }}
        />
      </div>
      <Recording
        ep={ep}
        pass={pass}
        status={status}
        zoom={z}
        selected={selected}
        timeline={trackBox}
        onSelect={(shot) => studio.router.go({ shot })}
      />
      <ErrorText error={save.error && !selShot ? save.error : null} />
      <ErrorText error={other.error} />
      {notice ? (
        <p class="muted" role="status">
          {notice}
        </p>
      ) : null}
      <AssemblePanel ep={ep} pass={pass} />
    </div>
  );
}

/** The playhead's time, redrawn alone while the cut plays. */
function TimeReadout({ playhead, fps }: { playhead: { value: number }; fps: number }) {
  return (
    <output class="cut-time" aria-label="Playhead">
      {timecode(playhead.value, fps)}
    </output>
  );
}

/** Keep the playhead in view while the cut plays: page the strip along when it passes the right edge. */
function follow(box: HTMLElement | null, x: number): void {
  const scroller = box?.querySelector<HTMLElement>(".cut-track-scroll");
  if (!scroller) return;
  if (x > scroller.scrollLeft + scroller.clientWidth - 40 || x < scroller.scrollLeft) {
    scroller.scrollLeft = Math.max(0, x - 80);
  }
}
