import { describe, expect, it } from 'vitest';
import { apiTraceQuery, durationInput, filtersToQuery, isFiltered, parseDuration, parseFilters, type TraceFilters } from '../../../ui/src/lib/filters.js';
import { colsParam, shownColumns } from '../../../ui/src/lib/trace-columns.js';
import { expectUrlRoundTrip, type FiltersInUrl } from '../../helpers/url-filters.js';

const traceFiltersInUrl: FiltersInUrl<TraceFilters> = { toQuery: filtersToQuery, parse: parseFilters };

describe('trace filters in the URL', () => {
  it('round-trips every filter through the query string', () => {
    const f: TraceFilters = { status: 'error', name: 'support bot', range: '24h', limit: 100, cursor: 'WzE3MDAwMDAwMDAwMDAsInQxIl0' };
    const q = filtersToQuery(f).toString();
    expect(parseFilters(new URLSearchParams(q))).toEqual(f);
    const custom: TraceFilters = { from: '2026-01-01T00:00:00.000Z', to: '2026-01-02T00:00:00.000Z' };
    expect(parseFilters(filtersToQuery(custom))).toEqual(custom);
    const more: TraceFilters = {
      search: 'refund',
      model: 'gpt-4o',
      component: 'retrieval',
      minDurationMs: 2500,
      hasErrors: false,
      scoreName: 'quality',
      scoreBelow: 0.5,
    };
    expectUrlRoundTrip(
      traceFiltersInUrl,
      more,
      'search=refund&model=gpt-4o&component_type=retrieval&min_duration_ms=2500&has_errors=false&score_name=quality&score_below=0.5',
    );
    expect(parseFilters(filtersToQuery({ hasErrors: true, minDurationMs: 0 }))).toEqual({ hasErrors: true, minDurationMs: 0 });
    // Sessions and tags, as GET /api/traces names them (the session view links to /traces?session_id=).
    const session: TraceFilters = { sessionId: '会话-2 ✓', userId: 'layla@example.com', environment: 'prod', tag: 'beta' };
    expectUrlRoundTrip(traceFiltersInUrl, session, 'session_id=%E4%BC%9A%E8%AF%9D-2+%E2%9C%93&user_id=layla%40example.com&environment=prod&tag=beta');
    expect(Object.fromEntries(apiTraceQuery(session))).toEqual({
      limit: '50',
      session_id: '会话-2 ✓',
      user_id: 'layla@example.com',
      environment: 'prod',
      tag: 'beta',
    });
    expect(isFiltered({ tag: 'beta' })).toBe(true);
    expect(parseFilters(new URLSearchParams('session_id=%20&tag='))).toEqual({});
  });

  it('leaves defaults out of the URL', () => {
    expect(filtersToQuery({ limit: 50 }).toString()).toBe('');
    expect(filtersToQuery({}).toString()).toBe('');
  });

  it('drops values that make no sense instead of guessing', () => {
    expect(parseFilters(new URLSearchParams('status=weird&range=2y&from=yesterday&limit=5000&cursor=%3Cscript%3E&name=%20%20'))).toEqual({});
    expect(parseFilters(new URLSearchParams('component_type=widget&min_duration_ms=-5&has_errors=maybe&search=%20&model='))).toEqual({});
    // A score threshold needs its name and a value in 0..1.
    expect(parseFilters(new URLSearchParams('score_name=quality'))).toEqual({});
    expect(parseFilters(new URLSearchParams('score_below=0.5'))).toEqual({});
    expect(parseFilters(new URLSearchParams('score_name=quality&score_below=1.5'))).toEqual({});
  });

  it('reads durations as people type them', () => {
    const typed: Array<[string, number | null]> = [
      ['250', 250],
      ['250ms', 250],
      ['2s', 2000],
      ['1.5 s', 1500],
      ['3m', 180_000],
      ['2 min', 120_000],
      ['1H', 3_600_000],
      ['fast', null],
      ['-1s', null],
      ['', null],
    ];
    for (const [text, ms] of typed) expect(parseDuration(text), text).toBe(ms);
    const written: Array<[number, string]> = [
      [2000, '2s'],
      [1500, '1.5s'],
      [120_000, '2m'],
      [250, '250ms'],
    ];
    for (const [ms, text] of written) expect(durationInput(ms)).toBe(text);
    for (const ms of [250, 1500, 2000, 120_000, 1234]) expect(parseDuration(durationInput(ms))).toBe(ms);
  });

  it('turns filters into the API query: a preset range becomes start_time from now', () => {
    const now = Date.parse('2026-03-01T12:00:00Z');
    const q = apiTraceQuery({ status: 'ok', name: 'bot', range: '1h' }, now);
    expect(Object.fromEntries(q)).toEqual({ limit: '50', status: 'ok', name: 'bot', start_time: '2026-03-01T11:00:00.000Z' });
    const fixed = apiTraceQuery({ from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z', cursor: 'abc' }, now);
    expect(Object.fromEntries(fixed)).toEqual({ limit: '50', start_time: '2026-01-01T00:00:00.000Z', end_time: '2026-01-02T00:00:00.000Z', cursor: 'abc' });
    const all = apiTraceQuery({ search: 'x', model: 'm', component: 'tool', minDurationMs: 10, hasErrors: true, scoreName: 'q', scoreBelow: 0.25 }, now);
    expect(Object.fromEntries(all)).toEqual({
      limit: '50',
      search: 'x',
      model: 'm',
      component_type: 'tool',
      min_duration_ms: '10',
      has_errors: 'true',
      score_name: 'q',
      score_below: '0.25',
    });
  });

  it('says whether the list is filtered (a cursor alone is not a filter)', () => {
    expect(isFiltered({ cursor: 'x' })).toBe(false);
    expect(isFiltered({ status: 'error' })).toBe(true);
    expect(isFiltered({ hasErrors: false })).toBe(true);
    expect(isFiltered({ minDurationMs: 0 })).toBe(true);
    expect(isFiltered({ search: 'a' })).toBe(true);
  });
});

describe('the traces list order, source and columns in the URL', () => {
  it('round-trips the order, the source and the columns, and sends the first two to the API', () => {
    const f: TraceFilters = { source: 'production', sort: 'score', order: 'asc', sortScore: 'quality', cols: 'input,cost,spans' };
    expectUrlRoundTrip(traceFiltersInUrl, f, 'source=production&sort=score&sort_score=quality&order=asc&cols=input%2Ccost%2Cspans');
    expect(Object.fromEntries(apiTraceQuery(f))).toEqual({ limit: '50', source: 'production', sort: 'score', sort_score: 'quality', order: 'asc' });
    expect(isFiltered({ source: 'evaluation' })).toBe(true);
    expect(isFiltered({ sort: 'cost' })).toBe(false);
  });

  it('drops an order or source it does not know, sort=score without its score, and the default order', () => {
    expect(parseFilters(new URLSearchParams('sort=price&source=staging&order=up&cols=%3Cb%3E'))).toEqual({});
    expect(parseFilters(new URLSearchParams('sort=score'))).toEqual({});
    expect(parseFilters(new URLSearchParams('sort=time&order=desc'))).toEqual({});
  });

  it('shows the chosen columns, the name always first; the default choice leaves cols out', () => {
    expect(shownColumns(undefined).map((c) => c.id)).toEqual([
      'name',
      'input',
      'output',
      'status',
      'started',
      'duration',
      'tokens',
      'cost',
      'errors',
      'scores',
    ]);
    expect(shownColumns('cost,bogus,input').map((c) => c.id)).toEqual(['name', 'input', 'cost']);
    expect(colsParam(shownColumns(undefined).map((c) => c.id))).toBeUndefined();
    expect(colsParam(['name', 'spans', 'input'])).toBe('input,spans');
    expect(colsParam(['name'])).toBe('name');
    expect(shownColumns(colsParam(['name'])).map((c) => c.id)).toEqual(['name']);
  });
});
