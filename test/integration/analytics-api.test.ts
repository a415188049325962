import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FieldIssue } from '../../core/errors.js';
import type { ComponentHealth, ComponentHealthRow, MetricSeries, ScoreCorrelation, ScoreTrends } from '../../core/model/analytics.js';
import {
  fixtureScore,
  fixtureScores,
  HOUR,
  MINUTE,
  pearson,
  quantile,
  spearman,
  traceBody,
  TRACES,
  windowStartHoursAgo,
  writeScores,
} from '../helpers/dashboard-analytics.js';
import { startTestApi, type TestApi } from '../helpers/server.js';

/**
 * GET /api/analytics/*: aggregates of known traces and scores, computed in ClickHouse, compared
 * with the numbers worked out here from the same fixture (test/helpers/dashboard-analytics.ts).
 * The window is three whole hours in the past: bucket 0 holds four traces, bucket 1 two, bucket 2
 * none. Another project holds traces and scores with the same ids and wildly different values.
 */

let svc: TestApi;
const OTHER = 'analytics-other';
/** The same traces with tied scores (pass/fail-like), for Spearman's rho under ties. */
const TIES = 'analytics-ties';
const TIED_SCORES = [1, 1, 0.5, 0.5, 0, 1];
/** Start of the window: an hour boundary five hours back, so every preset range from 24h up holds it. */
const T0 = windowStartHoursAgo(5);
const WINDOW = `start_time=${new Date(T0).toISOString()}&end_time=${new Date(T0 + 3 * HOUR).toISOString()}&interval=1h`;

interface ErrorBody {
  error: string;
  code: string;
  message: string;
  details: FieldIssue[];
}

async function ingest(body: unknown, project?: string): Promise<void> {
  const res = await svc.api('/api/traces/ingest', { method: 'POST', json: body, project });
  expect(res.status, await res.clone().text()).toBe(201);
}

async function get<T>(path: string, project?: string): Promise<T> {
  const res = await svc.api(path, { project });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as T;
}

beforeAll(async () => {
  svc = await startTestApi();
  const [a1, , , , , b2] = TRACES;
  // An older version of an-a1 first: shorter, fewer tokens. Reads take each span's newest row.
  await ingest(traceBody(a1, T0, { llmMs: 10, inputTokens: 1, outputTokens: 1 }));
  for (const t of TRACES) await ingest(traceBody(t, T0));
  // Re-sent whole: counts once.
  await ingest(traceBody(b2, T0));
  const scores = fixtureScores(T0);
  await writeScores(svc.clickhouse, svc.defaultProjectId, scores);
  // A retried evaluation activity writes the same scores again: each counts once.
  await writeScores(svc.clickhouse, svc.defaultProjectId, scores.slice(2, 4));

  // Another project: the same trace ids, slow, failing, and perfect scores. None of it may count above.
  await svc.keyFor(OTHER);
  for (const t of TRACES) await ingest(traceBody(t, T0, { duration: 50_000, llmMs: 40_000, toolError: true, model: 'other-model' }), OTHER);
  await writeScores(
    svc.clickhouse,
    OTHER,
    TRACES.map((t, i) => fixtureScore(`00000000-0000-4000-9000-00000000000${i}`, t.id, 'faithfulness', 1, 5 * MINUTE, T0)),
  );
  await svc.keyFor(TIES);
  for (const t of TRACES) await ingest(traceBody(t, T0), TIES);
  await writeScores(
    svc.clickhouse,
    TIES,
    TRACES.map((t, i) => fixtureScore(`00000000-0000-4000-9100-00000000000${i}`, t.id, 'faithfulness', TIED_SCORES[i], 5 * MINUTE, T0)),
  );
});
afterAll(async () => {
  await svc?.stop();
});

const bucketIso = (i: number) => new Date(T0 + i * HOUR).toISOString();
const sum = (v: number[]) => v.reduce((a, b) => a + b, 0);
const durations = (ts: typeof TRACES) => ts.map((t) => t.duration);
const traceTokens = (ts: typeof TRACES) => ts.map((t) => t.inputTokens + t.outputTokens);
const [A, B] = [TRACES.slice(0, 4), TRACES.slice(4)];

