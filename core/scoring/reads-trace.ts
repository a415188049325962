import type { ScorerRef } from '../model/eval-case.js';
import type { Scorer, ScorerRegistry } from './scorer.js';
import { TRAJECTORY_SCORERS } from './trajectory/index.js';

/**
 * Whether a scorer reads the execution's trace: the trajectory scorers, LLM judges (their
 * `{{trace}}`, grounding's retrievals, trajectory judges) and HTTP custom scorers (sent `trace`).
 * The other rule scorers judge the answer alone. An eval run waits for a case's trace to settle
 * only when one of its scorers reads it (docs/evals.md, "What scorers see of the trace").
 */
export function readsTrace(scorer: Scorer | undefined): boolean {
  return scorer !== undefined && (scorer.kind !== 'rule' || TRAJECTORY_SCORERS.includes(scorer));
}

/** Whether any of `refs` names a scorer of `registry` that reads the trace. */
export function anyReadsTrace(registry: ScorerRegistry, refs: readonly ScorerRef[]): boolean {
  return refs.some((ref) => readsTrace(registry.get(ref.name)));
}
