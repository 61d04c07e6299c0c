// Which rows of a long list to draw: rows have one fixed height, so the rows in view follow from the scroll offset
// alone, and only those (plus a margin either side, so a quick scroll does not show blank space) are rendered.

export interface RowWindow {
  /** First row drawn. */
  start: number;
  /** One past the last row drawn. */
  end: number;
  /** Where the first drawn row sits from the top of the list, in pixels. */
  offset: number;
  /** Height of the whole list, in pixels. */
  total: number;
}

/**
 * The rows to draw for a list of `count` rows of `rowHeight` pixels scrolled to `scrollTop` in a viewport of
 * `viewport` pixels, with `margin` extra rows either side.
 */
export function rowWindow(
  count: number,
  rowHeight: number,
  scrollTop: number,
  viewport: number,
  margin = 8,
): RowWindow {
  const total = Math.max(0, count) * rowHeight;
  if (count <= 0 || rowHeight <= 0) return { start: 0, end: 0, offset: 0, total };
  const top = Math.min(Math.max(0, scrollTop), Math.max(0, total - viewport));
  const first = Math.floor(top / rowHeight);
  const last = Math.ceil((top + Math.max(0, viewport)) / rowHeight);
  const start = Math.max(0, first - margin);
  const end = Math.min(count, Math.max(last, first + 1) + margin);
  return { start, end, offset: start * rowHeight, total };
}

/**
 * The scroll offset that brings row `index` wholly into view, moving as little as possible: unchanged when it is
 * already in view, else the row lands at the nearer edge.
 */
export function revealRow(index: number, rowHeight: number, scrollTop: number, viewport: number): number {
  const top = index * rowHeight;
  const bottom = top + rowHeight;
  if (top < scrollTop) return top;
  if (bottom > scrollTop + viewport) return Math.max(0, bottom - viewport);
  return scrollTop;
}
