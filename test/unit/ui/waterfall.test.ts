import { describe, expect, it } from 'vitest';
import { axisTicks, barGeometry, MIN_BAR_PCT, niceStep, traceBounds } from '../../../ui/src/lib/waterfall.js';

const at = (ms: number) => new Date(1_700_000_000_000 + ms).toISOString();
const s = (start: number, end: number) => ({ start_time: at(start), end_time: at(end) });

describe('waterfall geometry', () => {
  it('spans the axis from the earliest start to the latest end', () => {
    expect(traceBounds([s(100, 300), s(0, 50), s(200, 1000)])).toEqual({ startMs: 1_700_000_000_000, endMs: 1_700_000_001_000 });
    // The trace's own times widen it.
    const b = traceBounds([s(100, 200)], s(0, 2000));
    expect(b.endMs - b.startMs).toBe(2000);
  });

  it('places bars in percent of the axis', () => {
    const bounds = traceBounds([s(0, 1000)]);
    expect(barGeometry(s(250, 750), bounds)).toEqual({ left: 25, width: 50 });
    expect(barGeometry(s(0, 1000), bounds)).toEqual({ left: 0, width: 100 });
  });

  it('gives an instant span a visible bar that stays on the axis', () => {
    const bounds = traceBounds([s(0, 1000)]);
    expect(barGeometry(s(500, 500), bounds).width).toBe(MIN_BAR_PCT);
    const end = barGeometry(s(1000, 1000), bounds);
    expect(end.left + end.width).toBeCloseTo(100);
  });

  it('clamps a span outside the trace bounds, and an end before the start', () => {
    const bounds = traceBounds([s(0, 1000)]);
    expect(barGeometry(s(-500, 2000), bounds)).toEqual({ left: 0, width: 100 });
    expect(barGeometry(s(600, 100), bounds)).toEqual({ left: 60, width: MIN_BAR_PCT });
  });

  it('picks round tick steps (1, 2, 5 x 10^n)', () => {
    expect(niceStep(1000, 5)).toBe(200);
    expect(niceStep(7300, 5)).toBe(2000);
    expect(niceStep(45, 5)).toBe(10);
    expect(niceStep(3_600_000, 6)).toBe(1_000_000);
  });

  it('labels ticks from 0 to the duration in units that fit', () => {
    const ticks = axisTicks(traceBounds([s(0, 1000)]), 5);
    expect(ticks.map((t) => t.label)).toEqual(['0', '200 ms', '400 ms', '600 ms', '800 ms', '1000 ms']);
    expect(ticks.at(-1)!.pct).toBeCloseTo(100);
    expect(axisTicks(traceBounds([s(0, 60_000)]), 6).map((t) => t.label)).toContain('10 s');
    expect(axisTicks(traceBounds([s(0, 0)]))).toHaveLength(1);
  });
});
