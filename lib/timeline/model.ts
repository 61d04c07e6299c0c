// The cut as a timeline, pure and format-free: every played clip at its record frame with its source in/out at the
// pass's rate, each clip's sound on the first audio track, the episode's recorded track on the second, and notes
// (clip notes, flags, shots that have no usable take) at their place. The writers (otio, fcpxml, edl, mlt) only
// spell this out; the assembly plan decides what plays, so an export and an assembled mp4 agree frame for frame.

import type { Choice, Plan } from "../assemble/plan.ts";
import type { Pass } from "../compile/types.ts";
import type { CutEntry } from "../episode/cut.ts";

/** A piece of media placed on a track: `frames` of `file` from `sourceIn`, at `recordIn` of the timeline. */
export interface Placed {
  file: string;
  /** Frames into the file (at the timeline's rate) where the piece starts. */
  sourceIn: number;
  frames: number;
  recordIn: number;
  /** The file's whole length in frames at the timeline's rate, when known. */
  fileFrames: number | null;
}

export interface VideoClip extends Placed {
  shot: string;
  take: number;
  pass: Pass;
  /** A take of the other pass standing in for this pass's. */
  placeholder: boolean;
  /** What an editor shows on the clip: `sh010 t02`, `sh020 t01 (final)` for a placeholder. */
  name: string;
  /** The cut's note on the clip, and whether it is flagged. */
  note: string | null;
  flag: boolean;
  width: number;
  height: number;
  /** The take's picture ships its own sound stream. */
  hasAudio: boolean;
}

export interface SoundClip extends Placed {
  /** The shot whose clip it sounds under. */
  shot: string;
  name: string;
  /** Linear gain (1: as recorded). */
  gain: number;
  /** For a person: where the sound comes from. */
  why: string;
}

export interface TimelineNote {
  /** Record frame the note is about. */
  at: number;
  text: string;
}

export interface Timeline {
  /** The episode's name and the pass: the timeline's title is `<name> <pass>`. */
  name: string;
  pass: Pass;
  fps: number;
  width: number;
  height: number;
  /** Frames the whole cut plays. */
  frames: number;
  video: VideoClip[];
  /** Each clip's own sound choice (A1). */
  sounds: SoundClip[];
  /** The episode's recorded track, cut to the played clips (A2); empty when the episode has none. */
  track: SoundClip[];
  /** Shots left out because nothing of theirs can play, and what else a person should know, in record order. */
  notes: TimelineNote[];
}

/** What the I/O edge found about the episode's recorded track. */
export interface EpisodeTrack {
  /** Absolute path. */
  file: string;
  /** As the series config writes it (for names and notes). */
  path: string;
  /** Seconds, or the reason the file cannot be read. */
  seconds: number | string;
  /** Each shot's window into the recording (seconds), for shots that have one. */
  windows: ReadonlyMap<string, { in: number; out: number }>;
}

export interface TimelineInput {
  name: string;
  pass: Pass;
  choices: readonly Choice[];
  plan: Plan;
  entries: ReadonlyMap<string, CutEntry>;
  /** Seconds of each sound file (probed), by absolute path. */
  soundSeconds: ReadonlyMap<string, number | null>;
  /** Whether each picture file has a sound stream. */
  pictureAudio: ReadonlyMap<string, boolean>;
  /** Width and height of each picture file. */
  pictureSize: ReadonlyMap<string, { width: number; height: number }>;
  track: EpisodeTrack | null;
}

const tNN = (take: number) => `t${String(take).padStart(2, "0")}`;

/** The timeline of a planned cut. */
export function placeTimeline(input: TimelineInput): Timeline {
  const { plan, pass } = input;
  const { fps, width, height } = plan.format;
  const video: VideoClip[] = [];
  const sounds: SoundClip[] = [];
  const notes: TimelineNote[] = [];
  // Rows are in cut order: a missing row's note sits where the next played clip starts.
  const byShot = new Map(plan.clips.map((c) => [c.shot, c]));
  let at = 0;
  for (const row of plan.rows) {
    if (row.status === "missing") {
      notes.push({ at, text: `${row.shot} is left out: ${row.why}` });
      continue;
    }
    if (row.status !== "used") continue;
    const c = byShot.get(row.shot);
    if (!c) continue;
    const entry = input.entries.get(c.shot);
    const name = `${c.shot} ${tNN(c.take)}${c.placeholder ? ` (${c.pass})` : ""}`;
    const size = input.pictureSize.get(c.file) ?? { width, height };
    video.push({
      file: c.file,
      sourceIn: c.trimIn,
      frames: c.frames,
      recordIn: at,
      fileFrames: c.convertedFrames,
      shot: c.shot,
      take: c.take,
      pass: c.pass,
      placeholder: c.placeholder,
      name,
      note: entry?.note ? String(entry.note) : null,
      flag: entry?.flag === true,
      width: size.width,
      height: size.height,
      hasAudio: input.pictureAudio.get(c.file) ?? false,
    });
    const s = c.sound;
    if (s.file !== null) {
      // Seconds into the sound file where the played part of the clip begins (as the assembler reads it).
      const from = s.start + c.trimIn / fps - s.offset;
      const seconds = input.soundSeconds.get(s.file) ?? null;
      const piece = fitPiece(from, at, c.frames, seconds, fps);
      if (piece)
        sounds.push({
          file: s.file,
          ...piece,
          shot: c.shot,
          name: `${c.shot} sound`,
          gain: s.gain,
          why: s.why,
        });
    }
    at += c.frames;
  }
  const track = input.track ? placeTrack(input.track, video, at, fps, notes) : [];
  notes.sort((a, b) => a.at - b.at);
  return { name: input.name, pass, fps, width, height, frames: at, video, sounds, track, notes };
}

