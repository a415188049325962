import { describe, expect, it } from 'vitest';
import { createAlertEvaluator } from '../../../core/alerts/evaluator.js';
import { retryDelayMs, MAX_BACKOFF_MS } from '../../../core/alerts/webhook.js';
import { createLogger } from '../../../core/logger.js';
import { parseAlertRule, type AlertNotification, type AlertState } from '../../../core/model/alert.js';
import type { AlertMetrics } from '../../../core/store/alert-metrics.js';
import type { AlertStore, ClaimedRule, NewAlertEvent, PendingDelivery } from '../../../core/store/alerts.js';

/** The evaluator's side of the store, in memory: due rules once, events with their delivery state. */
function memoryStore(rules: ClaimedRule[]) {
  const due = [...rules];
  const states = new Map<string, AlertState>(rules.map((r) => [r.id, r.state]));
  const errors = new Map<string, string>();
  const events: Array<NewAlertEvent & { rule_id: string; status: string; attempts: number; dueAt: number; error?: string }> = [];
  const store: Pick<AlertStore, 'claimDue' | 'commitEvaluation' | 'recordEvaluationError' | 'claimDeliveries' | 'recordDelivery' | 'runPassRate'> = {
    claimDue: (limit) => Promise.resolve(due.splice(0, limit)),
    commitEvaluation(claim, _result, decide) {
      const next = decide(states.get(claim.id)!);
      states.set(claim.id, next.state);
      if (next.event) events.push({ ...next.event, rule_id: claim.id, status: next.event.webhook_url ? 'pending' : 'none', attempts: 0, dueAt: 0 });
      return Promise.resolve(next);
    },
    recordEvaluationError(claim, _at, message) {
      errors.set(claim.id, message);
      return Promise.resolve();
    },
    claimDeliveries(limit) {
      const now = Date.now();
      const ready = events.filter((e) => (e.status === 'pending' || e.status === 'retrying') && e.dueAt <= now).slice(0, limit);
      return Promise.resolve(
        ready.map((e): PendingDelivery => {
          e.attempts++;
          e.dueAt = now + 60_000;
          return { id: e.id, rule_id: e.rule_id, project_id: 'p', webhook_url: e.webhook_url!, payload: e.payload, attempt: e.attempts };
        }),
      );
    },
    recordDelivery(d, result) {
      const e = events.find((x) => x.id === d.id)!;
      e.status = result.status;
      e.error = result.error;
      e.dueAt = Date.now() + (result.retryInMs ?? 0);
      return Promise.resolve();
    },
    runPassRate: () => Promise.resolve({ passed: 0, total: 0 }),
  };
  return { store: store as AlertStore, states, errors, events, requeue: (r: ClaimedRule) => due.push(r) };
}

function claimed(id: string, extra: Record<string, unknown> = {}): ClaimedRule {
  const def = parseAlertRule({ name: id, metric: 'trace_count', operator: 'gt', threshold: 0, severity: 'warning', ...extra });
  const now = new Date().toISOString();
  return {
    ...def,
    id,
    project_id: 'p',
    claim_seq: '1',
    state: 'ok',
    state_since: now,
    next_eval_at: now,
    last_evaluated_at: null,
    last_value: null,
    last_error: null,
    created_at: now,
    updated_at: now,
  };
}

const metrics = (counts: Record<string, number | Error>): AlertMetrics => ({
  traceMetric(_project, _metric, _range, filter) {
    const v = counts[filter.trace_name ?? ''];
    return v instanceof Error ? Promise.reject(v) : Promise.resolve({ value: v, samples: v });
  },
  scoreMean: () => Promise.reject(new Error('unused')),
  driftSamples: () => Promise.reject(new Error('unused')),
});

