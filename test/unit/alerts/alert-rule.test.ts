import { describe, expect, it } from 'vitest';
import { BadRequestError, ValidationError } from '../../../core/errors.js';
import { breaches, mergeAlertRule, parseAlertRule } from '../../../core/model/alert.js';
import { thrown } from '../../helpers/thrown.js';

const base = { name: 'errors', metric: 'error_rate', operator: 'gt', threshold: 0.1, severity: 'warning' };

describe('parseAlertRule', () => {
  it('fills defaults and leaves drift settings null for other metrics', () => {
    expect(parseAlertRule(base)).toEqual({
      ...base,
      filter: {},
      window_seconds: 300,
      eval_interval_seconds: 60,
      webhook_url: null,
      no_data: 'ok',
      min_samples: 1,
      enabled: true,
      drift_test: null,
      drift_source: null,
      baseline_windows: null,
      psi_bins: null,
    });
  });

  it('gives the SPEC 400 for each missing field, in order', () => {
    for (const field of ['name', 'metric', 'threshold', 'operator', 'severity']) {
      const body: Record<string, unknown> = { ...base };
      delete body[field];
      const err = thrown(() => parseAlertRule(body));
      expect(err).toBeInstanceOf(BadRequestError);
      expect(err.message).toBe(`${field} is required`);
    }
    expect(thrown(() => parseAlertRule({})).message).toBe('name is required');
    expect(thrown(() => parseAlertRule(null)).message).toBe('name is required');
    expect(thrown(() => parseAlertRule({ ...base, name: '  ' })).message).toBe('name is required');
  });

  it('gives the SPEC 400 for a bad operator or severity', () => {
    expect(thrown(() => parseAlertRule({ ...base, operator: 'ne' })).message).toBe('operator must be one of: gt, gte, lt, lte, eq');
    expect(thrown(() => parseAlertRule({ ...base, operator: 3 })).message).toBe('operator must be one of: gt, gte, lt, lte, eq');
    expect(thrown(() => parseAlertRule({ ...base, severity: 'fatal' })).message).toBe('severity must be one of: critical, warning, info');
  });

  it('gives 422 for other bad input', () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ metric: 'cpu' }, 'metric'],
      [{ threshold: '0.5' }, 'threshold'],
      [{ threshold: Number.POSITIVE_INFINITY }, 'threshold'],
      [{ window_seconds: 0 }, 'window_seconds'],
      [{ webhook_url: 'ftp://example.com/x' }, 'webhook_url'],
      [{ webhook_url: 'https://user:pw@example.com/x' }, 'webhook_url'],
      [{ webhook_url: 'not a url' }, 'webhook_url'],
      [{ no_data: 'maybe' }, 'no_data'],
      [{ extra: 1 }, '(body)'],
      [{ filter: { score_name: 'x' } }, 'filter.score_name'],
      [{ filter: { bogus: 'x' } }, 'filter'],
      [{ drift_test: 'psi' }, 'drift_test'],
      [{ name: 'a\u0000b' }, 'name'],
    ];
    for (const [extra, field] of cases) {
      const err = thrown(() => parseAlertRule({ ...base, ...extra }));
      expect(err, JSON.stringify(extra)).toBeInstanceOf(ValidationError);
      expect(
        (err as ValidationError).issues.map((i) => i.field),
        JSON.stringify(extra),
      ).toContain(field);
    }
  });

  it('takes avg_score without a score name (every score), requires one for score drift, and fills drift defaults', () => {
    expect(parseAlertRule({ ...base, metric: 'avg_score' })).toMatchObject({ metric: 'avg_score', filter: {} });
    expect((thrown(() => parseAlertRule({ ...base, metric: 'drift' })) as ValidationError).issues[0].field).toBe('filter.score_name');
    const drift = parseAlertRule({ ...base, metric: 'drift', filter: { score_name: 'quality' } });
    expect(drift).toMatchObject({ drift_test: 'psi', drift_source: 'score', baseline_windows: 6, psi_bins: 10, min_samples: 20 });
    const latency = parseAlertRule({ ...base, metric: 'drift', drift_test: 'ks', drift_source: 'latency', filter: { trace_name: 'agent' } });
    expect(latency).toMatchObject({ drift_test: 'ks', drift_source: 'latency', filter: { trace_name: 'agent' } });
  });

  it('bounds the span a drift rule reads', () => {
    const err = thrown(() => parseAlertRule({ ...base, metric: 'drift', filter: { score_name: 'q' }, window_seconds: 30 * 86_400, baseline_windows: 5 }));
    expect((err as ValidationError).issues[0].field).toBe('baseline_windows');
  });
});

describe('mergeAlertRule', () => {
  const stored = parseAlertRule({ ...base, metric: 'drift', filter: { score_name: 'q' } });

  it('changes only the fields given and ignores read-only ones', () => {
    const merged = mergeAlertRule(stored, { enabled: false, id: 'x', state: 'firing', created_at: 'y' });
    expect(merged).toEqual({ ...stored, enabled: false });
  });

  it('resets the metric settings when the metric changes', () => {
    expect(mergeAlertRule(stored, { metric: 'trace_count' })).toMatchObject({ metric: 'trace_count', filter: {}, drift_test: null, min_samples: 1 });
  });

  it('checks the result as a create body', () => {
    expect(thrown(() => mergeAlertRule(stored, { name: null })).message).toBe('name is required');
    expect(thrown(() => mergeAlertRule(stored, [])).status).toBe(422);
  });
});

describe('breaches', () => {
  it('compares with each operator', () => {
    expect(breaches(2, 'gt', 1)).toBe(true);
    expect(breaches(1, 'gt', 1)).toBe(false);
    expect(breaches(1, 'gte', 1)).toBe(true);
    expect(breaches(0, 'lt', 1)).toBe(true);
    expect(breaches(1, 'lte', 1)).toBe(true);
    expect(breaches(0.1 + 0.2, 'eq', 0.3)).toBe(true);
    expect(breaches(0.31, 'eq', 0.3)).toBe(false);
  });
});

describe('mergeAlertRule and prototype keys', () => {
  it('refuses a __proto__ key instead of reading through it', () => {
    const stored = parseAlertRule(base);
    const body: unknown = JSON.parse('{"__proto__":{"filter":{"score_name":"q"}},"metric":"avg_score"}');
    const err = thrown(() => mergeAlertRule(stored, body));
    expect(err.status).toBe(422);
  });
});
