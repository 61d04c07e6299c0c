// The timeline as Final Cut Pro XML 1.10 (`.fcpxml`, also read by Resolve and Premiere through their importers):
// formats and assets (each file once, `media-rep` to its file URL), then library/event/project/sequence with one
// spine of picture clips (`asset-clip srcEnable="video"`), each holding its sound as a connected clip on lane -1
// and the episode recording on lane -2 (`srcEnable="audio"`), then its markers. Times are rational seconds on the
// pass's frame grid (`N/Ds`). Element order inside a clip follows the DTD: note, volume, connected clips, markers.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { type Placed, rateFraction, type SoundClip, type Timeline, type VideoClip } from "./model.ts";

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/** Escaped for an attribute value or element text. */
export function xmlEscape(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "");
}

const attrs = (a: Record<string, string | number | undefined>) =>
  Object.entries(a)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${xmlEscape(String(v))}"`)
    .join("");

/** A gain as FCP writes volume: decibels, silence at -96 dB. */
const decibels = (gain: number) => (gain <= 0 ? -96 : Math.round(2000 * Math.log10(gain)) / 100);

/** The `.fcpxml` text. */
export function fcpxmlText(t: Timeline): string {
  const [num, den] = rateFraction(t.fps);
  const ft = (frames: number) => {
    if (frames === 0) return "0s";
    const n = frames * den;
    const g = gcd(n, num);
    return num / g === 1 ? `${n / g}s` : `${n / g}/${num / g}s`;
  };
  const frameDuration = ft(1);

  const formats = new Map<string, string>();
  const formatLines: string[] = [];
  const formatFor = (width: number, height: number) => {
    const key = `${width}x${height}`;
    let id = formats.get(key);
    if (!id) {
      id = `r${formats.size + 1}`;
      formats.set(key, id);
      formatLines.push(
        `    <format${attrs({ id, frameDuration, width, height, colorSpace: "1-1-1 (Rec. 709)" })}/>`,
      );
    }
    return id;
  };
  const seqFormat = formatFor(t.width, t.height);
  for (const v of t.video) formatFor(v.width, v.height);

  const assets = new Map<string, string>();
  const assetLines: string[] = [];
  const assetFor = (p: Placed, video: VideoClip | null) => {
    let id = assets.get(p.file);
    if (id) return id;
    id = `a${assets.size + 1}`;
    assets.set(p.file, id);
    const hasAudio = video ? video.hasAudio : true;
    assetLines.push(
      `    <asset${attrs({
        id,
        name: path.basename(p.file),
        start: "0s",
        duration: p.fileFrames === null ? undefined : ft(p.fileFrames),
        hasVideo: video ? "1" : "0",
        format: video ? formatFor(video.width, video.height) : undefined,
        hasAudio: hasAudio ? "1" : "0",
        audioSources: hasAudio ? "1" : undefined,
        audioChannels: hasAudio ? "2" : undefined,
        audioRate: hasAudio ? "48000" : undefined,
      })}>`,
      `      <media-rep${attrs({ kind: "original-media", src: pathToFileURL(p.file).href })}/>`,
      "    </asset>",
    );
    return id;
  };
  for (const v of t.video) assetFor(v, v);
  for (const s of [...t.sounds, ...t.track]) {
    const asPicture = t.video.find((v) => v.file === s.file);
    assetFor(s, asPicture ?? null);
  }

  // Which clip carries each sound and note: the one playing at its record frame (else the nearest one).
  const carrier = (at: number): VideoClip => {
    const on = t.video.find((v) => at >= v.recordIn && at < v.recordIn + v.frames);
    return on ?? t.video.find((v) => v.recordIn >= at) ?? t.video[t.video.length - 1];
  };
  const connected = new Map<VideoClip, { s: SoundClip; lane: number }[]>();
  for (const [list, lane] of [
    [t.sounds, -1],
    [t.track, -2],
  ] as const) {
    for (const s of list) {
      const v = carrier(s.recordIn);
      connected.set(v, [...(connected.get(v) ?? []), { s, lane }]);
    }
  }
  const noteMarkers = new Map<VideoClip, string[]>();
  for (const n of t.notes) {
    const v = carrier(n.at);
    const at = Math.min(Math.max(n.at, v.recordIn), v.recordIn + v.frames - 1);
    const start = ft(v.sourceIn + at - v.recordIn);
    noteMarkers.set(v, [
      ...(noteMarkers.get(v) ?? []),
      `          <marker${attrs({ start, duration: frameDuration, value: n.text })}/>`,
    ]);
  }

  const spine: string[] = [];
  for (const v of t.video) {
    spine.push(
      `        <asset-clip${attrs({
        ref: assetFor(v, v),
        offset: ft(v.recordIn),
        name: v.name,
        start: ft(v.sourceIn),
        duration: ft(v.frames),
        srcEnable: "video",
        format: formatFor(v.width, v.height),
        tcFormat: "NDF",
      })}>`,
    );
    if (v.note) spine.push(`          <note>${xmlEscape(v.note)}</note>`);
    for (const { s, lane } of connected.get(v) ?? []) {
      // A connected clip's offset is in its parent's time: the parent's start plus the distance in the timeline.
      const a = {
        ref: assetFor(s, null),
        lane,
        offset: ft(v.sourceIn + s.recordIn - v.recordIn),
        name: s.name,
        start: ft(s.sourceIn),
        duration: ft(s.frames),
        srcEnable: "audio",
        audioRole: "dialogue",
      };
      if (s.gain === 1) spine.push(`          <asset-clip${attrs(a)}/>`);
      else
        spine.push(
          `          <asset-clip${attrs(a)}>`,
          `            <adjust-volume${attrs({ amount: `${decibels(s.gain)}dB` })}/>`,
          "          </asset-clip>",
        );
    }
    if (v.note)
      spine.push(
        `          <marker${attrs({ start: ft(v.sourceIn), duration: frameDuration, value: v.note })}/>`,
      );
    if (v.flag)
      spine.push(
        `          <marker${attrs({ start: ft(v.sourceIn), duration: frameDuration, value: "flagged" })}/>`,
      );
    spine.push(...(noteMarkers.get(v) ?? []));
    spine.push("        </asset-clip>");
  }

  const title = `${t.name} ${t.pass}`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    "<!DOCTYPE fcpxml>",
    '<fcpxml version="1.10">',
    "  <resources>",
    ...formatLines,
    ...assetLines,
    "  </resources>",
    "  <library>",
    `  <event${attrs({ name: t.name })}>`,
    `    <project${attrs({ name: title })}>`,
    `      <sequence${attrs({ format: seqFormat, duration: ft(t.frames), tcStart: "0s", tcFormat: "NDF", audioLayout: "stereo", audioRate: "48k" })}>`,
    "      <spine>",
    ...spine,
    "      </spine>",
    "      </sequence>",
    "    </project>",
    "  </event>",
    "  </library>",
    "</fcpxml>",
    "",
  ].join("\n");
}
