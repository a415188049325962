import type {
  EvaluationStatus,
  OnlineEvaluation,
  OnlineRule,
  OnlineRuleDefinition,
  OnlineRuleTarget,
  OnlineScoreRecord,
  OnlineSessionEvaluation,
  OnResume,
} from '../../model/online-rule.js';

/** Online rules' and evaluations' rows as PostgreSQL returns them, and the one converter of each to its API view. */

export const RULE_COLUMNS = `r.id, r.name, r.target, r.filter, r.sample_rate, r.scorers, r.expected, r.delay_seconds, r.idle_seconds, r.on_resume, r.enabled, r.since_ms, r.watermark_stored_ms,
  r.watermark_trace, r.scored, r.skipped_by_sampling, r.errors, r.judge_tokens, r.cost_usd, r.last_scored_at, r.last_scan_at, r.last_scan_error,
  r.created_at, r.updated_at, o.pending, o.lag_ms`;

/**
 * The rule's open evaluations and its lag: now minus the time the oldest trace (session) it will
 * score and has not yet was last stored, whether already claimed (an open evaluation) or still past
 * the watermark (the last scan's backlog). A disabled rule scores nothing and has no lag. A rule
 * has evaluations in one of the two tables only (its target's).
 */
export const RULE_FROM = `online_rules r
  LEFT JOIN LATERAL (
    SELECT count(*)::int AS pending,
      CASE WHEN r.enabled THEN greatest(0, (extract(epoch FROM now()) * 1000)::bigint - least(min(w.stored_ms), r.backlog_stored_ms)) END AS lag_ms
    FROM (
      SELECT e.trace_stored_ms AS stored_ms FROM online_evaluations e WHERE e.rule_id = r.id AND e.status IN ('pending', 'running')
      UNION ALL
      SELECT s.session_stored_ms FROM online_session_evaluations s WHERE s.rule_id = r.id AND s.status IN ('pending', 'running')
    ) w
  ) o ON true`;

/** A rule's stored settings, its scan position, counters and open work. */
export interface RuleRow extends Omit<OnlineRuleDefinition, 'delay_seconds' | 'idle_seconds' | 'on_resume'> {
  id: string;
  target: OnlineRuleTarget;
  delay_seconds: number;
  idle_seconds: number | null;
  on_resume: OnResume | null;
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
export function toRule(row: RuleRow): OnlineRule {
  // A trace rule shows its delay; a session rule its idle time and what a resumed session does.
  const timing =
    row.target === 'session' ? { idle_seconds: row.idle_seconds ?? undefined, on_resume: row.on_resume ?? undefined } : { delay_seconds: row.delay_seconds };
  return {
    id: row.id,
    name: row.name,
    target: row.target,
    filter: row.filter,
    sample_rate: row.sample_rate,
    scorers: row.scorers,
    expected: row.expected,
    ...timing,
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

export interface EvaluationRow {
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

export function toEvaluation(row: EvaluationRow): OnlineEvaluation {
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

export interface SessionEvaluationRow {
  session_id: string;
  generation: number;
  status: EvaluationStatus;
  attempts: number;
  session_end_ms: string;
  session_stored_ms: string;
  turns: number | null;
  last_trace_id: string | null;
  scores: Record<string, OnlineScoreRecord> | null;
  error: string | null;
  cost_usd: number | null;
  created_at: Date;
  finished_at: Date | null;
}

export const SESSION_EVALUATION_COLUMNS =
  'session_id, generation, status, attempts, session_end_ms, session_stored_ms, turns, last_trace_id, scores, error, cost_usd, created_at, finished_at';

export function toSessionEvaluation(row: SessionEvaluationRow): OnlineSessionEvaluation {
  return {
    session_id: row.session_id,
    generation: row.generation,
    status: row.status,
    attempts: row.attempts,
    session_end: new Date(Number(row.session_end_ms)).toISOString(),
    idle_since: new Date(Number(row.session_stored_ms)).toISOString(),
    turns: row.turns,
    last_trace_id: row.last_trace_id,
    scores: row.scores,
    error: row.error,
    cost_usd: row.cost_usd,
    created_at: row.created_at.toISOString(),
    finished_at: iso(row.finished_at),
  };
}

/**
 * The settings as `$3 .. $11` (after project and id): name, filter, sample rate, scorers,
 * expected, delay (0 on a session rule), enabled, target, idle time and on_resume (null on a trace rule).
 */
export function definitionParams(def: OnlineRuleDefinition): unknown[] {
  const session = def.target === 'session';
  return [
    def.name,
    JSON.stringify(def.filter),
    def.sample_rate,
    JSON.stringify(def.scorers),
    JSON.stringify(def.expected),
    session ? 0 : def.delay_seconds,
    def.enabled,
    def.target,
    session ? def.idle_seconds : null,
    session ? def.on_resume : null,
  ];
}
