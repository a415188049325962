import { describe, expect, it } from 'vitest';
import { apiTraceQuery, filtersToQuery, isFiltered, parseFilters, type TraceFilters } from '../../../ui/src/lib/filters.js';

describe('trace filters in the URL', () => {
  it('round-trips every filter through the query string', () => {
    const f: TraceFilters = { status: 'error', name: 'support bot', range: '24h', limit: 100, cursor: 'WzE3MDAwMDAwMDAwMDAsInQxIl0' };
    const q = filtersToQuery(f).toString();
    expect(parseFilters(new URLSearchParams(q))).toEqual(f);
    const custom: TraceFilters = { from: '2026-01-01T00:00:00.000Z', to: '2026-01-02T00:00:00.000Z' };
    expect(parseFilters(filtersToQuery(custom))).toEqual(custom);
  });

  it('leaves defaults out of the URL', () => {
    expect(filtersToQuery({ limit: 50 }).toString()).toBe('');
    expect(filtersToQuery({}).toString()).toBe('');
  });

  it('drops values that make no sense instead of guessing', () => {
    expect(parseFilters(new URLSearchParams('status=weird&range=2y&from=yesterday&limit=5000&cursor=%3Cscript%3E&name=%20%20'))).toEqual({});
  });

  it('turns filters into the API query: a preset range becomes start_time from now', () => {
    const now = Date.parse('2026-03-01T12:00:00Z');
    const q = apiTraceQuery({ status: 'ok', name: 'bot', range: '1h' }, now);
    expect(Object.fromEntries(q)).toEqual({ limit: '50', status: 'ok', name: 'bot', start_time: '2026-03-01T11:00:00.000Z' });
    const fixed = apiTraceQuery({ from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z', cursor: 'abc' }, now);
    expect(Object.fromEntries(fixed)).toEqual({ limit: '50', start_time: '2026-01-01T00:00:00.000Z', end_time: '2026-01-02T00:00:00.000Z', cursor: 'abc' });
  });

  it('says whether the list is filtered (a cursor alone is not a filter)', () => {
    expect(isFiltered({ cursor: 'x' })).toBe(false);
    expect(isFiltered({ status: 'error' })).toBe(true);
  });
});