describe('GET /api/analytics/timeseries', () => {
  it('gives trace counts, error rates and latency and token percentiles per hour, empty hours as nulls', async () => {
    const s = await get<MetricSeries>(`/api/analytics/timeseries?${WINDOW}`);
    expect(s).toMatchObject({ level: 'trace', interval: '1h', interval_seconds: 3600, start_time: bucketIso(0), end_time: bucketIso(3) });
    expect(s.buckets).toEqual([bucketIso(0), bucketIso(1), bucketIso(2)]);
    expect(s.counts).toEqual([4, 2, 0]);
    // an-a3 and an-b1 have a failed tool call.
    expect(s.error_rates).toEqual([0.25, 0.5, null]);
    // Bucket 0: 100, 200, 300, 400 ms. p50 = 250, p95 = 300 + 0.85 * 100 = 385, p99 = 397.
    expect(s.latency_ms.p50[0]).toBeCloseTo(250, 9);
    expect(s.latency_ms.p95[0]).toBeCloseTo(385, 9);
    expect(s.latency_ms.p99[0]).toBeCloseTo(397, 9);
    expect(s.latency_ms.p50[1]).toBeCloseTo(2000, 9);
    expect(s.latency_ms.p95[1]).toBeCloseTo(quantile([1000, 3000], 0.95), 9);
    expect([s.latency_ms.p50[2], s.latency_ms.p95[2], s.latency_ms.p99[2]]).toEqual([null, null, null]);
    // Tokens of a trace: its LLM calls' input + output (an-a1's newer, larger counts).
    expect(s.tokens.p50[0]).toBeCloseTo(quantile(traceTokens(A), 0.5), 9);
    expect(s.tokens.p95[1]).toBeCloseTo(quantile(traceTokens(B), 0.95), 9);
    expect(s.overall.count).toBe(6);
    expect(s.overall.error_rate).toBeCloseTo(2 / 6, 9);
    expect(s.overall.latency_ms.p50).toBeCloseTo(quantile(durations(TRACES), 0.5), 9);
    expect(s.overall.latency_ms.p99).toBeCloseTo(quantile(durations(TRACES), 0.99), 9);
    expect(s.overall.tokens.p95).toBeCloseTo(quantile(traceTokens(TRACES), 0.95), 9);
  });

  it('narrows to spans of a component type or a model at level=span', async () => {
    const llm = await get<MetricSeries>(`/api/analytics/timeseries?${WINDOW}&level=span&component_type=generation`);
    expect(llm.level).toBe('span');
    expect(llm.counts).toEqual([4, 2, 0]);
    // Span durations: an-a1's newest row is 40 ms, not the first version's 10.
    expect(llm.latency_ms.p50[0]).toBeCloseTo(quantile([40, 80, 120, 160], 0.5), 9);
    expect(llm.latency_ms.p95[1]).toBeCloseTo(quantile([500, 1500], 0.95), 9);
    expect(llm.error_rates).toEqual([0, 0, null]);

    const claude = await get<MetricSeries>(`/api/analytics/timeseries?${WINDOW}&level=span&model=claude-3-5`);
    expect(claude.counts).toEqual([2, 0, 0]);
    expect(claude.tokens.p50[0]).toBeCloseTo(quantile([330, 440], 0.5), 9);

    const tools = await get<MetricSeries>(`/api/analytics/timeseries?${WINDOW}&level=span&component_type=tool`);
    expect(tools.error_rates).toEqual([0.25, 0.5, null]);

    // Spans without a component type: the roots.
    const roots = await get<MetricSeries>(`/api/analytics/timeseries?${WINDOW}&level=span&component_type=none`);
    expect(roots.counts).toEqual([4, 2, 0]);
    expect(roots.overall.latency_ms.p50).toBeCloseTo(quantile(durations(TRACES), 0.5), 9);
  });

  it('defaults to the last 24 hours in 15-minute buckets', async () => {
    const s = await get<MetricSeries>('/api/analytics/timeseries');
    expect(s.interval).toBe('15m');
    expect(Date.parse(s.end_time) - Date.parse(s.start_time)).toBe(24 * HOUR);
    expect(s.buckets.length).toBeGreaterThanOrEqual(96);
    expect(s.buckets.length).toBeLessThanOrEqual(97);
    expect(sum(s.counts)).toBe(6);
    expect(s.overall.count).toBe(6);
    // The 1h preset ends now: the fixture is older.
    expect((await get<MetricSeries>('/api/analytics/timeseries?range=1h')).overall.count).toBe(0);
  });
});

