// The Cut view's entries: episode rows read back into PUT /studio/cut's entries, one entry patched, a new order,
// the optimistic episode after an edit, and a row's timeline input.
import { describe, expect, it } from "vitest";
import type { CutInfo, EpisodeStatus, ShotEntry } from "../web/src/types.ts";
import {
  applyEntries,
  clipInputOf,
  entriesOf,
  entryOf,
  patchEntry,
  reorderEntries,
} from "../web/src/views/cut/entries.ts";

const cut = (over: Partial<CutInfo> = {}): CutInfo => ({
  take: 1,
  picked: false,
  pass: "proxy",
  placeholder: false,
  usable: true,
  trim_in: 0,
  trim_out: 0,
  locked: false,
  note: null,
  in_cut_file: true,
  frames: 48,
  out: false,
  flag: false,
  fps: 24,
  order: 0,
  script_index: 0,
  out_of_order: false,
  audio: null,
  audio_file: null,
  audio_why: null,
  ...over,
});

const shot = (id: string, c: Partial<CutInfo> = {}, over: Partial<ShotEntry> = {}): ShotEntry =>
  ({
    shot: id,
    orphan: false,
    sequence: "sq01",
    length: 48,
    seconds: 2,
    size: null,
    subjects: [],
    audio_policy: null,
    cut: cut(c),
    override: null,
    target: "animatic",
    target_source: "default",
    built_target: "animatic",
    profile: null,
    missing_refs: [],
    takes: [],
    ...over,
  }) as ShotEntry;

const status = (shots: ShotEntry[]): EpisodeStatus => ({
  episode: "ep01",
  title: "",
  pass: "proxy",
  fps: 24,
  width: 640,
  height: 360,
  folder: "renders_proxy",
  shots,
  target: "animatic",
  target_source: "default",
  series_target: null,
});

describe("entries", () => {
  it("names a take only when picked and a pass only for a placeholder, and drops defaults", () => {
    expect(entryOf(shot("sh010"))).toEqual({ shot: "sh010" });
    expect(entryOf(shot("sh010", { picked: true, take: 3 }))).toEqual({ shot: "sh010", take: 3 });
    expect(entryOf(shot("sh010", { placeholder: true, pass: "final", take: 2 }))).toEqual({
      shot: "sh010",
      pass: "final",
    });
  });

  it("says every field again so a PUT keeps trims, flags, note and audio", () => {
    const audio = { source: "take", shot: "sh020", take: 2, pass: "proxy" as const };
    const e = entryOf(
      shot("sh010", { trim_in: 3, trim_out: 4, locked: true, out: true, flag: true, note: "n", audio }),
    );
    expect(e).toEqual({
      shot: "sh010",
      trim_in: 3,
      trim_out: 4,
      locked: true,
      out: true,
      flag: true,
      note: "n",
      audio,
    });
  });

  it("patches one entry, dropping fields set to null, false, 0 or empty", () => {
    const list = entriesOf(status([shot("a", { trim_in: 5, flag: true }), shot("b")]));
    const next = patchEntry(list, "a", { trim_in: 0, trim_out: 7, flag: false, note: "x", audio: null });
    expect(next).toEqual([{ shot: "a", trim_out: 7, note: "x" }, { shot: "b" }]);
    expect(list[0]).toEqual({ shot: "a", trim_in: 5, flag: true });
  });

  it("reorders by shot ids", () => {
    const list = [{ shot: "a" }, { shot: "b" }, { shot: "c" }];
    expect(reorderEntries(list, ["c", "a", "b"]).map((e) => e.shot)).toEqual(["c", "a", "b"]);
  });

  it("reads the episode as it will be once entries land: new order and new cut fields", () => {
    const s = status([shot("a"), shot("b")]);
    const next = applyEntries(s, [{ shot: "b", trim_in: 2, out: true }, { shot: "a" }]);
    expect(next.shots.map((x) => x.shot)).toEqual(["b", "a"]);
    expect(next.shots[0].cut).toMatchObject({ trim_in: 2, out: true, order: 0 });
    expect(next.shots[1].cut.order).toBe(1);
  });
});

describe("timeline inputs", () => {
  it("uses the take's frames at its own fps, and the planned seconds for a shot with no usable take", () => {
    expect(clipInputOf(shot("a", { frames: 60, fps: 30, trim_in: 2 }))).toMatchObject({
      usable: true,
      frames: 60,
      fps: 30,
      trimIn: 2,
      planned: 2,
    });
    expect(clipInputOf(shot("b", { usable: false, frames: null, take: null }, { seconds: 3 }))).toMatchObject(
      { usable: false, frames: null, planned: 3 },
    );
  });

  it("has no planned length for an orphan", () => {
    const orphan = shot("z", { usable: false, frames: null }, {
      orphan: true,
      length: null,
      seconds: null,
    } as unknown as Partial<ShotEntry>);
    expect(clipInputOf(orphan).planned).toBeNull();
  });
});
