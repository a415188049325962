import { z } from 'zod';
import { offsetList, offsetPageFields, Time, timestamps } from './answer-fields.js';
import { COMPARISON_STATUSES, PREFERRED } from './feedback.js';

/**
 * What the feedback and comparison endpoints answer, as zod schemas: see core/model/answers.ts
 * (how they are used). Each mirrors the TypeScript type named in its comment (core/model/feedback.ts).
 */

const feedbackBase = {
  id: z.string(),
  trace_id: z.string().nullable(),
  span_id: z.string().nullable(),
  user_id: z.string().nullable(),
  user_name: z.string().nullable(),
  source: z.string().nullable(),
  comparison_id: z.string().nullable(),
  queue_item_id: z.string().nullable(),
  score_ids: z.array(z.string()),
  created_at: Time,
};

/** Feedback: the type's own fields under the key named after it. */
export const FeedbackSchema = z
  .discriminatedUnion('type', [
    z.object({
      ...feedbackBase,
      type: z.literal('preference'),
      preference: z.object({
        prompt: z.string().nullable(),
        chosen: z.string(),
        rejected: z.string(),
        reason: z.string().nullable(),
        tie: z.boolean(),
        chosen_trace_id: z.string().nullable(),
        rejected_trace_id: z.string().nullable(),
      }),
    }),
    z.object({ ...feedbackBase, type: z.literal('correction'), correction: z.object({ original: z.string().nullable(), corrected: z.string() }) }),
    z.object({
      ...feedbackBase,
      type: z.literal('rating'),
      rating: z.object({ name: z.string(), value: z.number().min(0).max(1), thumbs: z.enum(['up', 'down']).nullable(), comment: z.string().nullable() }),
    }),
  ])
  .meta({ id: 'Feedback' });

/** FeedbackList. */
export const FeedbackListSchema = z.object({
  feedback: z.array(FeedbackSchema),
  ...offsetPageFields,
  next_cursor: z.string().nullable(),
});

/** Comparison: two outputs for a person to choose between. */
export const ComparisonSchema = z
  .object({
    id: z.string(),
    prompt: z.string(),
    output_a: z.string(),
    output_b: z.string(),
    trace_a: z.string().nullable(),
    trace_b: z.string().nullable(),
    user_id: z.string().nullable(),
    source: z.string().nullable(),
    status: z.enum(COMPARISON_STATUSES),
    preferred: z.enum(PREFERRED).nullable(),
    reason: z.string().nullable(),
    answered_by: z.string().nullable(),
    answered_by_name: z.string().nullable(),
    feedback_id: z.string().nullable(),
    created_at: Time,
    answered_at: Time.nullable(),
  })
  .meta({ id: 'Comparison' });

/** ComparisonList. */
export const ComparisonListSchema = offsetList('comparisons', ComparisonSchema);

/** POST /api/feedback/comparisons/{id}/answer: the comparison and the preference feedback its answer recorded. */
export const ComparisonAnswerSchema = z.object({ comparison: ComparisonSchema, feedback: FeedbackSchema });

// ---- Review queues (core/model/queue.ts) ----

const ItemCountsSchema = z.object({
  pending: z.number().int(),
  locked: z.number().int(),
  completed: z.number().int(),
  skipped: z.number().int(),
  total: z.number().int(),
});

/** ReviewQueue. */
export const ReviewQueueSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    score_names: z.array(
      z.object({
        name: z.string(),
        type: z.enum(['numeric', 'boolean', 'categorical']),
        min: z.number(),
        max: z.number(),
        categories: z.record(z.string(), z.number()).nullable(),
        description: z.string().nullable(),
      }),
    ),
    filter: z.looseObject({}).nullable().describe('The trace filter the queue was filled from (POST /api/queues `filter`)'),
    lock_seconds: z.number().int(),
    counts: ItemCountsSchema,
    ...timestamps,
  })
  .meta({ id: 'ReviewQueue' });

/** POST /api/queues: the queue, and whether its filter matched more traces than it took. */
export const CreatedQueueSchema = ReviewQueueSchema.extend({ truncated: z.boolean() });

/** QueueList. */
export const QueueListSchema = offsetList('queues', ReviewQueueSchema);

/** POST /api/queues/{id}/items. */
export const ItemsAddedSchema = z.object({ added: z.number().int(), counts: ItemCountsSchema, truncated: z.boolean() });

const SuiteCaseRefSchema = z.object({ suite_id: z.string(), suite_name: z.string(), version: z.number().int(), case_name: z.string() });

/** QueueItem: `status` is `locked` while locked_until is ahead. */
export const QueueItemSchema = z
  .object({
    id: z.string(),
    queue_id: z.string(),
    trace_id: z.string(),
    status: z.enum(['pending', 'locked', 'completed', 'skipped']),
    locked_by: z.string().nullable(),
    locked_by_name: z.string().nullable(),
    locked_until: Time.nullable(),
    skipped_by: z.array(z.string()),
    completed_by: z.string().nullable(),
    completed_by_name: z.string().nullable(),
    completed_at: Time.nullable(),
    scores: z.record(z.string(), z.union([z.number(), z.boolean(), z.string()])).nullable(),
    comment: z.string().nullable(),
    correction: z.object({ original: z.string().nullable(), corrected: z.string() }).nullable(),
    feedback_id: z.string().nullable(),
    suite_case: SuiteCaseRefSchema.nullable(),
    created_at: Time,
  })
  .meta({ id: 'QueueItem' });

/** ItemList. */
export const ItemListSchema = offsetList('items', QueueItemSchema);

/** The next item to review, locked for the caller (null when none is left). */
export const NextItemSchema = z.object({ item: QueueItemSchema.nullable(), lock_seconds: z.number().int() });

/** POST .../complete: the item, the feedback it recorded (if any) and the scores it wrote. */
export const CompletedItemSchema = z.object({ item: QueueItemSchema, feedback: FeedbackSchema.nullable(), score_ids: z.array(z.string()) });

/** POST .../to-suite: where the corrected item went; 200 when it was added before (no suite, no case), 201 with the new version and case. */
export const ItemToSuiteSchema = z.object({
  suite_case: SuiteCaseRefSchema,
  item: QueueItemSchema,
  suite: z.looseObject({}).optional().describe("The suite's new version (SuiteSummary)"),
  case: z.looseObject({}).optional().describe('The case as the version stores it (docs/suites.md)'),
});
