import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Expected, ScorerRef } from '../../model/eval-case.js';
import type { ClaimedScan } from '../online-evals.js';
import type { OnlineEvalStore } from './online-eval-store.js';

/**
 * The evaluator's side of the online evaluation store (docs/online-evals.md, "How rules run"):
 * claims of rules to scan and of evaluations to score, their commits under the claim, leases and
 * their heartbeat, and the purge. Claims span projects and carry each rule's project.
 */
export type OnlineWorkQueue = Pick<
  OnlineEvalStore,
  'claimScans' | 'commitScan' | 'recordScanError' | 'claimEvaluations' | 'finishEvaluations' | 'failAttempt' | 'renewLeases' | 'release' | 'purgeFinished'
>;

export function createOnlineWorkQueue(pool: pg.Pool): OnlineWorkQueue {
  return {
    async claimScans(limit, leaseMs) {
      // A claimed rule's row: bigints come as text, the watermark in two columns.
      // The quiet time is a trace rule's delay, a session rule's idle time.
      const { rows } = await pool.query<
        Omit<ClaimedScan, 'since_ms' | 'watermark'> & { since_ms: string; watermark_stored_ms: string; watermark_trace: string | null }
      >(
        `UPDATE online_rules r SET next_scan_at = now() + make_interval(secs => $2::double precision / 1000), claim_seq = r.claim_seq + 1
         WHERE r.id IN (SELECT id FROM online_rules WHERE enabled AND next_scan_at <= now() ORDER BY next_scan_at LIMIT $1 FOR UPDATE SKIP LOCKED)
         RETURNING r.id, r.project_id, r.claim_seq, r.target, r.filter, r.sample_rate,
           CASE WHEN r.target = 'session' THEN r.idle_seconds ELSE r.delay_seconds END AS delay_seconds, r.on_resume,
           r.since_ms, r.watermark_stored_ms, r.watermark_trace`,
        [limit, leaseMs],
      );
      return rows.map(({ since_ms, watermark_stored_ms, watermark_trace, ...rule }) => ({
        ...rule,
        since_ms: Number(since_ms),
        watermark: { storedMs: Number(watermark_stored_ms), traceId: watermark_trace },
      }));
    },

    async commitScan(claim, scan) {
      // One statement: the claim check, the watermark, and the new evaluations commit together or not at all.
      const { rows } = await pool.query<{ committed: boolean }>(
        `WITH rule AS (
           UPDATE online_rules SET watermark_stored_ms = $3, watermark_trace = $4, backlog_stored_ms = $5,
             skipped_by_sampling = skipped_by_sampling + $6, last_scan_at = now(), last_scan_error = NULL,
             next_scan_at = now() + make_interval(secs => $7::double precision / 1000)
           WHERE id = $1 AND claim_seq = $2
           RETURNING id, project_id
         ), claimed AS (
           INSERT INTO online_evaluations (rule_id, trace_id, project_id, trace_end_ms, trace_stored_ms)
           SELECT rule.id, t.trace_id, rule.project_id, t.end_ms, t.stored_ms FROM rule, unnest($8::text[], $9::bigint[], $10::bigint[]) AS t(trace_id, end_ms, stored_ms)
           ON CONFLICT (rule_id, trace_id) DO NOTHING
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
          scan.sampled.map((t) => t.trace_id),
          scan.sampled.map((t) => t.end_ms),
          scan.sampled.map((t) => t.stored_ms),
        ],
      );
      return rows[0].committed;
    },

    async recordScanError(claim, message, retryInMs) {
      await pool.query(
        `UPDATE online_rules SET last_scan_at = now(), last_scan_error = $3, next_scan_at = now() + make_interval(secs => $4::double precision / 1000)
         WHERE id = $1 AND claim_seq = $2`,
        [claim.id, claim.claim_seq, message, retryInMs],
      );
    },

    async claimEvaluations(limit, leaseMs) {
      const lease = randomUUID();
      const { rows } = await pool.query<{
        rule_id: string;
        rule_name: string;
        project_id: string;
        trace_id: string;
        trace_end_ms: string;
        attempts: number;
        scorers: ScorerRef[];
        expected: Expected;
      }>(
        `UPDATE online_evaluations e SET status = 'running', attempts = e.attempts + 1, lease = $2,
           next_attempt_at = now() + make_interval(secs => $3::double precision / 1000)
         FROM online_rules r
         WHERE r.id = e.rule_id AND (e.rule_id, e.trace_id) IN (
           SELECT o.rule_id, o.trace_id FROM online_evaluations o JOIN online_rules q ON q.id = o.rule_id
           WHERE o.status IN ('pending', 'running') AND o.next_attempt_at <= now() AND q.enabled
           ORDER BY o.next_attempt_at LIMIT $1 FOR UPDATE OF o SKIP LOCKED
         )
         RETURNING e.rule_id, r.name AS rule_name, e.project_id, e.trace_id, e.trace_end_ms, e.attempts, r.scorers, r.expected`,
        [limit, lease, leaseMs],
      );
      return rows.map((r) => ({ ...r, trace_end_ms: Number(r.trace_end_ms), attempt: r.attempts, lease }));
    },

    async finishEvaluations(done) {
      if (done.length === 0) return 0;
      const { rows } = await pool.query<{ recorded: number }>(
        `WITH input AS (
           SELECT * FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::double precision[], $6::int[], $7::bigint[])
             AS t(rule_id, trace_id, lease, scores, cost, errors, tokens)
         ), finished AS (
           UPDATE online_evaluations e SET status = 'done', scores = i.scores::jsonb, cost_usd = i.cost, error = NULL, lease = NULL, finished_at = now()
           FROM input i
           WHERE e.rule_id = i.rule_id AND e.trace_id = i.trace_id AND e.lease = i.lease AND e.status = 'running'
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
          done.map((d) => d.claim.trace_id),
          done.map((d) => d.claim.lease),
          done.map((d) => JSON.stringify(d.scores)),
          done.map((d) => d.costUsd),
          done.map((d) => d.errors),
          done.map((d) => d.judgeTokens),
        ],
      );
      return rows[0].recorded;
    },

    async failAttempt(claim, message, retryInMs) {
      const final = retryInMs === null;
      await pool.query(
        `WITH failed AS (
           UPDATE online_evaluations SET status = $4, error = $5, lease = NULL,
             next_attempt_at = now() + make_interval(secs => $6::double precision / 1000),
             finished_at = CASE WHEN $4 = 'failed' THEN now() END
           WHERE rule_id = $1 AND trace_id = $2 AND lease = $3 AND status = 'running'
           RETURNING rule_id
         )
         UPDATE online_rules SET errors = errors + 1 WHERE $4 = 'failed' AND id IN (SELECT rule_id FROM failed)`,
        [claim.rule_id, claim.trace_id, claim.lease, final ? 'failed' : 'pending', message, retryInMs ?? 0],
      );
    },

    async renewLeases(leases, leaseMs) {
      if (leases.length === 0) return;
      // A lease is of one table's evaluations; the heartbeat renews both tables' in one statement.
      await pool.query(
        `WITH traces AS (
           UPDATE online_evaluations SET next_attempt_at = now() + make_interval(secs => $2::double precision / 1000)
           WHERE lease = ANY($1::uuid[]) AND status = 'running' RETURNING 1
         )
         UPDATE online_session_evaluations SET next_attempt_at = now() + make_interval(secs => $2::double precision / 1000)
         WHERE lease = ANY($1::uuid[]) AND status = 'running'`,
        [leases, leaseMs],
      );
    },

    async release(claim) {
      await pool.query(
        `UPDATE online_evaluations SET status = 'pending', attempts = greatest(0, attempts - 1), lease = NULL, next_attempt_at = now()
         WHERE rule_id = $1 AND trace_id = $2 AND lease = $3 AND status = 'running'`,
        [claim.rule_id, claim.trace_id, claim.lease],
      );
    },

    async purgeFinished(beforeMs) {
      const { rows } = await pool.query<{ n: number }>(
        `WITH traces AS (DELETE FROM online_evaluations WHERE status IN ('done', 'failed') AND trace_end_ms < $1 RETURNING 1),
           sessions AS (DELETE FROM online_session_evaluations WHERE status IN ('done', 'failed') AND session_end_ms < $1 RETURNING 1)
         SELECT ((SELECT count(*) FROM traces) + (SELECT count(*) FROM sessions))::int AS n`,
        [Math.trunc(beforeMs)],
      );
      return rows[0].n;
    },
  };
}