describe('GET /api/analytics/components', () => {
  const row = (rows: ComponentHealth['by_component_type'], type: string | null) => rows.find((r) => r.component_type === type);

  function expectRow(r: ComponentHealthRow | undefined, ms: number[], tokens: number[], errors: number) {
    expect(r).toBeDefined();
    expect(r!.span_count).toBe(ms.length);
    expect(r!.error_count).toBe(errors);
    expect(r!.error_rate).toBeCloseTo(errors / ms.length, 12);
    expect(r!.latency_ms.p50).toBeCloseTo(quantile(ms, 0.5), 9);
    expect(r!.latency_ms.p95).toBeCloseTo(quantile(ms, 0.95), 9);
    expect(r!.tokens.p50).toBeCloseTo(quantile(tokens, 0.5), 9);
    expect(r!.tokens.p95).toBeCloseTo(quantile(tokens, 0.95), 9);
    expect(r!.tokens.total).toBe(sum(tokens));
  }

  it('gives error rate, latency and token percentiles per component type and per model', async () => {
    const h = await get<ComponentHealth>(`/api/analytics/components?${WINDOW}`);
    // 6 roots, 6 LLM calls, 6 tool calls, 1 planning step; an-a1's older LLM row and an-b2's second copy not counted.
    expect(h.span_count).toBe(19);
    expect(h.by_component_type.map((r) => r.component_type).sort()).toEqual(['generation', 'planning', 'tool', null].sort());
    const zeros = (n: number) => new Array<number>(n).fill(0);
    expectRow(row(h.by_component_type, null), durations(TRACES), zeros(6), 0);
    expectRow(
      row(h.by_component_type, 'generation'),
      TRACES.map((t) => t.llmMs),
      traceTokens(TRACES),
      0,
    );
    expectRow(
      row(h.by_component_type, 'tool'),
      TRACES.map((t) => t.toolMs),
      zeros(6),
      2,
    );
    expectRow(row(h.by_component_type, 'planning'), [50], [0], 0);

    expect(h.by_model.map((m) => m.model)).toEqual(['gpt-4o', 'claude-3-5']);
    const gpt = TRACES.filter((t) => t.model === 'gpt-4o');
    expectRow(
      h.by_model[0],
      gpt.map((t) => t.llmMs),
      traceTokens(gpt),
      0,
    );
    const claude = TRACES.filter((t) => t.model === 'claude-3-5');
    expectRow(
      h.by_model[1],
      claude.map((t) => t.llmMs),
      traceTokens(claude),
      0,
    );
    expect(h.models_truncated).toBe(false);
  });

  it('narrows by component type and model', async () => {
    const tools = await get<ComponentHealth>(`/api/analytics/components?${WINDOW}&component_type=tool`);
    expect(tools.span_count).toBe(6);
    expect(tools.by_component_type.map((r) => r.component_type)).toEqual(['tool']);
    expect(tools.by_model).toEqual([]);
    const gpt = await get<ComponentHealth>(`/api/analytics/components?${WINDOW}&model=gpt-4o`);
    expect(gpt.span_count).toBe(4);
    expect(gpt.by_model.map((m) => m.model)).toEqual(['gpt-4o']);
  });

  it("counts the other project's spans only there", async () => {
    const other = await get<ComponentHealth>(`/api/analytics/components?${WINDOW}`, OTHER);
    expect(other.span_count).toBe(19);
    expect(other.by_model.map((m) => m.model)).toEqual(['other-model']);
    expect(other.by_component_type.find((r) => r.component_type === 'tool')?.error_rate).toBe(1);
  });
});