/**
 * A sound piece under a clip of `frames` at `recordIn`, read from `from` seconds into a file of `seconds` (null:
 * unknown): a sound that starts later than the clip begins after a lead, and one shorter than the clip ends early
 * (the assembler pads it with silence; an editor shows the gap). Null when nothing of it plays.
 */
export function fitPiece(
  from: number,
  recordIn: number,
  frames: number,
  seconds: number | null,
  fps: number,
): Omit<Placed, "file"> | null {
  const fileFrames = seconds === null ? null : Math.floor(seconds * fps + 1e-6);
  let sourceIn = Math.round(from * fps);
  let lead = 0;
  if (sourceIn < 0) {
    lead = -sourceIn;
    sourceIn = 0;
  }
  let length = frames - lead;
  if (fileFrames !== null) length = Math.min(length, fileFrames - sourceIn);
  if (length <= 0) return null;
  return { sourceIn, frames: length, recordIn: recordIn + lead, fileFrames };
}

/**
 * The episode's recording on its own track: under each played clip whose shot has a window into it, that window
 * (less the clip's trims); when no played shot has one, the recording from the cut's start, as long as both last.
 */
function placeTrack(
  track: EpisodeTrack,
  video: readonly VideoClip[],
  total: number,
  fps: number,
  notes: TimelineNote[],
): SoundClip[] {
  if (typeof track.seconds === "string") {
    notes.push({ at: 0, text: `the episode track ${track.path} is not on the timeline: ${track.seconds}` });
    return [];
  }
  const base = { file: track.file, gain: 1, why: `the episode track ${track.path}` };
  const windowed = video.filter((v) => track.windows.has(v.shot));
  if (windowed.length === 0) {
    const piece = fitPiece(0, 0, total, track.seconds, fps);
    return piece ? [{ ...base, ...piece, shot: "", name: "episode track" }] : [];
  }
  const out: SoundClip[] = [];
  for (const v of windowed) {
    const w = track.windows.get(v.shot);
    if (!w) continue;
    // The window is the shot's length in the recording; trims cut into it as they cut into the picture.
    const windowFrames = Math.max(0, Math.round((w.out - w.in) * fps) - v.sourceIn);
    const piece = fitPiece(
      w.in + v.sourceIn / fps,
      v.recordIn,
      Math.min(v.frames, windowFrames),
      track.seconds,
      fps,
    );
    if (piece) out.push({ ...base, ...piece, shot: v.shot, name: `${v.shot} track` });
  }
  return out;
}

/** Frames as `HH:MM:SS:FF` at a whole-number rate (non-drop frame: 29.97 counts as 30, 23.976 as 24). */
export function timecode(frames: number, fps: number): string {
  const base = Math.max(1, Math.round(fps));
  const ff = frames % base;
  const totalSeconds = Math.floor(frames / base);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${pad(Math.floor(totalSeconds / 3600))}:${pad(Math.floor(totalSeconds / 60) % 60)}:${pad(totalSeconds % 60)}:${pad(ff)}`;
}

/** The rate as a fraction `[num, den]`: 24 → 24/1, 29.97… → 30000/1001, 12.5 → 25/2. */
export function rateFraction(fps: number): [number, number] {
  if (Number.isInteger(fps)) return [fps, 1];
  const ntsc = (fps * 1001) / 1000;
  if (Math.abs(ntsc - Math.round(ntsc)) < 1e-3) return [Math.round(ntsc) * 1000, 1001];
  for (const den of [2, 4, 5, 8, 10, 100, 1000]) {
    const num = fps * den;
    if (Math.abs(num - Math.round(num)) < 1e-6) return [Math.round(num), den];
  }
  return [Math.round(fps * 1000), 1000];
}
