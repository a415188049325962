import { z } from 'zod';
import { TrajectoryBudgetSchema, trajectoryOf, type TrajectoryBudget } from '../../model/expected-trajectory.js';
import type { Scorer } from '../scorer.js';
import type { TreeStats } from './span-tree.js';
import { plural, requireTree, round2 } from './support.js';
import { ruleScorer } from '../rules/support.js';

/**
 * `steps`: budgets on what the agent spent doing the case, read from its trace: model calls,
 * tool calls, spans, tokens, cost and wall time (docs/scorers.md "steps"), each from the config,
 * else from the case's `expected.trajectory.budget`. Each budget set scores
 * 1 when the trace stays within it, else budget / used (`overBudget: ratio`: twice the budget
 * scores 0.5) or 0 (`overBudget: zero`); the score is the lowest of them.
 */

const Config = TrajectoryBudgetSchema.extend({
  overBudget: z.enum(['ratio', 'zero']).default('ratio'),
});
type Config = z.output<typeof Config>;

interface Budget {
  key: keyof TrajectoryBudget;
  what: string;
  used(stats: TreeStats): number;
  show(n: number): string;
}

const BUDGETS: Budget[] = [
  { key: 'maxLlmCalls', what: 'LLM calls', used: (s) => s.llmCalls, show: String },
  { key: 'maxToolCalls', what: 'tool calls', used: (s) => s.toolCalls, show: String },
  { key: 'maxSpans', what: 'spans', used: (s) => s.spans, show: String },
  { key: 'maxTokens', what: 'tokens', used: (s) => s.inputTokens + s.outputTokens, show: String },
  { key: 'maxCostUsd', what: 'cost', used: (s) => s.costUsd, show: (n) => `$${n.toFixed(6).replace(/0+$/, '').replace(/\.$/, '')}` },
  { key: 'maxWallMs', what: 'wall time', used: (s) => s.wallMs, show: (n) => `${Math.round(n)} ms` },
];

export const stepsScorer: Scorer = ruleScorer({
  name: 'steps',
  description:
    'Budgets on the trace: LLM calls, tool calls, spans, tokens, cost and wall time (config.max*, else expected.trajectory.budget); 1 within every budget, else the lowest budget / used (or 0 with overBudget: zero).',
  config: Config,
  evaluate(input, config) {
    // Each budget: the scorer's own, else the case's expected.trajectory.budget.
    const fromCase = trajectoryOf(input.expected)?.budget ?? {};
    const budgetOf = (b: Budget) => config[b.key] ?? fromCase[b.key];
    const set = BUDGETS.filter((b) => budgetOf(b) !== undefined);
    if (set.length === 0) {
      throw new Error(`steps needs at least one budget: ${BUDGETS.map((b) => `config.${b.key}`).join(', ')}, or the case's expected.trajectory.budget`);
    }
    const stats = requireTree(input, 'steps').stats();

    const results = set.map((b) => {
      const budget = budgetOf(b)!;
      const used = b.used(stats);
      const within = used <= budget;
      const score = within ? 1 : config.overBudget === 'zero' || budget === 0 ? 0 : budget / used;
      return { b, budget, used, score };
    });
    const over = results.filter((r) => r.score < 1).sort((x, y) => x.score - y.score);
    const score = Math.min(...results.map((r) => r.score));
    const evidence = results.map(
      (r) =>
        `${r.b.what}: ${r.b.show(r.used)} of ${r.b.show(r.budget)}${r.score < 1 ? (r.budget === 0 ? ' (none allowed)' : ` (${round2(r.used / r.budget)}x the budget)`) : ''}`,
    );
    const unpriced = config.maxCostUsd !== undefined && stats.unpricedLlmCalls > 0;
    if (unpriced) evidence.push(`${plural(stats.unpricedLlmCalls, 'LLM call')} not priced (model unknown to the price table): not counted in the cost`);

    const reason =
      over.length === 0
        ? `within every budget: ${results.map((r) => `${r.b.what} ${r.b.show(r.used)} <= ${r.b.show(r.budget)}`).join(', ')}`
        : `over budget: ${over.map((r) => `${r.b.what} ${r.b.show(r.used)} > ${r.b.show(r.budget)}`).join(', ')}${config.overBudget === 'zero' ? ' (overBudget: zero)' : ''}`;
    return { score, reason: unpriced ? `${reason}; ${plural(stats.unpricedLlmCalls, 'LLM call')} unpriced, not in the cost` : reason, evidence };
  },
});
