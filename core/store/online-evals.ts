import type { Expected, ScorerRef } from '../model/eval-case.js';
import type {
  EvaluationStatus,
  OnlineEvaluationList,
  OnlineRule,
  OnlineRuleDefinition,
  OnlineRuleFilter,
  OnlineRuleList,
  OnlineRuleTarget,
  OnResume,
  OnlineScoreRecord,
  OnlineSessionEvaluationList,
} from '../model/online-rule.js';
import type { ScanPosition, ScannedSession, ScannedTrace } from './online-traces.js';

/*
 * Online evaluation rules and their evaluations (PostgreSQL, migration 011;
 * store/postgres/online-eval-store.ts implements it; docs/online-evals.md).
 *
 * Promises:
 * - Isolation: every API call names a project and touches only its rules and evaluations.
 * - One scanner per rule at a time (`claimScans`), and a scan is recorded only while its claim is
 *   current, in one transaction: a rule edited, deleted or claimed again since is left alone.
 * - A trace is evaluated once per rule: a sampled trace the rule already has is left as it is;
 *   evaluations are leased, an attempt cut short is taken up again after its lease, and a result
 *   is recorded only while its lease is held (so a late worker cannot record twice).
 * - A session is evaluated once per (rule, generation): a scanned session becomes the rule's next
 *   generation only when it has none (on_resume 'ignore': only the first ever), or when the store
 *   received a write of it after the last generation's (on_resume 'reevaluate'); the same leases.
 * - Writes resolve once committed; what a caller gets is its own copy.
 */

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
  /** Null when the project has no such rule. Newest first; a session rule's are session evaluations. */
  listEvaluations(projectId: string, ruleId: string, query: EvaluationQuery): Promise<OnlineEvaluationList | OnlineSessionEvaluationList | null>;

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
  /**
   * A session rule's scan, as commitScan: the sampled sessions become the rule's next generation
   * of each (see the promises above), the watermark moves, skipped sessions are counted; false
   * when the claim is no longer current.
   */
  commitSessionScan(claim: ClaimedScan, scan: SessionScanResult): Promise<boolean>;
  /** Notes a failed scan; the rule is scanned again after `retryInMs`. */
  recordScanError(claim: ClaimedScan, message: string, retryInMs: number): Promise<void>;
  /**
   * The leased evaluations of each target: trace rules' (one per rule and trace) and session
   * rules' (one per rule, session and generation), under the same leases, attempts and counters.
   */
  readonly evaluations: {
    readonly trace: EvaluationQueue<ClaimedEvaluation, FinishedEvaluation>;
    readonly session: EvaluationQueue<ClaimedSessionEvaluation, FinishedSessionEvaluation>;
  };
  /** Extends the leases of evaluations this worker still holds (its heartbeat) to `leaseMs` from now, trace and session evaluations alike. */
  renewLeases(leases: string[], leaseMs: number): Promise<void>;
  /** Every rule's counters, for /metrics. */
  metrics(): Promise<RuleMetrics[]>;
  /** Deletes final evaluations of traces (sessions) that ended before `beforeMs` (past retention); the number deleted. */
  purgeFinished(beforeMs: number): Promise<number>;
}

/** One target's evaluations as the evaluator works them. */
export interface EvaluationQueue<C extends LeasedEvaluation, F extends { claim: C }> {
  /**
   * Leases up to `limit` due evaluations of enabled rules to this worker until `leaseMs` from now
   * (pending ones, and running ones whose worker's lease ran out), counting the attempt.
   */
  claim(limit: number, leaseMs: number): Promise<C[]>;
  /** Records scored evaluations still leased to their claim, and adds them to their rules' counters; the number recorded. */
  finish(done: F[]): Promise<number>;
  /** An attempt that failed: pending again after `retryInMs`, or `failed` (counted as an error) when `retryInMs` is null. */
  fail(claim: C, message: string, retryInMs: number | null): Promise<void>;
  /** Hands an evaluation back undone (this worker is stopping): due at once, the attempt not counted. */
  release(claim: C): Promise<void>;
}

export interface EvaluationQuery {
  limit: number;
  offset: number;
  status?: EvaluationStatus;
  /** A trace rule's evaluations of this trace. */
  trace_id?: string;
  /** A session rule's evaluations of this session. */
  session_id?: string;
}

/** A rule as claimed for a scan. */
export interface ClaimedScan {
  id: string;
  project_id: string;
  claim_seq: string;
  target: OnlineRuleTarget;
  filter: OnlineRuleFilter;
  sample_rate: number;
  /** The rule's quiet time: a trace rule's delay_seconds, a session rule's idle_seconds. */
  delay_seconds: number;
  /** A session rule's; null for trace rules. */
  on_resume: OnResume | null;
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

/** A session rule's scan: the sessions sampled, the rest as ScanResult (positions: session ids in place of trace ids). */
export interface SessionScanResult extends Omit<ScanResult, 'sampled'> {
  sampled: ScannedSession[];
}

/** What every evaluation leased to this worker carries: its rule, the attempt and the lease. */
export interface LeasedEvaluation {
  rule_id: string;
  rule_name: string;
  project_id: string;
  /** This attempt's number, from 1. */
  attempt: number;
  lease: string;
  scorers: ScorerRef[];
  expected: Expected;
}

/** A trace evaluation leased to this worker. */
export interface ClaimedEvaluation extends LeasedEvaluation {
  trace_id: string;
  trace_end_ms: number;
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

/** A session evaluation leased to this worker. */
export interface ClaimedSessionEvaluation extends LeasedEvaluation {
  session_id: string;
  generation: number;
  /** When the session was last written as the scan found it idle, and the end of its latest trace then. */
  session_stored_ms: number;
  session_end_ms: number;
}

export interface FinishedSessionEvaluation extends Omit<FinishedEvaluation, 'claim'> {
  claim: ClaimedSessionEvaluation;
  /** Turns scored, and the last one's trace (the trace the scores name). */
  turns: number;
  lastTraceId: string;
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
