// The waveform's maths and the audio windows' drag maths of the Cut view.
import { describe, expect, it } from "vitest";
import {
  type AudioWindow,
  keyStep,
  lanes,
  MIN_WINDOW,
  moveWindow,
  snap,
  windowChanged,
  windowsOf,
  windowText,
} from "../web/src/views/cut/audio-windows.ts";
import {
  bars,
  binsFor,
  MAX_BINS,
  peakBytes,
  timeAtX,
  visibleSpan,
  xAtTime,
} from "../web/src/views/cut/wave.ts";

describe("waveform maths", () => {
  it("asks one bin per drawn pixel, within the service's limits", () => {
    expect(binsFor(812.4)).toBe(812);
    expect(binsFor(0)).toBe(1);
    expect(binsFor(Number.NaN)).toBe(1);
    expect(binsFor(250_000)).toBe(MAX_BINS);
  });

  it("maps pixels to seconds and back at a zoom", () => {
    expect(timeAtX(120, 40)).toBe(3);
    expect(timeAtX(-10, 40)).toBe(0);
    expect(xAtTime(3.5, 40)).toBe(140);
  });

  it("asks only for the stretch in view, clipped to the track", () => {
    expect(visibleSpan(400, 800, 40, 600)).toEqual({ start: 10, end: 30, bins: 800 });
    // The strip runs past the track's end: fewer bins, the track's end.
    expect(visibleSpan(0, 800, 40, 12.5)).toEqual({ start: 0, end: 12.5, bins: 500 });
    // Unknown length: asked as it is.
    expect(visibleSpan(0, 800, 40, null)).toEqual({ start: 0, end: 20, bins: 800 });
    // Scrolled past the end, or nothing to draw.
    expect(visibleSpan(1000, 800, 40, 20)).toBeNull();
    expect(visibleSpan(0, 0, 40, 20)).toBeNull();
  });

  it("reads peaks as bytes from a list or hex", () => {
    expect([...peakBytes([0, 12.4, 255, 300, -2])]).toEqual([0, 12, 255, 255, 0]);
    expect([...peakBytes("00ff7f")]).toEqual([0, 255, 127]);
  });

  it("draws one mirrored bar per peak, silence as a hairline", () => {
    const b = bars(Uint8Array.from([0, 255, 51]), 300, 100);
    expect(b.map((x) => x.x)).toEqual([0, 100, 200]);
    expect(b.map((x) => x.width)).toEqual([100, 100, 100]);
    expect(b.map((x) => x.half)).toEqual([0.5, 50, 10]);
    expect(bars(new Uint8Array(0), 300, 100)).toEqual([]);
  });
});

describe("audio windows", () => {
  const w: AudioWindow = { shot: "sh010", audio_in: 1, audio_out: 3.1 };

  it("reads the windows of the shots that have one", () => {
    expect(
      windowsOf([
        { shot: "a", audio_in: 0, audio_out: 2 },
        { shot: "b", audio_in: null, audio_out: null },
        { shot: "c" },
        { shot: "d", audio_in: 3, audio_out: 3 },
      ]),
    ).toEqual([{ shot: "a", audio_in: 0, audio_out: 2 }]);
  });

  it("snaps to hundredths", () => {
    expect(snap(1.234)).toBe(1.23);
    expect(snap(1.235000001)).toBe(1.24);
  });

  it("moves an edge alone, never past the other edge", () => {
    expect(moveWindow(w, "in", 0.504, 10)).toEqual({ ...w, audio_in: 1.5 });
    expect(moveWindow(w, "in", 5, 10)).toEqual({ ...w, audio_in: snap(3.1 - MIN_WINDOW) });
    expect(moveWindow(w, "in", -5, 10)).toEqual({ ...w, audio_in: 0 });
    expect(moveWindow(w, "out", 0.333, 10)).toEqual({ ...w, audio_out: 3.43 });
    expect(moveWindow(w, "out", -5, 10)).toEqual({ ...w, audio_out: snap(1 + MIN_WINDOW) });
    expect(moveWindow(w, "out", 50, 10)).toEqual({ ...w, audio_out: 10 });
  });

  it("moves the whole window keeping its length, inside the track", () => {
    expect(moveWindow(w, "body", 2.017, 10)).toEqual({ ...w, audio_in: 3.02, audio_out: 5.12 });
    expect(moveWindow(w, "body", -4, 10)).toEqual({ ...w, audio_in: 0, audio_out: 2.1 });
    expect(moveWindow(w, "body", 20, 10)).toEqual({ ...w, audio_in: 7.9, audio_out: 10 });
    // No known length: no upper bound.
    expect(moveWindow(w, "body", 20, null)).toEqual({ ...w, audio_in: 21, audio_out: 23.1 });
  });

  it("steps by keys: a hundredth, a tenth with Shift", () => {
    expect(keyStep("ArrowRight", false)).toBe(0.01);
    expect(keyStep("ArrowLeft", true)).toBe(-0.1);
    expect(keyStep("a", false)).toBeNull();
  });

  it("tells a moved window from the script's", () => {
    expect(windowChanged(w, { ...w, audio_in: 1.001 })).toBe(false);
    expect(windowChanged(w, { ...w, audio_in: 1.01 })).toBe(true);
  });

  it("puts overlapping windows in lanes", () => {
    const ws = [
      { shot: "a", audio_in: 0, audio_out: 2 },
      { shot: "b", audio_in: 1.5, audio_out: 3 },
      { shot: "c", audio_in: 2, audio_out: 4 },
      { shot: "d", audio_in: 3, audio_out: 5 },
    ];
    expect(lanes(ws)).toEqual([0, 1, 0, 1]);
    expect(lanes([])).toEqual([]);
  });

  it("writes a window as the script's key line does", () => {
    expect(windowText({ audio_in: 1, audio_out: 3.1 })).toBe("1.00-3.10");
  });
});
