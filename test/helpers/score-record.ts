import type { Score } from '../../core/model/score.js';

/**
 * A numeric score of a whole trace as the store keeps it, with its id and time already set (as
 * the evaluation worker writes them): no span, reason or evidence.
 */
export function numericScore(s: {
  id: string;
  traceId: string;
  name: string;
  value: number;
  source: Score['source'];
  scorer: string | null;
  createdAt: number;
}): Score {
  return {
    id: s.id,
    trace_id: s.traceId,
    span_id: null,
    name: s.name,
    value: s.value,
    score_type: 'numeric',
    source: s.source,
    scorer_name: s.scorer,
    reason: null,
    evidence: [],
    created_at: new Date(s.createdAt).toISOString(),
  };
}
