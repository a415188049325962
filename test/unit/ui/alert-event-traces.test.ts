import { describe, expect, it } from 'vitest';
import { eventTracesHref } from '../../../ui/src/lib/alerts.js';
import type { AlertNotification } from '../../../ui/src/lib/types.js';

const window = { seconds: 300, from: '2026-11-28T10:00:00.000Z', to: '2026-11-28T10:05:00.000Z' };
const payload = (rule: Partial<AlertNotification['rule']>, threshold: number) =>
  ({
    rule: { id: 'r', name: 'n', metric: 'error_rate', filter: {}, operator: 'gt', threshold, severity: 'warning', state: 'firing', ...rule },
    window,
    threshold,
  }) as AlertNotification;
const params = (href: string | null) => Object.fromEntries(new URL(href!, 'http://x').searchParams);

describe('the traces behind an alert event', () => {
  it("are the event's window and the rule's filter, narrowed to what the metric counts", () => {
    expect(params(eventTracesHref(payload({ filter: { trace_name: 'support', model: 'gpt-4o' } }, 0.05)))).toEqual({
      name: 'support',
      model: 'gpt-4o',
      status: 'error',
      from: window.from,
      to: window.to,
    });
    expect(params(eventTracesHref(payload({ metric: 'latency_p95', operator: 'gte' }, 2500)))).toMatchObject({ min_duration_ms: '2500' });
    expect(params(eventTracesHref(payload({ metric: 'latency_p95', operator: 'lt' }, 2500)))).not.toHaveProperty('min_duration_ms');
    expect(params(eventTracesHref(payload({ metric: 'avg_score', operator: 'lt', filter: { score_name: 'faithfulness' } }, 0.7)))).toMatchObject({
      score_name: 'faithfulness',
      score_below: '0.7',
    });
  });

  it('are not traces for a run pass rate, nor without a window', () => {
    expect(eventTracesHref(payload({ metric: 'run_pass_rate' }, 0.9))).toBeNull();
    expect(eventTracesHref(null)).toBeNull();
  });
});
