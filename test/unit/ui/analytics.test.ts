import { describe, expect, it } from 'vitest';
import {
  analyticsFiltersToQuery,
  analyticsRequests,
  correlationSentence,
  formatPercent,
  parseAnalyticsFilters,
  strength,
  type AnalyticsFilters,
} from '../../../ui/src/lib/analytics.js';
import type { ScoreCorrelation } from '../../../core/model/analytics.js';
import { expectUrlRoundTrip } from '../../helpers/url-filters.js';

const corr = (over: Partial<ScoreCorrelation>): ScoreCorrelation => ({
  start_time: '2026-01-01T00:00:00.000Z',
  end_time: '2026-01-02T00:00:00.000Z',
  score_name: 'faithfulness',
  metric: 'latency',
  n: 1234,
  pearson_r: -0.42,
  spearman_rho: -0.4,
  score_mean: 0.7,
  metric_mean: 900,
  points: [],
  sampled: true,
  ...over,
});

describe('analytics filters in the URL', () => {
  it('round-trips every filter and leaves defaults out', () => {
    const f: AnalyticsFilters = { range: '7d', scoreName: 'faithfulness', componentType: 'tool', model: 'gpt-4o', metric: 'tokens' };
    expectUrlRoundTrip(
      { toQuery: analyticsFiltersToQuery, parse: parseAnalyticsFilters },
      f,
      'range=7d&score_name=faithfulness&component_type=tool&model=gpt-4o&metric=tokens',
    );
    expect(analyticsFiltersToQuery({ range: '24h', metric: 'latency' }).toString()).toBe('');
  });

  it('drops values that make no sense', () => {
    expect(parseAnalyticsFilters(new URLSearchParams('range=2d&component_type=agent&metric=cost&score_name=%20'))).toEqual({ range: '24h', metric: 'latency' });
  });

  it('asks the API for spans when a component type or model is chosen', () => {
    const r = analyticsRequests({ range: '1h', componentType: 'none', model: 'gpt 4', metric: 'latency' }, 'a b');
    expect(r.timeseries).toBe('/api/analytics/timeseries?range=1h&level=span&component_type=none&model=gpt+4');
    expect(r.components).toBe('/api/analytics/components?range=1h&component_type=none&model=gpt+4');
    expect(r.correlation).toBe('/api/analytics/correlation?range=1h&score_name=a%20b&metric=latency');
    // Tool calls: the range alone (the component and model filters are about other spans).
    expect(r.tools).toBe('/api/analytics/tools?range=1h');
    expect(analyticsRequests({ range: '24h', metric: 'tokens' }, null)).toMatchObject({
      timeseries: '/api/analytics/timeseries?range=24h',
      correlation: null,
      oneScore: null,
    });
  });
});

describe('numbers and the correlation in words', () => {
  it('formats rates', () => {
    expect([formatPercent(0), formatPercent(1), formatPercent(0.25), formatPercent(1 / 3), formatPercent(0.0123), formatPercent(null)]).toEqual([
      '0%',
      '100%',
      '25%',
      '33%',
      '1.2%',
      '-',
    ]);
  });

  it('states r, the number of traces and the direction', () => {
    expect(correlationSentence(corr({}))).toBe(
      "Pearson r = -0.42 over 1,234 scored traces: higher latency goes with lower faithfulness (a moderate relation; Spearman's rho = -0.40).",
    );
    expect(correlationSentence(corr({ pearson_r: 0.61, spearman_rho: 0.5, metric: 'tokens' }))).toBe(
      "Pearson r = 0.61 over 1,234 scored traces: higher token use goes with higher faithfulness (a strong relation; Spearman's rho = 0.50).",
    );
    expect(correlationSentence(corr({ pearson_r: -0.004, spearman_rho: 0.02 }))).toBe(
      "Pearson r = 0.00 over 1,234 scored traces: latency and faithfulness show no meaningful linear relation (Spearman's rho = 0.02).",
    );
  });

  it('says why there is no r', () => {
    expect(correlationSentence(corr({ n: 0, pearson_r: null }))).toMatch(/^No trace has a "faithfulness" score/);
    expect(correlationSentence(corr({ n: 2, pearson_r: null }))).toMatch(/^Only 2 scored traces .*at least 3/);
    expect(correlationSentence(corr({ n: 50, pearson_r: null, spearman_rho: null }))).toMatch(/does not vary/);
  });

  it('grades strength by |r|', () => {
    expect([0.05, -0.2, 0.35, -0.8].map(strength)).toEqual(['no', 'weak', 'moderate', 'strong']);
  });
});
