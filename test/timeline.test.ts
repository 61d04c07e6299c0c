// Timeline export: the pure placement (trims, sounds, the episode recording, notes) and each writer's structure,
// then real takes made with ffmpeg: the MLT export rendered by melt must show the same frames, clip for clip, as
// the service's own assembled mp4 of the same cut, the EDL's timecodes must match the cut's frames, and
// GET /studio/timeline answers a named download, 409 when nothing plays, 400 for an unknown format.
//
// Schema versions checked: OpenTimelineIO 0.17's serialized schema (Timeline.1, Stack.1, Track.1, Clip.2, Gap.1,
// ExternalReference.1, Marker.2, TimeRange.1, RationalTime.1), FCPXML 1.10's DTD (the elements and attributes this
// export writes: required attributes, IDREFs resolved, child order in a clip), CMX3600 event lines.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { assembleEpisode } from "../lib/assemble/assemble.ts";
import { type CutShot, chooseClips, filesToProbe, planAssembly } from "../lib/assemble/plan.ts";
import type { CutEntry } from "../lib/episode/cut.ts";
import type { TakeRecord } from "../lib/episode/takes.ts";
import type { ClipInfo } from "../lib/media/clip-probe.ts";
import { edlText } from "../lib/timeline/edl.ts";
import { fcpxmlText } from "../lib/timeline/fcpxml.ts";
import { downloadName } from "../lib/timeline/formats.ts";
import { mltText } from "../lib/timeline/mlt.ts";
import {
  type EpisodeTrack,
  fitPiece,
  placeTimeline,
  rateFraction,
  type Timeline,
  timecode,
} from "../lib/timeline/model.ts";
import { otioText } from "../lib/timeline/otio.ts";
import { answerRequest } from "../runtime/app.ts";
import { makeTone, realTake, realUpscale, SHORT, useMediaStudio, videoOf } from "./support/media.ts";
import { seriesS } from "./support/series-s.ts";
import { routeFor, type Studio } from "./support/studio-episode.ts";
import { findAll, parseXml, type XmlElement } from "./timeline-xml.ts";

// ------------------------------------------------------------------------------------------- structure checks

/** Fields each OTIO schema version serializes (OpenTimelineIO 0.17's serialized-schema document). */
const OTIO_FIELDS: Record<string, string[]> = {
  "Timeline.1": ["name", "metadata", "global_start_time", "tracks"],
  "Stack.1": ["name", "metadata", "source_range", "effects", "markers", "enabled", "children"],
  "Track.1": ["name", "metadata", "source_range", "effects", "markers", "enabled", "children", "kind"],
  "Clip.2": [
    "name",
    "metadata",
    "source_range",
    "effects",
    "markers",
    "enabled",
    "media_references",
    "active_media_reference_key",
  ],
  "Gap.1": ["name", "metadata", "source_range", "effects", "markers", "enabled"],
  "ExternalReference.1": ["name", "metadata", "available_range", "available_image_bounds", "target_url"],
  "Marker.2": ["name", "metadata", "color", "marked_range", "comment"],
  "TimeRange.1": ["start_time", "duration"],
  "RationalTime.1": ["rate", "value"],
};

// biome-ignore lint/suspicious/noExplicitAny: the OTIO document is walked as plain JSON.
type J = any;

