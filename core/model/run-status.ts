/**
 * A run's statuses, without the schemas: browser-safe (no zod, no Node), so the dashboard uses
 * these and not a copy. core/model/eval-run.ts re-exports them.
 */

/** SPEC States: every status a run can have (docs/evals.md draws the transitions). */
export const RUN_STATUSES = ['pending', 'running', 'paused', 'completed', 'cancelled', 'failed'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
/** A run in one of these never changes again. */
export const FINAL_RUN_STATUSES: ReadonlySet<RunStatus> = new Set(['completed', 'cancelled', 'failed']);

/** Whether a run in `status` can still change. */
export const isFinalRunStatus = (status: RunStatus): boolean => FINAL_RUN_STATUSES.has(status);
