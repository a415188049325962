import { z } from 'zod';
import { COMPARISON_STATUSES, PREFERRED } from './feedback.js';

/**
 * What the feedback and comparison endpoints answer, as zod schemas: see core/model/answers.ts
 * (how they are used). Each mirrors the TypeScript type named in its comment (core/model/feedback.ts).
 */

const Time = z.string().describe('ISO 8601 with milliseconds');

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
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
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
export const ComparisonListSchema = z.object({
  comparisons: z.array(ComparisonSchema),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

/** POST /api/feedback/comparisons/{id}/answer: the comparison and the preference feedback its answer recorded. */
export const ComparisonAnswerSchema = z.object({ comparison: ComparisonSchema, feedback: FeedbackSchema });
