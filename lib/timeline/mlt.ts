// The timeline as MLT XML (`.mlt`, the project format of Shotcut and Kdenlive; `melt <file> -consumer
// avformat:out.mp4` renders it): a profile at the pass's size and rate, one producer per piece (pictures with their
// sound stream off, sounds with their picture off, a `volume` filter for a gain), playlists V1, A1 and A2 of entries
// and blanks with in/out frames (inclusive, at the profile's rate), and a tractor stacking them with `mix`
// transitions so every audio track is heard. Notes are XML comments and `meta.studio.*` properties.

import { xmlEscape } from "./fcpxml.ts";
import { type Placed, rateFraction, type SoundClip, type Timeline } from "./model.ts";

const prop = (name: string, value: string | number) =>
  `    <property name="${xmlEscape(name)}">${xmlEscape(String(value))}</property>`;

/** The `.mlt` text. */
export function mltText(t: Timeline): string {
  const [num, den] = rateFraction(t.fps);
  const out: string[] = [
    '<?xml version="1.0" encoding="utf-8"?>',
    `<mlt LC_NUMERIC="C" version="7.0.0" title="${xmlEscape(`${t.name} ${t.pass}`)}" producer="studio_timeline">`,
    `  <profile description="${xmlEscape(`${t.width}x${t.height} ${t.fps} fps`)}" width="${t.width}" height="${t.height}" progressive="1" sample_aspect_num="1" sample_aspect_den="1" display_aspect_num="${t.width}" display_aspect_den="${t.height}" frame_rate_num="${num}" frame_rate_den="${den}" colorspace="709"/>`,
  ];
  for (const n of t.notes) out.push(`  <!-- ${xmlEscape(n.text).replace(/--/g, "- -")} -->`);

  const producer = (id: string, p: Placed, name: string, kind: "video" | "audio", extra: string[]) => {
    const length = Math.max(p.fileFrames ?? 0, p.sourceIn + p.frames);
    out.push(
      `  <producer id="${id}" in="0" out="${length - 1}">`,
      prop("length", length),
      prop("resource", p.file),
      prop("mlt_service", "avformat"),
      // A picture plays without its sound (the sound tracks carry the cut's choice), a sound without a picture.
      prop(kind === "video" ? "audio_index" : "video_index", -1),
      prop("kdenlive:clipname", name),
      prop("shotcut:caption", name),
      ...extra,
      "  </producer>",
    );
  };
  const playlist = (id: string, pieces: { id: string; p: Placed }[]) => {
    out.push(`  <playlist id="${id}">`);
    let at = 0;
    for (const { id: pid, p } of [...pieces].sort((a, b) => a.p.recordIn - b.p.recordIn)) {
      if (p.recordIn > at) out.push(`    <blank length="${p.recordIn - at}"/>`);
      out.push(`    <entry producer="${pid}" in="${p.sourceIn}" out="${p.sourceIn + p.frames - 1}"/>`);
      at = p.recordIn + p.frames;
    }
    out.push("  </playlist>");
  };

  const video = t.video.map((v, i) => {
    const id = `v${i + 1}`;
    const extra = [
      prop("meta.studio.shot", v.shot),
      prop("meta.studio.take", v.take),
      prop("meta.studio.pass", v.pass),
    ];
    if (v.note) extra.push(prop("meta.studio.note", v.note));
    if (v.flag) extra.push(prop("meta.studio.flag", 1));
    producer(id, v, v.name, "video", extra);
    return { id, p: v as Placed };
  });
  const sounds = (list: readonly SoundClip[], prefix: string) =>
    list.map((s, i) => {
      const id = `${prefix}${i + 1}`;
      const extra = [prop("meta.studio.sound", s.why)];
      if (s.gain !== 1)
        extra.push(
          "    <filter>",
          `  ${prop("mlt_service", "volume")}`,
          `  ${prop("gain", s.gain)}`,
          "    </filter>",
        );
      producer(id, s, s.name, "audio", extra);
      return { id, p: s as Placed };
    });
  const a1 = sounds(t.sounds, "s");
  const a2 = sounds(t.track, "e");
  playlist("V1", video);
  playlist("A1", a1);
  if (a2.length) playlist("A2", a2);

  out.push(`  <tractor id="studio_timeline" in="0" out="${t.frames - 1}">`);
  out.push(`    <track producer="V1"/>`, `    <track producer="A1" hide="video"/>`);
  if (a2.length) out.push(`    <track producer="A2" hide="video"/>`);
  for (let b = 1; b <= (a2.length ? 2 : 1); b++)
    out.push(
      "    <transition>",
      `  ${prop("mlt_service", "mix")}`,
      `  ${prop("a_track", 0)}`,
      `  ${prop("b_track", b)}`,
      `  ${prop("always_active", 1)}`,
      `  ${prop("sum", 1)}`,
      "    </transition>",
    );
  out.push("  </tractor>", "</mlt>", "");
  return out.join("\n");
}
