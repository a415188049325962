import type { Score } from '../../core/model/score.js';
import { createAnalyticsStore } from '../../core/store/clickhouse/analytics-store.js';
import { httpClickHouse, type ClickHouseClient } from '../../core/store/clickhouse/client.js';
import { numericScore } from './score-record.js';
import { childrenOf, ingestTrace } from './ingest-trace.js';

/**
 * Traces and scores with known latencies, tokens, component types, models, errors and score
 * values, for the analytics API tests and the analytics page's browser test; the expected
 * aggregates are computed here from the same numbers, by the definitions docs/api.md states.
 */

export const HOUR = 3_600_000;
export const MINUTE = 60_000;

/** One trace of the fixture: a root span, an LLM call and a tool call (and optionally a planning step). */
export interface FixtureTrace {
  id: string;
  /** Offset of its start from the window's start, ms. */
  at: number;
  /** Root span and trace duration, ms. */
  duration: number;
  model: string;
  llmMs: number;
  inputTokens: number;
  outputTokens: number;
  toolMs: number;
  toolError: boolean;
  planningMs?: number;
}

/** Bucket 0 (the window's first hour): four traces; bucket 1: two; bucket 2: none. */
export const TRACES: FixtureTrace[] = [
  { id: 'an-a1', at: 10 * MINUTE, duration: 100, model: 'gpt-4o', llmMs: 40, inputTokens: 100, outputTokens: 10, toolMs: 20, toolError: false },
  { id: 'an-a2', at: 15 * MINUTE, duration: 200, model: 'gpt-4o', llmMs: 80, inputTokens: 200, outputTokens: 20, toolMs: 30, toolError: false },
  { id: 'an-a3', at: 20 * MINUTE, duration: 300, model: 'claude-3-5', llmMs: 120, inputTokens: 300, outputTokens: 30, toolMs: 40, toolError: true },
  { id: 'an-a4', at: 25 * MINUTE, duration: 400, model: 'claude-3-5', llmMs: 160, inputTokens: 400, outputTokens: 40, toolMs: 50, toolError: false },
  { id: 'an-b1', at: HOUR + 10 * MINUTE, duration: 1000, model: 'gpt-4o', llmMs: 500, inputTokens: 1000, outputTokens: 100, toolMs: 200, toolError: true },
  {
    id: 'an-b2',
    at: HOUR + 20 * MINUTE,
    duration: 3000,
    model: 'gpt-4o',
    llmMs: 1500,
    inputTokens: 3000,
    outputTokens: 300,
    toolMs: 600,
    toolError: false,
    planningMs: 50,
  },
];

/** The JSON ingest body (POST /api/traces/ingest) of a fixture trace starting at `windowStart + t.at`. */
export function traceBody(t: FixtureTrace, windowStart: number, override: Partial<FixtureTrace> = {}) {
  const x = { ...t, ...override };
  const start = windowStart + x.at;
  const child = childrenOf(x.id, start);
  const spans = [
    child('llm', 1, x.llmMs, { name: 'llm', type: 'generation', model: x.model, input_tokens: x.inputTokens, output_tokens: x.outputTokens }),
    child('tool', 2, x.toolMs, { name: 'search', type: 'tool', status: x.toolError ? 'error' : 'ok', attributes: { tool_name: 'search' } }),
  ];
  if (x.planningMs !== undefined) spans.push(child('plan', 3, x.planningMs, { name: 'plan', type: 'planning' }));
  return ingestTrace(x.id, { name: 'analytics-run', start, durationMs: x.duration, root: { span_id: `${x.id}-root`, name: 'agent', type: 'span' }, spans });
}

/** A score as the evaluation worker writes it (explicit id and time), `at` ms after the window's start. */
export function fixtureScore(
  id: string,
  traceId: string,
  name: string,
  value: number,
  at: number,
  windowStart: number,
  source: Score['source'] = 'eval',
): Score {
  return numericScore({ id, traceId, name, value, source, scorer: name, createdAt: windowStart + at });
}

/**
 * `faithfulness` (eval): falls as latency grows; an-a1 has two (0.9 and 0.7, mean 0.8).
 * `helpfulness` (api): one in bucket 0, one in bucket 2.
 */
