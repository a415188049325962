import { describe, expect, it } from 'vitest';
import { rowWindow, scrollIntoView } from '../../../ui/src/lib/virtual.js';

describe('virtual window', () => {
  it('renders only the rows in view plus the overscan', () => {
    const w = rowWindow({ scrollTop: 2600, viewportHeight: 520, rowHeight: 26, count: 10_000, overscan: 10 });
    // Rows 100-119 are visible; 10 more each side.
    expect(w).toEqual({ start: 90, end: 130, offsetY: 90 * 26, totalHeight: 260_000 });
  });

  it('keeps the window inside the list at both ends', () => {
    expect(rowWindow({ scrollTop: 0, viewportHeight: 500, rowHeight: 25, count: 10_000, overscan: 5 })).toMatchObject({ start: 0, end: 25 });
    const end = rowWindow({ scrollTop: 999_999, viewportHeight: 500, rowHeight: 25, count: 10_000, overscan: 5 });
    expect(end.end).toBe(10_000);
    expect(end.start).toBe(10_000 - 20 - 5);
  });

  it('handles an empty list and a short one', () => {
    expect(rowWindow({ scrollTop: 0, viewportHeight: 500, rowHeight: 25, count: 0 })).toEqual({ start: 0, end: 0, offsetY: 0, totalHeight: 0 });
    expect(rowWindow({ scrollTop: 0, viewportHeight: 500, rowHeight: 25, count: 3 })).toMatchObject({ start: 0, end: 3 });
  });

  it('stays small however long the list: 100,000 rows render about a screenful', () => {
    const w = rowWindow({ scrollTop: 1_234_567, viewportHeight: 800, rowHeight: 26, count: 100_000 });
    expect(w.end - w.start).toBeLessThan(60);
  });

  it('scrolls a row into view only when it is not', () => {
    expect(scrollIntoView(5, 0, 260, 26)).toBeNull();
    expect(scrollIntoView(20, 0, 260, 26)).toBe(21 * 26 - 260);
    expect(scrollIntoView(2, 520, 260, 26)).toBe(52);
  });
});
