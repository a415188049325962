import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { OnlineEvaluation, OnlineEvaluationList, OnlineSessionEvaluation } from '../../model/online-rule.js';
import type {
  ClaimedEvaluation,
  ClaimedSessionEvaluation,
  EvaluationQuery,
  EvaluationQueue,
  FinishedEvaluation,
  FinishedSessionEvaluation,
  LeasedEvaluation,
} from '../online-evals.js';
import { SESSION_EVALUATION_COLUMNS, toEvaluation, toSessionEvaluation, type EvaluationRow, type SessionEvaluationRow } from './online-rule-rows.js';

/**
 * The evaluator's leased evaluations (docs/online-evals.md, "How rules run"), one SQL for both
 * targets: trace rules' evaluations (online_evaluations, one per (rule, trace)) and session rules'
 * (online_session_evaluations, migration 018, one per (rule, session, generation)) are claimed,
 * finished, failed and handed back alike; a target names its table, the columns after rule_id
 * that name one evaluation, and what a finish records beyond scores and cost. Table and column
 * names come only from the two constants below, never from a caller.
 */

/** A column of the evaluation's table with its PostgreSQL type (for unnest) and its value in `T`. */
interface Column<T> {
  name: string;
  type: string;
  value: (of: T) => unknown;
}

interface EvaluationTable<C extends LeasedEvaluation, F extends { claim: C }, Row, View> {
  table: 'online_evaluations' | 'online_session_evaluations';
  /** The columns after rule_id that name one evaluation. */
  key: ReadonlyArray<Column<C>>;
  /** Times (bigint milliseconds) a claim carries beside its key. */
  times: readonly string[];
  /** What a finish records beyond the scores, the cost and the rule's counters. */
  results: ReadonlyArray<Column<F>>;
  /** The listing (GET /api/evals/online-rules/{id}/evaluations): its columns, the query's id filter, the order after created_at. */
  columns: string;
  filter: 'trace_id' | 'session_id';
  order: string;
  toView: (row: Row) => View;
}

export const TRACE_EVALUATIONS: EvaluationTable<ClaimedEvaluation, FinishedEvaluation, EvaluationRow, OnlineEvaluation> = {
  table: 'online_evaluations',
  key: [{ name: 'trace_id', type: 'text', value: (c) => c.trace_id }],
  times: ['trace_end_ms'],
  results: [],
  columns: 'trace_id, status, attempts, trace_end_ms, scores, error, cost_usd, created_at, finished_at',
  filter: 'trace_id',
  order: 'trace_id',
  toView: toEvaluation,
};

export const SESSION_EVALUATIONS: EvaluationTable<ClaimedSessionEvaluation, FinishedSessionEvaluation, SessionEvaluationRow, OnlineSessionEvaluation> = {
  table: 'online_session_evaluations',
  key: [
    { name: 'session_id', type: 'text', value: (c) => c.session_id },
    { name: 'generation', type: 'int', value: (c) => c.generation },
  ],
  times: ['session_stored_ms', 'session_end_ms'],
  results: [
    { name: 'turns', type: 'int', value: (d) => d.turns },
    { name: 'last_trace_id', type: 'text', value: (d) => d.lastTraceId },
  ],
  columns: SESSION_EVALUATION_COLUMNS,
  filter: 'session_id',
  order: 'session_id, generation DESC',
  toView: toSessionEvaluation,
};

/** One target's queue, plus its listing for the API. */
export interface TargetEvaluations<C extends LeasedEvaluation, F extends { claim: C }, View> extends EvaluationQueue<C, F> {
  list(ruleId: string, q: EvaluationQuery): Promise<OnlineEvaluationList<View>>;
}

