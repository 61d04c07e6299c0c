// The shot list draws only the rows in view plus a margin; these check the window and the scroll that reveals a row.
import { describe, expect, it } from "vitest";
import { revealRow, rowWindow } from "../web/src/views/shots/window.ts";

describe("rowWindow", () => {
  it("draws the rows in view and the margin below at the top of a long list", () => {
    // 300 rows of 50 px in a 500 px viewport: rows 0–9 are in view, 8 more below.
    expect(rowWindow(300, 50, 0, 500, 8)).toEqual({ start: 0, end: 18, offset: 0, total: 15000 });
  });

  it("draws a margin on both sides in the middle, the offset placing the first drawn row", () => {
    // Scrolled to 5000 px: rows 100–109 in view.
    const w = rowWindow(300, 50, 5000, 500, 8);
    expect(w).toEqual({ start: 92, end: 118, offset: 92 * 50, total: 15000 });
  });

  it("counts a row cut by the viewport's edges as in view", () => {
    const w = rowWindow(300, 50, 25, 500, 0);
    expect([w.start, w.end]).toEqual([0, 11]);
  });

  it("stops at the end of the list, even when scrolled past it", () => {
    const w = rowWindow(300, 50, 99999, 500, 8);
    expect(w.end).toBe(300);
    expect(w.start).toBe(290 - 8);
  });

  it("draws every row of a list shorter than the viewport", () => {
    expect(rowWindow(4, 50, 0, 500, 8)).toEqual({ start: 0, end: 4, offset: 0, total: 200 });
  });

  it("draws at least one row before the viewport is measured", () => {
    const w = rowWindow(300, 50, 0, 0, 2);
    expect([w.start, w.end]).toEqual([0, 3]);
  });

  it("draws nothing for an empty list", () => {
    expect(rowWindow(0, 50, 0, 500)).toEqual({ start: 0, end: 0, offset: 0, total: 0 });
  });

  it("keeps the number of drawn rows bounded however long the list", () => {
    const w = rowWindow(100_000, 50, 2_500_000, 600, 8);
    expect(w.end - w.start).toBeLessThanOrEqual(12 + 16 + 1);
  });
});

describe("revealRow", () => {
  it("leaves the scroll alone when the row is in view", () => {
    expect(revealRow(5, 50, 0, 500)).toBe(0);
  });

  it("scrolls up so a row above the view sits at the top", () => {
    expect(revealRow(3, 50, 400, 500)).toBe(150);
  });

  it("scrolls down so a row below the view sits at the bottom", () => {
    expect(revealRow(20, 50, 0, 500)).toBe(21 * 50 - 500);
  });

  it("reveals a row cut by the bottom edge", () => {
    expect(revealRow(9, 50, 10, 500)).toBe(10);
    expect(revealRow(10, 50, 10, 500)).toBe(50);
  });
});
