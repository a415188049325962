import type {
  AnswerComparison,
  Comparison,
  ComparisonList,
  ComparisonStatus,
  CreateComparison,
  Feedback,
  FeedbackInput,
  FeedbackList,
  FeedbackListQuery,
} from '../model/feedback.js';
import type { Actor } from '../principal.js';

/*
 * Feedback and pairwise comparisons (PostgreSQL, migration 007; store/postgres/feedback-store.ts
 * implements it; docs/feedback.md).
 *
 * Promises:
 * - Durability: a write resolves once committed. A feedback and what `alongside` does with it
 *   (the API writes its scores to the analytical store there) are one transaction: when
 *   `alongside` fails, nothing is stored.
 * - Idempotency: a feedback's id is fixed where retries need it (an answered comparison's
 *   preference, a queue item's correction: core/feedback/annotation-scores.ts), so answering
 *   again finds the stored feedback instead of writing a second one. A plain `create` retried
 *   after a lost answer stores twice: retries of `POST /api/feedback` are the Idempotency-Key
 *   middleware's (api/middleware/idempotency.ts).
 * - Isolation: every call names a project and touches only its rows.
 * - A feedback never changes once stored; the scores it implies are derived from the stored row
 *   (core/feedback/annotation-scores.ts), so every reader derives the same ones.
 * - What a caller gets is its own copy; reads see every committed write of any process.
 */

/** Feedback and pairwise comparisons (PostgreSQL). Every query filters by project. */
export interface FeedbackStore {
  /**
   * Stores a feedback and, in the same transaction, runs `alongside` with it (the API writes its
   * scores there): when `alongside` fails nothing is stored (docs/feedback.md, "Feedback becomes
   * scores"). Retries are the Idempotency-Key middleware's (api/middleware/idempotency.ts).
   */
  create(projectId: string, input: FeedbackInput, alongside: (feedback: Feedback) => Promise<void>): Promise<Feedback>;
  get(projectId: string, id: string): Promise<Feedback | null>;
  /** Newest first; `cursor` pages by keyset, `offset` by position. */
  list(projectId: string, query: FeedbackListQuery): Promise<FeedbackList>;
  createComparison(projectId: string, input: CreateComparison & { output_a: string; output_b: string }): Promise<Comparison>;
  getComparison(projectId: string, id: string): Promise<Comparison | null>;
  listComparisons(projectId: string, query: { limit: number; offset: number; status?: ComparisonStatus }): Promise<ComparisonList>;
  /**
   * Records the answer's preference feedback and marks the comparison answered, in one
   * transaction. Answering again with the same choice returns the stored result (`created`
   * false); another choice is a 409. Null when there is no such comparison. `alongside` runs
   * inside the transaction with the preference feedback (the route writes its scores there): when
   * it fails, nothing is stored and the comparison stays pending.
   */
  answerComparison(
    projectId: string,
    id: string,
    answer: AnswerComparison,
    answeredBy: Actor,
    alongside: (feedback: Feedback) => Promise<void>,
  ): Promise<{ comparison: Comparison; feedback: Feedback; created: boolean } | null>;
}
