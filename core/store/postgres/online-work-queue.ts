import type pg from 'pg';
import type { ClaimedScan, OnlineEvalStore, ScanResult } from '../online-evals.js';

/**
 * The evaluator's side of the online evaluation store (docs/online-evals.md, "How rules run"):
 * claims of rules to scan and their commits under the claim (a trace rule's traces, a session
 * rule's sessions as generations, migration 018), the heartbeat of the leases of evaluations
 * (online-evaluation-queue.ts), and the purge. Claims span projects and
 * carry each rule's project.
 */
export type OnlineWorkQueue = Pick<OnlineEvalStore, 'claimScans' | 'commitScan' | 'commitSessionScan' | 'recordScanError' | 'renewLeases' | 'purgeFinished'>;

/**
 * The `rule` CTE of a scan's commit: the watermark, backlog, skipped count and next scan move, only
 * while the claim (`$1` id, `$2` claim_seq) is current; `$3 .. $7` are {@link scanParams}.
 */
const scannedRule = (where: string, returning = '') => `rule AS (
           UPDATE online_rules SET watermark_stored_ms = $3, watermark_trace = $4, backlog_stored_ms = $5,
             skipped_by_sampling = skipped_by_sampling + $6, last_scan_at = now(), last_scan_error = NULL,
             next_scan_at = now() + make_interval(secs => $7::double precision / 1000)
           WHERE id = $1 AND claim_seq = $2${where}
           RETURNING id, project_id${returning}
         )`;

const scanParams = (claim: ClaimedScan, scan: Omit<ScanResult, 'sampled'>): unknown[] => [
  claim.id,
  claim.claim_seq,
  scan.watermark.storedMs,
  scan.watermark.traceId,
  scan.backlogStoredMs,
  scan.skipped,
  scan.nextScanInMs,
];

/** `$8 .. $10`: the sampled items' ids, ends and last-stored times. */
const sampledParams = <T extends { end_ms: number; stored_ms: number }>(sampled: T[], idOf: (item: T) => string): unknown[] => [
  sampled.map(idOf),
  sampled.map((s) => s.end_ms),
  sampled.map((s) => s.stored_ms),
];

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
        `WITH ${scannedRule('')}, claimed AS (
           INSERT INTO online_evaluations (rule_id, trace_id, project_id, trace_end_ms, trace_stored_ms)
           SELECT rule.id, t.trace_id, rule.project_id, t.end_ms, t.stored_ms FROM rule, unnest($8::text[], $9::bigint[], $10::bigint[]) AS t(trace_id, end_ms, stored_ms)
           ON CONFLICT (rule_id, trace_id) DO NOTHING
           RETURNING 1
         )
         SELECT EXISTS (SELECT 1 FROM rule) AS committed, (SELECT count(*) FROM claimed) AS claimed`,
        [...scanParams(claim, scan), ...sampledParams(scan.sampled, (t) => t.trace_id)],
      );
      return rows[0].committed;
    },

    async commitSessionScan(claim, scan) {
      // One statement, as a trace rule's scan. A session becomes a generation only when the rule has
      // none of it, or (reevaluate) when the store received a write of it after the last one's: the
      // same session seen again unchanged, or resumed under 'ignore', adds nothing. Commits of one
      // rule are serial (each holds the rule's row and checks its claim), so `prior` is current.
      const { rows } = await pool.query<{ committed: boolean }>(
        `WITH ${scannedRule(" AND target = 'session'", ', on_resume')}, input AS (
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
        [...scanParams(claim, scan), ...sampledParams(scan.sampled, (s) => s.session_id)],
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
