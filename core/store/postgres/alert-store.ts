import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { AlertEventQuery, AlertStore, ClaimedRule, NewAlertEvent, PendingDelivery } from '../alerts.js';
import { isUuid } from '../../model/agent.js';
import type { AlertEvent, AlertRule, AlertRuleDefinition, AlertState } from '../../model/alert.js';
import { isoTimes, type RowOf } from './rows.js';
import { inTransaction } from './transaction.js';

export type { AlertEventQuery, AlertStore, ClaimedRule, NewAlertEvent, PendingDelivery };

const RULE_TIMES = ['state_since', 'next_eval_at', 'last_evaluated_at', 'created_at', 'updated_at'] as const;
const EVENT_TIMES = ['at', 'last_attempt_at', 'next_attempt_at'] as const;

type RuleRow = RowOf<AlertRule, (typeof RULE_TIMES)[number]> & { project_id: string; claim_seq: string };
type EventRow = RowOf<AlertEvent, (typeof EVENT_TIMES)[number]>;

/** The view's columns in its order, then the two only a claim returns, so that a row is the view but for its times. */
const RULE_COLUMNS = `id, name, metric, filter, window_seconds, eval_interval_seconds, operator, threshold, severity, webhook_url, no_data, min_samples,
  enabled, drift_test, drift_source, baseline_windows, psi_bins, state, last_value, last_error, state_since, next_eval_at, last_evaluated_at,
  created_at, updated_at, project_id, claim_seq`;

const EVENT_COLUMNS = `id, rule_id, kind, value, threshold, at, payload, delivery_status, delivery_attempts, delivery_error, last_attempt_at, next_attempt_at`;

/** The one converter from a rule row: the API view. */
function toRule({ project_id: _project, claim_seq: _claim, ...row }: RuleRow): AlertRule {
  return isoTimes<AlertRule, (typeof RULE_TIMES)[number]>(row, RULE_TIMES);
}

function toClaimed(row: RuleRow): ClaimedRule {
  return { ...toRule(row), project_id: row.project_id, claim_seq: row.claim_seq };
}

const toEvent = (row: EventRow) => isoTimes<AlertEvent, (typeof EVENT_TIMES)[number]>(row, EVENT_TIMES);

/** The settings as `$3 .. $18` (after project and id). */
function definitionParams(def: AlertRuleDefinition): unknown[] {
  return [
    def.name,
    def.metric,
    JSON.stringify(def.filter),
    def.window_seconds,
    def.eval_interval_seconds,
    def.operator,
    def.threshold,
    def.severity,
    def.webhook_url,
    def.no_data,
    def.min_samples,
    def.enabled,
    def.drift_test,
    def.drift_source,
    def.baseline_windows,
    def.psi_bins,
  ];
}

