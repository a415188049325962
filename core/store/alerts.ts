import type {
  AlertEventKind,
  AlertEventList,
  AlertNotification,
  AlertRule,
  AlertRuleDefinition,
  AlertRuleList,
  AlertState,
  DeliveryStatus,
} from '../model/alert.js';

/*
 * Alert rules, their events and webhook deliveries (PostgreSQL, migration 008;
 * store/postgres/alert-store.ts implements it; docs/alerts.md).
 *
 * Promises:
 * - Isolation: every API call names a project and touches only its rules and events.
 * - At most one evaluation per rule and interval across any number of evaluators (`claimDue`),
 *   and an evaluation is recorded only by the claim that is still current (`commitEvaluation`):
 *   a rule edited, deleted or claimed again since is left alone. A state change and its event
 *   are one transaction.
 * - Deliveries are at-least-once: an attempt cut short (a crash) is claimed again after its lease;
 *   a result is ignored when the delivery was claimed again meanwhile.
 * - Writes resolve once committed; what a caller gets is its own copy.
 */

/**
 * Alert rules and events (PostgreSQL). Every API read filters by project; the evaluator's
 * claims span projects and carry each rule's project with it.
 */
export interface AlertStore {
  create(projectId: string, def: AlertRuleDefinition): Promise<AlertRule>;
  /** Newest first. */
  list(projectId: string, query: { limit: number; offset: number; enabled?: boolean; state?: AlertState }): Promise<AlertRuleList>;
  get(projectId: string, id: string): Promise<AlertRule | null>;
  /**
   * Replaces the settings and makes the rule due now; an evaluation in flight is discarded.
   * Disabling a rule returns it to `ok` without an event. Null when there is no such rule.
   */
  update(projectId: string, id: string, def: AlertRuleDefinition): Promise<AlertRule | null>;
  /** True when a rule was deleted (its events go with it). */
  delete(projectId: string, id: string): Promise<boolean>;
  listEvents(projectId: string, query: AlertEventQuery): Promise<AlertEventList>;

  /**
   * Claims up to `limit` due rules for this evaluator: their next_eval_at moves one interval on
   * and claim_seq grows, in one statement with FOR UPDATE SKIP LOCKED, so concurrent evaluators
   * never claim a rule twice per interval.
   */
  claimDue(limit: number): Promise<ClaimedRule[]>;
  /**
   * Records an evaluation under the rule's row lock: `decide` gets the current state and returns
   * the next (and the event to store, if any). Nothing is written, and null returned, when the
   * rule was deleted, edited or claimed again since this claim.
   */
  commitEvaluation(
    claim: ClaimedRule,
    result: { at: Date; value: number | null },
    decide: (state: AlertState) => { state: AlertState; event?: NewAlertEvent },
  ): Promise<{ state: AlertState; event?: NewAlertEvent } | null>;
  /** Notes a failed evaluation (the state is left as it was). */
  recordEvaluationError(claim: ClaimedRule, at: Date, message: string): Promise<void>;
  /**
   * Claims up to `limit` notifications due for delivery, counting the attempt and moving their
   * next attempt `leaseMs` on, so an attempt cut short by a crash is retried by any worker later.
   */
  claimDeliveries(limit: number, leaseMs: number): Promise<PendingDelivery[]>;
  /** The attempt's result; ignored when the event was claimed again meanwhile. */
  recordDelivery(
    delivery: PendingDelivery,
    result: { status: Extract<DeliveryStatus, 'delivered' | 'retrying' | 'failed'>; error?: string; retryInMs?: number },
  ): Promise<void>;
  /** Passed / decided trials of the runs that completed in [from, to) (cancelled trials left out). */
  runPassRate(projectId: string, range: { from: Date; to: Date }, suiteName?: string): Promise<{ passed: number; total: number }>;
}

export interface AlertEventQuery {
  limit: number;
  offset: number;
  rule_id?: string;
  kind?: AlertEventKind;
  /** Events at or after. */
  start_time?: Date;
  /** Events at or before. */
  end_time?: Date;
}

/** A rule as claimed by an evaluator. */
export interface ClaimedRule extends AlertRule {
  project_id: string;
  claim_seq: string;
}

export interface NewAlertEvent {
  id: string;
  kind: AlertEventKind;
  value: number | null;
  threshold: number;
  at: Date;
  payload: AlertNotification;
  webhook_url: string | null;
}

export interface PendingDelivery {
  id: string;
  rule_id: string;
  project_id: string;
  webhook_url: string;
  payload: AlertNotification;
  /** This attempt's number, from 1. */
  attempt: number;
}