describe('GET /api/analytics/scores', () => {
  it('gives each score name its count and mean per bucket, each score once', async () => {
    const s = await get<ScoreTrends>(`/api/analytics/scores?${WINDOW}`);
    expect(s.buckets).toEqual([bucketIso(0), bucketIso(1), bucketIso(2)]);
    expect(s.total).toBe(9);
    expect(s.score_names.map((n) => [n.score_name, n.count])).toEqual([
      ['faithfulness', 7],
      ['helpfulness', 2],
    ]);
    expect(s.score_names[0].avg).toBeCloseTo(4 / 7, 12);
    const [f, h] = s.series;
    expect(f.score_name).toBe('faithfulness');
    expect(f.counts).toEqual([5, 2, 0]);
    expect(f.avgs[0]).toBeCloseTo((0.9 + 0.7 + 0.75 + 0.6 + 0.65) / 5, 12);
    expect(f.avgs[1]).toBeCloseTo(0.2, 12);
    expect(f.avgs[2]).toBeNull();
    expect(h.counts).toEqual([1, 0, 1]);
    expect(h.avgs).toEqual([1, null, 0.5]);
    expect(s.score_names_truncated).toBe(false);
  });

  it('narrows by name and source', async () => {
    const byName = await get<ScoreTrends>(`/api/analytics/scores?${WINDOW}&score_name=helpfulness`);
    expect(byName.series.map((x) => x.score_name)).toEqual(['helpfulness']);
    expect(byName.total).toBe(2);
    const bySource = await get<ScoreTrends>(`/api/analytics/scores?${WINDOW}&source=eval`);
    expect(bySource.score_names.map((x) => x.score_name)).toEqual(['faithfulness']);
  });

  it('counts scores sent with POST /api/scores at their creation time', async () => {
    const res = await svc.api('/api/scores', { method: 'POST', json: { trace_id: 'an-a2', name: 'api-check', value: 0.25 } });
    expect(res.status).toBe(201);
    const s = await get<ScoreTrends>('/api/analytics/scores?range=1h&score_name=api-check');
    expect(s.total).toBe(1);
    expect(s.series[0].avgs.filter((v) => v !== null)).toEqual([0.25]);
  });

  it("never counts the other project's scores", async () => {
    const other = await get<ScoreTrends>(`/api/analytics/scores?${WINDOW}`, OTHER);
    expect(other.total).toBe(6);
    expect(other.series[0].avgs[0]).toBe(1);
  });
});

