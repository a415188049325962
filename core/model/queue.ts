import { z } from 'zod';
import { BadRequestError, ValidationError, type FieldIssue } from '../errors.js';
import { validate } from '../validate.js';
import { isUuid } from './agent.js';
import { ScorerRefListSchema } from './eval-case.js';
import { bodyProblems, MAX_COMMENT, MAX_FEEDBACK_TEXT, TraceRef } from './feedback.js';
import { Timestamp } from './ingest-body.js';
import { asId } from './ids.js';
import { pgText } from './pg-json.js';

/**
 * Review queues: traces a person reviews one at a time, filling in the queue's scores and
 * optionally correcting the output (docs/feedback.md). An item is pending, locked (handed out
 * by `next` until a time), completed or skipped.
 */

/** Longest lock `next` may take, and the default (ten minutes). */
export const MAX_LOCK_SECONDS = 86_400;
export const DEFAULT_LOCK_SECONDS = 600;
/** Most traces a queue takes from its filter at creation, and the default. */
export const MAX_QUEUE_ITEMS = 10_000;
export const DEFAULT_FILTER_ITEMS = 1000;

const Label = pgText(256).trim().min(1);
/** A reviewer or a suite's name: ids, so no control characters (core/model/ids.ts). */
const IdLabel = asId(z.string().max(256).trim().min(1));
const Unit = z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1');
const TraceIds = z.array(TraceRef).min(1).max(MAX_QUEUE_ITEMS);

/** A key of a map from the request (scores, attributes): text PostgreSQL can store and no prototype key. */
function safeRecord<T extends z.ZodType>(value: T, maxKeys: number) {
  return z.record(pgText(256).min(1), value).superRefine((rec, ctx) => {
    if (Object.keys(rec).length > maxKeys) ctx.addIssue({ code: 'custom', message: `at most ${maxKeys} entries` });
  });
}

/**
 * One score a reviewer fills in: a name, or `{name, type?, min?, max?, categories?}`.
 * - numeric (default): a number from `min` to `max` (default 0..1), stored as
 *   (value - min) / (max - min) so every score stays within the SPEC's 0..1;
 * - boolean: true / false (or 1 / 0), stored as 1 / 0;
 * - categorical: one of `categories`, a list of labels (stored evenly spaced from 0 to 1 in list
 *   order) or a map label -> value in 0..1.
 */
const ScoreConfigInput = z.union([
  Label,
  z
    .strictObject({
      name: Label,
      type: z.enum(['numeric', 'boolean', 'categorical']).optional(),
      min: z.number().optional(),
      max: z.number().optional(),
      categories: z.union([z.array(Label).min(1).max(100), safeRecord(Unit, 100)]).optional(),
      description: pgText(4096).nullish(),
    })
    .superRefine((c, ctx) => {
      const type = c.type ?? (c.categories ? 'categorical' : 'numeric');
      if (type === 'categorical' && !c.categories) ctx.addIssue({ code: 'custom', path: ['categories'], message: 'is required for a categorical score' });
      if (type !== 'categorical' && c.categories) ctx.addIssue({ code: 'custom', path: ['categories'], message: 'only a categorical score has categories' });
      if (type !== 'numeric' && (c.min !== undefined || c.max !== undefined))
        ctx.addIssue({ code: 'custom', path: ['min'], message: 'only a numeric score has min and max' });
      if ((c.min ?? 0) >= (c.max ?? 1)) ctx.addIssue({ code: 'custom', path: ['max'], message: 'must be greater than min' });
    }),
]);

/** A score of the queue, normalized. */
export interface ScoreConfig {
  name: string;
  type: 'numeric' | 'boolean' | 'categorical';
  min: number;
  max: number;
  /** Label -> stored value, for a categorical score. */
  categories: Record<string, number> | null;
  description: string | null;
}

function normalizeConfig(c: z.output<typeof ScoreConfigInput>): ScoreConfig {
  if (typeof c === 'string') return { name: c, type: 'numeric', min: 0, max: 1, categories: null, description: null };
  const type = c.type ?? (c.categories ? 'categorical' : 'numeric');
  let categories: Record<string, number> | null = null;
  if (Array.isArray(c.categories)) {
    const n = c.categories.length;
    categories = Object.fromEntries(c.categories.map((label, i) => [label, n === 1 ? 1 : i / (n - 1)]));
  } else if (c.categories) {
    categories = Object.fromEntries(Object.entries(c.categories));
  }
  return {
    name: c.name,
    type,
    min: type === 'numeric' ? (c.min ?? 0) : 0,
    max: type === 'numeric' ? (c.max ?? 1) : 1,
    categories,
    description: c.description ?? null,
  };
}

