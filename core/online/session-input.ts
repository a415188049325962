import { conversationViewOf, turnText } from '../conversations/view.js';
import type { ConversationTurnView, ConversationView } from '../model/conversation.js';
import type { Expected, ScoreDetail } from '../model/eval-case.js';
import type { ScoreInput } from '../scoring/scorer.js';
import type { SessionForScoring } from '../store/online-traces.js';
import { scoreInputFromTrace } from './trace-input.js';

/**
 * What a session rule's scorers see of a production session (docs/online-evals.md, "Session
 * rules"): each trace of the session is a turn, read as a trace rule reads a trace
 * (scoreInputFromTrace): the user's message is the root span's input, the agent's answer its
 * output, the tool calls its tool spans, with the trace's tokens, duration and id.
 */

/** One turn: the trace's own ScoreInput (what a trace scorer scores) and its view in the conversation. */
export interface SessionTurn {
  input: Omit<ScoreInput, 'config'>;
  view: ConversationTurnView;
}

/**
 * The session's turns in order. Turn numbers are positions in the whole session: a session longer
 * than its scorers see starts at a later turn than 1.
 */
export function sessionTurns(session: SessionForScoring, expected: Expected): SessionTurn[] {
  const first = session.trace_count - session.traces.length + 1;
  return session.traces.map((trace, i) => {
    const input = scoreInputFromTrace(trace, expected);
    const view: ConversationTurnView = {
      turn: first + i,
      user: turnText(input.input),
      assistant: turnText(input.output),
      output: input.output,
      toolCalls: input.toolCalls,
      ...(input.usage ? { usage: input.usage } : {}),
      latencyMs: input.latencyMs,
      traceId: trace.trace_id,
    };
    return { input, view };
  });
}

/**
 * The session as one ScoreInput for conversation-level scorers: `conversation` (ended `idle`: a
 * production session ends by going quiet), with the turns' own verdicts of the rule's trace
 * scorers in `turns[].scores`; `input` the first turn's message, `output` the last turn's answer,
 * every turn's tool calls, the tokens and latency summed over the turns; the rule's `expected`.
 */
export function sessionScoreInput(
  sessionId: string,
  turns: readonly SessionTurn[],
  turnScores: ReadonlyArray<Record<string, ScoreDetail>>,
  expected: Expected,
): Omit<ScoreInput, 'config'> & { conversation: ConversationView } {
  const views = turns.map((t, i) => (Object.keys(turnScores[i] ?? {}).length ? { ...t.view, scores: turnScores[i] } : t.view));
  const conversation = conversationViewOf(views, { sessionId, ended: 'idle' });
  const last = turns.at(-1);
  return {
    input: turns[0]?.input.input ?? '',
    output: last?.input.output ?? '',
    expected,
    toolCalls: turns.flatMap((t) => t.input.toolCalls),
    usage: {
      input_tokens: turns.reduce((n, t) => n + (t.input.usage?.input_tokens ?? 0), 0),
      output_tokens: turns.reduce((n, t) => n + (t.input.usage?.output_tokens ?? 0), 0),
    },
    latencyMs: turns.reduce((n, t) => n + t.input.latencyMs, 0),
    conversation,
  };
}
