import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { ClaimedEvaluation, ClaimedScan, EvaluationQuery, FinishedEvaluation, OnlineEvalStore, RuleMetrics, ScanResult } from '../online-evals.js';
import { isUuid } from '../../model/agent.js';
import type { OnlineRule } from '../../model/online-rule.js';
import { createEvaluationQueue, SESSION_EVALUATIONS, TRACE_EVALUATIONS } from './online-evaluation-queue.js';
import { definitionParams, RULE_COLUMNS, RULE_FROM, toRule, type RuleRow } from './online-rule-rows.js';
import { createOnlineWorkQueue } from './online-work-queue.js';

export type { ClaimedEvaluation, ClaimedScan, EvaluationQuery, FinishedEvaluation, OnlineEvalStore, RuleMetrics, ScanResult };

export function createOnlineEvalStore(pool: pg.Pool): OnlineEvalStore {
  async function getRule(projectId: string, id: string): Promise<OnlineRule | null> {
    const { rows } = await pool.query<RuleRow>(`SELECT ${RULE_COLUMNS} FROM ${RULE_FROM} WHERE r.project_id = $1 AND r.id = $2`, [projectId, id]);
    return rows.length ? toRule(rows[0]) : null;
  }

  const evaluations = { trace: createEvaluationQueue(pool, TRACE_EVALUATIONS), session: createEvaluationQueue(pool, SESSION_EVALUATIONS) };

  return {
    async create(projectId, def, sinceMs) {
      const id = randomUUID();
      // The watermark starts 1 ms before `since` with no trace: every trace stored since then that ended at or after `since` is the rule's.
      await pool.query(
        `INSERT INTO online_rules (project_id, id, name, filter, sample_rate, scorers, expected, delay_seconds, enabled, target, idle_seconds, on_resume, since_ms, watermark_stored_ms)
         VALUES ($1, $2, $3, $4::jsonb, $5, $6::jsonb, $7::jsonb, $8, $9, $10, $11, $12, $13::bigint, $13::bigint - 1)`,
        [projectId, id, ...definitionParams(def), Math.trunc(sinceMs)],
      );
      const rule = await getRule(projectId, id);
      if (!rule) throw new Error(`online rule ${id} vanished after creation`);
      return rule;
    },

    async list(projectId, { limit, offset, enabled }) {
      const params: unknown[] = [projectId];
      let where = 'r.project_id = $1';
      if (enabled !== undefined) where += ` AND r.enabled = $${params.push(enabled)}`;
      const n = params.length;
      const [page, count] = await Promise.all([
        pool.query<RuleRow>(`SELECT ${RULE_COLUMNS} FROM ${RULE_FROM} WHERE ${where} ORDER BY r.created_at DESC, r.id DESC LIMIT $${n + 1} OFFSET $${n + 2}`, [
          ...params,
          limit,
          offset,
        ]),
        pool.query<{ total: number }>(`SELECT count(*)::int AS total FROM online_rules r WHERE ${where}`, params),
      ]);
      return { rules: page.rows.map(toRule), total: count.rows[0].total, limit, offset };
    },

    get: (projectId, id) => (isUuid(id) ? getRule(projectId, id) : Promise.resolve(null)),

    async update(projectId, id, def) {
      if (!isUuid(id)) return null;
      const { rowCount } = await pool.query(
        `UPDATE online_rules SET name = $3, filter = $4::jsonb, sample_rate = $5, scorers = $6::jsonb, expected = $7::jsonb, delay_seconds = $8,
           enabled = $9, idle_seconds = $11, on_resume = $12, next_scan_at = now(), claim_seq = claim_seq + 1, updated_at = now()
         WHERE project_id = $1 AND id = $2 AND target = $10`,
        [projectId, id, ...definitionParams(def)],
      );
      return rowCount ? getRule(projectId, id) : null;
    },

    async delete(projectId, id) {
      if (!isUuid(id)) return false;
      const { rowCount } = await pool.query('DELETE FROM online_rules WHERE project_id = $1 AND id = $2', [projectId, id]);
      return (rowCount ?? 0) > 0;
    },

    async listEvaluations(projectId, ruleId, q) {
      if (!isUuid(ruleId)) return null;
      const owner = await pool.query<{ target: string }>('SELECT target FROM online_rules WHERE project_id = $1 AND id = $2', [projectId, ruleId]);
      if (!owner.rowCount) return null;
      return owner.rows[0].target === 'session' ? evaluations.session.list(ruleId, q) : evaluations.trace.list(ruleId, q);
    },

    async metrics() {
      const { rows } = await pool.query<{
        id: string;
        project_id: string;
        enabled: boolean;
        scored: string;
        skipped_by_sampling: string;
        errors: string;
        judge_tokens: string;
        cost_usd: number;
        pending: number;
        lag_ms: string | null;
      }>(`SELECT r.id, r.project_id, r.enabled, r.scored, r.skipped_by_sampling, r.errors, r.judge_tokens, r.cost_usd, o.pending, o.lag_ms FROM ${RULE_FROM}`);
      return rows.map((r) => ({
        rule_id: r.id,
        project_id: r.project_id,
        enabled: r.enabled,
        scored: Number(r.scored),
        skipped_by_sampling: Number(r.skipped_by_sampling),
        errors: Number(r.errors),
        judge_tokens: Number(r.judge_tokens),
        cost_usd: r.cost_usd,
        pending: r.pending,
        lag_seconds: r.lag_ms === null ? 0 : Number(r.lag_ms) / 1000,
      }));
    },

    evaluations,
    ...createOnlineWorkQueue(pool),
  };
}