export function createEvaluationQueue<C extends LeasedEvaluation, F extends FinishedEvaluationBase<C>, Row, View>(
  pool: pg.Pool,
  t: EvaluationTable<C, F, Row, View>,
): TargetEvaluations<C, F, View> {
  const keys = t.key.map((k) => k.name);
  const prefixed = (alias: string, names: readonly string[]) => names.map((n) => `${alias}.${n}`).join(', ');
  /** `rule_id = $1 AND <key> = $2 .. AND lease = $n`: the evaluation as this claim holds it, with its parameters. */
  const held = (claim: C) => ({
    where: [...['rule_id', ...keys].map((n, i) => `${n} = $${i + 1}`), `lease = $${keys.length + 2}`].join(' AND '),
    params: [claim.rule_id, ...t.key.map((k) => k.value(claim)), claim.lease],
  });

  return {
    async claim(limit, leaseMs) {
      const lease = randomUUID();
      const { rows } = await pool.query<Record<string, unknown> & { attempts: number }>(
        `UPDATE ${t.table} e SET status = 'running', attempts = e.attempts + 1, lease = $2,
           next_attempt_at = now() + make_interval(secs => $3::double precision / 1000)
         FROM online_rules r
         WHERE r.id = e.rule_id AND (e.rule_id, ${prefixed('e', keys)}) IN (
           SELECT o.rule_id, ${prefixed('o', keys)} FROM ${t.table} o JOIN online_rules q ON q.id = o.rule_id
           WHERE o.status IN ('pending', 'running') AND o.next_attempt_at <= now() AND q.enabled
           ORDER BY o.next_attempt_at LIMIT $1 FOR UPDATE OF o SKIP LOCKED
         )
         RETURNING e.rule_id, r.name AS rule_name, e.project_id, ${prefixed('e', [...keys, ...t.times])}, e.attempts, r.scorers, r.expected`,
        [limit, lease, leaseMs],
      );
      // Bigints come as text.
      return rows.map(
        ({ attempts, ...row }) => ({ ...row, ...Object.fromEntries(t.times.map((c) => [c, Number(row[c])])), attempt: attempts, lease }) as unknown as C,
      );
    },

    async finish(done) {
      if (done.length === 0) return 0;
      const input: Array<Column<F>> = [
        { name: 'rule_id', type: 'uuid', value: (d) => d.claim.rule_id },
        ...t.key.map((k) => ({ ...k, value: (d: F) => k.value(d.claim) })),
        { name: 'lease', type: 'uuid', value: (d) => d.claim.lease },
        { name: 'scores', type: 'text', value: (d) => JSON.stringify(d.scores) },
        { name: 'cost', type: 'double precision', value: (d) => d.costUsd },
        { name: 'errors', type: 'int', value: (d) => d.errors },
        { name: 'tokens', type: 'bigint', value: (d) => d.judgeTokens },
        ...t.results,
      ];
      const { rows } = await pool.query<{ recorded: number }>(
        `WITH input AS (
           SELECT * FROM unnest(${input.map((c, i) => `$${i + 1}::${c.type}[]`).join(', ')})
             AS t(${input.map((c) => c.name).join(', ')})
         ), finished AS (
           UPDATE ${t.table} e SET status = 'done', scores = i.scores::jsonb, cost_usd = i.cost, error = NULL, lease = NULL,
             finished_at = now()${t.results.map((c) => `, ${c.name} = i.${c.name}`).join('')}
           FROM input i
           WHERE e.rule_id = i.rule_id AND ${keys.map((k) => `e.${k} = i.${k}`).join(' AND ')} AND e.lease = i.lease AND e.status = 'running'
           RETURNING e.rule_id, i.cost, i.errors, i.tokens
         ), counted AS (
           UPDATE online_rules r SET scored = r.scored + f.n, errors = r.errors + f.errors, judge_tokens = r.judge_tokens + f.tokens,
             cost_usd = r.cost_usd + f.cost, last_scored_at = now()
           FROM (SELECT rule_id, count(*) AS n, sum(errors) AS errors, sum(tokens) AS tokens, coalesce(sum(cost), 0) AS cost FROM finished GROUP BY rule_id) f
           WHERE r.id = f.rule_id
           RETURNING 1
         )
         SELECT (SELECT count(*)::int FROM finished) AS recorded, (SELECT count(*) FROM counted) AS rules`,
        input.map((c) => done.map((d) => c.value(d))),
      );
      return rows[0].recorded;
    },

    async fail(claim, message, retryInMs) {
      const { where, params } = held(claim);
      const [status, error, retry] = [params.length + 1, params.length + 2, params.length + 3].map((n) => `$${n}`);
      await pool.query(
        `WITH failed AS (
           UPDATE ${t.table} SET status = ${status}, error = ${error}, lease = NULL,
             next_attempt_at = now() + make_interval(secs => ${retry}::double precision / 1000),
             finished_at = CASE WHEN ${status} = 'failed' THEN now() END
           WHERE ${where} AND status = 'running'
           RETURNING rule_id
         )
         UPDATE online_rules SET errors = errors + 1 WHERE ${status} = 'failed' AND id IN (SELECT rule_id FROM failed)`,
        [...params, retryInMs === null ? 'failed' : 'pending', message, retryInMs ?? 0],
      );
    },

    async release(claim) {
      const { where, params } = held(claim);
      await pool.query(
        `UPDATE ${t.table} SET status = 'pending', attempts = greatest(0, attempts - 1), lease = NULL, next_attempt_at = now()
         WHERE ${where} AND status = 'running'`,
        params,
      );
    },

    async list(ruleId, q) {
      const params: unknown[] = [ruleId];
      let where = 'rule_id = $1';
      if (q.status !== undefined) where += ` AND status = $${params.push(q.status)}`;
      const id = q[t.filter];
      if (id !== undefined) where += ` AND ${t.filter} = $${params.push(id)}`;
      const n = params.length;
      const [page, count] = await Promise.all([
        pool.query<Row & pg.QueryResultRow>(
          `SELECT ${t.columns} FROM ${t.table}
           WHERE ${where} ORDER BY created_at DESC, ${t.order} LIMIT $${n + 1} OFFSET $${n + 2}`,
          [...params, q.limit, q.offset],
        ),
        pool.query<{ total: number }>(`SELECT count(*)::int AS total FROM ${t.table} WHERE ${where}`, params),
      ]);
      return { evaluations: page.rows.map(t.toView), total: count.rows[0].total, limit: q.limit, offset: q.offset };
    },
  };
}

type FinishedEvaluationBase<C> = Pick<FinishedEvaluation, 'scores' | 'errors' | 'judgeTokens' | 'costUsd'> & { claim: C };
