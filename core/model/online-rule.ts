import { z } from 'zod';
import { ValidationError } from '../errors.js';
import { validate } from '../validate.js';
import { ExpectedSchema, ScorerRefListSchema, type Expected, type ScorerRef } from './eval-case.js';
import { Timestamp } from './ingest-body.js';
import { jsonProblems, pgText } from './pg-json.js';
import { COMPONENT_TYPES } from './span.js';

/**
 * Online evaluation rules (docs/online-evals.md): which of a project's production traces are
 * scored, by which scorers, how many of them (a deterministic sample) and how long after they end.
 * A rule targets traces (each trace scored once) or sessions (docs/online-evals.md "Session
 * rules": a conversation scored once it has been idle, again after it resumes if so configured).
 */

/** Longest delay a rule may wait after a trace ends: one day. */
export const MAX_DELAY_SECONDS = 86_400;
/** What a rule scores: each trace, or each session (a conversation: the traces naming one session id). */
export const ONLINE_RULE_TARGETS = ['trace', 'session'] as const;
export type OnlineRuleTarget = (typeof ONLINE_RULE_TARGETS)[number];
/** What a session rule does when a session it scored receives new traces: score it again once idle, or never again. */
export const ON_RESUME = ['reevaluate', 'ignore'] as const;
export type OnResume = (typeof ON_RESUME)[number];
/** How long a session must have received no write before a session rule scores it: default 30 minutes, 1 s to 7 days. */
export const DEFAULT_IDLE_SECONDS = 1800;
export const MIN_IDLE_SECONDS = 1;
export const MAX_IDLE_SECONDS = 7 * 86_400;
/** A trace rule's default delay. */
export const DEFAULT_DELAY_SECONDS = 60;
/** Attribute equalities one filter may hold. */
export const MAX_FILTER_ATTRIBUTES = 20;

/** Which traces a rule scores; every key given must hold. */
export const OnlineRuleFilterSchema = z.strictObject({
  /** The trace's name contains this text, case-insensitively (as GET /api/traces?name=). */
  trace_name: pgText(1024).min(1).optional(),
  /** The trace's attributes hold each of these keys with exactly this value. */
  attributes: z
    .record(pgText(256).min(1), pgText(4096))
    .refine((a) => Object.keys(a).length <= MAX_FILTER_ATTRIBUTES, `at most ${MAX_FILTER_ATTRIBUTES} attributes`)
    .optional(),
  /** The trace has at least one span of this component type. */
  component_type: z.enum(COMPONENT_TYPES).optional(),
  /** The trace's status (`error` when any span errored or the ingest body said so, as GET /api/traces). */
  status: z.enum(['ok', 'error']).optional(),
});
export type OnlineRuleFilter = z.output<typeof OnlineRuleFilterSchema>;

const SampleRate = z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1');

const ForTarget = (target: OnlineRuleTarget) =>
  target === 'trace' ? 'applies to session rules (target "session") only' : 'applies to trace rules only; a session rule waits idle_seconds';

