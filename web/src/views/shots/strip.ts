// A take's strip is its frames in equal cells side by side; hovering a thumbnail shows the cell under the pointer by
// sizing the strip to `cells` times the box and sliding it, so scrubbing needs no extra request per frame.

/** The cells of a take's strip, as the service makes it. */
export const STRIP_CELLS = 8;

/** The cell under a pointer `x` pixels from the left of a box `width` pixels wide. */
export function stripCell(x: number, width: number, cells = STRIP_CELLS): number {
  if (!(width > 0) || cells < 1 || !Number.isFinite(x)) return 0;
  const cell = Math.floor((x / width) * cells);
  return Math.min(cells - 1, Math.max(0, cell));
}

/** CSS `background-size` and `background-position` that show cell `cell` of a strip filling the box. */
export function stripBackground(cell: number, cells = STRIP_CELLS): { size: string; position: string } {
  const size = `${cells * 100}% 100%`;
  if (cells <= 1) return { size, position: "0% 0%" };
  const at = Math.min(cells - 1, Math.max(0, Math.round(cell)));
  // A percentage position p puts the picture's p-point on the box's p-point: cell i of n lines up at i/(n-1).
  const percent = Math.round((at / (cells - 1)) * 1e6) / 1e4;
  return { size, position: `${percent}% 0%` };
}
