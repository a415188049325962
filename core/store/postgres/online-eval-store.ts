import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { isUuid } from '../../model/agent.js';
import type { Expected, ScorerRef } from '../../model/eval-case.js';
import type {
  EvaluationStatus,
  OnlineEvaluation,
  OnlineEvaluationList,
  OnlineRule,
  OnlineRuleDefinition,
  OnlineRuleFilter,
  OnlineRuleList,
  OnlineScoreRecord,
} from '../../model/online-rule.js';
import type { ScanPosition, ScannedTrace } from '../clickhouse/online-trace-reads.js';

/**
 * Online evaluation rules and their evaluations (PostgreSQL; docs/online-evals.md). Every API
 * read filters by project; the evaluator's claims span projects and carry each rule's project.
 */
export interface OnlineEvalStore {
  create(projectId: string, def: OnlineRuleDefinition, sinceMs: number): Promise<OnlineRule>;
  /** Newest first. */
  list(projectId: string, query: { limit: number; offset: number; enabled?: boolean }): Promise<OnlineRuleList>;
  get(projectId: string, id: string): Promise<OnlineRule | null>;
  /** Replaces the settings and makes the rule due for a scan now (a scan in flight is discarded). */
  update(projectId: string, id: string, def: OnlineRuleDefinition): Promise<OnlineRule | null>;
  /** True when a rule was deleted (its evaluations go with it; its scores stay). */
  delete(projectId: string, id: string): Promise<boolean>;
  /** Null when the project has no such rule. Newest first. */
  listEvaluations(projectId: string, ruleId: string, query: EvaluationQuery): Promise<OnlineEvaluationList | null>;

  /**
   * Claims up to `limit` enabled rules due for a scan: next_scan_at moves `leaseMs` on and
   * claim_seq grows, in one statement with FOR UPDATE SKIP LOCKED, so one scanner at a time.
   */
  claimScans(limit: number, leaseMs: number): Promise<ClaimedScan[]>;
  /**
   * Records a scan in one transaction, only while the claim is current: the sampled traces
   * become pending evaluations (a trace the rule already has is left as it is), the watermark
   * and backlog move, skipped traces are counted. False (nothing written) when the rule was
   * edited, deleted or claimed again since.
   */
  commitScan(claim: ClaimedScan, scan: ScanResult): Promise<boolean>;
  /** Notes a failed scan; the rule is scanned again after `retryInMs`. */
  recordScanError(claim: ClaimedScan, message: string, retryInMs: number): Promise<void>;
  /**
   * Leases up to `limit` due evaluations of enabled rules to this worker until `leaseMs` from now
   * (pending ones, and running ones whose worker's lease ran out), counting the attempt.
   */
  claimEvaluations(limit: number, leaseMs: number): Promise<ClaimedEvaluation[]>;
  /** Records scored evaluations still leased to their claim, and adds them to their rules' counters; the number recorded. */
  finishEvaluations(done: FinishedEvaluation[]): Promise<number>;
  /** An attempt that failed: pending again after `retryInMs`, or `failed` (counted as an error) when `retryInMs` is null. */
  failAttempt(claim: ClaimedEvaluation, message: string, retryInMs: number | null): Promise<void>;
  /** Extends the leases of evaluations this worker still holds (its heartbeat) to `leaseMs` from now. */
  renewLeases(leases: string[], leaseMs: number): Promise<void>;
  /** Hands an evaluation back undone (this worker is stopping): due at once, the attempt not counted. */
  release(claim: ClaimedEvaluation): Promise<void>;
  /** Every rule's counters, for /metrics. */
  metrics(): Promise<RuleMetrics[]>;
  /** Deletes final evaluations of traces that ended before `beforeMs` (past retention); the number deleted. */
  purgeFinished(beforeMs: number): Promise<number>;
}

export interface EvaluationQuery {
  limit: number;
  offset: number;
  status?: EvaluationStatus;
  trace_id?: string;
}

/** A rule as claimed for a scan. */
export interface ClaimedScan {
  id: string;
  project_id: string;
  claim_seq: string;
  filter: OnlineRuleFilter;
  sample_rate: number;
  delay_seconds: number;
  /** Traces that ended before this are not the rule's. */
  since_ms: number;
  watermark: ScanPosition;
}

export interface ScanResult {
  sampled: ScannedTrace[];
  skipped: number;
  watermark: ScanPosition;
  /** When the first trace left for the next scan was last stored, when the batch was full. */
  backlogStoredMs: number | null;
  /** When the rule is due for its next scan. */
  nextScanInMs: number;
}

/** An evaluation leased to this worker. */
export interface ClaimedEvaluation {
  rule_id: string;
  rule_name: string;
  project_id: string;
  trace_id: string;
  trace_end_ms: number;
  /** This attempt's number, from 1. */
  attempt: number;
  lease: string;
  scorers: ScorerRef[];
  expected: Expected;
}

export interface FinishedEvaluation {
  claim: ClaimedEvaluation;
  scores: Record<string, OnlineScoreRecord>;
  /** Scorer verdicts that were errors. */
  errors: number;
  judgeTokens: number;
  /** Null when no judge call was priced. */
  costUsd: number | null;
}

