/** Waterfall geometry: where a span's bar sits on the trace's time axis, and the axis's ticks. */

export interface TimedSpan {
  start_time: string;
  end_time: string;
}

export interface Bounds {
  startMs: number;
  endMs: number;
}

/** The earliest start and latest end over the spans (and the trace's own times when given). */
export function traceBounds(spans: readonly TimedSpan[], trace?: TimedSpan): Bounds {
  let startMs = trace ? Date.parse(trace.start_time) : Infinity;
  let endMs = trace ? Date.parse(trace.end_time) : -Infinity;
  for (const s of spans) {
    const a = Date.parse(s.start_time);
    const b = Date.parse(s.end_time);
    if (a < startMs) startMs = a;
    if (b > endMs) endMs = b;
  }
  if (!Number.isFinite(startMs)) return { startMs: 0, endMs: 1 };
  if (!Number.isFinite(endMs) || endMs < startMs) endMs = startMs;
  return { startMs, endMs };
}

/** Narrowest bar, in percent of the axis, so an instant span stays visible and clickable. */
export const MIN_BAR_PCT = 0.3;

/** A bar's left edge and width in percent of the axis (0-100), clamped to it. */
export function barGeometry(span: TimedSpan, bounds: Bounds): { left: number; width: number } {
  const total = Math.max(bounds.endMs - bounds.startMs, 1);
  const start = Math.min(Math.max(Date.parse(span.start_time), bounds.startMs), bounds.endMs);
  const end = Math.min(Math.max(Date.parse(span.end_time), start), bounds.endMs);
  let left = ((start - bounds.startMs) / total) * 100;
  let width = Math.max(((end - start) / total) * 100, MIN_BAR_PCT);
  if (left + width > 100) {
    width = Math.min(width, 100);
    left = 100 - width;
  }
  return { left, width };
}

/** A step of 1, 2 or 5 times a power of ten giving about `target` intervals over `durationMs`. */
export function niceStep(durationMs: number, target = 5): number {
  const raw = Math.max(durationMs, 1e-3) / target;
  const power = 10 ** Math.floor(Math.log10(raw));
  const m = raw / power;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * power;
}

export interface Tick {
  ms: number;
  pct: number;
  label: string;
}

/** Ticks from 0 to the trace's duration, labelled relative to its start. */
export function axisTicks(bounds: Bounds, target = 5): Tick[] {
  const duration = Math.max(bounds.endMs - bounds.startMs, 0);
  if (duration === 0) return [{ ms: 0, pct: 0, label: '0 ms' }];
  const step = niceStep(duration, target);
  const ticks: Tick[] = [];
  for (let ms = 0; ms <= duration + step * 1e-9; ms += step) {
    ticks.push({ ms, pct: (ms / duration) * 100, label: formatOffset(ms, step, duration) });
  }
  return ticks;
}

/** Pixels an axis label takes per character (11.5 px digits), plus its padding and border. */
const LABEL_CHAR_PX = 7;
const LABEL_PAD_PX = 8;

export interface PlacedTick extends Tick {
  /** Drawn to the left of its line (the ticks near the axis's end), else to the right. */
  alignEnd: boolean;
}

/**
 * The ticks an axis `widthPx` wide has room for: about one per 90 px (at least two), and none whose label would
 * overlap the one before it (a label near the end is drawn to the left of its line, so it could
 * run into its neighbour: "2000 m2500 ms").
 */
export function spacedTicks(bounds: Bounds, widthPx: number): PlacedTick[] {
  const target = Math.min(Math.max(Math.floor(widthPx / 90), 2), 8);
  const ticks = axisTicks(bounds, target);
  const placed: Array<PlacedTick & { from: number; to: number }> = [];
  ticks.forEach((t, i) => {
    const x = (t.pct / 100) * widthPx;
    const w = t.label.length * LABEL_CHAR_PX + LABEL_PAD_PX;
    const alignEnd = x + w > widthPx;
    const tick = { ...t, alignEnd, from: alignEnd ? x - w : x, to: alignEnd ? x : x + w };
    const last = i === ticks.length - 1 && i > 0;
    // The last tick marks the trace's end: it takes the place of the labels it would overlap (never the 0).
    while (last && placed.length > 1 && tick.from < placed[placed.length - 1].to + 4) placed.pop();
    if (placed.length === 0 || tick.from >= placed[placed.length - 1].to + 4) placed.push(tick);
  });
  return placed.map(({ from: _from, to: _to, ...t }) => t);
}

/**
 * An offset on the axis, in one unit for the whole axis (ms when it spans at most 1 s, s below
 * 2 min or for steps under a minute, else min), with the decimals its step needs: "0", "0.5 s",
 * "1 s", "1.5 s".
 */
export function formatOffset(ms: number, step = ms, axisMs = Math.max(ms, step)): string {
  if (ms === 0) return '0';
  if (axisMs <= 1000) return `${trim(ms, decimals(step))} ms`;
  if (axisMs < 120_000 || step < 60_000) return `${trim(ms / 1000, decimals(step / 1000))} s`;
  return `${trim(ms / 60_000, decimals(step / 60_000))} min`;
}

/** Decimals that tell apart multiples of `step` (1, 2 or 5 times a power of ten). */
function decimals(step: number): number {
  return step >= 1 ? 0 : Math.min(Math.ceil(-Math.log10(step) - 1e-9), 3);
}

function trim(n: number, digits: number): string {
  return Number(n.toFixed(digits)).toString();
}
