// The Cut view's timeline maths: clip placement with trims in the episode's frames and takes at their own rate,
// out clips and gaps, the clip under a time, pixels and frames at a zoom, trims from drags and the playhead, and
// orders from drops.
import { describe, expect, it } from "vitest";
import {
  type ClipInput,
  clampTrim,
  clipAt,
  dragTrim,
  dropIndex,
  fitZoom,
  framesToPx,
  layout,
  maxTrim,
  move,
  playFrom,
  pxToFrames,
  sourceTime,
  timecode,
  trimAt,
} from "../web/src/views/cut/timeline.ts";

const clip = (shot: string, over: Partial<ClipInput> = {}): ClipInput => ({
  shot,
  out: false,
  usable: true,
  frames: 48,
  fps: 24,
  trimIn: 0,
  trimOut: 0,
  planned: 2,
  ...over,
});

describe("layout", () => {
  it("places untrimmed clips end to end at their own length", () => {
    const l = layout([clip("a"), clip("b", { frames: 72 })], 24);
    expect(l.clips.map((c) => [c.start, c.duration])).toEqual([
      [0, 2],
      [2, 3],
    ]);
    expect(l.total).toBe(3 + 2);
    expect(l.played).toBe(5);
  });

  it("times a take with another fps by its own rate and its trims by the episode's", () => {
    // 60 frames at 30 fps = 2 s; trims of 12 episode frames at 24 fps = 0.5 s each side.
    const l = layout([clip("a", { frames: 60, fps: 30, trimIn: 12, trimOut: 12 })], 24);
    const [c] = l.clips;
    expect(c.duration).toBeCloseTo(1);
    expect(c.sourceIn).toBeCloseTo(0.5);
    expect(c.sourceOut).toBeCloseTo(1.5);
    expect(c.lengthFrames).toBeCloseTo(48);
  });

  it("keeps trims at 0 and trims reaching the end inside the take", () => {
    const l = layout([clip("a", { trimIn: 0, trimOut: 47 }), clip("b", { trimIn: 47 })], 24);
    expect(l.clips[0].sourceIn).toBe(0);
    expect(l.clips[0].sourceOut).toBeCloseTo(1 / 24);
    expect(l.clips[1].sourceIn).toBeCloseTo(47 / 24);
    expect(l.clips[1].sourceOut).toBe(2);
    expect(l.clips[1].duration).toBeCloseTo(1 / 24);
  });

  it("never plays a negative length when hand-edited trims exceed the take", () => {
    const [c] = layout([clip("a", { trimIn: 40, trimOut: 40 })], 24).clips;
    expect(c.duration).toBe(0);
    expect(c.sourceOut).toBe(c.sourceIn);
  });

  it("keeps out clips in place but not in the played length", () => {
    const l = layout([clip("a"), clip("b", { out: true }), clip("c")], 24);
    expect(l.clips[2].start).toBe(4);
    expect(l.total).toBe(6);
    expect(l.played).toBe(4);
  });

  it("shows a clip with no usable take as a gap of its planned length (none when unknown)", () => {
    const l = layout(
      [clip("a", { usable: false, frames: null, planned: 3.5 }), clip("b", { usable: false, planned: null })],
      24,
    );
    expect(l.clips.map((c) => [c.kind, c.duration])).toEqual([
      ["gap", 3.5],
      ["gap", 0],
    ]);
    expect(l.clips[0].lengthFrames).toBeNull();
  });

  it("makes a usable entry whose frame count is unknown a gap rather than a zero-length clip", () => {
    const [c] = layout([clip("a", { frames: null, planned: 1.5 })], 24).clips;
    expect(c.kind).toBe("gap");
    expect(c.duration).toBe(1.5);
  });
});

describe("the clip under a time and Play all", () => {
  const l = layout(
    [clip("a"), clip("b", { out: true }), clip("c", { usable: false, planned: null }), clip("d")],
    24,
  );

  it("finds the clip whose span holds a time, the first before the start and the last past the end", () => {
    expect(clipAt(l, -1)).toBe(0);
    expect(clipAt(l, 0)).toBe(0);
    expect(clipAt(l, 1.99)).toBe(0);
    expect(clipAt(l, 2)).toBe(1);
    // c has no length: the time at its place belongs to d.
    expect(clipAt(l, 4)).toBe(3);
    expect(clipAt(l, 6)).toBe(3);
    expect(clipAt(l, 99)).toBe(3);
  });

  it("plays from the clip under the time, skipping out clips and zero-length gaps", () => {
    expect(playFrom(l, 0).map((c) => c.shot)).toEqual(["a", "d"]);
    expect(playFrom(l, 3).map((c) => c.shot)).toEqual(["d"]);
    expect(playFrom(layout([], 24), 0)).toEqual([]);
  });

  it("maps a timeline time into the take's file, clamped to the played part", () => {
    const [c] = layout([clip("a", { trimIn: 12, trimOut: 12 })], 24).clips;
    expect(sourceTime(c, 0)).toBeCloseTo(0.5);
    expect(sourceTime(c, 0.25)).toBeCloseTo(0.75);
    expect(sourceTime(c, 5)).toBeCloseTo(1.5);
  });
});

