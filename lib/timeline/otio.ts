// The timeline as OpenTimelineIO JSON (`.otio`), written with the schema versions OpenTimelineIO 0.15 to 0.17 write
// and every later release reads: Timeline.1, Stack.1, Track.1, Clip.2, Gap.1, ExternalReference.1, Marker.2,
// TimeRange.1, RationalTime.1. Times are frames at the pass's rate; a clip's gain and where its sound comes from
// go in its metadata under `studio` (0.17 has no volume effect).
import { pathToFileURL } from "node:url";
import type { Placed, SoundClip, Timeline, TimelineNote, VideoClip } from "./model.ts";

type Json = Record<string, unknown>;

const time = (value: number, rate: number): Json => ({ OTIO_SCHEMA: "RationalTime.1", rate, value });
const range = (start: number, duration: number, rate: number): Json => ({
  OTIO_SCHEMA: "TimeRange.1",
  duration: time(duration, rate),
  start_time: time(start, rate),
});

function marker(name: string, at: number, rate: number, color: string, comment = ""): Json {
  return {
    OTIO_SCHEMA: "Marker.2",
    metadata: {},
    name,
    color,
    marked_range: range(at, 0, rate),
    comment,
  };
}

function gap(frames: number, rate: number): Json {
  return {
    OTIO_SCHEMA: "Gap.1",
    metadata: {},
    name: "",
    source_range: range(0, frames, rate),
    effects: [],
    markers: [],
    enabled: true,
  };
}

function clip(p: Placed, name: string, rate: number, metadata: Json, markers: Json[]): Json {
  return {
    OTIO_SCHEMA: "Clip.2",
    metadata,
    name,
    source_range: range(p.sourceIn, p.frames, rate),
    effects: [],
    markers,
    enabled: true,
    media_references: {
      DEFAULT_MEDIA: {
        OTIO_SCHEMA: "ExternalReference.1",
        metadata: {},
        name: p.file.split(/[\\/]/).pop() ?? "",
        available_range: p.fileFrames === null ? null : range(0, p.fileFrames, rate),
        available_image_bounds: null,
        target_url: pathToFileURL(p.file).href,
      },
    },
    active_media_reference_key: "DEFAULT_MEDIA",
  };
}

/** Pieces in record order with gaps between them, as a track lists its children. */
function children(pieces: readonly Placed[], rate: number, make: (p: Placed) => Json): Json[] {
  const out: Json[] = [];
  let at = 0;
  for (const p of [...pieces].sort((a, b) => a.recordIn - b.recordIn)) {
    if (p.recordIn > at) out.push(gap(p.recordIn - at, rate));
    out.push(make(p));
    at = p.recordIn + p.frames;
  }
  return out;
}

function track(name: string, kind: "Video" | "Audio", items: Json[], markers: Json[] = []): Json {
  return {
    OTIO_SCHEMA: "Track.1",
    metadata: {},
    name,
    source_range: null,
    effects: [],
    markers,
    enabled: true,
    children: items,
    kind,
  };
}

function videoClip(v: VideoClip, rate: number): Json {
  const markers: Json[] = [];
  if (v.note) markers.push(marker(v.note, v.sourceIn, rate, "YELLOW", v.note));
  if (v.flag) markers.push(marker("flagged", v.sourceIn, rate, "RED"));
  const studio = { shot: v.shot, take: v.take, pass: v.pass, placeholder: v.placeholder };
  return clip(v, v.name, rate, { studio }, markers);
}

function soundClip(s: SoundClip, rate: number): Json {
  return clip(s, s.name, rate, { studio: { shot: s.shot || null, gain: s.gain, sound: s.why } }, []);
}

const noteMarker = (n: TimelineNote, rate: number) => marker(n.text, n.at, rate, "ORANGE", n.text);

/** The `.otio` text. */
export function otioText(t: Timeline): string {
  const rate = t.fps;
  const tracks = [
    track(
      "V1",
      "Video",
      children(t.video, rate, (p) => videoClip(p as VideoClip, rate)),
      t.notes.map((n) => noteMarker(n, rate)),
    ),
    track(
      "A1",
      "Audio",
      children(t.sounds, rate, (p) => soundClip(p as SoundClip, rate)),
    ),
  ];
  if (t.track.length)
    tracks.push(
      track(
        "A2 episode track",
        "Audio",
        children(t.track, rate, (p) => soundClip(p as SoundClip, rate)),
      ),
    );
  const timeline = {
    OTIO_SCHEMA: "Timeline.1",
    metadata: { studio: { pass: t.pass, width: t.width, height: t.height, fps: t.fps } },
    name: `${t.name} ${t.pass}`,
    global_start_time: time(0, rate),
    tracks: {
      OTIO_SCHEMA: "Stack.1",
      metadata: {},
      name: "tracks",
      source_range: null,
      effects: [],
      markers: [],
      enabled: true,
      children: tracks,
    },
  };
  return `${JSON.stringify(timeline, null, 2)}\n`;
}