/** Every OTIO object in the document has a known schema and its fields; answers the objects by schema. */
function checkOtio(doc: J): Map<string, J[]> {
  const seen = new Map<string, J[]>();
  const walk = (v: J, where: string) => {
    if (Array.isArray(v)) {
      v.forEach((x, i) => {
        walk(x, `${where}[${i}]`);
      });
      return;
    }
    if (v === null || typeof v !== "object") return;
    if ("OTIO_SCHEMA" in v) {
      const fields = OTIO_FIELDS[v.OTIO_SCHEMA];
      expect(fields, `${where}: schema ${v.OTIO_SCHEMA}`).toBeDefined();
      for (const f of fields) expect(v, `${where} (${v.OTIO_SCHEMA}) lacks ${f}`).toHaveProperty(f);
      seen.set(v.OTIO_SCHEMA, [...(seen.get(v.OTIO_SCHEMA) ?? []), v]);
      if (v.OTIO_SCHEMA === "Track.1") expect(["Video", "Audio"]).toContain(v.kind);
      if (v.OTIO_SCHEMA === "Clip.2") expect(v.media_references).toHaveProperty(v.active_media_reference_key);
      if (v.OTIO_SCHEMA === "ExternalReference.1") expect(v.target_url).toMatch(/^file:\/\//);
    }
    for (const [k, x] of Object.entries(v)) walk(x, `${where}.${k}`);
  };
  walk(doc, "$");
  expect(doc.OTIO_SCHEMA).toBe("Timeline.1");
  expect(doc.tracks.OTIO_SCHEMA).toBe("Stack.1");
  return seen;
}

/** A track's items as [kind, name, record in, frames, source in]. */
function otioItems(track: J): [string, string, number, number, number][] {
  let at = 0;
  return track.children.map((c: J) => {
    const r = c.source_range;
    const row: [string, string, number, number, number] = [
      c.OTIO_SCHEMA,
      c.name,
      at,
      r.duration.value,
      r.start_time.value,
    ];
    at += r.duration.value;
    return row;
  });
}

/** FCPXML time `N/Ds` or `Ns` in frames at `fps`. */
function fcpFrames(text: string, fps: number): number {
  const m = /^(\d+)(?:\/(\d+))?s$/.exec(text);
  expect(m, `time "${text}"`).not.toBeNull();
  const seconds = Number(m![1]) / Number(m![2] ?? 1);
  const frames = seconds * fps;
  expect(Math.abs(frames - Math.round(frames)), `time "${text}" is on the frame grid`).toBeLessThan(1e-6);
  return Math.round(frames);
}

/** What FCPXML 1.10's DTD asks of the elements this export writes. */
function checkFcpxml(text: string, fps: number): XmlElement {
  const root = parseXml(text);
  expect(root.name).toBe("fcpxml");
  expect(root.attrs.version).toBe("1.10");
  expect(root.children.map((c) => c.name)).toEqual(["resources", "library"]);
  const ids = new Map<string, XmlElement>();
  for (const r of root.children[0].children) {
    expect(["asset", "effect", "format", "media", "locator"]).toContain(r.name);
    expect(r.attrs.id, `${r.name} has an id`).toBeTruthy();
    expect(ids.has(r.attrs.id), `id ${r.attrs.id} is unique`).toBe(false);
    ids.set(r.attrs.id, r);
  }
  for (const f of findAll(root, "format")) fcpFrames(f.attrs.frameDuration, fps);
  for (const a of findAll(root, "asset")) {
    const reps = a.children.filter((c) => c.name === "media-rep");
    expect(reps.length).toBeGreaterThanOrEqual(1);
    for (const r of reps) expect(r.attrs.src).toMatch(/^file:\/\//);
    if (a.attrs.format) expect(ids.get(a.attrs.format)?.name).toBe("format");
  }
  const seq = findAll(root, "sequence");
  expect(seq).toHaveLength(1);
  expect(ids.get(seq[0].attrs.format)?.name).toBe("format");
  expect(seq[0].children.map((c) => c.name)).toEqual(["spine"]);
  // Inside a clip: note?, intrinsic params (adjust-volume), connected clips, markers; in that order.
  const rank: Record<string, number> = { note: 0, "adjust-volume": 1, "asset-clip": 2, marker: 3 };
  for (const c of findAll(root, "asset-clip")) {
    expect(ids.get(c.attrs.ref)?.name, `asset-clip ref ${c.attrs.ref}`).toBe("asset");
    expect(c.attrs.duration).toBeTruthy();
    for (const k of ["offset", "start", "duration"]) if (c.attrs[k]) fcpFrames(c.attrs[k], fps);
    const order = c.children.map((x) => rank[x.name]);
    expect(
      order.every((r) => r !== undefined),
      `children of ${c.attrs.name}`,
    ).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  }
  for (const m of findAll(root, "marker")) {
    expect(m.attrs.start).toBeTruthy();
    expect(m.attrs.value).toBeTruthy();
  }
  return root;
}

interface EdlEvent {
  num: string;
  channel: string;
  src: [number, number];
  rec: [number, number];
  comments: string[];
}

/** CMX3600 events: the event line's shape, its four timecodes in frames, and the comment lines under it. */
function readEdl(text: string, fps: number): { title: string; events: EdlEvent[] } {
  const lines = text.split("\r\n");
  expect(lines[0]).toMatch(/^TITLE: \S/);
  expect(lines[1]).toBe("FCM: NON-DROP FRAME");
  const tc = (s: string) => {
    const [h, m, sec, f] = s.split(":").map(Number);
    expect(f).toBeLessThan(Math.round(fps));
    return ((h * 60 + m) * 60 + sec) * Math.round(fps) + f;
  };
  const events: EdlEvent[] = [];
  for (const line of lines.slice(2)) {
    const m = /^(\d{3,}) {2}(\S{1,8}) +(V|A|A2|AA|B) +C +(\S+) (\S+) (\S+) (\S+)$/.exec(line);
    if (m) {
      events.push({
        num: m[1],
        channel: m[3],
        src: [tc(m[4]), tc(m[5])],
        rec: [tc(m[6]), tc(m[7])],
        comments: [],
      });
    } else if (line.startsWith("* ")) events.at(-1)?.comments.push(line);
    else expect(line, "a line that is neither an event nor a comment").toBe("");
  }
  return { title: lines[0].slice(7), events };
}

// ------------------------------------------------------------------------------------------- pure placement

const rec = (shot: string, take: number, files: string[] = ["mp4"]): TakeRecord => {
  const stem = `${shot}_t${String(take).padStart(2, "0")}`;
  return {
    take,
    stem,
    sidecar: { status: "ok" },
    files: [`${stem}.json`, ...files.map((f) => (f === "mp4" ? `${stem}.mp4` : `${stem}${f}`))],
  };
};

const info = (frames: number, audio = true, size = [448, 256]): ClipInfo => ({
  duration: frames / 24,
  video: {
    codec: "h264",
    width: size[0],
    height: size[1],
    fps: 24,
    frames,
    pixFmt: "yuv420p",
    timescale: 12288,
    sar: "1:1",
    duration: frames / 24,
  },
  audio: audio ? { codec: "aac", sampleRate: 48000, channels: 2 } : null,
});

const EP = "/shows/s/ep01";

function planned(
  shots: CutShot[],
  probes: Record<string, ClipInfo | string>,
  track: EpisodeTrack | null,
): Timeline {
  const choices = chooseClips(EP, "proxy", shots);
  const map = new Map<string, ClipInfo | string>(
    filesToProbe(choices).map((f) => [f, probes[f] ?? info(24)]),
  );
  const plan = planAssembly(choices, map, { fps: 24, width: 448, height: 256 });
  const seconds = new Map<string, number | null>();
  const audio = new Map<string, boolean>();
  const size = new Map<string, { width: number; height: number }>();
  for (const [f, i] of map) {
    if (typeof i === "string") continue;
    seconds.set(f, i.duration);
    audio.set(f, i.audio !== null);
    if (i.video) size.set(f, { width: i.video.width, height: i.video.height });
  }
  return placeTimeline({
    name: "e01",
    pass: "proxy",
    choices,
    plan,
    entries: new Map<string, CutEntry>(shots.map((s) => [s.entry.shot, s.entry])),
    soundSeconds: seconds,
    pictureAudio: audio,
    pictureSize: size,
    track,
  });
}

const mp4 = (shot: string, take = 1) =>
  `${EP}/renders_proxy/${shot}/${shot}_t${String(take).padStart(2, "0")}.mp4`;

describe("placing the cut on a timeline", () => {
  const shots: CutShot[] = [
    {
      entry: { shot: "a", trim_in: 4, trim_out: 2, note: "too long", flag: true },
      orphan: false,
      takes: [rec("a", 1)],
    },
    { entry: { shot: "b", out: true }, orphan: false, takes: [rec("b", 1)] },
    { entry: { shot: "c" }, orphan: false, takes: [] },
    {
      entry: {
        shot: "d",
        audio: { source: "take", shot: "a", take: 1, pass: "proxy", offset: 0.5, gain: 0.5 },
      },
      orphan: false,
      takes: [rec("d", 2)],
      audioTakes: [rec("a", 1)],
    },
    { entry: { shot: "e", audio: { source: "none" } }, orphan: false, takes: [rec("e", 1)] },
    { entry: { shot: "f" }, orphan: true, takes: [rec("f", 1)] },
    {
      entry: { shot: "g", audio: { source: "take", shot: "a", take: 1, start: 0.75 } },
      orphan: false,
      takes: [rec("g", 1)],
      audioTakes: [rec("a", 1)],
    },
  ];
  const probes = { [mp4("d", 2)]: info(36), [mp4("e")]: info(12, false) };

  it("lays clips end to end with trims as source in/out, leaves out out shots and orphans, notes the missing", () => {
    const t = planned(shots, probes, null);
    expect(t.video.map((v) => [v.name, v.sourceIn, v.frames, v.recordIn, v.fileFrames])).toEqual([
      ["a t01", 4, 18, 0, 24],
      ["d t02", 0, 36, 18, 36],
      ["e t01", 0, 12, 54, 12],
      ["g t01", 0, 24, 66, 24],
    ]);
    expect(t.frames).toBe(90);
    expect(t.video[0]).toMatchObject({ note: "too long", flag: true });
    expect(t.notes).toEqual([{ at: 18, text: "c is left out: not rendered yet" }]);
  });

  it("puts each clip's sound where the assembler plays it: own, another take's from an offset, none, a start", () => {
    const t = planned(shots, probes, null);
    expect(
      t.sounds.map((s) => [s.shot, path.basename(s.file), s.sourceIn, s.recordIn, s.frames, s.gain]),
    ).toEqual([
      ["a", "a_t01.mp4", 4, 0, 18, 1],
      // Half a second later than the clip starts, a's whole second (24 frames) runs under d's 36.
      ["d", "a_t01.mp4", 0, 30, 24, 0.5],
      // e asks for none; g plays a from 0.75 s: the 6 frames a has left.
      ["g", "a_t01.mp4", 18, 66, 6, 1],
    ]);
    expect(fitPiece(-0.5, 10, 24, 0.25, 24)).toEqual({ sourceIn: 0, frames: 6, recordIn: 22, fileFrames: 6 });
    expect(fitPiece(2, 0, 24, 1, 24)).toBeNull();
  });

  it("lays the episode recording by each shot's window, else from the start; an unreadable one is a note", () => {
    const windows = new Map([
      ["a", { in: 10, out: 11 }],
      ["d", { in: 20, out: 21 }],
    ]);
    const withWindows = planned(shots, probes, { file: "/t.wav", path: "audio/t.wav", seconds: 60, windows });
    expect(withWindows.track.map((s) => [s.shot, s.sourceIn, s.recordIn, s.frames])).toEqual([
      // a's window starts at 10 s (frame 240); its 4 trimmed frames come off the window too.
      ["a", 244, 0, 18],
      // d plays 36 frames but its window is one second long.
      ["d", 480, 18, 24],
    ]);
    const whole = planned(shots, probes, {
      file: "/t.wav",
      path: "audio/t.wav",
      seconds: 2,
      windows: new Map(),
    });
    expect(whole.track.map((s) => [s.sourceIn, s.recordIn, s.frames])).toEqual([[0, 0, 48]]);
    const gone = planned(shots, probes, {
      file: "/t.wav",
      path: "audio/t.wav",
      seconds: "the file is missing",
      windows,
    });
    expect(gone.track).toEqual([]);
    expect(gone.notes[0]).toEqual({
      at: 0,
      text: "the episode track audio/t.wav is not on the timeline: the file is missing",
    });
  });

  it("counts timecode and rates as editors do", () => {
    expect(timecode(0, 24)).toBe("00:00:00:00");
    expect(timecode(24 * 3600 + 24 * 61 + 5, 24)).toBe("01:01:01:05");
    expect(timecode(30, 30000 / 1001)).toBe("00:00:01:00");
    expect(rateFraction(24)).toEqual([24, 1]);
    expect(rateFraction(30000 / 1001)).toEqual([30000, 1001]);
    expect(rateFraction(12.5)).toEqual([25, 2]);
    expect(downloadName("e01", "proxy", "fcpxml")).toBe("e01_proxy.fcpxml");
    expect(downloadName('a "b"/c', "final", "edl")).toBe("a_b_c_final.edl");
  });

  it("writes each format with what its readers require", () => {
    const windows = new Map([["a", { in: 10, out: 11 }]]);
    const t = planned(shots, probes, { file: "/t & u.wav", path: "t & u.wav", seconds: 60, windows });
    const otio = JSON.parse(otioText(t));
    const seen = checkOtio(otio);
    expect(seen.get("Clip.2")?.length).toBe(4 + 3 + 1);
    const [v1, a1, a2] = otio.tracks.children;
    expect([v1.kind, a1.kind, a2.kind]).toEqual(["Video", "Audio", "Audio"]);
    expect(otioItems(v1)).toEqual([
      ["Clip.2", "a t01", 0, 18, 4],
      ["Clip.2", "d t02", 18, 36, 0],
      ["Clip.2", "e t01", 54, 12, 0],
      ["Clip.2", "g t01", 66, 24, 0],
    ]);
    expect(otioItems(a1).map((r) => r.slice(0, 4))).toEqual([
      ["Clip.2", "a sound", 0, 18],
      ["Gap.1", "", 18, 12],
      ["Clip.2", "d sound", 30, 24],
      ["Gap.1", "", 54, 12],
      ["Clip.2", "g sound", 66, 6],
    ]);
    expect(v1.markers[0]).toMatchObject({ name: "c is left out: not rendered yet", color: "ORANGE" });
    expect(v1.children[0].markers.map((m: J) => m.name)).toEqual(["too long", "flagged"]);
    expect(a1.children[2].metadata.studio).toMatchObject({ gain: 0.5, sound: "sound of a t01 (proxy)" });
    expect(a2.children[0].media_references.DEFAULT_MEDIA.target_url).toBe("file:///t%20&%20u.wav");

    const fcp = checkFcpxml(fcpxmlText(t), 24);
    const spine = findAll(fcp, "spine")[0].children;
    expect(
      spine.map((c) => [c.attrs.name, c.attrs.offset, c.attrs.start, c.attrs.duration, c.attrs.srcEnable]),
    ).toEqual([
      ["a t01", "0s", "1/6s", "3/4s", "video"],
      ["d t02", "3/4s", "0s", "3/2s", "video"],
      ["e t01", "9/4s", "0s", "1/2s", "video"],
      ["g t01", "11/4s", "0s", "1s", "video"],
    ]);
    // d's sound: lane -1, half a second into d (its parent time), a's whole second, at half the gain (-6.02 dB).
    const dSound = spine[1].children.find((c) => c.name === "asset-clip");
    expect(dSound?.attrs).toMatchObject({ lane: "-1", offset: "1/2s", duration: "1s", srcEnable: "audio" });
    expect(dSound?.children[0].attrs.amount).toBe("-6.02dB");
    expect(spine[0].children.map((c) => c.name)).toEqual([
      "note",
      "asset-clip",
      "asset-clip",
      "marker",
      "marker",
    ]);
    expect(spine[1].children.find((c) => c.name === "marker")?.attrs.value).toBe(
      "c is left out: not rendered yet",
    );
    expect(findAll(fcp, "media-rep").map((m) => m.attrs.src)).toContain("file:///t%20&%20u.wav");

    const edl = readEdl(edlText(t), 24);
    expect(edl.title).toBe("e01 proxy");
    const v = edl.events.filter((e) => e.channel === "V");
    expect(v.map((e) => [...e.src, ...e.rec])).toEqual([
      [4, 22, 0, 18],
      [0, 36, 18, 54],
      [0, 12, 54, 66],
      [0, 24, 66, 90],
    ]);
    expect(edl.events.filter((e) => e.channel === "A2").map((e) => [...e.src, ...e.rec])).toEqual([
      [244, 262, 0, 18],
    ]);
    expect(v[0].comments).toContain("* FROM CLIP NAME: a_t01.mp4");
    expect(v[0].comments).toContain("* COMMENT: NOTE too long");
    expect(edlText(t)).toContain("* COMMENT: c is left out: not rendered yet\r\n");

    const mlt = parseXml(mltText(t));
    expect(mlt.name).toBe("mlt");
    const lists = Object.fromEntries(findAll(mlt, "playlist").map((p) => [p.attrs.id, p.children]));
    expect(lists.V1.map((e) => [e.name, e.attrs.in ?? e.attrs.length, e.attrs.out])).toEqual([
      ["entry", "4", "21"],
      ["entry", "0", "35"],
      ["entry", "0", "11"],
      ["entry", "0", "23"],
    ]);
    expect(lists.A1.map((e) => [e.name, e.attrs.in ?? e.attrs.length, e.attrs.out])).toEqual([
      ["entry", "4", "21"],
      ["blank", "12", undefined],
      ["entry", "0", "23"],
      ["blank", "12", undefined],
      ["entry", "18", "23"],
    ]);
    const tractor = findAll(mlt, "tractor")[0];
    expect(tractor.attrs.out).toBe("89");
    expect(tractor.children.filter((c) => c.name === "transition")).toHaveLength(2);
  });
});

// ------------------------------------------------------------------------------------------- real takes

const media = useMediaStudio();
let s: Studio;
let ffmpeg: string;
let ffprobe: string;
beforeAll(() => {
  ({ s, ffmpeg } = media);
  ffprobe = ffmpeg.replace(/ffmpeg$/, "ffprobe");
});

/** GET /studio/timeline as the runtime answers it (status, headers, the text) for `query`. */
async function getTimeline(query: Record<string, unknown>): Promise<Response> {
  const url = new URL("http://127.0.0.1/studio/timeline");
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
  const call = { request: new Request(url), remoteAddress: "127.0.0.1", params: {}, label: "GET /timeline" };
  return answerRequest(routeFor("GET", "/timeline").fn, s.env.services, call);
}

const SCRIPT = [
  "= e01  T",
  "# sq01 kitchen",
  ...["sh010", "sh020", "sh030", "sh040", "sh050"].flatMap((id) => [`## ${id}`, "dur: 1", "Ada waits."]),
].join("\n");

/**
 * A take whose every frame has its own brightness (`base` + 5 per frame, flat grey, lossless), so a frame's mean
 * says which clip and which frame of it is showing; its sound a tone.
 */
const take = (ep: string, shot: string, n: number, base: number, frames = 24, tone = 440) =>
  realTake(s, ffmpeg, ep, "proxy", shot, n, { frames, tone, ramp: base });

/** The mean brightness of every frame of a video. */
async function frameMeans(file: string): Promise<number[]> {
  const { stdout } = await execa(
    ffmpeg,
    ["-v", "error", "-i", file, "-vf", "scale=8:8,format=gray", "-f", "rawvideo", "-"],
    {
      encoding: "buffer",
    },
  );
  const buf = Buffer.from(stdout as Uint8Array);
  const out: number[] = [];
  for (let at = 0; at + 64 <= buf.length; at += 64) {
    let sum = 0;
    for (let i = at; i < at + 64; i++) sum += buf[i];
    out.push(sum / 64);
  }
  return out;
}

const countFrames = async (file: string) => (await videoOf(ffmpeg, file)).frames;

describe("exports of a real cut", () => {
  let ep: string;
  /** The route as the runtime answers it: status, headers and the text (an error's JSON as `body`). */
  const get = async (format: string, over: Record<string, unknown> = {}, episode = ep) => {
    const res = await getTimeline({ ep: episode, pass: "proxy", format, ...over });
    const text = await res.text();
    return {
      status: res.status,
      headers: Object.fromEntries(res.headers),
      text,
      // biome-ignore lint/suspicious/noExplicitAny: refusals are read field by field
      body: (res.ok ? null : JSON.parse(text)) as any,
    };
  };

  beforeAll(async () => {
    ep = await s.episode(SCRIPT, {
      series: { ...seriesS(), audio: { mode: "generate", track: "audio/track.wav" } },
    });
    await take(ep, "sh010", 1, 20);
    await take(ep, "sh020", 1, 60, 18, 550);
    await take(ep, "sh030", 2, 100);
    await take(ep, "sh050", 1, 150, 12, 660);
    await s.take(ep, "proxy", "sh040", 1, { status: "queued" });
    await mkdir(path.join(ep, "audio"));
    await makeTone(ffmpeg, path.join(ep, "audio", "track.wav"), 1.5);
    await writeFile(
      path.join(ep, "cut.json"),
      JSON.stringify({
        episode: "e01",
        final: [],
        proxy: [
          { shot: "sh030", trim_in: 5, trim_out: 3, note: "hold longer" },
          { shot: "sh010", audio: { source: "none" } },
          { shot: "sh020", out: true },
          { shot: "sh040" },
          { shot: "sh050", trim_in: 2, audio: { source: "take", shot: "sh020", take: 1, offset: 0.25 } },
        ],
      }),
    );
  }, 60_000);

  it("MLT rendered by melt shows the assembled cut's frames, clip for clip", async () => {
    const answer = await assembleEpisode(s.env.services, ep, "proxy", { partial: true });
    expect(answer.ok, answer.error).toBe(true);
    expect(answer.report.rows.map((r) => [r.shot, r.status, r.frames])).toEqual([
      ["sh030", "used", 16],
      ["sh010", "used", 24],
      ["sh020", "out", null],
      ["sh040", "missing", null],
      ["sh050", "used", 10],
    ]);
    const res = await get("mlt");
    expect(res.status).toBe(200);
    const mltFile = path.join(s.env.dir, "cut.mlt");
    await writeFile(mltFile, res.text);
    const out = path.join(s.env.dir, "melt.mp4");
    await execa(
      "melt",
      ["-silent", mltFile, "-consumer", `avformat:${out}`, "vcodec=libx264", "crf=1", "acodec=aac"],
      {
        timeout: 120_000,
      },
    );
    const assembled = path.join(ep, answer.output!);
    expect(await countFrames(out)).toBe(50);
    expect(await countFrames(assembled)).toBe(50);
    const [a, m] = await Promise.all([frameMeans(assembled), frameMeans(out)]);
    expect(m).toHaveLength(a.length);
    // One step between neighbouring frames is about 3.5 grey levels: a frame early or late would be seen.
    // melt's colour conversion shifts every frame by about one grey level: past that, each frame must match its
    // twin far closer than a neighbour (one frame is about 6 grey levels), so a frame early or late would be seen.
    const diffs = a.map((x, i) => m[i] - x);
    const shift = [...diffs].sort((x, y) => x - y)[Math.floor(diffs.length / 2)];
    expect(Math.abs(shift)).toBeLessThan(2);
    expect(Math.max(...diffs.map((d) => Math.abs(d - shift)))).toBeLessThan(2.5);
    // Per-clip boundaries: sh030 from its 6th frame for 16 frames, sh010 for 24, sh050 from its 3rd for 10.
    const jumps = a.flatMap((x, i) => (i > 0 && Math.abs(x - a[i - 1]) > 10 ? [i] : []));
    expect(jumps).toEqual([16, 40]);
    const mJumps = m.flatMap((x, i) => (i > 0 && Math.abs(x - m[i - 1]) > 10 ? [i] : []));
    expect(mJumps).toEqual(jumps);
    // melt's sound lasts the cut too: sh030's own tone, silence under sh010, sh020's tone from 0.25 s under sh050.
    const { stdout } = await execa(ffprobe, [
      "-v",
      "error",
      "-select_streams",
      "a:0",
      "-show_entries",
      "stream=duration",
      "-of",
      "csv=p=0",
      out,
    ]);
    expect(Math.abs(Number(stdout) - 50 / 24)).toBeLessThan(0.1);
  }, 180_000);

  it("EDL timecodes land on the cut's frames; OTIO and FCPXML carry the same cut and the episode track", async () => {
    const edl = await get("edl");
    expect(edl.status).toBe(200);
    const { events } = readEdl(edl.text, 24);
    const v = events.filter((e) => e.channel === "V");
    expect(v.map((e) => [...e.src, ...e.rec])).toEqual([
      [5, 21, 0, 16],
      [0, 24, 16, 40],
      [2, 12, 40, 50],
    ]);
    expect(v.map((e) => e.comments.find((c) => c.startsWith("* FROM CLIP NAME:")))).toEqual([
      "* FROM CLIP NAME: sh030_t02.mp4",
      "* FROM CLIP NAME: sh010_t01.mp4",
      "* FROM CLIP NAME: sh050_t01.mp4",
    ]);
    // Sounds: sh030's own, none under sh010, sh020's 0.25 s into sh050 less its 2 trimmed frames (4 frames late).
    expect(events.filter((e) => e.channel === "A").map((e) => [...e.src, ...e.rec])).toEqual([
      [5, 21, 0, 16],
      [0, 6, 44, 50],
    ]);
    // No shot has a window into the recording: it plays from the start, 1.5 s of it.
    expect(events.filter((e) => e.channel === "A2").map((e) => [...e.src, ...e.rec])).toEqual([
      [0, 36, 0, 36],
    ]);
    expect(edl.text).toContain("* COMMENT: sh040 is left out: no finished take yet: t01 is still rendering");

    const otio = await get("otio");
    const doc = JSON.parse(otio.text);
    checkOtio(doc);
    expect(doc.name).toBe("e01 proxy");
    const v1 = doc.tracks.children[0];
    expect(otioItems(v1).map((r) => [r[1], r[2], r[3], r[4]])).toEqual([
      ["sh030 t02", 0, 16, 5],
      ["sh010 t01", 16, 24, 0],
      ["sh050 t01", 40, 10, 2],
    ]);
    expect(v1.children[0].media_references.DEFAULT_MEDIA.target_url).toBe(
      `file://${path.join(ep, "renders_proxy", "sh030", "sh030_t02.mp4")}`,
    );
    expect(doc.tracks.children[2].name).toBe("A2 episode track");

    const fcp = checkFcpxml((await get("fcpxml")).text, 24);
    const spine = findAll(fcp, "spine")[0].children;
    expect(
      spine.map((c) => [c.attrs.name, fcpFrames(c.attrs.offset, 24), fcpFrames(c.attrs.duration, 24)]),
    ).toEqual([
      ["sh030 t02", 0, 16],
      ["sh010 t01", 16, 24],
      ["sh050 t01", 40, 10],
    ]);
    expect(findAll(fcp, "sequence")[0].attrs.duration).toBe(`${50 / 2}/12s`);
  });

  it("answers a named download and writes nothing", async () => {
    const before = await readFile(path.join(ep, "cut.json"), "utf8");
    for (const [format, type] of [
      ["otio", "application/json"],
      ["fcpxml", "application/xml"],
      ["edl", "text/plain"],
      ["mlt", "application/xml"],
    ]) {
      const res = await get(format);
      expect(res.status).toBe(200);
      expect(res.headers["content-type"]).toContain(type);
      expect(res.headers["content-disposition"]).toBe(`attachment; filename="e01_proxy.${format}"`);
    }
    expect(await readFile(path.join(ep, "cut.json"), "utf8")).toBe(before);
  });

  it("refuses what it cannot export: an unknown format, an unbuilt pass, a cut where nothing plays", async () => {
    const bad = await get("xml");
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/format/);
    const unbuilt = await get("edl", { pass: "final" }, await s.episode(SCRIPT, { build: false }));
    expect(unbuilt.status).toBe(409);
    expect(unbuilt.body.error).toBe("the final pass has not been built yet: build the episode first");
    const empty = await s.episode(SCRIPT);
    const none = await get("otio", {}, empty);
    expect(none.status).toBe(409);
    expect(none.body.error).toMatch(
      /^nothing to export: no shot of the proxy cut has a usable take: sh010 \(not rendered yet\)/,
    );
  });
});

describe("an upscaled timeline", () => {
  it("sources each clip from its fresh upscale, the rest from the take with a note, at the upscales' size", async () => {
    const ep = await s.episode(SHORT);
    for (const shot of ["sh010", "sh020", "sh030"]) await realTake(s, ffmpeg, ep, "final", shot, 1);
    await realUpscale(ffmpeg, ep, "final", "sh010", 1);
    await realUpscale(ffmpeg, ep, "final", "sh020", 1);
    const res = await getTimeline({ ep, pass: "final", format: "otio", upscaled: "1" });
    expect(res.status).toBe(200);
    const doc = JSON.parse(await res.text());
    checkOtio(doc);
    expect(doc.metadata.studio).toMatchObject({ width: 896, height: 512 });
    const v1 = doc.tracks.children[0];
    expect(
      v1.children.map((c: J) =>
        path.basename(decodeURIComponent(c.media_references.DEFAULT_MEDIA.target_url)),
      ),
    ).toEqual(["sh010_t01.up.mp4", "sh020_t01.up.mp4", "sh030_t01.mp4"]);
    expect(v1.markers.map((m: J) => m.name)).toEqual(["sh030 plays its take (not upscaled yet)"]);
  }, 120_000);
});