const logger = createLogger('silent');
const webhook = { timeoutMs: 1000, maxAttempts: 3, backoffMs: 1 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('alert evaluator', () => {
  it('a rule whose metric fails is noted and the others are still evaluated', async () => {
    const rules = [
      claimed('a', { filter: { trace_name: 'a' } }),
      claimed('bad', { filter: { trace_name: 'bad' } }),
      claimed('c', { filter: { trace_name: 'c' } }),
    ];
    const mem = memoryStore(rules);
    // These rules have no webhook: nothing is sent.
    const fetch = () => Promise.reject(new Error('no webhook here'));
    const ev = createAlertEvaluator({
      store: mem.store,
      metrics: metrics({ a: 3, bad: new Error('store exploded'), c: 0 }),
      logger,
      tickMs: 10,
      webhook,
      fetch,
    });
    await ev.tick();
    expect(Object.fromEntries(mem.states)).toEqual({ a: 'firing', bad: 'ok', c: 'ok' });
    expect(mem.errors.get('bad')).toBe('store exploded');
    expect(mem.events.map((e) => [e.rule_id, e.kind, e.value])).toEqual([['a', 'fired', 3]]);
  });

  it('retries a failing webhook with backoff, gives up after maxAttempts, and delivers the others', async () => {
    const calls: Array<{ url: string; body: AlertNotification }> = [];
    const fakeFetch: typeof fetch = (input, init) => {
      const url = input instanceof Request ? input.url : input.toString();
      calls.push({ url, body: JSON.parse(init?.body as string) as AlertNotification });
      if (url.includes('throws')) return Promise.reject(new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') }));
      return Promise.resolve(new Response(url.includes('fail') ? 'down' : 'ok', { status: url.includes('fail') ? 503 : 200 }));
    };
    const rules = [
      claimed('fail', { webhook_url: 'http://hooks.test/fail' }),
      claimed('throws', { webhook_url: 'http://hooks.test/throws' }),
      claimed('ok', { webhook_url: 'http://hooks.test/ok' }),
    ];
    const mem = memoryStore(rules);
    const ev = createAlertEvaluator({ store: mem.store, metrics: metrics({ '': 1 }), logger, tickMs: 10, webhook, fetch: fakeFetch });
    for (let i = 0; i < 10; i++) {
      await ev.tick();
      await ev.stop();
      await sleep(5);
    }
    const byRule = Object.fromEntries(mem.events.map((e) => [e.rule_id, e]));
    expect(byRule.ok).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(byRule.fail).toMatchObject({ status: 'failed', attempts: 3, error: 'HTTP 503: down' });
    expect(byRule.throws).toMatchObject({ status: 'failed', attempts: 3 });
    expect(byRule.throws.error).toMatch(/fetch failed: connect ECONNREFUSED/);
    expect(calls.filter((c) => c.url.endsWith('/fail'))).toHaveLength(3);
    expect(calls.find((c) => c.url.endsWith('/ok'))!.body).toMatchObject({
      event: 'fired',
      value: 1,
      threshold: 0,
      project_id: 'p',
      rule: { id: 'ok', state: 'firing' },
    });
  });

  it('gives up on a webhook that does not answer within the time-out', async () => {
    const hang: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason as Error)));
    const mem = memoryStore([claimed('slow', { webhook_url: 'http://hooks.test/slow' })]);
    const ev = createAlertEvaluator({
      store: mem.store,
      metrics: metrics({ '': 1 }),
      logger,
      tickMs: 10,
      webhook: { ...webhook, timeoutMs: 100, maxAttempts: 1 },
      fetch: hang,
    });
    await ev.tick();
    await ev.stop();
    expect(mem.events[0]).toMatchObject({ status: 'failed', attempts: 1, error: 'no answer within 100 ms' });
  });

  it('doubles the wait after each failed attempt, up to a cap', () => {
    expect([1, 2, 3, 4].map((a) => retryDelayMs(a, 1000))).toEqual([1000, 2000, 4000, 8000]);
    expect(retryDelayMs(40, 1000)).toBe(MAX_BACKOFF_MS);
  });
});
