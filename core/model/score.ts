import { z } from 'zod';
import { Id } from './ingest-body.js';

export const SCORE_TYPES = ['numeric', 'categorical', 'boolean'] as const;
export const SCORE_SOURCES = ['api', 'sdk', 'annotation', 'eval', 'temporal'] as const;

/** POST /api/scores body. `trace_id` is checked first so its absence gives the SPEC's 400 text. */
export const CreateScoreSchema = z.object({
  trace_id: Id,
  /** The client's own id (the id rule): a second POST with it answers the first score (docs/api.md, "Scores"). */
  id: Id.optional(),
  span_id: Id.nullish(),
  name: z.string().min(1).max(256),
  value: z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1'),
  score_type: z.enum(SCORE_TYPES).default('numeric'),
  source: z.enum(SCORE_SOURCES).default('api'),
  scorer_name: z.string().max(256).nullish(),
  reason: z.string().max(65_536).nullish(),
  evidence: z.array(z.string().max(65_536)).max(1000).default([]),
});
export type CreateScore = z.infer<typeof CreateScoreSchema>;

export interface Score {
  id: string;
  trace_id: string;
  span_id: string | null;
  name: string;
  value: number;
  score_type: (typeof SCORE_TYPES)[number];
  source: (typeof SCORE_SOURCES)[number];
  scorer_name: string | null;
  reason: string | null;
  evidence: string[];
  created_at: string;
  /**
   * Set by the service where a score needs more than its fields (an online rule's score names its
   * rule and its judge's trace: docs/online-evals.md); absent when there are none.
   */
  attributes?: Record<string, string>;
  /**
   * A score of a whole session (an online session rule's: docs/online-evals.md "Session rules"):
   * the session it judged; `trace_id` is then the trace of the session's last turn it saw. Absent
   * on scores of a trace or span.
   */
  session_id?: string;
}

/** Whether a stored score is the one `input` asks for (a retried POST with the client's id): every field but the time. */
export function sameScore(stored: Score, input: CreateScore): boolean {
  return (
    stored.trace_id === input.trace_id &&
    stored.span_id === (input.span_id ?? null) &&
    stored.name === input.name &&
    stored.value === input.value &&
    stored.score_type === input.score_type &&
    stored.source === input.source &&
    stored.scorer_name === (input.scorer_name ?? null) &&
    stored.reason === (input.reason ?? null) &&
    stored.evidence.length === input.evidence.length &&
    stored.evidence.every((e, i) => e === input.evidence[i])
  );
}
