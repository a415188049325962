import type { RunCase } from '../../core/model/eval-run.js';

/**
 * A case with neutral defaults: named `name`, no input, nothing expected, each named scorer with
 * an empty config, no minimum score, weight 1. Tests name what they depend on in `over`.
 */
export function caseOf(name: string, scorers: readonly string[], over: Partial<Omit<RunCase, 'case_index'>> = {}): Omit<RunCase, 'case_index'> {
  return { name, input: null, expected: {}, scorers: scorers.map((s) => ({ name: s, config: {} })), min_score: null, weight: 1, ...over };
}

/** {@link caseOf} as a run's case 0. */
export const runCaseOf = (name: string, scorers: readonly string[], over: Partial<RunCase> = {}): RunCase => ({
  case_index: 0,
  ...caseOf(name, scorers, over),
});
