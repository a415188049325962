import { derivedUuid } from '../ids/derived-ids.js';
import { MAX_COMMENT, type Feedback, type FeedbackInput } from '../model/feedback.js';
import { scoreValue, type QueueItem, type ReviewQueue } from '../model/queue.js';
import type { Score } from '../model/score.js';

/**
 * The annotation scores people's feedback writes to the analytics store, and the ids of what it
 * records: every id derives from what it names (core/ids/derived-ids.ts), so a feedback, a
 * comparison's answer or a queue item's completion sent twice records once.
 */

/** The id of a score a feedback writes on a trace: a retried write reads back once. */
export function feedbackScoreId(feedbackId: string, traceId: string, name: string): string {
  return derivedUuid(`feedback-score:${feedbackId}:${traceId}:${name}`);
}

/** The id of the preference feedback that answers a comparison: answering twice records it once. */
export const comparisonFeedbackId = (comparisonId: string) => derivedUuid(`comparison-answer:${comparisonId}`);

const cut = (text: string) => (text.length > MAX_COMMENT ? text.slice(0, MAX_COMMENT) : text);

/**
 * The scores a feedback writes to the analytical store, all with source `annotation`, a
 * deterministic id and the feedback's own time (so writing them again changes nothing):
 * - rating: `rating.name` (default `rating`) = the value; thumbs up 1, down 0 (score_type boolean);
 *   reason = the comment.
 * - correction: `correction` = 0 on the trace (and span), boolean; reason = the corrected text
 *   (first 65,536 characters).
 * - preference: `preference` = 1 on `chosen_trace_id` and 0 on `rejected_trace_id` (0.5 each for
 *   a tie); reason = the reason. A preference's `trace_id` alone writes no score: one trace
 *   has no value in a comparison of two outputs.
 * Every score's evidence is `["feedback:<id>"]`; scorer_name is the person's name, else the user_id.
 */
export function feedbackScores(fb: Pick<Feedback, 'id' | 'created_at'> & FeedbackInput): Score[] {
  const make = (traceId: string, name: string, value: number, scoreType: Score['score_type'], reason: string | null, spanId: string | null = null): Score => ({
    id: feedbackScoreId(fb.id, traceId, name),
    trace_id: traceId,
    span_id: spanId,
    name,
    value,
    score_type: scoreType,
    source: 'annotation',
    scorer_name: fb.user_name ?? fb.user_id,
    reason,
    evidence: [`feedback:${fb.id}`],
    created_at: fb.created_at,
  });
  if (fb.type === 'rating') {
    return fb.trace_id ? [make(fb.trace_id, fb.rating.name, fb.rating.value, fb.rating.thumbs ? 'boolean' : 'numeric', fb.rating.comment, fb.span_id)] : [];
  }
  if (fb.type === 'correction') {
    return fb.trace_id ? [make(fb.trace_id, 'correction', 0, 'boolean', cut(fb.correction.corrected), fb.span_id)] : [];
  }
  const p = fb.preference;
  const scores: Score[] = [];
  if (p.chosen_trace_id) scores.push(make(p.chosen_trace_id, 'preference', p.tie ? 0.5 : 1, 'numeric', p.reason));
  if (p.rejected_trace_id && p.rejected_trace_id !== p.chosen_trace_id)
    scores.push(make(p.rejected_trace_id, 'preference', p.tie ? 0.5 : 0, 'numeric', p.reason));
  return scores;
}

/** The id of the correction feedback a completed item records: completing twice records it once. */
export const itemFeedbackId = (itemId: string) => derivedUuid(`queue-item:${itemId}:correction`);

/**
 * The annotation scores of a completed item: one per filled score, with a deterministic id and
 * the completion time, so writing them again changes nothing. The comment is each score's reason.
 */
export function itemScores(queue: Pick<ReviewQueue, 'id' | 'score_names'>, item: QueueItem): Score[] {
  const byName = new Map(queue.score_names.map((c) => [c.name, c]));
  return Object.entries(item.scores ?? {}).flatMap(([name, raw]): Score[] => {
    const config = byName.get(name);
    const v = config && scoreValue(config, raw);
    if (!v || typeof v === 'string') return [];
    return [
      {
        id: derivedUuid(`queue-item:${item.id}:score:${name}`),
        trace_id: item.trace_id,
        span_id: null,
        name,
        value: v.value,
        score_type: config.type,
        source: 'annotation',
        scorer_name: item.completed_by_name ?? item.completed_by,
        reason: item.comment,
        evidence: [
          `queue:${queue.id}`,
          `queue_item:${item.id}`,
          ...(v.label === null ? [] : [`category:${v.label}`]),
          ...(typeof raw === 'number' && (config.min !== 0 || config.max !== 1) ? [`raw:${raw}`] : []),
        ],
        created_at: item.completed_at ?? item.created_at,
      },
    ];
  });
}
