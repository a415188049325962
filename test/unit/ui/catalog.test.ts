import { describe, expect, it } from 'vitest';
import { ALERT_METRICS, DRIFT_SOURCES, filterKeysFor } from '../../../core/model/alert.js';
import { normalizeSuiteKeys, parseSuiteDefinition } from '../../../core/model/suite.js';
import { parseSuiteYaml } from '../../../core/model/suite-yaml.js';
import { defaultScorerRegistry } from '../../../core/scoring/index.js';
import { conditionText, filterKeys, filterText, formatMetricValue, formatSeconds, METRICS } from '../../../ui/src/lib/alerts.js';
import { ApiError } from '../../../ui/src/lib/api.js';
import { describeWriteError, foldValue, issuesByField, parseOffset, rangeText, withParams } from '../../../ui/src/lib/catalog.js';
import { parseVersion, scorerLabel, SUITE_YAML_EXAMPLE, suiteCurl } from '../../../ui/src/lib/suites.js';

describe('catalog helpers', () => {
  it('keeps paging and filters in the URL, dropping empty values', () => {
    const url = new URL('http://x/suites?name=weather&offset=50');
    expect(withParams(url, { offset: 100 })).toBe('/suites?name=weather&offset=100');
    expect(withParams(url, { offset: undefined, name: '' })).toBe('/suites');
    expect(parseOffset(new URLSearchParams('offset=50'))).toBe(50);
    for (const bad of ['-1', '1.5', 'x', '']) expect(parseOffset(new URLSearchParams(`offset=${bad}`))).toBe(0);
    expect(rangeText(0, 2, 2, 'suite')).toBe('2 suites');
    expect(rangeText(50, 50, 1230, 'agent')).toBe('51-100 of 1,230 agents');
    expect(rangeText(0, 1, 1, 'event')).toBe('1 event');
  });

  it('folds long values under a one-line preview and leaves short ones whole', () => {
    expect(foldValue({ city: 'Paris' })).toEqual({ preview: '{"city":"Paris"}', full: null });
    const long = foldValue({ q: 'x'.repeat(200) }, 40);
    expect(long.preview).toHaveLength(40);
    expect(long.preview.endsWith('…')).toBe(true);
    expect(long.full).toBe(JSON.stringify({ q: 'x'.repeat(200) }, null, 2));
    expect(foldValue('line one\nline two').full).toBe('line one\nline two');
  });

  it('groups a 422 by field and says a 403 in words', () => {
    const unprocessable = new ApiError(422, 'Validation error', 'VALIDATION_ERROR', [
      { field: 'name', message: 'is required' },
      { field: 'name', message: 'too short' },
      { field: 'headers.Host', message: 'host is set by the HTTP client for each call' },
    ]);
    expect(issuesByField(unprocessable)).toEqual({ name: ['is required', 'too short'], 'headers.Host': ['host is set by the HTTP client for each call'] });
    expect(issuesByField(new Error('x'))).toEqual({});
    expect(describeWriteError(new ApiError(403, 'Forbidden'), 'register agents', 'evals:write')).toBe(
      'Your key cannot register agents: that needs a member or admin key of this project (permission evals:write). A viewer key only reads.',
    );
    expect(describeWriteError(new ApiError(500, 'Failed to create agent'), 'register agents', 'evals:write')).toBe('Failed to create agent');
  });
});

describe('suites helpers', () => {
  it('the empty state YAML example is a valid suite as it is', () => {
    const def = parseSuiteDefinition(normalizeSuiteKeys(parseSuiteYaml(SUITE_YAML_EXAMPLE)), defaultScorerRegistry());
    expect(def.name).toBe('weather-agent');
    expect(def.cases.map((c) => c.name)).toEqual(['paris today', 'refuses stock tips']);
  });

  it('writes the curl command for the service, the project and the key', () => {
    expect(suiteCurl('http://localhost:3000', 'p1', true)).toBe(
      'curl -X POST http://localhost:3000/api/suites \\\n  -H "x-api-key: $AGENT_EVAL_KEY" \\\n  -H "x-project-id: p1" \\\n  -H "content-type: application/yaml" \\\n  --data-binary @weather.suite.yaml',
    );
    expect(suiteCurl('http://h', 'p1', false)).not.toContain('x-api-key');
  });

  it('labels scorers and reads ?version=', () => {
    expect(scorerLabel({ name: 'contains', config: {} })).toBe('contains');
    expect(scorerLabel({ name: 'latency', config: { maxMs: 5000 }, minScore: 0.5, weight: 2 })).toBe('latency {"maxMs":5000} min 0.5 ×2');
    expect(parseVersion(new URLSearchParams('version=3'))).toBe(3);
    for (const bad of ['0', '-1', '2.5', 'latest', '']) expect(parseVersion(new URLSearchParams(`version=${bad}`))).toBeNull();
  });
});

describe('alerts helpers', () => {
  it('offers the same filter keys for each metric as the API accepts', () => {
    expect([...METRICS].sort()).toEqual([...ALERT_METRICS].sort());
    for (const metric of ALERT_METRICS) {
      for (const source of [null, ...DRIFT_SOURCES]) {
        const driftSource = metric === 'drift' ? (source ?? 'score') : null;
        expect(filterKeys(metric, driftSource), `${metric} ${driftSource}`).toEqual([...filterKeysFor(metric, driftSource)]);
      }
    }
  });

  it('formats values in the metric unit and windows as durations', () => {
    expect(formatMetricValue('error_rate', 0.0512)).toBe('5.12 %');
    expect(formatMetricValue('latency_p95', 1500)).toBe('1.5 s');
    expect(formatMetricValue('trace_count', 12345)).toBe('12,345');
    expect(formatMetricValue('drift', 0.415888)).toBe('0.4159');
    expect(formatMetricValue('avg_score', null)).toBe('no data');
    expect(conditionText({ metric: 'error_rate', operator: 'gt', threshold: 0.05 })).toBe('Error rate > 5 %');
    expect(conditionText({ metric: 'latency_p50', operator: 'lte', threshold: 800 })).toBe('Latency p50 ≤ 800 ms');
    expect(formatSeconds(300)).toBe('5 min');
    expect(formatSeconds(90)).toBe('1 min 30 s');
    expect(formatSeconds(86_400 + 7200 + 5)).toBe('1 d 2 h');
    expect(filterText({ trace_name: 'support', model: 'gpt-4o' })).toBe('trace name contains support, model gpt-4o');
  });
});
