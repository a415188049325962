import { z } from 'zod';
import { BadRequestError, ValidationError, type FieldIssue } from '../errors.js';
import { validate } from '../validate.js';
import { asId } from './ids.js';
import { Id, Timestamp } from './ingest-body.js';
import { keysetCursorParam } from './keyset-cursor.js';
import type { Actor } from '../principal.js';
import { jsonProblems, MAX_JSON_DEPTH, MAX_REPORTED_ISSUES, pgText } from './pg-json.js';

/**
 * Human feedback (SPEC "Feedback (create fields)"): a preference between two outputs, a
 * correction of an output, or a rating of a trace. Feedback on a trace also becomes scores with
 * source `annotation` (see {@link feedbackScores}); docs/feedback.md is the contract.
 */

export const FEEDBACK_TYPES = ['preference', 'correction', 'rating'] as const;
export type FeedbackType = (typeof FEEDBACK_TYPES)[number];

/** Longest prompt, output or corrected text (the body limit bounds them too). */
export const MAX_FEEDBACK_TEXT = 1_000_000;
/** Longest reason or comment; also what a score's `reason` holds at most. */
export const MAX_COMMENT = 65_536;

const Text = pgText(MAX_FEEDBACK_TEXT);
const Comment = pgText(MAX_COMMENT);
/** A trace or span id, as ingest accepts them, and storable in PostgreSQL. */
export const TraceRef = Id.pipe(pgText(128));
const Label = pgText(256).trim().min(1);
/** Who gave the feedback (`user_id`): an id, so no control characters (core/model/ids.ts). */
const UserId = asId(z.string().max(256).trim().min(1));

/** Who gave the feedback and through what (free text: `web-ui`, `slack`...). Not the score source. */
const Common = {
  trace_id: TraceRef.nullish(),
  span_id: TraceRef.nullish(),
  user_id: UserId.nullish(),
  source: Label.nullish(),
};

const PreferenceFields = {
  prompt: Text.nullish(),
  chosen: Text,
  rejected: Text,
  reason: Comment.nullish(),
  /** Neither output is better; chosen and rejected are then just the two outputs. */
  tie: z.boolean().default(false),
  /** The traces that produced `chosen` and `rejected`: each gets a `preference` score. */
  chosen_trace_id: TraceRef.nullish(),
  rejected_trace_id: TraceRef.nullish(),
};

const CorrectionFields = { original: Text, corrected: Text };

const RatingFields = {
  /** The score's name. */
  name: Label.default('rating'),
  value: z
    .custom<number | 'up' | 'down'>(
      (v) => (typeof v === 'number' && v >= 0 && v <= 1) || v === 'up' || v === 'down',
      'must be a number from 0 to 1, or "up" / "down"',
    )
    .optional(),
  thumbs: z.enum(['up', 'down']).optional(),
  comment: Comment.nullish(),
};

export const PreferenceInput = z.strictObject({ type: z.literal('preference'), ...Common, ...PreferenceFields });
export const CorrectionInput = z.strictObject({ type: z.literal('correction'), ...Common, trace_id: TraceRef, ...CorrectionFields });
export const RatingInput = z.strictObject({ type: z.literal('rating'), ...Common, trace_id: TraceRef, ...RatingFields }).superRefine((v, ctx) => {
  if (v.value === undefined && v.thumbs === undefined)
    ctx.addIssue({ code: 'custom', path: ['value'], message: 'is required: a number from 0 to 1, or "up" / "down"' });
  if (v.value !== undefined && v.thumbs !== undefined) ctx.addIssue({ code: 'custom', path: ['thumbs'], message: 'give either value or thumbs, not both' });
});
/** A POST /api/feedback body as a client writes it, in the flat form (the SDK's typed client). */
export type FeedbackBody = z.input<typeof PreferenceInput> | z.input<typeof CorrectionInput> | z.input<typeof RatingInput>;

export interface PreferenceData {
  prompt: string | null;
  chosen: string;
  rejected: string;
  reason: string | null;
  tie: boolean;
  chosen_trace_id: string | null;
  rejected_trace_id: string | null;
}

