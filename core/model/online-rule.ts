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
 */

/** Longest delay a rule may wait after a trace ends: one day. */
export const MAX_DELAY_SECONDS = 86_400;
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

/** The body of POST /api/evals/online-rules. */
export const OnlineRuleBodySchema = z.strictObject({
  name: pgText(256).trim().min(1),
  filter: OnlineRuleFilterSchema.nullish(),
  sample_rate: SampleRate.default(1),
  scorers: ScorerRefListSchema.refine((refs) => refs.length > 0, 'must name at least one scorer'),
  /** What rule-based scorers compare every trace with (`outputContains`, `regex`, `maxLatencyMs`...). */
  expected: ExpectedSchema.nullish(),
  delay_seconds: z.number().int().min(0).max(MAX_DELAY_SECONDS).default(60),
  enabled: z.boolean().default(true),
  /** Traces that ended at or after this time are the rule's; default: when the rule is created. */
  since: Timestamp.optional(),
});
/** A rule body as a client writes it (the SDK's typed client). */
export type OnlineRuleBody = z.input<typeof OnlineRuleBodySchema>;

/** A rule's settings, defaults filled: what is stored and what PUT merges into. */
export interface OnlineRuleDefinition {
  name: string;
  filter: OnlineRuleFilter;
  sample_rate: number;
  scorers: ScorerRef[];
  expected: Expected;
  delay_seconds: number;
  enabled: boolean;
}

/** What the rule has done so far (docs/online-evals.md, "Stats"). */
export interface OnlineRuleStats {
  /** Traces scored (each once, with all the rule's scorers). */
  scored: number;
  /** Traces the filter matched that the sample left out. */
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

export interface OnlineEvaluationList {
  evaluations: OnlineEvaluation[];
  total: number;
  limit: number;
  offset: number;
}

/** The fields of a rule the client sets after creation; PUT accepts the read-only ones of GET back and ignores them. */
export const DEFINITION_KEYS = ['name', 'filter', 'sample_rate', 'scorers', 'expected', 'delay_seconds', 'enabled'] as const satisfies ReadonlyArray<
  keyof OnlineRuleDefinition
>;
const READ_ONLY_KEYS = new Set(['id', 'since', 'created_at', 'updated_at', 'stats']);

function definitionOf(body: z.output<typeof OnlineRuleBodySchema>): OnlineRuleDefinition {
  return {
    name: body.name,
    filter: body.filter ?? {},
    sample_rate: body.sample_rate,
    scorers: body.scorers,
    expected: body.expected ?? {},
    delay_seconds: body.delay_seconds,
    enabled: body.enabled,
  };
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
 * change (the rule's traces would otherwise be decided twice).
 */
export function mergeOnlineRule(stored: OnlineRuleDefinition, raw: unknown): OnlineRuleDefinition {
  assertStorable(raw);
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new ValidationError([{ field: '(body)', message: 'must be a JSON object' }]);
  const merged: Record<string, unknown> = { ...stored };
  for (const [key, value] of Object.entries(raw)) {
    if (READ_ONLY_KEYS.has(key)) continue;
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return definitionOf(validate(OnlineRuleBodySchema, merged));
}