export interface RuleMetrics {
  rule_id: string;
  project_id: string;
  enabled: boolean;
  scored: number;
  skipped_by_sampling: number;
  errors: number;
  judge_tokens: number;
  cost_usd: number;
  pending: number;
  lag_seconds: number;
}

const RULE_COLUMNS = `r.id, r.name, r.filter, r.sample_rate, r.scorers, r.expected, r.delay_seconds, r.enabled, r.since_ms, r.watermark_stored_ms,
  r.watermark_trace, r.scored, r.skipped_by_sampling, r.errors, r.judge_tokens, r.cost_usd, r.last_scored_at, r.last_scan_at, r.last_scan_error,
  r.created_at, r.updated_at, o.pending, o.lag_ms`;

/**
 * The rule's open evaluations and its lag: now minus the time the oldest trace it will score and
 * has not yet was last stored, whether already claimed (an open evaluation) or still past the
 * watermark (the last scan's backlog). A disabled rule scores nothing and has no lag.
 */
const RULE_FROM = `online_rules r
  LEFT JOIN LATERAL (
    SELECT count(*)::int AS pending,
      CASE WHEN r.enabled THEN greatest(0, (extract(epoch FROM now()) * 1000)::bigint - least(min(e.trace_stored_ms), r.backlog_stored_ms)) END AS lag_ms
    FROM online_evaluations e WHERE e.rule_id = r.id AND e.status IN ('pending', 'running')
  ) o ON true`;

interface RuleRow {
  id: string;
  name: string;
  filter: OnlineRuleFilter;
  sample_rate: number;
  scorers: ScorerRef[];
  expected: Expected;
  delay_seconds: number;
  enabled: boolean;
  since_ms: string;
  watermark_stored_ms: string;
  watermark_trace: string | null;
  scored: string;
  skipped_by_sampling: string;
  errors: string;
  judge_tokens: string;
  cost_usd: number;
  last_scored_at: Date | null;
  last_scan_at: Date | null;
  last_scan_error: string | null;
  created_at: Date;
  updated_at: Date;
  pending: number;
  lag_ms: string | null;
}

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());

/** The one converter from a rule row: the API view. */
function toRule(row: RuleRow): OnlineRule {
  return {
    id: row.id,
    name: row.name,
    filter: row.filter,
    sample_rate: row.sample_rate,
    scorers: row.scorers,
    expected: row.expected,
    delay_seconds: row.delay_seconds,
    enabled: row.enabled,
    since: new Date(Number(row.since_ms)).toISOString(),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    stats: {
      scored: Number(row.scored),
      skipped_by_sampling: Number(row.skipped_by_sampling),
      errors: Number(row.errors),
      pending: row.pending,
      judge_tokens: Number(row.judge_tokens),
      cost_usd: row.cost_usd,
      last_scored_at: iso(row.last_scored_at),
      last_scan_at: iso(row.last_scan_at),
      last_scan_error: row.last_scan_error,
      lag_seconds: row.lag_ms === null ? 0 : Number(row.lag_ms) / 1000,
      watermark: new Date(Number(row.watermark_stored_ms)).toISOString(),
    },
  };
}

interface EvaluationRow {
  trace_id: string;
  status: EvaluationStatus;
  attempts: number;
  trace_end_ms: string;
  scores: Record<string, OnlineScoreRecord> | null;
  error: string | null;
  cost_usd: number | null;
  created_at: Date;
  finished_at: Date | null;
}

function toEvaluation(row: EvaluationRow): OnlineEvaluation {
  return {
    trace_id: row.trace_id,
    status: row.status,
    attempts: row.attempts,
    trace_end: new Date(Number(row.trace_end_ms)).toISOString(),
    scores: row.scores,
    error: row.error,
    cost_usd: row.cost_usd,
    created_at: row.created_at.toISOString(),
    finished_at: iso(row.finished_at),
  };
}

/** The settings as `$3 .. $9` (after project and id). */
function definitionParams(def: OnlineRuleDefinition): unknown[] {
  return [def.name, JSON.stringify(def.filter), def.sample_rate, JSON.stringify(def.scorers), JSON.stringify(def.expected), def.delay_seconds, def.enabled];
}

