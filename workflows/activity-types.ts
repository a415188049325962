import type { AgentReply } from '../core/model/agent-reply.js';
import type { ScoreDetail } from '../core/model/eval-case.js';
import type { ConversationEnd } from '../core/model/conversation.js';
import type { ApprovalDecision, CaseOutcome } from './contract.js';

/** Types only: the workflow imports these, the worker implements them (activities.ts). */

export interface TrialRef {
  runId: string;
  caseIndex: number;
  trial: number;
}

export interface AgentCall {
  startedAt: number;
  endedAt: number;
  reply?: AgentReply;
  /** Set when the call failed after its retries. */
  error?: string;
  /** The conversation turn (1-based) the call answered; absent for a single-turn case. */
  turn?: number;
  /** That turn's user message, set on the trial's record (the turn's span shows it as its input). */
  user?: string;
}

/** A trial whose agent calls are done: what scoring and recording start from. */
export interface CaseRun extends TrialRef {
  startedAt: number;
  calls: AgentCall[];
  approval?: { tool: string; approved: boolean; comment?: string; by?: string };
}

export interface CaseRecord extends CaseRun {
  endedAt: number;
  details: Record<string, ScoreDetail>;
  avgScore: number;
  passed: boolean;
  status: CaseOutcome;
  error?: string;
  /** A conversation trial's end (its turns are stored apart, turn by turn). */
  conversation?: { ended: ConversationEnd | null; turns_done: number };
}

/**
 * How a trial stands after an activity: what the workflow decides its next step from
 * (case-trial.ts). `recorded`: the trial is stored with this status, nothing is left to do (an
 * earlier attempt may have stored it). `not-recorded`: scored, but the metadata store refused the
 * write (it is down); the workflow stores `record` itself, retrying without limit.
 */
export type TrialEnd = { tag: 'recorded'; status: CaseOutcome } | { tag: 'not-recorded'; record: CaseRecord };

/**
 * What an agent call left (callCaseAgent), each tag a next step of the workflow's:
 * - `asks-approval`: the first call's answer asks a person's approval of a tool (in `call.reply.approval`);
 * - `to-score`: an answer to score with scoreTrial, after calling each of `judges` (the case's LLM judges);
 * - a TrialEnd: every scorer of the case is a rule, so the answer was scored with them right there
 *   (no workflow hop for it), and recorded or not; or the trial was recorded by an earlier attempt;
 * - `conversation`: the case is a conversation; no call was made: the trial goes turn by turn
 *   (conversation-trial.ts).
 */
export type AgentTurn = ({ call: AgentCall } & ({ tag: 'asks-approval' } | { tag: 'to-score'; judges: string[] } | TrialEnd)) | { tag: 'conversation' };

/** One turn of a conversation trial (1-based `turn`). */
export interface TurnRef extends TrialRef {
  turn: number;
}

/** The user's side of turn n: a message to send, or the conversation ended (or cannot go on: `stopped`, with why). */
export type UserTurnStep = { tag: 'say'; message: string } | { tag: 'end'; ended: ConversationEnd } | { tag: 'stopped'; reason: string };

/**
 * An agent call of a conversation turn: `answered`, `asks-approval` (the turn's first call), or
 * `recorded`: the turn was recorded by an earlier attempt (the agent is not called again);
 * `calls` is then the trial's agent calls through that turn, `error` set when the turn failed.
 */
export type TurnCall = { tag: 'answered' | 'asks-approval'; call: AgentCall } | { tag: 'recorded'; calls: number; error: string | null };

/** A turn's calls made, to score and record (or record as failed, with `error`). */
export interface TurnDone extends TurnRef {
  message: string;
  calls: AgentCall[];
  approval?: CaseRun['approval'];
  error?: string;
}

/** What scoreTrial did: a TrialEnd, or `to-judge`: these LLM judges of the case have no verdict yet. */
export type ScoredTrial = TrialEnd | { tag: 'to-judge'; judges: string[] };

export interface EvalActivities {
  /**
   * Agent execution: the case's agent call (`call` 1 is the call after an approval), and what the
   * workflow does next (AgentTurn). Only I/O and facts: the workflow decides.
   */
  callCaseAgent(input: CaseRun & { call: number; grant?: ApprovalDecision }): Promise<AgentTurn>;
  /**
   * Score trace: every scorer of the case on the agent's last answer, the LLM judges' verdicts
   * given in `judged` (it judges none itself), then the trial recorded with its scores.
   */
  scoreTrial(run: CaseRun & { judged?: Record<string, ScoreDetail> }): Promise<ScoredTrial>;
  /*
   * executeAgent and scoreCase are the steps of trials started before the workflow made a trial's
   * decisions (patch 'trial-decisions-in-workflow'): kept, same names and shapes, so such trials
   * finish on the path they started on (workflows/case-trial-v1.ts).
   */
  /**
   * Agent execution: the case's agent call (`call` 1 is the call after an approval). When the
   * answer needs no approval and every scorer of the case is a rule, it also scores and records
   * the trial as scoreCase would (rules are quick and local: one workflow hop less per case) and
   * returns the outcome; otherwise, or if that fails, the workflow goes on to scoreCase, after
   * calling the case's LLM judges named in `judges`.
   */
  executeAgent(input: CaseRun & { call: number; grant?: ApprovalDecision }): Promise<{ call: AgentCall; outcome?: CaseOutcome; judges?: string[] }>;
  /**
   * Score trace (trials started before the patch): as scoreTrial, judging a judge with no verdict
   * in place; a trial it could not store fails it with TRIAL_NOT_RECORDED and the record.
   */
  scoreCase(run: CaseRun & { judged?: Record<string, ScoreDetail> }): Promise<CaseOutcome>;
  /**
   * LLM call: one LLM judge of the case (`scorer`, as the case names it) on the agent's last
   * answer, within the run's judge budget, every call recorded for the trace. Its verdict goes
   * to scoreTrial (scoreCase) with the others.
   */
  callJudge(input: CaseRun & { scorer: string }): Promise<ScoreDetail>;
  /** Conversation: the user's message of a turn (the script's, or the simulated user's), or why the conversation ended. */
  conversationUserTurn(input: TurnRef): Promise<UserTurnStep>;
  /** Conversation: the agent called for a turn (`call`: the trial's call number), with the history so far. */
  callTurnAgent(input: TurnRef & { call: number; message: string; grant?: ApprovalDecision }): Promise<TurnCall>;
  /** Conversation: a turn's answer scored with its scorers and recorded (once). */
  finishTurn(input: TurnDone): Promise<void>;
  /** Conversation: the conversation-level scorers on the whole conversation, then the trial recorded (once) from its turns. */
  finishConversation(input: TrialRef & { startedAt: number; ended: ConversationEnd | null; error?: string; cancelled: boolean }): Promise<CaseOutcome>;
  /** Emit span: the traces and scores of recorded case trials, in one batch, into the trace store. */
  emitCaseTraces(batch: { runId: string; trials: Array<{ caseIndex: number; trial: number }> }): Promise<void>;
  /** Those traces could not be written: their results stop naming them. */
  unlinkCaseTraces(batch: { runId: string; trials: Array<{ caseIndex: number; trial: number }> }): Promise<void>;
  /** A trial recorded as it is (failed, cancelled, or scored and `not-recorded`). */
  recordCaseResult(record: CaseRecord): Promise<void>;
  markRun(runId: string, status: 'running' | 'paused'): Promise<void>;
  cancelPendingCases(runId: string, caseIndex?: number): Promise<void>;
  finishRun(runId: string, status: 'completed' | 'cancelled' | 'failed', error?: string): Promise<void>;
}
