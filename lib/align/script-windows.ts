// Reading and writing shots' `audio: <in>-<out>` key lines in a script's text, touching no other line.
// Node-free and parser-free (the page imports it to write a dragged window): it classifies lines with the
// parser's own patterns, enough to find shot headers and their key lines.
import { DIALOGUE, KEY_LINE, KNOWN_KEYS } from "../script/lines.ts";

export interface AudioWindow {
  audio_in: number;
  audio_out: number;
}

export interface ShotWindow extends AudioWindow {
  shot: string;
}

const AUDIO_VALUE = /^([\d.]+)\s*-\s*([\d.]+)$/;

interface ShotBlock {
  id: string;
  /** 0-based index of the `##` line. */
  header: number;
  /** 0-based index of the last key line of the run right after the header (the header when none). */
  lastLeadingKey: number;
  /** 0-based indexes of the shot's `audio:` key lines. */
  audio: number[];
}

/** The `audio:` value of a window, two decimals: `1.00-3.10`. */
export function formatWindow(w: AudioWindow): string {
  return `${w.audio_in.toFixed(2)}-${w.audio_out.toFixed(2)}`;
}

/** An `audio:` value read as the parser reads it, or null when it is not a window. */
export function parseWindow(value: string): AudioWindow | null {
  const m = AUDIO_VALUE.exec(value.trim());
  if (!m) return null;
  const audio_in = Number(m[1]);
  const audio_out = Number(m[2]);
  if (!Number.isFinite(audio_in) || !Number.isFinite(audio_out) || audio_out <= audio_in) return null;
  return { audio_in, audio_out };
}

/** A raw line without its CR and, on the first line, without a BOM: what classification looks at. */
function clean(raw: string, index: number): string {
  const line = index === 0 && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
  return line.trimEnd();
}

/** The key of a key line (`audio`, `who`, …), or null when the line is not one. */
function keyOf(line: string): string | null {
  if (DIALOGUE.test(line)) return null;
  const m = KEY_LINE.exec(line);
  return m && KNOWN_KEYS.has(m[1]) ? m[1] : null;
}

/** Each shot of the script (first block of an id when it repeats), with where its key lines are. */
function shotBlocks(lines: string[]): Map<string, ShotBlock> {
  const blocks = new Map<string, ShotBlock>();
  let open: ShotBlock | null = null;
  let leading = false;
  lines.forEach((raw, i) => {
    const line = clean(raw, i);
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("//")) return;
    if (line.startsWith("# ") || line.startsWith("= ")) {
      if (line.startsWith("# ")) open = null;
      return;
    }
    if (line.startsWith("## ")) {
      const id = line.slice(3).trim().split(/\s+/)[0];
      open = blocks.has(id) ? null : { id, header: i, lastLeadingKey: i, audio: [] };
      if (open) blocks.set(id, open);
      leading = true;
      return;
    }
    if (open === null) return;
    const key = keyOf(line);
    if (key === null) {
      leading = false;
      return;
    }
    if (leading) open.lastLeadingKey = i;
    if (key === "audio") open.audio.push(i);
  });
  return blocks;
}

/** The line ending a raw line carries, so an inserted line matches its neighbour (`\r` of CRLF text, else ""). */
function carriage(raw: string): string {
  return raw.endsWith("\r") ? "\r" : "";
}

/** A shot's window as its last `audio:` line gives it, or null (no such shot, no line, or not a window). */
export function audioWindowOf(scriptText: string, shot: string): AudioWindow | null {
  const lines = scriptText.split("\n");
  const block = shotBlocks(lines).get(shot);
  if (!block || block.audio.length === 0) return null;
  const line = clean(lines[block.audio[block.audio.length - 1]], block.audio[block.audio.length - 1]);
  const m = KEY_LINE.exec(line);
  return m ? parseWindow(m[2]) : null;
}

/**
 * Write windows into the script: a shot's last `audio:` line is replaced, else `audio: a-b` goes right after the
 * shot's header and the key lines that follow it. Values are written with two decimals; a line already holding
 * the same window (to 0.01 s) is left as it is. `changed` lists the shots whose text changed, `missing` the
 * windows' shots the script does not have. A window that is not one (negative, out <= in at two decimals, not a
 * number) throws a RangeError before anything is written. Every other line, and every line ending, is kept byte for byte.
 */
export function setAudioWindows(
  scriptText: string,
  windows: readonly ShotWindow[],
): { text: string; changed: string[]; missing: string[] } {
  const lines = scriptText.split("\n");
  const blocks = shotBlocks(lines);
  const changed: string[] = [];
  const missing: string[] = [];
  /** Lines to insert after a given index; applied from the bottom so the indexes stay right. */
  const inserts: { after: number; text: string }[] = [];
  // The last window given for a shot wins.
  const wanted = new Map(windows.map((w) => [w.shot, w]));
  for (const w of wanted.values()) {
    const block = blocks.get(w.shot);
    if (!block) {
      missing.push(w.shot);
      continue;
    }
    const value = formatWindow(w);
    if (!(w.audio_in >= 0) || parseWindow(value) === null) {
      throw new RangeError(`shot ${w.shot}: ${value} is not a window (needs 0 <= in < out)`);
    }
    const at = block.audio[block.audio.length - 1];
    if (at !== undefined) {
      const current = KEY_LINE.exec(clean(lines[at], at));
      const old = current ? parseWindow(current[2]) : null;
      if (old && formatWindow(old) === value) continue;
      lines[at] = `audio: ${value}${carriage(lines[at])}`;
    } else {
      const after = block.lastLeadingKey;
      inserts.push({ after, text: `audio: ${value}${carriage(lines[after])}` });
    }
    changed.push(w.shot);
  }
  inserts.sort((a, b) => b.after - a.after);
  for (const { after, text } of inserts) lines.splice(after + 1, 0, text);
  return { text: lines.join("\n"), changed, missing };
}
