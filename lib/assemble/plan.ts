// The assembly plan, pure: which take each cut entry plays, what its picture needs (copied as it is, or
// re-encoded and why), where its sound comes from, and the report row that says so. No file is read here:
// the I/O edge (assemble.ts) hands in the takes on disk and what ffprobe found.
import path from "node:path";
import type { Pass } from "../compile/types.ts";
import type { CutEntry } from "../episode/cut.ts";
import { cutPick } from "../episode/cut-view.ts";
import { hasVideo, shotFolder, type TakeRecord, takeStatus } from "../episode/takes.ts";
import type { ClipInfo } from "../media/clip-probe.ts";
import { isObject, num } from "../store/json-guards.ts";

/** The picture every clip of the cut ends up with. */
export interface CutFormat {
  fps: number;
  width: number;
  height: number;
}

/** What the planner knows of one cut entry. */
export interface CutShot {
  entry: CutEntry;
  /** In the cut but no longer in the pass's script. */
  orphan: boolean;
  /** The takes of the pass the entry plays (the other pass's for a placeholder). */
  takes: readonly TakeRecord[];
  /** Takes of the shot an `audio: {source: "take"}` names, when it names one. */
  audioTakes?: readonly TakeRecord[] | null;
}

/** Where a clip's sound may come from, before probing: the first candidate holding sound wins. */
export interface SoundWish {
  /** Absolute files, best first; empty for silence on purpose. */
  candidates: string[];
  /** Seconds into the source where the sound starts. */
  start: number;
  /** Seconds into the (untrimmed) clip where the sound begins to play; negative starts it earlier. */
  offset: number;
  gain: number;
  /** What the sound is, for a person ("its own sound", "sound of sh010 t02 (final)"). */
  label: string;
}

export type Choice =
  | { kind: "out" | "missing"; shot: string; take: number | null; pass: Pass; why: string }
  | {
      kind: "clip";
      shot: string;
      take: number;
      pass: Pass;
      /** Absolute path of the take's mp4. */
      file: string;
      placeholder: boolean;
      trimIn: number;
      trimOut: number;
      sound: SoundWish;
    };

export interface Sound {
  /** Absolute file whose first audio stream plays, or null for silence. */
  file: string | null;
  start: number;
  offset: number;
  gain: number;
  why: string;
}

export interface PlannedClip {
  shot: string;
  take: number;
  pass: Pass;
  file: string;
  placeholder: boolean;
  /** The take's own frame count and rate. */
  srcFrames: number;
  srcFps: number;
  /** Frames of the take once at the cut's rate, before trims. */
  convertedFrames: number;
  trimIn: number;
  trimOut: number;
  /** Frames the clip plays in the cut (after trims, at the cut's rate). */
  frames: number;
  /** Why the picture must be re-encoded; empty: its stream is copied as it is. */
  reencode: string[];
  sound: Sound;
  /** The take's video timescale (copied clips keep theirs; re-encodes follow the copied ones). */
  timescale: number | null;
}

export type RowStatus = "used" | "missing" | "out";

export interface ReportRow {
  shot: string;
  take: number | null;
  pass: Pass;
  status: RowStatus;
  why: string;
  /** Frames the clip plays (used rows only). */
  frames: number | null;
  /** `copied` or `re-encoded` (used rows only). */
  picture: "copied" | "re-encoded" | null;
  /** Where the clip's sound comes from (used rows only). */
  sound: string | null;
}

export interface Plan {
  format: CutFormat;
  clips: PlannedClip[];
  rows: ReportRow[];
  missing: ReportRow[];
}

const tNN = (take: number) => `t${String(take).padStart(2, "0")}`;