/** The body of POST /api/evals/online-rules. */
export const OnlineRuleBodySchema = z
  .strictObject({
    name: pgText(256).trim().min(1),
    /** Traces (the default: rules made before sessions could be targeted read so) or sessions. */
    target: z.enum(ONLINE_RULE_TARGETS).default('trace'),
    filter: OnlineRuleFilterSchema.nullish(),
    sample_rate: SampleRate.default(1),
    scorers: ScorerRefListSchema.refine((refs) => refs.length > 0, 'must name at least one scorer'),
    /** What rule-based scorers compare every trace with (`outputContains`, `regex`, `maxLatencyMs`...). */
    expected: ExpectedSchema.nullish(),
    /** Trace rules: how long a trace must have received no write before it is scored (default 60). */
    delay_seconds: z.number().int().min(0).max(MAX_DELAY_SECONDS).optional(),
    /** Session rules: how long a session must have received no write before it is scored (default 1800). */
    idle_seconds: z
      .number()
      .int()
      .min(MIN_IDLE_SECONDS, `must be at least ${MIN_IDLE_SECONDS} second`)
      .max(MAX_IDLE_SECONDS, `must be at most ${MAX_IDLE_SECONDS} seconds (7 days)`)
      .optional(),
    /** Session rules: a session that receives traces after it was scored is scored again once idle (`reevaluate`, the default), or not (`ignore`). */
    on_resume: z.enum(ON_RESUME).optional(),
    enabled: z.boolean().default(true),
    /** Traces that ended at or after this time are the rule's (sessions: whose latest trace did); default: when the rule is created. */
    since: Timestamp.optional(),
  })
  .superRefine((body, ctx) => {
    // Each setting belongs to one target: a session rule's delay or a trace rule's idle time is a mistake worth naming.
    const foreign = body.target === 'trace' ? (['idle_seconds', 'on_resume'] as const) : (['delay_seconds'] as const);
    for (const key of foreign) if (body[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: ForTarget(body.target) });
  });
/** A rule body as a client writes it (the SDK's typed client). */
export type OnlineRuleBody = z.input<typeof OnlineRuleBodySchema>;

/**
 * A rule's settings, defaults filled: what is stored and what PUT merges into. A trace rule has
 * `delay_seconds`; a session rule `idle_seconds` and `on_resume` instead.
 */
export interface OnlineRuleDefinition {
  name: string;
  target: OnlineRuleTarget;
  filter: OnlineRuleFilter;
  sample_rate: number;
  scorers: ScorerRef[];
  expected: Expected;
  delay_seconds?: number;
  idle_seconds?: number;
  on_resume?: OnResume;
  enabled: boolean;
}

/** What the rule has done so far (docs/online-evals.md, "Stats"); a session rule counts sessions (each idle period scored once). */
export interface OnlineRuleStats {
  /** Traces scored (each once, with all the rule's scorers); a session rule's: session evaluations (one per idle period). */
  scored: number;
  /** Traces (sessions) the filter matched that the sample left out. */
  skipped_by_sampling: number;
  /** Scorer verdicts that were errors (recorded as 0), plus traces that could not be scored at all. */
  errors: number;
  /** Sampled traces waiting to be scored, or being scored. */
  pending: number;
  /** Input + output tokens of the rule's judge calls. */
  judge_tokens: number;
  /** Of the judge calls the price table priced. */
  cost_usd: number;
  last_scored_at: string | null;
  last_scan_at: string | null;
  last_scan_error: string | null;
  /** now - the end of the oldest trace the rule will score and has not yet; 0 when none waits. */
  lag_seconds: number;
  /** Traces ending at or before this (and after `since`) have been decided. */
  watermark: string;
}

/** A rule as the API shows it. */
export interface OnlineRule extends OnlineRuleDefinition {
  id: string;
  since: string;
  created_at: string;
  updated_at: string;
  stats: OnlineRuleStats;
}

export interface OnlineRuleList {
  rules: OnlineRule[];
  total: number;
  limit: number;
  offset: number;
}

export const EVALUATION_STATUSES = ['pending', 'running', 'done', 'failed'] as const;
export type EvaluationStatus = (typeof EVALUATION_STATUSES)[number];

/** One scorer's verdict on a trace, as the evaluation records it. */
export interface OnlineScoreRecord {
  score_id: string;
  value: number;
  reason: string;
  /** The trace holding the judge's calls, when the scorer is an LLM judge. */
  judge_trace_id?: string;
}

/** One (rule, trace) evaluation (GET /api/evals/online-rules/{id}/evaluations). */
export interface OnlineEvaluation {
  trace_id: string;
  status: EvaluationStatus;
  attempts: number;
  trace_end: string;
  scores: Record<string, OnlineScoreRecord> | null;
  error: string | null;
  cost_usd: number | null;
  created_at: string;
  finished_at: string | null;
}