export function createOnlineEvalStore(pool: pg.Pool): OnlineEvalStore {
  async function getRule(projectId: string, id: string): Promise<OnlineRule | null> {
    const { rows } = await pool.query<RuleRow>(`SELECT ${RULE_COLUMNS} FROM ${RULE_FROM} WHERE r.project_id = $1 AND r.id = $2`, [projectId, id]);
    return rows.length ? toRule(rows[0]) : null;
  }

  return {
    async create(projectId, def, sinceMs) {
      const id = randomUUID();
      // The watermark starts 1 ms before `since` with no trace: every trace stored since then that ended at or after `since` is the rule's.
      await pool.query(
        `INSERT INTO online_rules (project_id, id, name, filter, sample_rate, scorers, expected, delay_seconds, enabled, since_ms, watermark_stored_ms)
         VALUES ($1, $2, $3, $4::jsonb, $5, $6::jsonb, $7::jsonb, $8, $9, $10::bigint, $10::bigint - 1)`,
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
        pool.query<RuleRow>(`SELECT ${RULE_COLUMNS} FROM ${RULE_FROM} WHERE ${where} ORDER BY r.created_at DESC, r.id DESC LIMIT $${n + 1} OFFSET $${n + 2}`, [...params, limit, offset]),
        pool.query<{ total: number }>(`SELECT count(*)::int AS total FROM online_rules r WHERE ${where}`, params),
      ]);
      return { rules: page.rows.map(toRule), total: count.rows[0].total, limit, offset };
    },

    get: (projectId, id) => (isUuid(id) ? getRule(projectId, id) : Promise.resolve(null)),

    async update(projectId, id, def) {
      if (!isUuid(id)) return null;
      const { rowCount } = await pool.query(
        `UPDATE online_rules SET name = $3, filter = $4::jsonb, sample_rate = $5, scorers = $6::jsonb, expected = $7::jsonb, delay_seconds = $8,
           enabled = $9, next_scan_at = now(), claim_seq = claim_seq + 1, updated_at = now()
         WHERE project_id = $1 AND id = $2`,
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
      const owner = await pool.query('SELECT 1 FROM online_rules WHERE project_id = $1 AND id = $2', [projectId, ruleId]);
      if (!owner.rowCount) return null;
      const params: unknown[] = [ruleId];
      let where = 'rule_id = $1';
      if (q.status !== undefined) where += ` AND status = $${params.push(q.status)}`;
      if (q.trace_id !== undefined) where += ` AND trace_id = $${params.push(q.trace_id)}`;
      const n = params.length;
      const [page, count] = await Promise.all([
        pool.query<EvaluationRow>(
          `SELECT trace_id, status, attempts, trace_end_ms, scores, error, cost_usd, created_at, finished_at FROM online_evaluations
           WHERE ${where} ORDER BY created_at DESC, trace_id LIMIT $${n + 1} OFFSET $${n + 2}`,
          [...params, q.limit, q.offset],
        ),
        pool.query<{ total: number }>(`SELECT count(*)::int AS total FROM online_evaluations WHERE ${where}`, params),
      ]);
      return { evaluations: page.rows.map(toEvaluation), total: count.rows[0].total, limit: q.limit, offset: q.offset };
    },

    async claimScans(limit, leaseMs) {
      const { rows } = await pool.query<{ id: string; project_id: string; claim_seq: string; filter: OnlineRuleFilter; sample_rate: number; delay_seconds: number; since_ms: string; watermark_stored_ms: string; watermark_trace: string | null }>(
        `UPDATE online_rules r SET next_scan_at = now() + make_interval(secs => $2::double precision / 1000), claim_seq = r.claim_seq + 1
         WHERE r.id IN (SELECT id FROM online_rules WHERE enabled AND next_scan_at <= now() ORDER BY next_scan_at LIMIT $1 FOR UPDATE SKIP LOCKED)
         RETURNING r.id, r.project_id, r.claim_seq, r.filter, r.sample_rate, r.delay_seconds, r.since_ms, r.watermark_stored_ms, r.watermark_trace`,
        [limit, leaseMs],
      );
      return rows.map((r) => ({
        id: r.id,
        project_id: r.project_id,
        claim_seq: r.claim_seq,
        filter: r.filter,
        sample_rate: r.sample_rate,
        delay_seconds: r.delay_seconds,
        since_ms: Number(r.since_ms),
        watermark: { storedMs: Number(r.watermark_stored_ms), traceId: r.watermark_trace },
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
          claim.id, claim.claim_seq, scan.watermark.storedMs, scan.watermark.traceId, scan.backlogStoredMs, scan.skipped, scan.nextScanInMs,
          scan.sampled.map((t) => t.trace_id), scan.sampled.map((t) => t.end_ms), scan.sampled.map((t) => t.stored_ms),
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
      const { rows } = await pool.query<{ rule_id: string; rule_name: string; project_id: string; trace_id: string; trace_end_ms: string; attempts: number; scorers: ScorerRef[]; expected: Expected }>(
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
      await pool.query(
        `UPDATE online_evaluations SET next_attempt_at = now() + make_interval(secs => $2::double precision / 1000)
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

    async metrics() {
      const { rows } = await pool.query<{ id: string; project_id: string; enabled: boolean; scored: string; skipped_by_sampling: string; errors: string; judge_tokens: string; cost_usd: number; pending: number; lag_ms: string | null }>(
        `SELECT r.id, r.project_id, r.enabled, r.scored, r.skipped_by_sampling, r.errors, r.judge_tokens, r.cost_usd, o.pending, o.lag_ms FROM ${RULE_FROM}`,
      );
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

    async purgeFinished(beforeMs) {
      const { rowCount } = await pool.query(`DELETE FROM online_evaluations WHERE status IN ('done', 'failed') AND trace_end_ms < $1`, [Math.trunc(beforeMs)]);
      return rowCount ?? 0;
    },
  };
}