/** Which traces a queue takes at creation (GET /api/traces filters, plus attributes and a score). */
export const QueueFilterSchema = z.strictObject({
  /** Case-insensitive substring of the trace name, as GET /api/traces `name`. */
  trace_name: pgText(1024).min(1).optional(),
  status: z.enum(['ok', 'error']).optional(),
  /** Only traces whose latest score of this name is below `value`. */
  score_below: z.strictObject({ name: Label, value: z.number().min(0).max(1) }).optional(),
  /** Every pair must match the trace's attribute exactly. */
  attributes: safeRecord(pgText(4096), 50).optional(),
  /** Traces started at or after / at or before. */
  since: Timestamp.optional(),
  until: Timestamp.optional(),
});
export type QueueFilter = z.output<typeof QueueFilterSchema>;

export const CreateQueueSchema = z
  .strictObject({
    name: Label,
    description: pgText(4096).nullish(),
    score_names: z.array(ScoreConfigInput).max(50).default([]),
    filter: QueueFilterSchema.optional(),
    trace_ids: TraceIds.optional(),
    /** Most traces taken from `filter`. */
    max_items: z.number().int().min(1).max(MAX_QUEUE_ITEMS).default(DEFAULT_FILTER_ITEMS),
    lock_seconds: z.number().int().min(1).max(MAX_LOCK_SECONDS).default(DEFAULT_LOCK_SECONDS),
  })
  .superRefine((q, ctx) => {
    if (q.filter && q.trace_ids) ctx.addIssue({ code: 'custom', path: ['trace_ids'], message: 'give either filter or trace_ids, not both' });
    const seen = new Set<string>();
    q.score_names.forEach((c, i) => {
      const name = typeof c === 'string' ? c : c.name;
      if (seen.has(name)) ctx.addIssue({ code: 'custom', path: ['score_names', i], message: `score '${name}' is listed twice` });
      seen.add(name);
    });
  });
/** A POST /api/queues body as a client writes it (the SDK's typed client). */
export type CreateQueueBody = z.input<typeof CreateQueueSchema>;

export interface CreateQueue {
  name: string;
  description: string | null;
  score_names: ScoreConfig[];
  filter: QueueFilter | null;
  trace_ids: string[] | null;
  max_items: number;
  lock_seconds: number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Checks a POST /api/queues body; a missing name is a 400 `name is required` as for suites. */
export function parseCreateQueue(raw: unknown): CreateQueue {
  if (!isRecord(raw) || raw.name === undefined || raw.name === null || (typeof raw.name === 'string' && raw.name.trim() === '')) {
    throw new BadRequestError('name is required', 'NAME_REQUIRED');
  }
  bodyProblems(raw);
  const q = validate(CreateQueueSchema, raw);
  return {
    name: q.name,
    description: q.description ?? null,
    score_names: q.score_names.map(normalizeConfig),
    filter: q.filter ?? null,
    trace_ids: q.trace_ids ?? null,
    max_items: q.max_items,
    lock_seconds: q.lock_seconds,
  };
}

/** POST /api/queues/{id}/items: explicit traces, or a filter like the queue's own. */
export const AddItemsSchema = z
  .strictObject({
    trace_ids: TraceIds.optional(),
    filter: QueueFilterSchema.optional(),
    max_items: z.number().int().min(1).max(MAX_QUEUE_ITEMS).default(DEFAULT_FILTER_ITEMS),
  })
  .superRefine((b, ctx) => {
    if (!b.trace_ids === !b.filter) ctx.addIssue({ code: 'custom', path: ['trace_ids'], message: 'give either trace_ids or filter' });
  });

export const ITEM_STATES = ['pending', 'locked', 'completed', 'skipped'] as const;
export type ItemState = (typeof ITEM_STATES)[number];

export const ItemListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  offset: z.coerce.number().int().min(0).default(0),
  status: z.enum(ITEM_STATES).optional(),
});

/** `next`: who reviews (default: the caller's principal) and for how long (default: the queue's). */
export const NextSchema = z.strictObject({
  reviewer: IdLabel.optional(),
  lock_seconds: z.coerce.number().int().min(1).max(MAX_LOCK_SECONDS).optional(),
});

export const SkipSchema = z.strictObject({ reviewer: IdLabel.optional() });

const ScoreInputValue = z.union([z.number(), z.boolean(), pgText(256)]);