export function fixtureScores(windowStart: number): Score[] {
  const s = (id: string, trace: string, name: string, value: number, at: number, source: Score['source'] = 'eval') =>
    fixtureScore(id, trace, name, value, at, windowStart, source);
  return [
    s('00000000-0000-4000-8000-000000000001', 'an-a1', 'faithfulness', 0.9, 15 * MINUTE),
    s('00000000-0000-4000-8000-000000000002', 'an-a1', 'faithfulness', 0.7, 16 * MINUTE),
    s('00000000-0000-4000-8000-000000000003', 'an-a2', 'faithfulness', 0.75, 20 * MINUTE),
    s('00000000-0000-4000-8000-000000000004', 'an-a3', 'faithfulness', 0.6, 25 * MINUTE),
    s('00000000-0000-4000-8000-000000000005', 'an-a4', 'faithfulness', 0.65, 30 * MINUTE),
    s('00000000-0000-4000-8000-000000000006', 'an-b1', 'faithfulness', 0.3, HOUR + 15 * MINUTE),
    s('00000000-0000-4000-8000-000000000007', 'an-b2', 'faithfulness', 0.1, HOUR + 20 * MINUTE),
    s('00000000-0000-4000-8000-000000000008', 'an-a1', 'helpfulness', 1, 40 * MINUTE, 'api'),
    s('00000000-0000-4000-8000-000000000009', 'an-b2', 'helpfulness', 0.5, 2 * HOUR + 5 * MINUTE, 'api'),
  ];
}

/** Writes scores the way an evaluation run does (AnalyticsStore.writeScores: ids and times already set). */
export async function writeScores(clickhouse: ClickHouseClient, projectId: string, scores: Score[]): Promise<void> {
  // Not closed: the client is the running service's.
  await createAnalyticsStore(httpClickHouse(clickhouse)).writeScores(projectId, scores);
}

/** Quantile with linear interpolation between closest ranks (ClickHouse quantileExactInclusive, numpy's default). */
export function quantile(values: number[], p: number): number {
  const v = [...values].sort((a, b) => a - b);
  const h = (v.length - 1) * p;
  const lo = Math.floor(h);
  return lo + 1 < v.length ? v[lo] + (h - lo) * (v[lo + 1] - v[lo]) : v[lo];
}

export function pearson(xs: number[], ys: number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) ** 2;
    syy += (ys[i] - my) ** 2;
  }
  return sxy / Math.sqrt(sxx * syy);
}

/** Spearman's rho for values without ties: Pearson's r of the ranks. */
export function spearman(xs: number[], ys: number[]): number {
  // Mean ranks: tied values share the mean of the ranks they span (1, 2, 2, 3 -> 1, 2.5, 2.5, 4).
  const ranks = (v: number[]) => v.map((x) => v.filter((y) => y < x).length + (v.filter((y) => y === x).length + 1) / 2);
  return pearson(ranks(xs), ranks(ys));
}

/** The start of the fixture's window: the hour that began `hoursAgo` hours before the current one. */
export function windowStartHoursAgo(hoursAgo: number, now = Date.now()): number {
  return Math.floor(now / HOUR) * HOUR - hoursAgo * HOUR;
}

/** The analytics page's elements the browser test looks for (ui/src/routes/analytics, ui/src/lib/components/Analytics*). */
export const ANALYTICS_SEL = {
  filters: '[data-testid="analytics-filters"]',
  range: '[data-testid="analytics-range"]',
  scorer: '[data-testid="analytics-scorer"]',
  component: '[data-testid="analytics-component"]',
  model: '[data-testid="analytics-model"]',
  metric: '[data-testid="analytics-metric"]',
  scoresChart: '[data-testid="score-trends-chart"] canvas',
  scoresTable: '[data-testid="score-trends-table"]',
  scoreRow: (name: string) => `[data-testid="score-trends-table"] tr[data-score-name="${name}"]`,
  scoresEmpty: '[data-testid="score-trends-empty"]',
  correlation: '[data-testid="correlation"]',
  correlationChart: '[data-testid="correlation-chart"] canvas',
  correlationSentence: '[data-testid="correlation-sentence"]',
  percentilesChart: '[data-testid="percentiles-chart"] canvas',
  percentilesSummary: '[data-testid="percentiles-summary"]',
  healthTable: '[data-testid="component-health-table"]',
  healthRow: (kind: 'component' | 'model', key: string) => `[data-testid="component-health-table"] tr[data-${kind}="${key}"]`,
  healthCharts: '[data-testid="component-health-charts"] canvas',
  healthEmpty: '[data-testid="component-health-empty"]',
  loading: '[data-testid="analytics-loading"]',
  error: '[data-testid="analytics-error"]',
};
