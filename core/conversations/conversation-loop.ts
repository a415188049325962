import { endScorers, turnScoring, turnShortfall } from '../evals/conversation-scoring.js';
import type { ConversationShape, ReadsConversation } from '../model/case-schema.js';
import type { ConversationEnd, ConversationTurnView, ConversationView, SimulatedUserTurn, Simulation } from '../model/conversation.js';
import type { Aggregation, ScoreDetail, ScorerRef, TokenUsage, ToolCall } from '../model/eval-case.js';
import type { ConversationRecord, RunCase, TurnResult } from '../model/eval-run.js';
import type { LlmMessage } from '../model/messages.js';
import { messageOf } from '../scoring/rules/support.js';
import { aggregateScores, caseShortfall, casePasses, runScorers } from '../scoring/run-scorers.js';
import type { ScoreInput, ScorerRegistry } from '../scoring/scorer.js';
import { conversationEnd } from './stop.js';
import { conversationMessages, conversationViewOf, turnText } from './view.js';

/**
 * One conversation trial, turn by turn (docs/evals.md, "Conversations"), written once for the
 * paths that run one in a single process: the SDK's `evaluate()` and the CLI's `--local` (an
 * agent function, or an endpoint called with the agent protocol). The run engine's workflow takes
 * the same steps as activities (workflows/conversation-trial.ts); the pure pieces here
 * ({@link nextUserStep}, {@link simulatedStep}, {@link turnResultOf}, {@link conversationVerdict})
 * are the rules both follow. Free of Node imports.
 *
 * For turn n: the user's message (the script's turn n, or the simulated user's, unless the
 * conversation ended: conversationEnd), the agent called with the history so far, the turn's
 * scorers (turnScoring), the turn reported. A turn the agent failed ends the conversation (the
 * trial fails with the agent's error). At the end the conversation-level scorers and the answer
 * scorers (endScorers) read the whole conversation (ScoreInput.conversation, conversationViewOf).
 */

/** What the agent answered on one turn. */
export interface TurnAnswer {
  output: unknown;
  toolCalls: ToolCall[];
  usage: TokenUsage | null;
  /** The agent's time on this turn, in ms. */
  latencyMs: number;
}

/** One call of the agent: the turn, its input and the conversation so far (ending with the turn's user message). */
export interface TurnCall {
  /** 1-based. */
  turn: number;
  /** A scripted turn's `input` as written, or the simulated user's message. */
  input: unknown;
  /** The user's message as text (turnText of the input). */
  message: string;
  messages: LlmMessage[];
  sessionId: string;
}

/** What the simulated user is asked for: its turn `turn`, given the conversation so far. */
export interface UserTurnCall {
  simulation: Simulation;
  turn: number;
  messages: LlmMessage[];
}

/** A step the user takes: a message to send, or the conversation's end. */
export type UserMove = { tag: 'say'; input: unknown; message: string } | { tag: 'end'; ended: ConversationEnd };

/** The next step of a conversation: a user message to send, its end, or the simulated user to ask. */
export type UserStep = UserMove | { tag: 'simulate' };

const say = (input: unknown): UserMove => ({ tag: 'say', input, message: turnText(input) });

/**
 * What comes at turn `turn` (1-based), the agent having answered `answered` (their outputs, in
 * order): a scripted turn's input, `script_done` past the script; for a simulated user, its end
 * when conversationEnd says so (stop condition, max_turns), else `simulate`.
 */
export function nextUserStep(c: ConversationShape, turn: number, answered: ReadonlyArray<{ output: unknown }>): UserStep {
  if (c.turns) return turn > c.turns.length ? { tag: 'end', ended: 'script_done' } : say(c.turns[turn - 1].input);
  if (!c.simulation) throw new TypeError('the case is not a conversation (it has neither turns nor simulation)');
  const ended = conversationEnd(c.simulation, answered.length, answered.at(-1)?.output);
  return ended ? { tag: 'end', ended } : { tag: 'simulate' };
}

/** The simulated user's answer as a step: its message to send, or the end it chose (its closing words are not sent). */
export function simulatedStep(turn: SimulatedUserTurn): UserMove {
  return turn.stop ? { tag: 'end', ended: turn.stop } : say(turn.message);
}

/** How a case's scores are judged: the minimum (the case's, else the run's) and the aggregation. */
export interface ConversationScoring {
  minScore: number;
  aggregation: Aggregation;
}

