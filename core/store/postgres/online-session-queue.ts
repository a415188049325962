import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Expected, ScorerRef } from '../../model/eval-case.js';
import type { OnlineSessionEvaluationList } from '../../model/online-rule.js';
import type { EvaluationQuery, OnlineEvalStore } from '../online-evals.js';
import { SESSION_EVALUATION_COLUMNS, toSessionEvaluation, type SessionEvaluationRow } from './online-rule-rows.js';

/**
 * Session rules' side of the evaluator's queue (docs/online-evals.md, "Session rules"): a scan's
 * sessions become generations under the scan's claim, and session evaluations are leased,
 * finished, failed and handed back as trace evaluations are (online-work-queue.ts), in their own
 * table (migration 018).
 */
export type OnlineSessionQueue = Pick<
  OnlineEvalStore,
  'commitSessionScan' | 'claimSessionEvaluations' | 'finishSessionEvaluations' | 'failSessionAttempt' | 'releaseSession'
>;

export function createOnlineSessionQueue(pool: pg.Pool): OnlineSessionQueue {
  return {
    async commitSessionScan(claim, scan) {
      // One statement, as a trace rule's scan. A session becomes a generation only when the rule has
      // none of it, or (reevaluate) when the store received a write of it after the last one's: the
      // same session seen again unchanged, or resumed under 'ignore', adds nothing. Commits of one
      // rule are serial (each holds the rule's row and checks its claim), so `prior` is current.
      const { rows } = await pool.query<{ committed: boolean }>(
        `WITH rule AS (
           UPDATE online_rules SET watermark_stored_ms = $3, watermark_trace = $4, backlog_stored_ms = $5,
             skipped_by_sampling = skipped_by_sampling + $6, last_scan_at = now(), last_scan_error = NULL,
             next_scan_at = now() + make_interval(secs => $7::double precision / 1000)
           WHERE id = $1 AND claim_seq = $2 AND target = 'session'
           RETURNING id, project_id, on_resume
         ), input AS (
           SELECT * FROM unnest($8::text[], $9::bigint[], $10::bigint[]) AS t(session_id, end_ms, stored_ms)
         ), prior AS (
           SELECT e.session_id, max(e.generation) AS generation, max(e.session_stored_ms) AS stored_ms
           FROM online_session_evaluations e WHERE e.rule_id = $1 AND e.session_id = ANY($8::text[])
           GROUP BY e.session_id
         ), claimed AS (
           INSERT INTO online_session_evaluations (rule_id, session_id, generation, project_id, session_stored_ms, session_end_ms)
           SELECT rule.id, i.session_id, coalesce(p.generation, 0) + 1, rule.project_id, i.stored_ms, i.end_ms
           FROM rule CROSS JOIN input i LEFT JOIN prior p ON p.session_id = i.session_id
           WHERE p.session_id IS NULL OR (rule.on_resume = 'reevaluate' AND i.stored_ms > p.stored_ms)
           ON CONFLICT (rule_id, session_id, generation) DO NOTHING
           RETURNING 1
         )
         SELECT EXISTS (SELECT 1 FROM rule) AS committed, (SELECT count(*) FROM claimed) AS claimed`,
        [
          claim.id,
          claim.claim_seq,
          scan.watermark.storedMs,
          scan.watermark.traceId,
          scan.backlogStoredMs,
          scan.skipped,
          scan.nextScanInMs,
          scan.sampled.map((s) => s.session_id),
          scan.sampled.map((s) => s.end_ms),
          scan.sampled.map((s) => s.stored_ms),
        ],
      );
      return rows[0].committed;
    },

    async claimSessionEvaluations(limit, leaseMs) {
      const lease = randomUUID();
      const { rows } = await pool.query<{
        rule_id: string;
        rule_name: string;
        project_id: string;
        session_id: string;
        generation: number;
        session_stored_ms: string;
        session_end_ms: string;
        attempts: number;
        scorers: ScorerRef[];
        expected: Expected;
      }>(
        `UPDATE online_session_evaluations e SET status = 'running', attempts = e.attempts + 1, lease = $2,
           next_attempt_at = now() + make_interval(secs => $3::double precision / 1000)
         FROM online_rules r
         WHERE r.id = e.rule_id AND (e.rule_id, e.session_id, e.generation) IN (
           SELECT o.rule_id, o.session_id, o.generation FROM online_session_evaluations o JOIN online_rules q ON q.id = o.rule_id
           WHERE o.status IN ('pending', 'running') AND o.next_attempt_at <= now() AND q.enabled
           ORDER BY o.next_attempt_at LIMIT $1 FOR UPDATE OF o SKIP LOCKED
         )
         RETURNING e.rule_id, r.name AS rule_name, e.project_id, e.session_id, e.generation, e.session_stored_ms, e.session_end_ms, e.attempts,
           r.scorers, r.expected`,
        [limit, lease, leaseMs],
      );
      return rows.map(({ session_stored_ms, session_end_ms, attempts, ...r }) => ({
        ...r,
        session_stored_ms: Number(session_stored_ms),
        session_end_ms: Number(session_end_ms),
        attempt: attempts,
        lease,
      }));
    },

    async finishSessionEvaluations(done) {
      if (done.length === 0) return 0;
      const { rows } = await pool.query<{ recorded: number }>(
        `WITH input AS (
           SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[], $4::uuid[], $5::text[], $6::double precision[], $7::int[], $8::bigint[], $9::int[], $10::text[])
             AS t(rule_id, session_id, generation, lease, scores, cost, errors, tokens, turns, last_trace_id)
         ), finished AS (
           UPDATE online_session_evaluations e SET status = 'done', scores = i.scores::jsonb, cost_usd = i.cost, error = NULL, lease = NULL,
             finished_at = now(), turns = i.turns, last_trace_id = i.last_trace_id
           FROM input i
           WHERE e.rule_id = i.rule_id AND e.session_id = i.session_id AND e.generation = i.generation AND e.lease = i.lease AND e.status = 'running'
           RETURNING e.rule_id, i.cost, i.errors, i.tokens
         ), counted AS (
           UPDATE online_rules r SET scored = r.scored + f.n, errors = r.errors + f.errors, judge_tokens = r.judge_tokens + f.tokens,
             cost_usd = r.cost_usd + f.cost, last_scored_at = now()
           FROM (SELECT rule_id, count(*) AS n, sum(errors) AS errors, sum(tokens) AS tokens, coalesce(sum(cost), 0) AS cost FROM finished GROUP BY rule_id) f
           WHERE r.id = f.rule_id
           RETURNING 1
         )
         SELECT (SELECT count(*)::int FROM finished) AS recorded, (SELECT count(*) FROM counted) AS rules`,
        [
          done.map((d) => d.claim.rule_id),
          done.map((d) => d.claim.session_id),
          done.map((d) => d.claim.generation),
          done.map((d) => d.claim.lease),
          done.map((d) => JSON.stringify(d.scores)),
          done.map((d) => d.costUsd),
          done.map((d) => d.errors),
          done.map((d) => d.judgeTokens),
          done.map((d) => d.turns),
          done.map((d) => d.lastTraceId),
        ],
      );
      return rows[0].recorded;
    },

    async failSessionAttempt(claim, message, retryInMs) {
      const final = retryInMs === null;
      await pool.query(
        `WITH failed AS (
           UPDATE online_session_evaluations SET status = $5, error = $6, lease = NULL,
             next_attempt_at = now() + make_interval(secs => $7::double precision / 1000),
             finished_at = CASE WHEN $5 = 'failed' THEN now() END
           WHERE rule_id = $1 AND session_id = $2 AND generation = $3 AND lease = $4 AND status = 'running'
           RETURNING rule_id
         )
         UPDATE online_rules SET errors = errors + 1 WHERE $5 = 'failed' AND id IN (SELECT rule_id FROM failed)`,
        [claim.rule_id, claim.session_id, claim.generation, claim.lease, final ? 'failed' : 'pending', message, retryInMs ?? 0],
      );
    },

    async releaseSession(claim) {
      await pool.query(
        `UPDATE online_session_evaluations SET status = 'pending', attempts = greatest(0, attempts - 1), lease = NULL, next_attempt_at = now()
         WHERE rule_id = $1 AND session_id = $2 AND generation = $3 AND lease = $4 AND status = 'running'`,
        [claim.rule_id, claim.session_id, claim.generation, claim.lease],
      );
    },
  };
}

/** A session rule's evaluations, newest first (GET /api/evals/online-rules/{id}/evaluations). */
export async function listSessionEvaluations(pool: pg.Pool, ruleId: string, q: EvaluationQuery): Promise<OnlineSessionEvaluationList> {
  const params: unknown[] = [ruleId];
  let where = 'rule_id = $1';
  if (q.status !== undefined) where += ` AND status = $${params.push(q.status)}`;
  if (q.session_id !== undefined) where += ` AND session_id = $${params.push(q.session_id)}`;
  const n = params.length;
  const [page, count] = await Promise.all([
    pool.query<SessionEvaluationRow>(
      `SELECT ${SESSION_EVALUATION_COLUMNS} FROM online_session_evaluations
       WHERE ${where} ORDER BY created_at DESC, session_id, generation DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...params, q.limit, q.offset],
    ),
    pool.query<{ total: number }>(`SELECT count(*)::int AS total FROM online_session_evaluations WHERE ${where}`, params),
  ]);
  return { evaluations: page.rows.map(toSessionEvaluation), total: count.rows[0].total, limit: q.limit, offset: q.offset };
}
