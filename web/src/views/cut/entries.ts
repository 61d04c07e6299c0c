// The cut as the page edits it: the episode's shots read back into the entries PUT /studio/cut takes (the whole
// list of the pass, every field said again so nothing is lost), one entry changed, and the timeline's inputs.
import type { CutAudio, EpisodeStatus, ShotEntry } from "../../types.ts";
import type { ClipInput } from "./timeline.ts";

/** A cut entry as PUT /studio/cut takes it. */
export interface CutEntryBody {
  shot: string;
  take?: number;
  pass?: "final" | "proxy";
  trim_in?: number;
  trim_out?: number;
  locked?: boolean;
  out?: boolean;
  flag?: boolean;
  note?: string;
  audio?: CutAudio;
}

/** What one edit changes in an entry; null clears a field. */
export type EntryPatch = {
  [K in Exclude<keyof CutEntryBody, "shot">]?: CutEntryBody[K] | null;
};

/** The entry a shot's cut row stands for: a take only when picked, a pass only when it plays the other one. */
export function entryOf(s: ShotEntry): CutEntryBody {
  const c = s.cut;
  const e: CutEntryBody = { shot: s.shot };
  if (c.picked && c.take !== null) e.take = c.take;
  if (c.placeholder && c.pass) e.pass = c.pass;
  if (c.trim_in) e.trim_in = c.trim_in;
  if (c.trim_out) e.trim_out = c.trim_out;
  if (c.locked) e.locked = true;
  if (c.out) e.out = true;
  if (c.flag) e.flag = true;
  if (c.note) e.note = c.note;
  if (c.audio) e.audio = c.audio;
  return e;
}

export const entriesOf = (status: EpisodeStatus): CutEntryBody[] => status.shots.map(entryOf);

/** The entries with one shot's fields changed (null or false or 0 drops the field). */
export function patchEntry(
  entries: readonly CutEntryBody[],
  shot: string,
  patch: EntryPatch,
): CutEntryBody[] {
  return entries.map((e) => {
    if (e.shot !== shot) return e;
    const next: Record<string, unknown> = { ...e };
    for (const [k, v] of Object.entries(patch)) {
      if (v === null || v === undefined || v === false || v === 0 || v === "") delete next[k];
      else next[k] = v;
    }
    return next as unknown as CutEntryBody;
  });
}

/** The entries in a new order of shot ids. */
export function reorderEntries(entries: readonly CutEntryBody[], order: readonly string[]): CutEntryBody[] {
  const by = new Map(entries.map((e) => [e.shot, e]));
  return order.map((s) => by.get(s)).filter((e): e is CutEntryBody => e !== undefined);
}

/**
 * The episode as it will read once an edit lands, so the timeline moves at once: shots in the entries' order,
 * each cut row carrying the entry's trims, flags, note and audio.
 */
export function applyEntries(status: EpisodeStatus, entries: readonly CutEntryBody[]): EpisodeStatus {
  const by = new Map(status.shots.map((s) => [s.shot, s]));
  const shots = entries
    .map((e, order): ShotEntry | null => {
      const s = by.get(e.shot);
      if (!s) return null;
      return {
        ...s,
        cut: {
          ...s.cut,
          trim_in: e.trim_in ?? 0,
          trim_out: e.trim_out ?? 0,
          locked: e.locked === true,
          out: e.out === true,
          flag: e.flag === true,
          note: e.note ?? null,
          audio: e.audio ?? null,
          order,
        },
      };
    })
    .filter((s): s is ShotEntry => s !== null);
  return { ...status, shots };
}

/** The timeline's view of a shot: its take's frames at its own rate, or a gap of the shot's planned length. */
export function clipInputOf(s: ShotEntry): ClipInput {
  const c = s.cut;
  return {
    shot: s.shot,
    out: c.out,
    usable: c.usable && c.frames !== null,
    frames: c.usable ? c.frames : null,
    fps: c.fps,
    trimIn: c.trim_in ?? 0,
    trimOut: c.trim_out ?? 0,
    // Orphans (shots the script dropped) have no planned length.
    planned:
      typeof s.seconds === "number"
        ? s.seconds
        : typeof s.length === "number" && c.fps > 0
          ? s.length / c.fps
          : null,
  };
}
