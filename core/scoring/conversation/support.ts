import type { ConversationEnd, ConversationTurnView, ConversationView } from '../../model/conversation.js';
import { turnText } from '../../conversations/view.js';
import { z } from 'zod';
import { patternProblem } from '../../safe-regex.js';
import { refusing } from '../../model/refusing.js';
import type { ScoreInput } from '../scorer.js';

/**
 * What the conversation-level scorers share (docs/scorers.md "Conversation scorers"): the
 * conversation they read, the text of what the agent did in a turn, and how ends are told.
 */

/**
 * The execution's whole conversation; throws, naming the scorer, when there is none (a
 * single-turn case: the run records 0 with this reason) or it has no turn.
 */
export function requireConversation(input: Pick<ScoreInput, 'conversation'>, scorer: string): ConversationView {
  const view = input.conversation;
  if (!view) {
    throw new Error(
      `${scorer} scores a whole conversation, and this execution is a single turn: name it on a conversation case (turns or simulation) or in an online session rule`,
    );
  }
  if (view.turns.length === 0) throw new Error(`${scorer} scores a whole conversation, and this one has no turn`);
  return view;
}

/** What the agent did in a turn as one text: its answer, then each tool call's name and arguments (a fact used in a call's arguments is used). */
export function agentTurnText(turn: ConversationTurnView): string {
  const calls = turn.toolCalls.map((c) => `${c.name} ${c.input === undefined ? '' : turnText(c.input)}`);
  return calls.length ? `${turn.assistant}\n${calls.join('\n')}` : turn.assistant;
}

/** Why a conversation ended, in words a reason or a judge reads. */
export const END_WORDS: Record<ConversationEnd, string> = {
  script_done: 'the scripted turns ran out',
  goal_met: 'the simulated user said its goal was met',
  gave_up: 'the simulated user gave up',
  max_turns: 'it reached its maximum number of turns',
  stop_condition: "the agent's answer met the stop condition",
  idle: 'the session went idle',
};

/** A configured pattern (RE2, matched case-insensitively): refused at the door when the safe engine cannot run it. */
export const Pattern = refusing(z.string().min(1), (p) => patternProblem(p, 'i'));