/** One turn as recorded (TurnResult): passed when the agent answered and every scorer of the turn met its minimum. */
export function turnResultOf(
  t: { turn: number; message: string; answer?: TurnAnswer; error?: string | null; details: Record<string, ScoreDetail>; refs: readonly ScorerRef[] },
  scoring: ConversationScoring,
  traceId: string | null,
): TurnResult {
  const error = t.error ?? (t.answer ? null : 'the agent did not answer');
  return {
    turn: t.turn,
    user: t.message,
    output: t.answer?.output ?? null,
    tool_calls: t.answer ? t.answer.toolCalls : null,
    usage: t.answer?.usage ?? null,
    latency_ms: t.answer?.latencyMs ?? null,
    details: t.details,
    avg_score: t.refs.length ? aggregateScores(t.details, t.refs, scoring.aggregation) : null,
    passed: error === null && casePasses(t.details, t.refs, scoring.minScore),
    approval: null,
    error,
    trace_id: traceId,
  };
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/** A recorded turn as conversation-level scorers see it (both run paths, and the history the agent is sent). */
export function turnViewOf(t: TurnResult): ConversationTurnView {
  return {
    turn: t.turn,
    user: t.user,
    assistant: turnText(t.output),
    output: t.output,
    toolCalls: t.tool_calls ?? [],
    ...(t.usage ? { usage: t.usage } : {}),
    latencyMs: t.latency_ms ?? 0,
    ...(t.trace_id ? { traceId: t.trace_id } : {}),
    scores: t.details,
  };
}

/**
 * What the end's scorers read (conversation-level and answer scorers): the whole conversation as
 * its view (conversationViewOf over the answered turns, with a simulated user's persona, goal,
 * facts and max_turns) and the last answer. `answered` holds at least one turn.
 */
export function endScoreInput(
  runCase: Pick<RunCase, 'expected' | 'simulation'>,
  answered: readonly TurnResult[],
  meta: { sessionId: string; ended: ConversationEnd },
): Omit<ScoreInput, 'config'> & { conversation: ConversationView } {
  const last = answered.at(-1)!;
  const simulation = runCase.simulation;
  return {
    input: answered[0].user,
    output: last.output,
    expected: runCase.expected,
    toolCalls: answered.flatMap((t) => t.tool_calls ?? []),
    usage: last.usage ?? undefined,
    latencyMs: sum(answered.map((t) => t.latency_ms ?? 0)),
    conversation: conversationViewOf(answered.map(turnViewOf), {
      ...meta,
      ...(simulation ? { persona: simulation.persona, goal: simulation.goal, facts: simulation.facts, maxTurns: simulation.max_turns } : {}),
    }),
  };
}

/** The trial's verdict and average from its end scores and its turns. */
export interface ConversationVerdict {
  passed: boolean;
  /** Every score of the trial: the end scorers' and each scored turn's (as `turn {n}: {scorer}`). */
  avgScore: number;
  /** Why it failed, in words; null when it passed. */
  shortfall: string | null;
}

/**
 * A conversation trial passes when it ended (no error), every turn passed and each end score met
 * its minimum; its average counts every score of the trial, the case-level ones and each scored
 * turn's. The same rule as the run engine's (workflows/conversation-steps.ts, finishConversation).
 */
export function conversationVerdict(
  v: {
    runCase: Pick<RunCase, 'scorers' | 'turns'>;
    turns: readonly TurnResult[];
    ended: ConversationEnd | null;
    details: Record<string, ScoreDetail>;
    endRefs: readonly ScorerRef[];
    error: string | null;
  },
  scoring: ConversationScoring,
): ConversationVerdict {
  const all: Record<string, ScoreDetail> = { ...v.details };
  for (const t of v.turns) for (const [name, d] of Object.entries(t.details)) all[`turn ${t.turn}: ${name}`] = d;
  const avgScore = aggregateScores(all, [...v.endRefs, ...v.runCase.scorers], scoring.aggregation);
  const failure = v.error ?? (v.ended ? null : 'the conversation did not end');
  const shortfall =
    failure ??
    v.turns.map((t) => turnShortfall(v.runCase, t, scoring.minScore)).find((s) => s !== null) ??
    caseShortfall(v.details, v.endRefs, scoring.minScore);
  return { passed: shortfall === null, avgScore, shortfall };
}

/** A conversation case's `{ended, turns_done}` as a trial records it. */
export const conversationRecordOf = (ended: ConversationEnd | null, turns: readonly TurnResult[]): ConversationRecord => ({
  ended,
  turns_done: turns.filter((t) => t.error === null).length,
});

/** Everything a conversation trial needs from the process that runs it. */
export interface ConversationRunner {
  runCase: RunCase;
  scoring: ConversationScoring;
  /** The scorers (ScorerRef names) and which of them read a whole conversation. */
  registry: ScorerRegistry;
  /** The conversation's session id (the agent protocol's `session_id`). */
  sessionId: string;
  /** The trial's trace, named by each turn. */
  traceId: string | null;
  /** The agent's answer to one turn; a rejection fails the turn (its message is the turn's error) and ends the conversation. */
  callAgent: (call: TurnCall) => Promise<TurnAnswer>;
  /** The simulated user's turn (a `simulation` case); absent: such a case fails, saying `noSimulatedUser`. */
  simulateUser?: (call: UserTurnCall) => Promise<SimulatedUserTurn>;
  /** Why there is no simulated user here (the trial's error when a simulation case has none). */
  noSimulatedUser?: string;
  /** Runs scorers (default: runScorers on the registry); `turn` is undefined for the end's scorers. */
  score?: (refs: ScorerRef[], input: Omit<ScoreInput, 'config'>, turn: number | undefined) => Promise<Record<string, ScoreDetail>>;
  /** Each turn as soon as it is scored. */
  onTurn?: (turn: TurnResult) => void | Promise<void>;
  /** Checked between turns: once aborted, the conversation stops (the trial fails, cancelled). */
  signal?: AbortSignal;
}

/** A conversation trial as it ran. */
export interface ConversationTrial {
  turns: TurnResult[];
  /** Why it ended; null when it did not (a turn or the simulated user failed, or it was cancelled). */
  ended: ConversationEnd | null;
  /** The end's scores (conversation-level and answer scorers); empty when the conversation did not end. */
  details: Record<string, ScoreDetail>;
  /** The scorers that gave `details`. */
  endRefs: ScorerRef[];
  /** The agent's or the simulated user's failure; null otherwise. */
  error: string | null;
  verdict: ConversationVerdict;
  conversation: ConversationRecord;
  /** The conversation as the end's scorers read it (undefined when none ran). */
  view?: ConversationView;
}

/** Runs one conversation trial to its end (see the module's comment). Never rejects for the agent's or the simulated user's failures. */
export async function runConversation(r: ConversationRunner): Promise<ConversationTrial> {
  const { runCase, scoring } = r;
  const reads: ReadsConversation = (name) => r.registry.get(name)?.readsConversation === true;
  const score = r.score ?? ((refs: ScorerRef[], input: Omit<ScoreInput, 'config'>) => runScorers(r.registry, refs, input));
  const turns: TurnResult[] = [];
  /** The turns the agent answered: the history. */
  const answered: TurnResult[] = [];
  let ended: ConversationEnd | null = null;
  let error: string | null = null;

  for (let turn = 1; ; turn++) {
    if (r.signal?.aborted) {
      error = 'cancelled while running';
      break;
    }
    const history = conversationMessages(answered.map(turnViewOf));
    let step = nextUserStep(runCase, turn, answered);
    if (step.tag === 'simulate') {
      if (!r.simulateUser) {
        error = r.noSimulatedUser ?? 'no simulated user here';
        break;
      }
      try {
        step = simulatedStep(await r.simulateUser({ simulation: runCase.simulation!, turn, messages: history }));
      } catch (err) {
        error = `simulated user: ${messageOf(err)}`;
        break;
      }
    }
    if (step.tag === 'end') {
      ended = step.ended;
      break;
    }
    if (step.tag !== 'say') break;
    let answer: TurnAnswer | undefined;
    let turnError: string | null = null;
    try {
      answer = await r.callAgent({
        turn,
        input: step.input,
        message: step.message,
        messages: [...history, { role: 'user', content: step.message }],
        sessionId: r.sessionId,
      });
    } catch (err) {
      turnError = messageOf(err);
    }
    const { refs, expected } = turnScoring(runCase, turn, reads);
    const details =
      answer && refs.length
        ? await score(
            refs,
            { input: step.input, output: answer.output, expected, toolCalls: answer.toolCalls, usage: answer.usage ?? undefined, latencyMs: answer.latencyMs },
            turn,
          )
        : {};
    const result = turnResultOf({ turn, message: step.message, answer, error: turnError, details, refs }, scoring, r.traceId);
    turns.push(result);
    await r.onTurn?.(result);
    if (result.error !== null) {
      error = result.error;
      break;
    }
    answered.push(result);
  }

  const last = answered.at(-1);
  const endRefs = ended && !error && last ? endScorers(runCase, reads) : [];
  let details: Record<string, ScoreDetail> = {};
  let view: ConversationView | undefined;
  if (endRefs.length && ended) {
    const input = endScoreInput(runCase, answered, { sessionId: r.sessionId, ended });
    view = input.conversation;
    details = await score(endRefs, input, undefined);
  }
  return {
    turns,
    ended,
    details,
    endRefs,
    error,
    verdict: conversationVerdict({ runCase, turns, ended, details, endRefs, error }, scoring),
    conversation: conversationRecordOf(ended, turns),
    ...(view ? { view } : {}),
  };
}

/** The whole conversation's usage: the turns' tokens added up (null when no turn reported any). */
export function conversationUsage(turns: readonly TurnResult[]): TokenUsage | null {
  const reported = turns.filter((t) => t.usage);
  if (!reported.length) return null;
  return { input_tokens: sum(reported.map((t) => t.usage!.input_tokens)), output_tokens: sum(reported.map((t) => t.usage!.output_tokens)) };
}
