// Scrubbing a take's strip: the cell under the pointer and the background placement that shows it.
import { describe, expect, it } from "vitest";
import { STRIP_CELLS, stripBackground, stripCell } from "../web/src/views/shots/strip.ts";

describe("stripCell", () => {
  it("splits the box into eight equal cells", () => {
    expect(STRIP_CELLS).toBe(8);
    expect(stripCell(0, 160)).toBe(0);
    expect(stripCell(19.9, 160)).toBe(0);
    expect(stripCell(20, 160)).toBe(1);
    expect(stripCell(80, 160)).toBe(4);
    expect(stripCell(159.9, 160)).toBe(7);
  });

  it("holds the pointer to the first and last cell outside the box", () => {
    expect(stripCell(-5, 160)).toBe(0);
    expect(stripCell(160, 160)).toBe(7);
    expect(stripCell(500, 160)).toBe(7);
  });

  it("answers the first cell for a box not laid out yet", () => {
    expect(stripCell(10, 0)).toBe(0);
    expect(stripCell(Number.NaN, 160)).toBe(0);
  });

  it("follows another cell count", () => {
    expect(stripCell(50, 100, 4)).toBe(2);
  });
});

describe("stripBackground", () => {
  it("sizes the strip to eight boxes wide", () => {
    expect(stripBackground(0).size).toBe("800% 100%");
  });

  it("puts the first cell at 0% and the last at 100%", () => {
    expect(stripBackground(0).position).toBe("0% 0%");
    expect(stripBackground(7).position).toBe("100% 0%");
  });

  it("places a middle cell at i/(n-1) of the way", () => {
    // Cell 2 of 8: 2/7 = 28.5714%.
    expect(stripBackground(2).position).toBe("28.5714% 0%");
    expect(stripBackground(1, 3).position).toBe("50% 0%");
  });

  it("shows the one cell of a single-cell strip", () => {
    expect(stripBackground(0, 1)).toEqual({ size: "100% 100%", position: "0% 0%" });
  });

  it("holds a cell outside the strip to its ends", () => {
    expect(stripBackground(12).position).toBe("100% 0%");
    expect(stripBackground(-1).position).toBe("0% 0%");
  });
});
