import type { ScoreDetail } from '../../model/eval-case.js';
import type { ConversationView } from '../../model/conversation.js';
import { cut, listOf, show } from '../rules/support.js';
import { RegexBatch, type RegexOracle } from '../trajectory/regex-batch.js';
import { plural } from '../trajectory/support.js';
import { agentTurnText } from './support.js';

/**
 * knowledgeRetention's rule mode (docs/scorers.md "knowledgeRetention"): each configured fact is
 * found where the user gave it (`givenInTurn`, else the first user message holding its `text`, or
 * matching its `pattern`), then checked in the agent's later turns (answer and tool calls):
 * - `forgottenIf`: patterns that show the fact lost (asked for again, contradicted); a match in a
 *   turn after it was given loses it;
 * - `mustAppearAfter: n`: some agent turn after turn n uses it (holds the text, or matches the pattern).
 * Texts are compared case-insensitively; patterns run on RE2 off the event loop (regex-batch.ts).
 * Score: facts retained / facts the user gave; facts never given are left out (and named).
 */

export interface RetentionFact {
  text: string;
  pattern?: string;
  givenInTurn?: number;
  mustAppearAfter?: number;
  forgottenIf?: string[];
}

interface Outcome {
  fact: RetentionFact;
  given: number | null;
  /** Why the fact was lost, and the turn that shows it; null when retained. */
  lost: { text: string; evidence: string } | null;
}

const firstTurn = (view: ConversationView, hits: boolean[], after: number) => {
  const i = view.turns.findIndex((t, k) => hits[k] && t.turn > after);
  return i < 0 ? null : view.turns[i];
};

/** Every test made, on every turn, whatever the earlier answers (the batch's collecting walk must see them all). */
function outcomes(view: ConversationView, facts: readonly RetentionFact[], flags: string, test: RegexOracle): Outcome[] {
  const agentTexts = view.turns.map(agentTurnText);
  const holds = (fact: RetentionFact, text: string) => (fact.pattern ? test(fact.pattern, flags, text) : text.toLowerCase().includes(fact.text.toLowerCase()));
  return facts.map((fact) => {
    const inUser = view.turns.map((t) => holds(fact, t.user));
    const inAgent = agentTexts.map((text) => holds(fact, text));
    const forgotten = (fact.forgottenIf ?? []).map((p) => ({ pattern: p, hits: agentTexts.map((text) => test(p, flags, text)) }));
    const given = fact.givenInTurn ?? firstTurn(view, inUser, 0)?.turn ?? null;
    if (given === null) return { fact, given, lost: null };
    for (const f of forgotten) {
      const turn = firstTurn(view, f.hits, given);
      if (turn) {
        return {
          fact,
          given,
          lost: {
            text: `lost in turn ${turn.turn} (the agent's turn matches /${cut(f.pattern, 60)}/)`,
            evidence: `turn ${turn.turn}: ${cut(turn.assistant, 150)}`,
          },
        };
      }
    }
    if (fact.mustAppearAfter !== undefined && !firstTurn(view, inAgent, fact.mustAppearAfter)) {
      const last = view.turns[view.turns.length - 1];
      return {
        fact,
        given,
        lost: { text: `not used by the agent after turn ${fact.mustAppearAfter}`, evidence: `turn ${last.turn}: ${cut(last.assistant, 150)}` },
      };
    }
    return { fact, given, lost: null };
  });
}

export async function retentionByRule(
  view: ConversationView,
  facts: readonly RetentionFact[],
  flags: string,
  options: { runId?: string; signal?: AbortSignal },
): Promise<ScoreDetail> {
  const batch = new RegexBatch();
  outcomes(view, facts, flags, batch.collecting);
  await batch.run(options);
  const found = outcomes(view, facts, flags, batch.deciding);
  const given = found.filter((o) => o.given !== null);
  const notGiven = found.filter((o) => o.given === null).map((o) => show(o.fact.text));
  const lost = given.filter((o) => o.lost);
  const notGivenText = notGiven.length ? `; never given by the user, not checked: ${listOf(notGiven)}` : '';
  if (given.length === 0) {
    return {
      score: 1,
      reason: `none of the ${plural(facts.length, 'fact')} was given by the user, so there was nothing to retain${notGivenText}`,
      evidence: [],
    };
  }
  const details = lost.map((o) => `${show(o.fact.text)} (given in turn ${o.given}) was ${o.lost!.text}`);
  const head = `${given.length - lost.length} of ${plural(given.length, 'fact')} given by the user retained`;
  return {
    score: (given.length - lost.length) / given.length,
    reason: `${head}${details.length ? `: ${details.join('; ')}` : ''}${notGivenText}`,
    evidence: lost.map((o) => o.lost!.evidence),
  };
}
