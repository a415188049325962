import { z } from 'zod';
import { ExpectedSchema, ScorerRefListSchema, type ScoreDetail, type TokenUsage, type ToolCall } from './eval-case.js';
import type { LlmMessage } from './messages.js';

/**
 * Multi-turn evaluation's shared model (issue 30; docs/evals.md "Conversations"): a case that is a
 * scripted list of user turns or a simulated user, and the view of a conversation that
 * conversation-level scorers read, the same for an eval run's trial and a production session.
 * Browser-safe (zod only).
 */

/** Most turns one conversation may have (scripted turns, or a simulation's `max_turns`). */
export const MAX_CONVERSATION_TURNS = 100;
const MAX_TEXT = 65_536;

/** One user turn of a scripted conversation, with what that turn's answer should satisfy. */
export const ScriptedTurnSchema = z.object({
  input: z.unknown().refine((v) => v !== undefined, 'is required'),
  expected: ExpectedSchema.default({}),
  /** Scorers of this turn's answer (any scorer, the trajectory scorers included). */
  scorers: ScorerRefListSchema.optional(),
});
export type ScriptedTurn = z.output<typeof ScriptedTurnSchema>;

/** Why a conversation ended. */
export const CONVERSATION_ENDS = ['script_done', 'goal_met', 'gave_up', 'max_turns', 'stop_condition', 'idle'] as const;
export type ConversationEnd = (typeof CONVERSATION_ENDS)[number];

/**
 * A simulated user: an LLM (through the judge providers, budget and cost accounting) plays
 * `persona` pursuing `goal`, knowing `facts`, until the goal is met, it gives up, `stop` matches
 * the agent's answer, or `max_turns` user turns were sent.
 */
export const SimulationSchema = z.object({
  persona: z.string().min(1).max(MAX_TEXT),
  goal: z.string().min(1).max(MAX_TEXT),
  facts: z.array(z.string().min(1).max(MAX_TEXT)).max(100).default([]),
  max_turns: z.number().int().min(1).max(MAX_CONVERSATION_TURNS),
  /** The user's first message as written; the simulator writes it when absent. */
  first_message: z.string().min(1).max(MAX_TEXT).optional(),
  /** Ends the conversation when the agent's answer contains one of these texts. */
  stop: z
    .object({ outputContains: z.array(z.string().min(1).max(MAX_TEXT)).min(1).max(100) })
    .strict()
    .optional(),
  /** The judge model that plays the user (a name the judge providers know); the default judge model when absent. */
  model: z.string().min(1).max(256).optional(),
  /** Sent to the provider as its sampling seed, and temperature 0, so a simulation repeats where the provider allows. */
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .optional(),
});
export type Simulation = z.output<typeof SimulationSchema>;

/** What the simulated user says next, or that it stops (then `message` is its closing words, possibly ''). */
export interface SimulatedUserTurn {
  message: string;
  stop: null | 'goal_met' | 'gave_up';
}

/** One turn as conversation-level scorers see it: the user's message and the agent's answer. */
export interface ConversationTurnView {
  /** 1-based. */
  turn: number;
  /** The user's message text (a non-string scripted input as its JSON text). */
  user: string;
  /** The agent's answer as text (a non-string `output` as its JSON text). */
  assistant: string;
  /** The agent's `output` as it answered. */
  output: unknown;
  toolCalls: ToolCall[];
  usage?: TokenUsage;
  latencyMs: number;
  /** The turn's trace: in a run, the turn's agent call trace; in production, the session's trace for that turn. */
  traceId?: string;
  /** The turn's own scores (scripted turns' scorers). */
  scores?: Record<string, ScoreDetail>;
}

/** A whole conversation as conversation-level scorers read it (ScoreInput.conversation). */
export interface ConversationView {
  sessionId: string;
  turns: ConversationTurnView[];
  /** The conversation as messages in the product's one message model, user and assistant in turn. */
  messages: LlmMessage[];
  ended: ConversationEnd;
  /** A simulated user's persona, goal and facts (absent for scripted conversations and production sessions). */
  persona?: string;
  goal?: string;
  facts?: string[];
  /** A simulated user's `max_turns` (absent for scripted conversations and production sessions): what `turnsToGoal` measures against. */
  maxTurns?: number;
}