export function createAlertStore(pool: pg.Pool): AlertStore {
  return {
    async create(projectId, def) {
      const { rows } = await pool.query<RuleRow>(
        `INSERT INTO alert_rules (project_id, id, name, metric, filter, window_seconds, eval_interval_seconds, operator, threshold, severity,
           webhook_url, no_data, min_samples, enabled, drift_test, drift_source, baseline_windows, psi_bins)
         VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
         RETURNING ${RULE_COLUMNS}`,
        [projectId, randomUUID(), ...definitionParams(def)],
      );
      return toRule(rows[0]);
    },

    async list(projectId, { limit, offset, enabled, state }) {
      const params: unknown[] = [projectId];
      let where = 'project_id = $1';
      if (enabled !== undefined) where += ` AND enabled = $${params.push(enabled)}`;
      if (state !== undefined) where += ` AND state = $${params.push(state)}`;
      const n = params.length;
      const [page, count] = await Promise.all([
        pool.query<RuleRow>(`SELECT ${RULE_COLUMNS} FROM alert_rules WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${n + 1} OFFSET $${n + 2}`, [
          ...params,
          limit,
          offset,
        ]),
        pool.query<{ total: number }>(`SELECT count(*)::int AS total FROM alert_rules WHERE ${where}`, params),
      ]);
      return { rules: page.rows.map(toRule), total: count.rows[0].total, limit, offset };
    },

    async get(projectId, id) {
      if (!isUuid(id)) return null;
      const { rows } = await pool.query<RuleRow>(`SELECT ${RULE_COLUMNS} FROM alert_rules WHERE project_id = $1 AND id = $2`, [projectId, id]);
      return rows.length ? toRule(rows[0]) : null;
    },

    async update(projectId, id, def) {
      if (!isUuid(id)) return null;
      const { rows } = await pool.query<RuleRow>(
        `UPDATE alert_rules SET name = $3, metric = $4, filter = $5::jsonb, window_seconds = $6, eval_interval_seconds = $7, operator = $8,
           threshold = $9, severity = $10, webhook_url = $11, no_data = $12, min_samples = $13, enabled = $14, drift_test = $15,
           drift_source = $16, baseline_windows = $17, psi_bins = $18,
           state_since = CASE WHEN NOT $14 AND state <> 'ok' THEN now() ELSE state_since END,
           state = CASE WHEN $14 THEN state ELSE 'ok' END,
           next_eval_at = now(), claim_seq = claim_seq + 1, updated_at = now()
         WHERE project_id = $1 AND id = $2
         RETURNING ${RULE_COLUMNS}`,
        [projectId, id, ...definitionParams(def)],
      );
      return rows.length ? toRule(rows[0]) : null;
    },

    async delete(projectId, id) {
      if (!isUuid(id)) return false;
      const { rowCount } = await pool.query('DELETE FROM alert_rules WHERE project_id = $1 AND id = $2', [projectId, id]);
      return (rowCount ?? 0) > 0;
    },

    async listEvents(projectId, q) {
      const params: unknown[] = [projectId];
      let where = 'project_id = $1';
      if (q.rule_id !== undefined) where += ` AND rule_id = $${params.push(q.rule_id)}`;
      if (q.kind !== undefined) where += ` AND kind = $${params.push(q.kind)}`;
      if (q.start_time !== undefined) where += ` AND at >= $${params.push(q.start_time)}`;
      if (q.end_time !== undefined) where += ` AND at <= $${params.push(q.end_time)}`;
      const n = params.length;
      const [page, count] = await Promise.all([
        pool.query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM alert_events WHERE ${where} ORDER BY at DESC, id DESC LIMIT $${n + 1} OFFSET $${n + 2}`, [
          ...params,
          q.limit,
          q.offset,
        ]),
        pool.query<{ total: number }>(`SELECT count(*)::int AS total FROM alert_events WHERE ${where}`, params),
      ]);
      return { events: page.rows.map(toEvent), total: count.rows[0].total, limit: q.limit, offset: q.offset };
    },

    async claimDue(limit) {
      const { rows } = await pool.query<RuleRow>(
        `UPDATE alert_rules r SET next_eval_at = now() + make_interval(secs => r.eval_interval_seconds), claim_seq = r.claim_seq + 1
         WHERE r.id IN (
           SELECT id FROM alert_rules WHERE enabled AND next_eval_at <= now() ORDER BY next_eval_at LIMIT $1 FOR UPDATE SKIP LOCKED
         )
         RETURNING ${RULE_COLUMNS}`,
        [limit],
      );
      return rows.map(toClaimed);
    },

    async commitEvaluation(claim, result, decide) {
      return inTransaction(pool, async (client) => {
        const { rows } = await client.query<{ state: AlertState }>('SELECT state FROM alert_rules WHERE id = $1 AND claim_seq = $2 FOR UPDATE', [
          claim.id,
          claim.claim_seq,
        ]);
        if (!rows.length) return null;
        const next = decide(rows[0].state);
        await client.query(
          `UPDATE alert_rules SET state_since = CASE WHEN state <> $2 THEN $3 ELSE state_since END, state = $2,
             last_evaluated_at = $3, last_value = $4, last_error = NULL
           WHERE id = $1`,
          [claim.id, next.state, result.at, result.value],
        );
        const e = next.event;
        if (e) {
          await client.query(
            `INSERT INTO alert_events (id, rule_id, project_id, kind, value, threshold, at, payload, webhook_url, delivery_status, next_attempt_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, CASE WHEN $9::text IS NULL THEN NULL ELSE now() END)`,
            [
              e.id,
              claim.id,
              claim.project_id,
              e.kind,
              e.value,
              e.threshold,
              e.at,
              JSON.stringify(e.payload),
              e.webhook_url,
              e.webhook_url === null ? 'none' : 'pending',
            ],
          );
        }
        return next;
      });
    },

    async recordEvaluationError(claim, at, message) {
      await pool.query('UPDATE alert_rules SET last_evaluated_at = $3, last_error = $4 WHERE id = $1 AND claim_seq = $2', [
        claim.id,
        claim.claim_seq,
        at,
        message,
      ]);
    },

    async claimDeliveries(limit, leaseMs) {
      const { rows } = await pool.query<Omit<PendingDelivery, 'attempt'> & { attempt: number }>(
        `UPDATE alert_events e SET delivery_attempts = e.delivery_attempts + 1, last_attempt_at = now(),
           next_attempt_at = now() + make_interval(secs => $2::double precision / 1000)
         WHERE e.id IN (
           SELECT id FROM alert_events WHERE delivery_status IN ('pending', 'retrying') AND next_attempt_at <= now()
           ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED
         )
         RETURNING e.id, e.rule_id, e.project_id, e.webhook_url, e.payload, e.delivery_attempts AS attempt`,
        [limit, leaseMs],
      );
      return rows;
    },

    async recordDelivery(delivery, result) {
      await pool.query(
        `UPDATE alert_events SET delivery_status = $3, delivery_error = $4,
           next_attempt_at = CASE WHEN $3 = 'retrying' THEN now() + make_interval(secs => $5::double precision / 1000) ELSE NULL END
         WHERE id = $1 AND delivery_attempts = $2`,
        [delivery.id, delivery.attempt, result.status, result.error ?? null, result.retryInMs ?? 0],
      );
    },

    async runPassRate(projectId, { from, to }, suiteName) {
      const params: unknown[] = [projectId, from, to];
      const suite = suiteName === undefined ? '' : ` AND e.suite_name = $${params.push(suiteName)}`;
      const { rows } = await pool.query<{ passed: number; total: number }>(
        `SELECT count(*) FILTER (WHERE r.passed)::int AS passed, count(*)::int AS total
         FROM eval_runs e JOIN eval_case_results r ON r.run_id = e.id
         WHERE e.project_id = $1 AND e.status = 'completed' AND e.completed_at >= $2 AND e.completed_at < $3 AND r.status <> 'cancelled'${suite}`,
        params,
      );
      return rows[0];
    },
  };
}