describe('GET /api/analytics/correlation', () => {
  // Each trace's mean faithfulness (an-a1: 0.9 and 0.7) against its latency and tokens.
  const score = [0.8, 0.75, 0.6, 0.65, 0.3, 0.1];

  it('gives Pearson and Spearman correlation of a score with trace latency, and the points', async () => {
    const c = await get<ScoreCorrelation>(`/api/analytics/correlation?${WINDOW}&score_name=faithfulness&metric=latency`);
    expect(c).toMatchObject({ score_name: 'faithfulness', metric: 'latency', n: 6, sampled: false });
    const r = pearson(score, durations(TRACES));
    expect(r).toBeLessThan(-0.8);
    expect(c.pearson_r).toBeCloseTo(r, 9);
    expect(c.spearman_rho).toBeCloseTo(spearman(score, durations(TRACES)), 9);
    expect(c.score_mean).toBeCloseTo(sum(score) / 6, 12);
    expect(c.metric_mean).toBeCloseTo(sum(durations(TRACES)) / 6, 9);
    const points = new Map(c.points.map((p) => [p.trace_id, p]));
    expect(points.size).toBe(6);
    expect(points.get('an-a1')).toMatchObject({ value: 100 });
    expect(points.get('an-a1')!.score).toBeCloseTo(0.8, 12);
    expect(points.get('an-b2')).toMatchObject({ score: 0.1, value: 3000 });
  });

  it('correlates with tokens too', async () => {
    const c = await get<ScoreCorrelation>(`/api/analytics/correlation?${WINDOW}&score_name=faithfulness&metric=tokens`);
    expect(c.n).toBe(6);
    expect(c.pearson_r).toBeCloseTo(pearson(score, traceTokens(TRACES)), 9);
    expect(c.points.find((p) => p.trace_id === 'an-b2')?.value).toBe(3300);
  });

  it("gives Spearman's rho of mean ranks when scores tie", async () => {
    const c = await get<ScoreCorrelation>(`/api/analytics/correlation?${WINDOW}&score_name=faithfulness&metric=latency`, TIES);
    expect(c.n).toBe(6);
    const rho = spearman(TIED_SCORES, durations(TRACES));
    expect(c.spearman_rho).toBeCloseTo(rho, 9);
    expect(c.pearson_r).toBeCloseTo(pearson(TIED_SCORES, durations(TRACES)), 9);
  });

  it('says nothing when too few traces or the score does not vary', async () => {
    // helpfulness: two traces.
    const two = await get<ScoreCorrelation>(`/api/analytics/correlation?${WINDOW}&score_name=helpfulness`);
    expect(two).toMatchObject({ n: 2, pearson_r: null, spearman_rho: null });
    // The other project's faithfulness is always 1.
    const flat = await get<ScoreCorrelation>(`/api/analytics/correlation?${WINDOW}&score_name=faithfulness`, OTHER);
    expect(flat).toMatchObject({ n: 6, pearson_r: null, spearman_rho: null, score_mean: 1, metric_mean: 50_000 });
    const none = await get<ScoreCorrelation>(`/api/analytics/correlation?${WINDOW}&score_name=no-such-score`);
    expect(none).toMatchObject({ n: 0, pearson_r: null, points: [], sampled: false, score_mean: null });
  });
});

describe('bad parameters: the SPEC 422', () => {
  const cases: Array<[string, string]> = [
    ['/api/analytics/timeseries?range=2d', 'range'],
    ['/api/analytics/timeseries?range=1h&start_time=2026-01-01T00:00:00Z', 'range'],
    ['/api/analytics/scores?start_time=2026-02-01T00:00:00Z&end_time=2026-01-01T00:00:00Z', 'start_time'],
    ['/api/analytics/scores?start_time=2025-01-01T00:00:00Z&end_time=2025-06-01T00:00:00Z', 'start_time'],
    ['/api/analytics/scores?range=30d&interval=1m', 'interval'],
    ['/api/analytics/scores?interval=2m', 'interval'],
    ['/api/analytics/scores?source=robot', 'source'],
    ['/api/analytics/scores?start_time=yesterday', 'start_time'],
    ['/api/analytics/components?component_type=agent', 'component_type'],
    ['/api/analytics/timeseries?model=gpt-4o', 'model'],
    ['/api/analytics/timeseries?level=run', 'level'],
    ['/api/analytics/correlation', 'score_name'],
    ['/api/analytics/correlation?score_name=faithfulness&metric=cost', 'metric'],
  ];
  it.each(cases)('%s names %s', async (path, field) => {
    const res = await svc.api(path);
    expect(res.status).toBe(422);
    const body = (await res.json()) as ErrorBody;
    // Correlation analysis has the SPEC's own codes (INVALID_INPUT for a refused query); the body is the same.
    const code = path.startsWith('/api/analytics/correlation') ? 'INVALID_INPUT' : 'VALIDATION_ERROR';
    expect(body).toMatchObject({ error: 'Validation error', code, message: 'Field validation failed' });
    expect(body.details.map((d) => d.field)).toContain(field);
  });

  it('needs credentials like every read', async () => {
    const res = await svc.api('/api/analytics/components', { key: null });
    expect(res.status).toBe(401);
  });
});