/** Which take each entry plays, in cut order; `out` entries and orphans are left out with the reason. */
export function chooseClips(ep: string, listPass: Pass, shots: readonly CutShot[]): Choice[] {
  return shots.map(({ entry, orphan, takes, audioTakes }): Choice => {
    const pick = cutPick(entry, listPass, takes);
    const placeholder = pick.pass !== listPass;
    const base = { shot: entry.shot, take: pick.number, pass: pick.pass };
    if (entry.out === true) return { kind: "out", ...base, why: "left out of the cut" };
    // An orphan is a shot the script dropped; its takes stay in the cut view but no longer tell the story.
    if (orphan) return { kind: "out", ...base, why: "no longer in the script" };
    if (!pick.take || !pick.usable)
      return { kind: "missing", ...base, why: missingWhy(entry, takes, pick.pass, listPass) };
    const t = pick.take;
    const folder = shotFolder(ep, pick.pass, entry.shot);
    return {
      kind: "clip",
      ...base,
      take: t.take,
      file: path.join(folder, `${t.stem}.mp4`),
      placeholder,
      trimIn: entry.trim_in ?? 0,
      trimOut: entry.trim_out ?? 0,
      sound: soundWish(ep, listPass, entry, t, folder, audioTakes ?? null),
    };
  });
}

function missingWhy(entry: CutEntry, takes: readonly TakeRecord[], pass: Pass, listPass: Pass): string {
  const where = pass !== listPass ? ` in the ${pass} pass (the cut plays that pass's take here)` : "";
  if (entry.take !== undefined) {
    const t = takes.find((x) => x.take === entry.take);
    const name = `picked take ${tNN(entry.take)}${where}`;
    if (!t) return `${name} is not on disk`;
    const status = takeStatus(t);
    if (status === "queued") return `${name} is still rendering`;
    if (status === "failed") return `${name} failed`;
    if (!hasVideo(t)) return `${name} has no video file`;
    return `${name} cannot be played`;
  }
  if (takes.length === 0) return `not rendered yet${where}`;
  const queued = takes.filter((t) => takeStatus(t) === "queued");
  if (queued.length)
    return `no finished take yet${where}: ${tNN(queued[queued.length - 1].take)} is still rendering`;
  const which =
    takes.length === 1 ? "its only take failed or lacks" : `all ${takes.length} takes failed or lack`;
  return `no usable take${where}: ${which} a video file`;
}

function soundWish(
  ep: string,
  listPass: Pass,
  entry: CutEntry,
  take: TakeRecord,
  folder: string,
  audioTakes: readonly TakeRecord[] | null,
): SoundWish {
  const a = entry.audio;
  // The take's wav first when it has one (`<stem>_h3.wav`): reading it needs no look at the picture
  // and has no AAC padding to cut; the mp4's own sound otherwise.
  const own = (t: TakeRecord, dir: string) => [
    ...(t.files.includes(`${t.stem}_h3.wav`) ? [path.join(dir, `${t.stem}_h3.wav`)] : []),
    path.join(dir, `${t.stem}.mp4`),
  ];
  if (!isObject(a))
    return { candidates: own(take, folder), start: 0, offset: 0, gain: 1, label: "its own sound" };
  const timing = {
    start: Math.max(0, num(a.start) ?? 0),
    offset: num(a.offset) ?? 0,
    gain: Math.max(0, num(a.gain) ?? 1),
  };
  if (a.source === "none") return { candidates: [], ...timing, label: "silence (the cut asks for none)" };
  if (a.source === "take") {
    const shot = typeof a.shot === "string" ? a.shot : entry.shot;
    const pass = a.pass === "final" || a.pass === "proxy" ? a.pass : listPass;
    const n = typeof a.take === "number" ? a.take : -1;
    const t = (audioTakes ?? []).find((x) => x.take === n);
    const label = `sound of ${shot} ${n > 0 ? tNN(n) : "t??"} (${pass})`;
    return { candidates: t ? own(t, shotFolder(ep, pass, shot)) : [], ...timing, label };
  }
  if (a.source === "file" && typeof a.path === "string")
    return { candidates: [path.resolve(ep, a.path)], ...timing, label: `file ${a.path}` };
  return { candidates: [], ...timing, label: `audio source ${String(a.source)}` };
}

/** Every file the plan needs probed: the clips' takes and their sound candidates. */
export function filesToProbe(choices: readonly Choice[]): string[] {
  const files = new Set<string>();
  for (const c of choices) {
    if (c.kind !== "clip") continue;
    files.add(c.file);
    for (const f of c.sound.candidates) files.add(f);
  }
  return [...files];
}

/** Probe results: what ffprobe found, or its error message. */
export type Probes = ReadonlyMap<string, ClipInfo | string>;

