import { describe, expect, it } from 'vitest';
import { normalizeSpan } from '../../../collector/normalize/index.js';
import { rawSpan } from './span-builder.js';

describe('span times', () => {
  it('treats a missing end time (OTLP sends 0) as an instantaneous span', () => {
    const start = Date.UTC(2026, 10, 1, 12);
    const span = normalizeSpan(rawSpan({}, { startTimeMs: start, endTimeMs: 0 }), 'p');
    expect(span).toMatchObject({ start_time: start, end_time: start, duration_ms: 0 });
  });

  it('rounds sub-millisecond durations', () => {
    const span = normalizeSpan(rawSpan({}, { startTimeMs: 1_000.2, endTimeMs: 1_250.7 }), 'p');
    expect(span.duration_ms).toBe(251);
  });
});