export interface CorrectionData {
  /** Null when a reviewer corrected without quoting the original (review queues). */
  original: string | null;
  corrected: string;
}

export interface RatingData {
  name: string;
  /** 0..1; thumbs up is 1 and down is 0. */
  value: number;
  thumbs: 'up' | 'down' | null;
  comment: string | null;
}

interface FeedbackBase {
  trace_id: string | null;
  span_id: string | null;
  user_id: string | null;
  /** The display name of the signed-in person who gave it (user_id is then theirs); null from keys and tokens. */
  user_name: string | null;
  source: string | null;
}

/** A checked feedback, as stored: the type's own fields under the key named after it. */
export type FeedbackInput =
  | (FeedbackBase & { type: 'preference'; preference: PreferenceData })
  | (FeedbackBase & { type: 'correction'; correction: CorrectionData })
  | (FeedbackBase & { type: 'rating'; rating: RatingData });

/** A feedback as the API returns it. */
export type Feedback = FeedbackInput & {
  id: string;
  comparison_id: string | null;
  queue_item_id: string | null;
  /** The ids of the scores this feedback wrote (deterministic: see {@link feedbackScores}). */
  score_ids: string[];
  created_at: string;
};

export interface FeedbackList {
  feedback: Feedback[];
  total: number;
  limit: number;
  offset: number;
  /** Pass as `cursor` for the next page; null on the last page. */
  next_cursor: string | null;
}

/** The fields that make a type's data present (SPEC: "preference data is required..."). */
const DATA_KEYS: Record<FeedbackType, readonly string[]> = {
  preference: ['chosen', 'rejected'],
  correction: ['original', 'corrected'],
  rating: ['value', 'thumbs'],
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function missing(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

function bounded(issues: FieldIssue[]): FieldIssue[] {
  return issues.length <= MAX_REPORTED_ISSUES ? issues : issues.slice(0, MAX_REPORTED_ISSUES);
}

/**
 * Every `__proto__` key in `value`, at any depth. JSON.parse keeps it as an own key, but copying
 * it into an object (a zod record, a spread) would set that object's prototype instead.
 */
export function protoKeyIssues(value: unknown): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: '', depth: 0 }];
  while (stack.length > 0 && issues.length < MAX_REPORTED_ISSUES) {
    const { value: v, path, depth } = stack.pop()!;
    if (v === null || typeof v !== 'object' || depth > MAX_JSON_DEPTH) continue;
    if (Array.isArray(v)) {
      v.forEach((x, i) => stack.push({ value: x, path: `${path}[${i}]`, depth: depth + 1 }));
      continue;
    }
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      const field = path ? `${path}.${k}` : k;
      if (k === '__proto__') issues.push({ field, message: "'__proto__' is not an allowed key" });
      else stack.push({ value: x, path: field, depth: depth + 1 });
    }
  }
  return issues;
}

/** Problems a body has before its schema is applied: `__proto__` keys, text PostgreSQL cannot hold, hostile nesting. */
export function bodyProblems(raw: unknown): void {
  const issues = [...protoKeyIssues(raw), ...jsonProblems(raw)];
  if (issues.length) throw new ValidationError(bounded(issues));
}

/**
 * The body of POST /api/feedback, flat (`{type, chosen, rejected}`) or nested under the type's
 * name (`{type, preference: {chosen, rejected}}`), as one flat object. A field given both ways
 * is a 422; `nested` says whether the nested form was used, to name fields back in it.
 */
function flatten(raw: Record<string, unknown>, type: FeedbackType): { flat: Record<string, unknown>; nested: boolean } {
  const nestedValue = raw[type];
  const issues: FieldIssue[] = [];
  const entries = Object.entries(raw).filter(([k]) => k !== type);
  if (nestedValue === undefined || nestedValue === null) return { flat: Object.fromEntries(entries), nested: false };
  if (!isRecord(nestedValue)) throw new ValidationError([{ field: type, message: 'must be an object' }]);
  const top = new Set(entries.map(([k]) => k));
  for (const [key, value] of Object.entries(nestedValue)) {
    if (key === 'type') issues.push({ field: `${type}.type`, message: 'give type at the top level only' });
    else if (top.has(key)) issues.push({ field: `${type}.${key}`, message: `give either ${key} or ${type}.${key}, not both` });
    else entries.push([key, value]);
  }
  if (issues.length) throw new ValidationError(issues);
  // fromEntries defines own properties: a `__proto__` key stays a key (and is refused as unknown).
  return { flat: Object.fromEntries(entries), nested: true };
}