const sameRate = (a: number, b: number) => Math.abs(a - b) <= b * 1e-4;
const fmtFps = (fps: number) => String(Math.round(fps * 1000) / 1000);

/** The plan: each choice made into a clip (or a missing row when its take cannot be used), in cut order. */
export function planAssembly(choices: readonly Choice[], probes: Probes, format: CutFormat): Plan {
  const clips: PlannedClip[] = [];
  const rows: ReportRow[] = [];
  const blank = { frames: null, picture: null, sound: null };
  for (const c of choices) {
    if (c.kind !== "clip") {
      rows.push({ shot: c.shot, take: c.take, pass: c.pass, status: c.kind, why: c.why, ...blank });
      continue;
    }
    const head = { shot: c.shot, take: c.take, pass: c.pass };
    const missing = (why: string) => rows.push({ ...head, status: "missing", why, ...blank });
    const info = probes.get(c.file);
    const name = `take ${tNN(c.take)}${c.placeholder ? ` of the ${c.pass} pass` : ""}`;
    if (info === undefined || typeof info === "string") {
      missing(`${name} cannot be read${info ? `: ${info}` : ""}`);
      continue;
    }
    const v = info.video;
    if (!v || v.width <= 0 || v.height <= 0) {
      missing(`${name} has no picture`);
      continue;
    }
    const srcFps = v.fps ?? format.fps;
    const srcFrames = v.frames ?? Math.round((v.duration ?? info.duration ?? 0) * srcFps);
    const converted = sameRate(srcFps, format.fps)
      ? srcFrames
      : Math.round((srcFrames * format.fps) / srcFps);
    const frames = converted - c.trimIn - c.trimOut;
    if (srcFrames <= 0) {
      missing(`${name} has no frames`);
      continue;
    }
    if (frames <= 0) {
      missing(
        `the trims leave no frame of ${name} (${converted} frames, trim_in ${c.trimIn}, trim_out ${c.trimOut})`,
      );
      continue;
    }
    const reencode: string[] = [];
    if (v.codec !== "h264") reencode.push(`codec ${v.codec}`);
    if (v.pixFmt !== "yuv420p") reencode.push(`pixel format ${v.pixFmt ?? "unknown"}`);
    if (!sameRate(srcFps, format.fps))
      reencode.push(`${fmtFps(srcFps)} fps (the cut is ${fmtFps(format.fps)})`);
    if (v.width !== format.width || v.height !== format.height)
      reencode.push(`${v.width}x${v.height} (the cut is ${format.width}x${format.height})`);
    else if (v.sar !== null && v.sar !== "1:1") reencode.push(`pixel aspect ${v.sar}`);
    if (c.trimIn || c.trimOut) reencode.push("trimmed");
    const sound = chooseSound(c.sound, probes);
    clips.push({
      ...head,
      file: c.file,
      placeholder: c.placeholder,
      srcFrames,
      srcFps,
      convertedFrames: converted,
      trimIn: c.trimIn,
      trimOut: c.trimOut,
      frames,
      reencode,
      sound,
      timescale: v.timescale,
    });
    const picture = reencode.length ? "re-encoded" : "copied";
    const why = [
      reencode.length ? `re-encoded: ${reencode.join(", ")}` : "copied",
      ...(c.placeholder ? [`a placeholder from the ${c.pass} pass`] : []),
      sound.why,
    ].join("; ");
    rows.push({ ...head, status: "used", why, frames, picture, sound: sound.why });
  }
  return { format, clips, rows, missing: rows.filter((r) => r.status === "missing") };
}

function chooseSound(wish: SoundWish, probes: Probes): Sound {
  const timing = { start: wish.start, offset: wish.offset, gain: wish.gain };
  for (const file of wish.candidates) {
    const info = probes.get(file);
    if (info && typeof info !== "string" && info.audio) return { file, ...timing, why: wish.label };
  }
  if (wish.candidates.length === 0 && wish.label.startsWith("silence"))
    return { file: null, ...timing, why: wish.label };
  const why =
    wish.label === "its own sound" ? "silence (the take has no sound)" : `silence (${wish.label} is missing)`;
  return { file: null, ...timing, why };
}
