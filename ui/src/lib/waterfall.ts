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
    ticks.push({ ms, pct: (ms / duration) * 100, label: formatOffset(ms, step) });
  }
  return ticks;
}

/** An offset on the axis, in units that suit the step (ms below 1 s, s below 2 min, else min). */
export function formatOffset(ms: number, step = ms): string {
  if (ms === 0) return '0';
  if (step < 1000) return `${trim(ms, step < 1 ? 3 : step < 10 ? 1 : 0)} ms`;
  if (step < 120_000) return `${trim(ms / 1000, step < 10_000 ? 1 : 0)} s`;
  return `${trim(ms / 60_000, 1)} min`;
}

function trim(n: number, digits: number): string {
  return Number(n.toFixed(digits)).toString();
}
