// Held moments of a tour from synthetic motion and sharpness series: the opening frame first, one hold per run of
// low motion at its sharpest frame, turning points where motion dips, and nothing from a steady move.
import { describe, expect, it } from "vitest";
import { findHolds, median } from "../lib/refs/tour-holds.ts";

const fill = (n: number, v: number) => Array.from({ length: n }, () => v);

describe("findHolds", () => {
  it("finds the opening, each still run at its sharpest frame, in time order", () => {
    // 24 fps: move 1 s, hold 0.5 s (frames 24–35), move 1 s, hold 0.5 s (60–71), move to the end.
    const motion = [...fill(24, 10), ...fill(12, 0.5), ...fill(24, 10), ...fill(12, 1), ...fill(24, 10)];
    const sharpness = motion.map((_, i) => (i === 30 ? 90 : i === 62 ? 80 : 50));
    const holds = findHolds({ motion, sharpness, fps: 24 });
    expect(holds).toEqual([
      { frame: 0, start: 0, end: 0, kind: "opening" },
      { frame: 30, start: 24, end: 35, kind: "still" },
      { frame: 62, start: 60, end: 71, kind: "still" },
    ]);
  });

  it("makes the opening hold cover a still start, standing at frame 0", () => {
    const motion = [0, ...fill(9, 0), ...fill(40, 8)];
    const holds = findHolds({ motion, sharpness: fill(50, 1), fps: 24 });
    expect(holds[0]).toEqual({ frame: 0, start: 0, end: 9, kind: "opening" });
    expect(holds).toHaveLength(1);
  });

  it("finds a turning point where motion dips under 0.35 of the surrounding peak", () => {
    // A move that slows to turn at frame 40 (motion 2 against a peak of 10 within half a second) but never stops.
    const motion = fill(80, 10).map((v, i) => (Math.abs(i - 40) <= 1 ? (i === 40 ? 2 : 3) : v));
    // Median 10, so 2 and 3 (under 5) are still, but three frames are shorter than a run (0.2 s at 24 fps): the
    // dip is a turn, standing at its sharpest frame.
    const sharpness = fill(80, 5).map((v, i) => (i === 41 ? 9 : v));
    const holds = findHolds({ motion, sharpness, fps: 24 });
    expect(holds).toEqual([
      { frame: 0, start: 0, end: 0, kind: "opening" },
      { frame: 41, start: 39, end: 41, kind: "turn" },
    ]);
    // A dip above half the median is a turn all the same when it is under 0.35 of the peak.
    const gentle = fill(80, 10).map((v, i) => (i === 40 ? 3.4 : Math.abs(i - 40) === 1 ? 6 : v));
    const turn = findHolds({ motion: gentle, sharpness, fps: 24 });
    expect(turn.map((h) => [h.kind, h.frame])).toEqual([
      ["opening", 0],
      ["turn", 40],
    ]);
  });

  it("ignores a dip that is not deep enough or lies near another hold", () => {
    const shallow = fill(80, 10).map((v, i) => (i === 40 ? 4 : v));
    expect(findHolds({ motion: shallow, sharpness: fill(80, 1), fps: 24 }).map((h) => h.kind)).toEqual([
      "opening",
    ]);
    // A deep dip within half a second of the opening belongs to it.
    const early = fill(80, 10).map((v, i) => (i === 8 ? 1 : v));
    expect(findHolds({ motion: early, sharpness: fill(80, 1), fps: 24 }).map((h) => h.kind)).toEqual([
      "opening",
    ]);
  });

  it("gives one hold to a video that never moves, and none to an empty one", () => {
    expect(findHolds({ motion: fill(30, 0), sharpness: fill(30, 1), fps: 24 })).toEqual([
      { frame: 0, start: 0, end: 29, kind: "opening" },
    ]);
    expect(findHolds({ motion: [], sharpness: [], fps: 24 })).toEqual([]);
  });

  it("keeps a steady move to its opening frame", () => {
    const motion = fill(100, 7);
    expect(findHolds({ motion, sharpness: fill(100, 1), fps: 24 })).toEqual([
      { frame: 0, start: 0, end: 0, kind: "opening" },
    ]);
  });
});

describe("median", () => {
  it("is the middle value, or the mean of the two middle ones", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(median([])).toBe(0);
  });
});
