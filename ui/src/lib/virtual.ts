/** Virtual scrolling with fixed-height rows: only the rows in view (plus a margin) are in the DOM. */

export interface WindowInput {
  scrollTop: number;
  viewportHeight: number;
  rowHeight: number;
  count: number;
  /** Extra rows above and below the viewport, so fast scrolling shows no blank band. */
  overscan?: number;
}

export interface RowWindow {
  /** First row to render (inclusive) and last (exclusive). */
  start: number;
  end: number;
  /** Where the first rendered row sits, in px from the top of the list. */
  offsetY: number;
  /** The height of all rows: the scroll area's size. */
  totalHeight: number;
}

export function rowWindow({ scrollTop, viewportHeight, rowHeight, count, overscan = 10 }: WindowInput): RowWindow {
  const totalHeight = count * rowHeight;
  if (count === 0 || rowHeight <= 0) return { start: 0, end: 0, offsetY: 0, totalHeight };
  const top = Math.min(Math.max(scrollTop, 0), Math.max(totalHeight - viewportHeight, 0));
  const first = Math.floor(top / rowHeight);
  const last = Math.ceil((top + Math.max(viewportHeight, 0)) / rowHeight);
  const start = Math.max(first - overscan, 0);
  const end = Math.min(last + overscan, count);
  return { start, end, offsetY: start * rowHeight, totalHeight };
}

/** The scrollTop that brings row `index` fully into view, or null when it already is. */
export function scrollIntoView(index: number, scrollTop: number, viewportHeight: number, rowHeight: number): number | null {
  const rowTop = index * rowHeight;
  const rowBottom = rowTop + rowHeight;
  if (rowTop < scrollTop) return rowTop;
  if (rowBottom > scrollTop + viewportHeight) return Math.max(rowBottom - viewportHeight, 0);
  return null;
}
