import { z } from 'zod';
import { CONVERSATION_ENDS, MAX_CONVERSATION_TURNS, type ConversationTurnView, type ConversationView } from '../../model/conversation.js';
import { cut, listOf, ruleScorer, show } from '../rules/support.js';
import type { Scorer } from '../scorer.js';
import { RegexBatch, type RegexOracle } from '../trajectory/regex-batch.js';
import { plural, round2 } from '../trajectory/support.js';
import { END_WORDS, Pattern, requireConversation } from './support.js';

/**
 * `turnsToGoal`: how many turns the conversation took to reach its goal, against a maximum
 * (docs/scorers.md "turnsToGoal"). The goal turn is the first turn whose agent answer matches
 * `reachedWhen` when it is configured; else the last turn, when the conversation ended in one of
 * `goalEnds` (by default only `goal_met`: the simulated user said so). Not reached: 0. Reached in
 * n turns: 1 up to `targetTurns`, then down in even steps to 1 / (maxTurns - targetTurns + 1) at
 * `maxTurns` (the config's, else the simulated user's `max_turns`, else a script's length).
 */

const turns = z.number().int().min(1).max(MAX_CONVERSATION_TURNS);

const Config = z.strictObject({
  maxTurns: turns.optional(),
  targetTurns: turns.default(1),
  goalEnds: z.array(z.enum(CONVERSATION_ENDS)).min(1).default(['goal_met']),
  /** The goal is reached at the first agent answer holding one of these texts (case-insensitive) or matching one of these patterns (RE2, flag i). */
  reachedWhen: z
    .strictObject({ outputContains: z.array(z.string().min(1)).min(1).max(100).optional(), regex: z.array(Pattern).min(1).max(20).optional() })
    .refine((r) => r.outputContains || r.regex, 'needs outputContains or regex')
    .optional(),
});
type TurnsConfig = z.output<typeof Config>;

/** The first turn whose answer meets `reachedWhen` (every test made on every turn, for the batch's collecting walk). */
function reachedAt(view: ConversationView, when: NonNullable<TurnsConfig['reachedWhen']>, test: RegexOracle): ConversationTurnView | undefined {
  const hits = view.turns.map((t) => {
    const text = t.assistant.toLowerCase();
    const contains = (when.outputContains ?? []).map((s) => text.includes(s.toLowerCase()));
    const matches = (when.regex ?? []).map((p) => test(p, 'i', t.assistant));
    return [...contains, ...matches].some(Boolean);
  });
  return view.turns.find((_, i) => hits[i]);
}

function maxTurnsOf(config: TurnsConfig, view: ConversationView): number {
  const max = config.maxTurns ?? view.maxTurns ?? (view.ended === 'script_done' ? view.turns[view.turns.length - 1].turn : undefined);
  if (max === undefined) throw new Error("turnsToGoal needs config.maxTurns: this conversation has no simulated user's max_turns to measure against");
  return max;
}

/** 1 up to `target` turns, then down in even steps to 1 / (max - target + 1) at `max`; 0 past it. */
export function turnsScore(n: number, target: number, max: number): number {
  if (n <= target) return 1;
  if (n > max) return 0;
  return (max - n + 1) / (max - target + 1);
}

const whenText = (when: NonNullable<TurnsConfig['reachedWhen']>) =>
  listOf([...(when.outputContains ?? []).map((s) => show(s)), ...(when.regex ?? []).map((p) => `/${cut(p, 60)}/`)]);

export const turnsToGoalScorer: Scorer = ruleScorer({
  name: 'turnsToGoal',
  description:
    'Turns a conversation took to reach its goal (the first answer meeting config.reachedWhen, else the last turn when it ended in config.goalEnds, default goal_met) against config.maxTurns (else the simulated user’s max_turns): 1 up to config.targetTurns, less per extra turn, 0 when not reached.',
  config: Config,
  readsConversation: true,
  async evaluate(input, config, signal) {
    const view = requireConversation(input, 'turnsToGoal');
    const max = maxTurnsOf(config, view);
    let goal: ConversationTurnView | undefined;
    let how: string;
    if (config.reachedWhen) {
      const batch = new RegexBatch();
      reachedAt(view, config.reachedWhen, batch.collecting);
      await batch.run({ runId: input.runId, signal });
      goal = reachedAt(view, config.reachedWhen, batch.deciding);
      how = goal
        ? `its answer holds ${whenText(config.reachedWhen)}`
        : `no answer in ${plural(view.turns.length, 'turn')} holds ${whenText(config.reachedWhen)}`;
    } else {
      goal = config.goalEnds.includes(view.ended) ? view.turns[view.turns.length - 1] : undefined;
      how = `the conversation ended because ${END_WORDS[view.ended]} (${view.ended})${goal ? '' : `, and only ${listOf(config.goalEnds)} count${config.goalEnds.length === 1 ? 's' : ''} as the goal`}`;
    }
    if (!goal) return { score: 0, reason: `the goal was not reached: ${how}`, evidence: [] };
    const score = turnsScore(goal.turn, config.targetTurns, max);
    return {
      score,
      reason: `the goal was reached in turn ${goal.turn} of at most ${max} (${config.targetTurns} or fewer score 1): ${round2(score)}; ${how}`,
      evidence: [`turn ${goal.turn}: ${cut(goal.assistant, 150)}`],
    };
  },
});