export const CompleteSchema = z
  .strictObject({
    scores: safeRecord(ScoreInputValue, 50).default({}),
    correction: z.strictObject({ original: pgText(MAX_FEEDBACK_TEXT).nullish(), corrected: pgText(MAX_FEEDBACK_TEXT) }).nullish(),
    comment: pgText(MAX_COMMENT).nullish(),
    reviewer: IdLabel.optional(),
  })
  .superRefine((b, ctx) => {
    if (Object.keys(b.scores).length === 0 && !b.correction)
      ctx.addIssue({ code: 'custom', path: ['scores'], message: 'give at least one score or a correction' });
  });
export type Completion = z.output<typeof CompleteSchema>;

export const ToSuiteSchema = z
  .strictObject({
    suite_id: z.string().refine(isUuid, 'must be a suite id').optional(),
    suite_name: IdLabel.optional(),
    case_name: pgText(512).trim().min(1).optional(),
    /** The case's own scorers; default: none when the suite has defaultScorers, else exactMatch. */
    scorers: ScorerRefListSchema.optional(),
  })
  .superRefine((b, ctx) => {
    if (!b.suite_id === !b.suite_name) ctx.addIssue({ code: 'custom', path: ['suite_id'], message: 'give either suite_id or suite_name' });
  });

export interface ItemCounts {
  pending: number;
  locked: number;
  completed: number;
  skipped: number;
  total: number;
}

/** A queue as the API returns it. */
export interface ReviewQueue {
  id: string;
  name: string;
  description: string | null;
  score_names: ScoreConfig[];
  filter: QueueFilter | null;
  lock_seconds: number;
  counts: ItemCounts;
  created_at: string;
  updated_at: string;
}

export interface QueueList {
  queues: ReviewQueue[];
  total: number;
  limit: number;
  offset: number;
}

/** Where a corrected item went as a suite case (POST .../to-suite). */
export interface SuiteCaseRef {
  suite_id: string;
  suite_name: string;
  version: number;
  case_name: string;
}

/** An item as the API returns it. `status` is derived: `locked` while locked_until is ahead. */
export interface QueueItem {
  id: string;
  queue_id: string;
  trace_id: string;
  status: ItemState;
  locked_by: string | null;
  /** The display name of the signed-in person holding the lock; null for keys and tokens. */
  locked_by_name: string | null;
  locked_until: string | null;
  skipped_by: string[];
  completed_by: string | null;
  /** The display name of the signed-in person who completed it; null for keys and tokens. */
  completed_by_name: string | null;
  completed_at: string | null;
  scores: Record<string, number | boolean | string> | null;
  comment: string | null;
  correction: { original: string | null; corrected: string } | null;
  feedback_id: string | null;
  suite_case: SuiteCaseRef | null;
  created_at: string;
}

export interface ItemList {
  items: QueueItem[];
  total: number;
  limit: number;
  offset: number;
}

/** A reviewer's value for one score as stored (0..1), or why it is refused. */
export function scoreValue(config: ScoreConfig, raw: number | boolean | string): { value: number; label: string | null } | string {
  if (config.type === 'boolean') {
    if (raw === true || raw === 1) return { value: 1, label: null };
    if (raw === false || raw === 0) return { value: 0, label: null };
    return 'must be true or false';
  }
  if (config.type === 'categorical') {
    const categories = config.categories ?? {};
    if (typeof raw === 'string' && Object.hasOwn(categories, raw)) return { value: categories[raw], label: raw };
    return `must be one of: ${Object.keys(categories).join(', ')}`;
  }
  if (typeof raw !== 'number') return `must be a number from ${config.min} to ${config.max}`;
  if (raw < config.min || raw > config.max) return `must be between ${config.min} and ${config.max}`;
  return { value: (raw - config.min) / (config.max - config.min), label: null };
}

/** 422 for scores the queue does not name or values its configs refuse. */
export function checkScores(configs: ScoreConfig[], scores: Record<string, number | boolean | string>): void {
  const byName = new Map(configs.map((c) => [c.name, c]));
  const issues: FieldIssue[] = [];
  for (const [name, raw] of Object.entries(scores)) {
    const config = byName.get(name);
    if (!config) {
      issues.push({ field: `scores.${name}`, message: `is not a score of this queue (its scores: ${configs.map((c) => c.name).join(', ') || 'none'})` });
      continue;
    }
    const v = scoreValue(config, raw);
    if (typeof v === 'string') issues.push({ field: `scores.${name}`, message: v });
  }
  if (issues.length) throw new ValidationError(issues);
}
