import { randomUUID } from 'node:crypto';
import { errorMessage } from '../errors.js';
import type { Logger } from '../logger.js';
import { breaches, type AlertNotification, type AlertState } from '../model/alert.js';
import { pgSafeText } from '../model/pg-json.js';
import type { AlertMetrics } from '../store/alert-metrics.js';
import type { AlertStore, ClaimedRule, NewAlertEvent, PendingDelivery } from '../store/alerts.js';
import { measure, type Measurement } from './measure.js';
import { transition, type EvaluationOutcome } from './transition.js';
import { postNotification, retryDelayMs, type WebhookSettings } from './webhook.js';
import type { EgressFetch } from '../egress/fetch.js';

/**
 * The alert evaluator (docs/alerts.md, "Evaluation"): runs in every process with the worker
 * role. Each tick it claims the rules that are due (each claimed by one evaluator per interval,
 * however many run), measures and compares them, records state changes as events, and sends the
 * events' notifications. A rule that fails, or a webhook that does, never stops the others.
 */

export interface AlertEvaluatorDeps {
  store: AlertStore;
  metrics: AlertMetrics;
  logger: Logger;
  /** How often the evaluator looks for due rules and due notifications. */
  tickMs: number;
  webhook: WebhookSettings;
  /** How notifications are sent: through the service's egress policy (core/egress). */
  fetch: EgressFetch;
}

export interface AlertEvaluator {
  /** One pass: evaluate the due rules, then start the due deliveries (not awaited). */
  tick(): Promise<void>;
  /** Stops ticking and waits for the tick and the deliveries under way. */
  stop(): Promise<void>;
}

/** Rules claimed at once; a tick claims again while batches come back full, at most MAX_BATCHES_PER_TICK times. */
const CLAIM_BATCH = 100;
const MAX_BATCHES_PER_TICK = 10;
/** Rules measured at once by one evaluator. */
const EVAL_CONCURRENCY = 8;
/** Notifications in flight at once from one evaluator. */
const DELIVERY_CONCURRENCY = 16;
/** A claimed delivery is left to this evaluator for its time-out plus this margin, then any may retry it. */
const DELIVERY_LEASE_MARGIN_MS = 10_000;

async function forEachLimit<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]);
  });
  await Promise.all(lanes);
}

function notification(rule: ClaimedRule, state: AlertState, event: { id: string; kind: NewAlertEvent['kind'] }, m: Measurement, at: Date): AlertNotification {
  return {
    event: event.kind,
    event_id: event.id,
    rule: {
      id: rule.id,
      name: rule.name,
      metric: rule.metric,
      filter: rule.filter,
      operator: rule.operator,
      threshold: rule.threshold,
      severity: rule.severity,
      state,
    },
    value: m.value,
    threshold: rule.threshold,
    window: { seconds: rule.window_seconds, from: m.window.from.toISOString(), to: m.window.to.toISOString() },
    project_id: rule.project_id,
    at: at.toISOString(),
  };
}

/** The evaluator without its timer: `tick()` does one pass (tests drive it directly). */
export function createAlertEvaluator(deps: AlertEvaluatorDeps): AlertEvaluator {
  const { store, logger } = deps;
  const sources = { metrics: deps.metrics, runs: store };
  const inflight = new Set<Promise<void>>();

  async function evaluate(rule: ClaimedRule): Promise<void> {
    const at = new Date();
    let m: Measurement;
    try {
      m = await measure(rule, rule.project_id, at, sources);
    } catch (err) {
      logger.warn({ err, rule_id: rule.id, project_id: rule.project_id }, 'alert rule evaluation failed');
      await store.recordEvaluationError(rule, at, pgSafeText(errorMessage(err).slice(0, 1000)));
      return;
    }
    const outcome: EvaluationOutcome = m.value === null ? { kind: 'no_data' } : { kind: 'value', breached: breaches(m.value, rule.operator, rule.threshold) };
    const committed = await store.commitEvaluation(rule, { at, value: m.value }, (state) => {
      const next = transition(state, outcome, rule.no_data);
      if (!next.event) return { state: next.state };
      const id = randomUUID();
      return {
        state: next.state,
        event: {
          id,
          kind: next.event,
          value: m.value,
          threshold: rule.threshold,
          at,
          webhook_url: rule.webhook_url,
          payload: notification(rule, next.state, { id, kind: next.event }, m, at),
        },
      };
    });
    if (committed?.event) {
      logger.info(
        { rule_id: rule.id, project_id: rule.project_id, event: committed.event.kind, value: m.value, threshold: rule.threshold },
        'alert rule changed state',
      );
    }
  }

  async function deliver(d: PendingDelivery): Promise<void> {
    const result = await postNotification(d.webhook_url, d.payload, deps.webhook.timeoutMs, deps.fetch);
    if (result.ok) {
      await store.recordDelivery(d, { status: 'delivered' });
      return;
    }
    const last = result.final === true || d.attempt >= deps.webhook.maxAttempts;
    logger.warn(
      { event_id: d.id, rule_id: d.rule_id, project_id: d.project_id, attempt: d.attempt, error: result.error },
      last ? 'alert notification failed; giving up' : 'alert notification failed; will retry',
    );
    await store.recordDelivery(
      d,
      last
        ? { status: 'failed', error: result.error }
        : { status: 'retrying', error: result.error, retryInMs: retryDelayMs(d.attempt, deps.webhook.backoffMs) },
    );
  }

  async function startDeliveries(): Promise<void> {
    const room = DELIVERY_CONCURRENCY - inflight.size;
    if (room <= 0) return;
    const due = await store.claimDeliveries(room, deps.webhook.timeoutMs + DELIVERY_LEASE_MARGIN_MS);
    for (const d of due) {
      const p: Promise<void> = deliver(d)
        .catch((err: unknown) => logger.warn({ err, event_id: d.id }, 'recording an alert delivery failed'))
        .finally(() => inflight.delete(p));
      inflight.add(p);
    }
  }

  return {
    async tick() {
      for (let batch = 0; batch < MAX_BATCHES_PER_TICK; batch++) {
        const rules = await store.claimDue(CLAIM_BATCH);
        await forEachLimit(rules, EVAL_CONCURRENCY, async (rule) => {
          try {
            await evaluate(rule);
          } catch (err) {
            // The metadata store failed while recording: the rule is evaluated again next interval.
            logger.warn({ err, rule_id: rule.id }, 'recording an alert evaluation failed');
          }
        });
        if (rules.length < CLAIM_BATCH) break;
      }
      await startDeliveries();
    },
    async stop() {
      await Promise.allSettled([...inflight]);
    },
  };
}

/** Starts ticking every `tickMs` (each tick after the previous one ended). */
export function startAlertEvaluator(deps: AlertEvaluatorDeps): AlertEvaluator {
  const evaluator = createAlertEvaluator(deps);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  const schedule = () => {
    if (!stopped) timer = setTimeout(run, deps.tickMs);
  };
  const run = () => {
    running = evaluator
      .tick()
      .catch((err: unknown) => deps.logger.warn({ err }, 'alert evaluator tick failed'))
      .finally(() => {
        running = undefined;
        schedule();
      });
  };
  schedule();
  deps.logger.info({ tickMs: deps.tickMs }, 'alert evaluator started');

  return {
    tick: () => evaluator.tick(),
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      await evaluator.stop();
    },
  };
}
