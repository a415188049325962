import { z } from 'zod';
import type { ConversationTurnView } from '../../model/conversation.js';
import { cut, listOf, ruleScorer, show } from '../rules/support.js';
import type { Scorer } from '../scorer.js';
import { plural, round2 } from '../trajectory/support.js';
import { requireConversation } from './support.js';

/**
 * `turnScores`: the conversation's per-turn scores (`turns[].scores`: a scripted turn's scorers)
 * as one (docs/scorers.md "turnScores"). A turn's score is the `aggregate` (mean or min) of its
 * scores, only those of `scorers` when named; turns without any are not counted. The score is the
 * aggregate over the turns; with `turnMinScore`, the fraction of turns whose score reaches it,
 * and with `minPassing` too, 1 when that fraction reaches `minPassing`, else 0.
 */

const unit = z.number().min(0).max(1);

const Config = z
  .strictObject({
    scorers: z.array(z.string().min(1).max(256)).min(1).max(100).optional(),
    aggregate: z.enum(['mean', 'min']).default('mean'),
    /** A turn passes when its score is at least this. */
    turnMinScore: unit.optional(),
    /** The fraction of scored turns that must pass (needs turnMinScore). */
    minPassing: unit.optional(),
  })
  .refine((c) => c.minPassing === undefined || c.turnMinScore !== undefined, { path: ['minPassing'], message: 'needs turnMinScore: what makes a turn pass' });

interface TurnScore {
  turn: ConversationTurnView;
  score: number;
  /** The lowest of the turn's scores, for the evidence. */
  worst: [name: string, reason: string];
}

const combine = (scores: number[], how: 'mean' | 'min') => (how === 'min' ? Math.min(...scores) : scores.reduce((a, b) => a + b, 0) / scores.length);

function turnScore(turn: ConversationTurnView, names: readonly string[] | undefined, how: 'mean' | 'min'): TurnScore | undefined {
  const entries = Object.entries(turn.scores ?? {}).filter(([name]) => !names || names.includes(name));
  if (entries.length === 0) return undefined;
  const worst = entries.reduce((a, b) => (b[1].score < a[1].score ? b : a));
  return {
    turn,
    score: combine(
      entries.map(([, d]) => d.score),
      how,
    ),
    worst: [worst[0], worst[1].reason],
  };
}

const evidenceOf = (t: TurnScore) => `turn ${t.turn.turn}: ${round2(t.score)} (lowest: ${t.worst[0]}, ${cut(t.worst[1], 100)})`;

export const turnScoresScorer: Scorer = ruleScorer({
  name: 'turnScores',
  description:
    "The conversation's per-turn scores as one: each turn's scores (config.scorers, else all) by config.aggregate (mean or min), then over the turns; or the fraction of turns reaching config.turnMinScore, pass/fail against config.minPassing.",
  config: Config,
  readsConversation: true,
  evaluate(input, config) {
    const view = requireConversation(input, 'turnScores');
    const scored = view.turns.flatMap((t) => turnScore(t, config.scorers, config.aggregate) ?? []);
    if (scored.length === 0) {
      const which = config.scorers ? `scores of ${listOf(config.scorers.map((n) => show(n)))}` : 'scores';
      throw new Error(`turnScores found no per-turn ${which} in ${plural(view.turns.length, 'turn')}: give the scripted turns scorers (or an expected)`);
    }
    const worst = [...scored].sort((a, b) => a.score - b.score);
    const of = `${scored.length} of ${plural(view.turns.length, 'turn')} scored`;
    if (config.turnMinScore === undefined) {
      const score = combine(
        scored.map((t) => t.score),
        config.aggregate,
      );
      return {
        score,
        reason: `${config.aggregate} of the turn scores ${round2(score)} (${of}); lowest turn ${worst[0].turn.turn} at ${round2(worst[0].score)}`,
        evidence: worst.slice(0, 5).map(evidenceOf),
      };
    }
    const min = config.turnMinScore;
    const failing = scored.filter((t) => t.score < min);
    const rate = (scored.length - failing.length) / scored.length;
    const passText = `${scored.length - failing.length} of ${plural(scored.length, 'scored turn')} reached ${min}`;
    const failText = failing.length ? `; short: ${listOf(failing.map((t) => `turn ${t.turn.turn} (${round2(t.score)})`))}` : '';
    if (config.minPassing === undefined) return { score: rate, reason: `${passText}${failText}`, evidence: failing.slice(0, 10).map(evidenceOf) };
    const ok = rate + 1e-9 >= config.minPassing;
    return {
      score: ok ? 1 : 0,
      reason: `${passText} (${round2(rate)}; at least ${config.minPassing} must${ok ? ': met' : ': not met'})${failText}`,
      evidence: failing.slice(0, 10).map(evidenceOf),
    };
  },
});