const TOP_LEVEL = new Set(['type', ...Object.keys(Common)]);

/**
 * Checks a POST /api/feedback body. The SPEC's 400s come first and verbatim: `Feedback type is
 * required`, `Preference data is required for preference feedback`, `Correction data is
 * required for correction feedback`; every other problem is a 422 naming its field.
 */
export function parseFeedback(raw: unknown): FeedbackInput {
  if (!isRecord(raw) || missing(raw.type)) throw new BadRequestError('Feedback type is required', 'FEEDBACK_TYPE_REQUIRED');
  const type = raw.type;
  if (typeof type !== 'string' || !(FEEDBACK_TYPES as readonly string[]).includes(type)) {
    throw new ValidationError([{ field: 'type', message: `must be one of: ${FEEDBACK_TYPES.join(', ')}` }]);
  }
  const t = type as FeedbackType;
  bodyProblems(raw);
  const { flat, nested } = flatten(raw, t);
  const hasData = DATA_KEYS[t].some((k) => flat[k] !== undefined && flat[k] !== null);
  if (!hasData && t === 'preference') throw new BadRequestError('Preference data is required for preference feedback', 'PREFERENCE_DATA_REQUIRED');
  if (!hasData && t === 'correction') throw new BadRequestError('Correction data is required for correction feedback', 'CORRECTION_DATA_REQUIRED');
  const named = (issues: FieldIssue[]) =>
    issues.map((i) => {
      const key = i.field.split(/[.[]/)[0];
      return nested && !TOP_LEVEL.has(key) && !Object.hasOwn(raw, key) ? { ...i, field: `${t}.${i.field}` } : i;
    });
  try {
    return toInput(t, flat);
  } catch (err) {
    if (err instanceof ValidationError) throw new ValidationError(bounded(named(err.issues)));
    throw err;
  }
}

function base(v: { trace_id?: string | null; span_id?: string | null; user_id?: string | null; source?: string | null }): FeedbackBase {
  return { trace_id: v.trace_id ?? null, span_id: v.span_id ?? null, user_id: v.user_id ?? null, user_name: null, source: v.source ?? null };
}

function toInput(type: FeedbackType, flat: Record<string, unknown>): FeedbackInput {
  if (type === 'preference') {
    const v = validate(PreferenceInput, flat);
    return {
      type,
      ...base(v),
      preference: {
        prompt: v.prompt ?? null,
        chosen: v.chosen,
        rejected: v.rejected,
        reason: v.reason ?? null,
        tie: v.tie,
        chosen_trace_id: v.chosen_trace_id ?? null,
        rejected_trace_id: v.rejected_trace_id ?? null,
      },
    };
  }
  if (type === 'correction') {
    const v = validate(CorrectionInput, flat);
    return { type, ...base(v), correction: { original: v.original, corrected: v.corrected } };
  }
  const v = validate(RatingInput, flat);
  const thumbs = v.thumbs ?? (typeof v.value === 'string' ? v.value : null);
  const value = thumbs === null ? (v.value as number) : thumbs === 'up' ? 1 : 0;
  return { type, ...base(v), rating: { name: v.name, value, thumbs, comment: v.comment ?? null } };
}

/** A time in a query string: ISO 8601 or epoch milliseconds (digits), as epoch milliseconds. */
const QueryTime = z.preprocess((v) => (typeof v === 'string' && /^\d{1,15}$/.test(v) ? Number(v) : v), Timestamp);

/** `?type=&trace_id=&user_id=&source=&from=&to=&limit=&offset=&cursor=` of GET /api/feedback. */
export const FeedbackListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  offset: z.coerce.number().int().min(0).default(0),
  type: z.enum(FEEDBACK_TYPES).optional(),
  trace_id: TraceRef.optional(),
  user_id: UserId.optional(),
  source: Label.optional(),
  /** Created at or after. */
  from: QueryTime.optional(),
  /** Created before. */
  to: QueryTime.optional(),
  cursor: keysetCursorParam('next_cursor'),
});
export type FeedbackListQuery = z.output<typeof FeedbackListQuerySchema>;