describe("zoom", () => {
  it("turns pixels into whole frames and back at a zoom", () => {
    expect(pxToFrames(100, 100, 24)).toBe(24);
    expect(pxToFrames(2, 100, 24)).toBe(0);
    expect(pxToFrames(-50, 100, 24)).toBe(-12);
    expect(framesToPx(12, 100, 24)).toBe(50);
  });

  it("fits the cut into a width within the zoom's range", () => {
    expect(fitZoom(10, 1000, 10, 400)).toBe(100);
    expect(fitZoom(1000, 1000, 10, 400)).toBe(10);
    expect(fitZoom(0, 1000, 10, 400)).toBe(400);
  });
});

describe("trims", () => {
  const [a] = layout([clip("a", { trimIn: 6, trimOut: 6 })], 24).clips;

  it("snaps a dragged head edge to whole frames, trimming more to the right", () => {
    expect(dragTrim(a, "in", 50, 100, 24)).toEqual({ trimIn: 18, trimOut: 6 });
    expect(dragTrim(a, "in", -1000, 100, 24)).toEqual({ trimIn: 0, trimOut: 6 });
  });

  it("trims more off the tail when its edge is dragged left, and never past one frame left", () => {
    expect(dragTrim(a, "out", -25, 100, 24)).toEqual({ trimIn: 6, trimOut: 12 });
    expect(dragTrim(a, "out", 1000, 100, 24)).toEqual({ trimIn: 6, trimOut: 0 });
    expect(dragTrim(a, "out", -10_000, 100, 24)).toEqual({ trimIn: 6, trimOut: 41 });
  });

  it("counts the one-frame rule in episode frames for a take at another rate", () => {
    // 30 frames at 30 fps = 1 s = 24 episode frames: at most 23 frames trimmed in all.
    const [c] = layout([clip("c", { frames: 30, fps: 30 })], 24).clips;
    expect(maxTrim(c, 0)).toBe(23);
    expect(clampTrim(c, "in", { trimIn: 99, trimOut: 3 })).toEqual({ trimIn: 20, trimOut: 3 });
    expect(clampTrim(c, "out", { trimIn: 0, trimOut: -4 })).toEqual({ trimIn: 0, trimOut: 0 });
  });

  it("sets in and out at the playhead, and refuses a time outside a playable clip", () => {
    const l = layout([clip("a"), clip("b", { trimIn: 12 }), clip("g", { usable: false, planned: 1 })], 24);
    const b = l.clips[1];
    // b starts at 2 s and plays 1.5 s: half a second in is 12 more frames off its head.
    expect(trimAt(b, "in", 2.5, 24)).toEqual({ trimIn: 24, trimOut: 0 });
    expect(trimAt(b, "out", 3, 24)).toEqual({ trimIn: 12, trimOut: 12 });
    expect(trimAt(b, "in", 1, 24)).toBeNull();
    expect(trimAt(l.clips[2], "in", 3.6, 24)).toBeNull();
  });
});

describe("order", () => {
  const l = layout([clip("a"), clip("b"), clip("c"), clip("d")], 24);

  it("moves an item, clamping the target", () => {
    expect(move(["a", "b", "c"], 0, 2)).toEqual(["b", "c", "a"]);
    expect(move(["a", "b", "c"], 2, -5)).toEqual(["c", "a", "b"]);
    expect(move(["a", "b", "c"], 5, 0)).toEqual(["a", "b", "c"]);
  });

  it("drops a dragged clip before the first other clip whose middle lies past the drop time", () => {
    // a dragged to 5.5 s: past b's middle (3) and c's (5), before d's (7).
    expect(move(["a", "b", "c", "d"], 0, dropIndex(l, 0, 5.5))).toEqual(["b", "c", "a", "d"]);
    expect(move(["a", "b", "c", "d"], 3, dropIndex(l, 3, 0))).toEqual(["d", "a", "b", "c"]);
    expect(move(["a", "b", "c", "d"], 1, dropIndex(l, 1, 99))).toEqual(["a", "c", "d", "b"]);
    // Dropped where it was: the order stays.
    expect(move(["a", "b", "c", "d"], 1, dropIndex(l, 1, 3))).toEqual(["a", "b", "c", "d"]);
  });
});

describe("timecode", () => {
  it("reads minutes, seconds and frames at the episode's rate", () => {
    expect(timecode(0, 24)).toBe("0:00:00");
    expect(timecode(3.5, 24)).toBe("0:03:12");
    expect(timecode(61 + 23 / 24, 24)).toBe("1:01:23");
    expect(timecode(1 / 30, 30)).toBe("0:00:01");
  });
});
