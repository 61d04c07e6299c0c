// The timeline as a CMX3600 edit decision list: one cut event per picture on V, per clip sound on A and per piece of
// the episode's recording on A2, all from reel AX (the media is named by `* FROM CLIP NAME:` and found by
// `* SOURCE FILE:`, the comments editors relink by). Non-drop-frame timecode from 00:00:00:00 at the pass's rate
// (a fractional rate counts at its whole number, as NDF does). Notes and flags are `* COMMENT:` lines.
import path from "node:path";
import { type Placed, type Timeline, timecode } from "./model.ts";

interface Event {
  channel: "V" | "A" | "A2";
  piece: Placed;
  comments: string[];
}

/** The `.edl` text (CRLF line ends, as the format's readers expect). */
export function edlText(t: Timeline): string {
  const events: Event[] = [];
  for (const v of t.video) {
    const comments = [`* COMMENT: ${v.name}`];
    if (v.note) comments.push(`* COMMENT: NOTE ${oneLine(v.note)}`);
    if (v.flag) comments.push("* COMMENT: FLAGGED");
    events.push({ channel: "V", piece: v, comments });
  }
  for (const s of t.sounds) events.push({ channel: "A", piece: s, comments: [`* COMMENT: ${s.why}`] });
  for (const s of t.track) events.push({ channel: "A2", piece: s, comments: [`* COMMENT: ${s.why}`] });
  // Record order, pictures before sounds at the same frame.
  const order = { V: 0, A: 1, A2: 2 };
  events.sort((a, b) => a.piece.recordIn - b.piece.recordIn || order[a.channel] - order[b.channel]);
  const lines = [`TITLE: ${oneLine(`${t.name} ${t.pass}`).slice(0, 70)}`, "FCM: NON-DROP FRAME", ""];
  const tc = (f: number) => timecode(f, t.fps);
  let notes = 0;
  events.forEach((e, i) => {
    const p = e.piece;
    // A note about the cut (a shot left out) goes before the first event at or after its frame.
    while (notes < t.notes.length && t.notes[notes].at <= p.recordIn)
      lines.push(`* COMMENT: ${oneLine(t.notes[notes++].text)}`);
    const num = String(i + 1).padStart(3, "0");
    lines.push(
      `${num}  AX       ${e.channel.padEnd(5)} C        ${tc(p.sourceIn)} ${tc(p.sourceIn + p.frames)} ${tc(p.recordIn)} ${tc(p.recordIn + p.frames)}`,
      `* FROM CLIP NAME: ${path.basename(p.file)}`,
      ...e.comments.map(oneLine),
      `* SOURCE FILE: ${p.file}`,
      "",
    );
  });
  while (notes < t.notes.length) lines.push(`* COMMENT: ${oneLine(t.notes[notes++].text)}`);
  return `${lines.join("\r\n")}\r\n`;
}

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();