/**
 * One (rule, session, generation) evaluation of a session rule: generation 1 is the session's
 * first idle period the rule scored, and with `on_resume: "reevaluate"` each later one (the
 * session received traces after it was scored, then was idle again) is the next.
 */
export interface OnlineSessionEvaluation {
  session_id: string;
  generation: number;
  status: EvaluationStatus;
  attempts: number;
  /** The end of the session's latest trace when the scan found it idle. */
  session_end: string;
  /** When the store last received a write of the session, as the scan saw it: idle since then. */
  idle_since: string;
  /** Turns (traces) scored, and the last one's trace id (the trace the scores name); null until scored. */
  turns: number | null;
  last_trace_id: string | null;
  scores: Record<string, OnlineScoreRecord> | null;
  error: string | null;
  cost_usd: number | null;
  created_at: string;
  finished_at: string | null;
}

/** A rule's evaluations: a trace rule's (OnlineEvaluation), or a session rule's (OnlineSessionEvaluationList). */
export interface OnlineEvaluationList<E = OnlineEvaluation> {
  evaluations: E[];
  total: number;
  limit: number;
  offset: number;
}

export type OnlineSessionEvaluationList = OnlineEvaluationList<OnlineSessionEvaluation>;

/** The fields of a rule the client sets after creation; PUT accepts the read-only ones of GET back and ignores them. */
export const DEFINITION_KEYS = [
  'name',
  'target',
  'filter',
  'sample_rate',
  'scorers',
  'expected',
  'delay_seconds',
  'idle_seconds',
  'on_resume',
  'enabled',
] as const satisfies ReadonlyArray<keyof OnlineRuleDefinition>;
const READ_ONLY_KEYS = new Set(['id', 'since', 'created_at', 'updated_at', 'stats']);

function definitionOf(body: z.output<typeof OnlineRuleBodySchema>): OnlineRuleDefinition {
  const common = {
    name: body.name,
    target: body.target,
    filter: body.filter ?? {},
    sample_rate: body.sample_rate,
    scorers: body.scorers,
    expected: body.expected ?? {},
  };
  return body.target === 'session'
    ? { ...common, idle_seconds: body.idle_seconds ?? DEFAULT_IDLE_SECONDS, on_resume: body.on_resume ?? 'reevaluate', enabled: body.enabled }
    : { ...common, delay_seconds: body.delay_seconds ?? DEFAULT_DELAY_SECONDS, enabled: body.enabled };
}

function assertStorable(raw: unknown): void {
  const issues = jsonProblems(raw);
  if (issues.length) throw new ValidationError(issues);
}

/** A create body, checked (422 naming each field); `since` absent means "from now". */
export function parseOnlineRule(raw: unknown): { definition: OnlineRuleDefinition; since?: number } {
  assertStorable(raw);
  const body = validate(OnlineRuleBodySchema, raw);
  return { definition: definitionOf(body), since: body.since };
}

/**
 * PUT: the body merged into the stored settings, checked as a create body. `null` returns a
 * field to its default; read-only fields of the view are accepted and ignored; `since` cannot
 * change (the rule's traces would otherwise be decided twice), nor can `target` (its scan
 * position and evaluations are of traces or of sessions): sending it as stored is accepted.
 */
export function mergeOnlineRule(stored: OnlineRuleDefinition, raw: unknown): OnlineRuleDefinition {
  assertStorable(raw);
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new ValidationError([{ field: '(body)', message: 'must be a JSON object' }]);
  const target = (raw as Record<string, unknown>).target;
  if (target !== undefined && target !== stored.target)
    throw new ValidationError([
      { field: 'target', message: `cannot change: this is a ${stored.target} rule (a rule's target is fixed when it is created; create a new rule)` },
    ]);
  const merged: Record<string, unknown> = { ...stored };
  for (const [key, value] of Object.entries(raw)) {
    if (READ_ONLY_KEYS.has(key) || key === 'target') continue;
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return definitionOf(validate(OnlineRuleBodySchema, merged));
}