export const COMPARISON_STATUSES = ['pending', 'answered'] as const;
export type ComparisonStatus = (typeof COMPARISON_STATUSES)[number];
export const PREFERRED = ['a', 'b', 'tie'] as const;

export const CreateComparisonSchema = z.strictObject({
  prompt: Text,
  output_a: Text.nullish(),
  output_b: Text.nullish(),
  trace_a: TraceRef.nullish(),
  trace_b: TraceRef.nullish(),
  user_id: UserId.nullish(),
  source: Label.nullish(),
});
/** A POST /api/feedback/comparisons body as a client writes it (the SDK's typed client). */
export type CreateComparisonBody = z.input<typeof CreateComparisonSchema>;
export type CreateComparison = z.output<typeof CreateComparisonSchema>;

/**
 * Checks a POST /api/feedback/comparisons body: the SPEC's 400 `Prompt is required` first (the
 * SPEC requires a prompt for every comparison, whichever form names the outputs), then each side
 * needs its output or the trace that produced it (a 422 naming `output_a` / `output_b`).
 */
export function parseComparison(raw: unknown): CreateComparison {
  if (!isRecord(raw) || missing(raw.prompt)) throw new BadRequestError('Prompt is required', 'PROMPT_REQUIRED');
  bodyProblems(raw);
  const input = validate(CreateComparisonSchema, raw);
  const issues: FieldIssue[] = [];
  for (const side of ['a', 'b'] as const) {
    if (input[`output_${side}`] == null && input[`trace_${side}`] == null)
      issues.push({ field: `output_${side}`, message: `is required: give output_${side} or trace_${side}` });
  }
  if (issues.length) throw new ValidationError(issues);
  return input;
}

export const AnswerComparisonSchema = z.strictObject({
  preferred: z.enum(PREFERRED),
  reason: Comment.nullish(),
  user_id: UserId.nullish(),
});
export type AnswerComparison = z.output<typeof AnswerComparisonSchema>;

export const ComparisonListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  offset: z.coerce.number().int().min(0).default(0),
  status: z.enum(COMPARISON_STATUSES).optional(),
});

/** A comparison as the API returns it. */
export interface Comparison {
  id: string;
  prompt: string;
  output_a: string;
  output_b: string;
  trace_a: string | null;
  trace_b: string | null;
  user_id: string | null;
  source: string | null;
  status: ComparisonStatus;
  preferred: (typeof PREFERRED)[number] | null;
  reason: string | null;
  answered_by: string | null;
  /** The display name of the signed-in person who answered; null from keys and tokens. */
  answered_by_name: string | null;
  feedback_id: string | null;
  created_at: string;
  answered_at: string | null;
}

export interface ComparisonList {
  comparisons: Comparison[];
  total: number;
  limit: number;
  offset: number;
}

/** The preference feedback an answer records: the preferred side is `chosen` (side a for a tie). */
export function comparisonPreference(c: Comparison, answer: AnswerComparison, answeredBy: Actor): FeedbackInput {
  const aWins = answer.preferred !== 'b';
  const [chosen, rejected] = aWins ? ([c.output_a, c.output_b] as const) : ([c.output_b, c.output_a] as const);
  const [chosenTrace, rejectedTrace] = aWins ? [c.trace_a, c.trace_b] : [c.trace_b, c.trace_a];
  return {
    type: 'preference',
    trace_id: chosenTrace,
    span_id: null,
    user_id: answeredBy.id,
    user_name: answeredBy.name,
    source: c.source,
    preference: {
      prompt: c.prompt,
      chosen,
      rejected,
      reason: answer.reason ?? null,
      tie: answer.preferred === 'tie',
      chosen_trace_id: chosenTrace,
      rejected_trace_id: rejectedTrace,
    },
  };
}
