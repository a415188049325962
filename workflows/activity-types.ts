import type { AgentReply } from '../core/model/agent-reply.js';
import type { ScoreDetail } from '../core/model/eval-case.js';
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
}

export interface EvalActivities {
  /**
   * Agent execution: the case's agent call (`call` 1 is the call after an approval). When the
   * answer needs no approval and every scorer of the case is a rule, it also scores and records
   * the trial as scoreCase would (rules are quick and local: one workflow hop less per case) and
   * returns the outcome; otherwise, or if that fails, the workflow goes on to scoreCase, after
   * calling the case's LLM judges named in `judges`.
   */
  executeAgent(input: CaseRun & { call: number; grant?: ApprovalDecision }): Promise<{ call: AgentCall; outcome?: CaseOutcome; judges?: string[] }>;
  /**
   * LLM call: one LLM judge of the case (`scorer`, as the case names it) on the agent's last
   * answer, within the run's judge budget, every call recorded for the trace. Its verdict goes
   * to scoreCase with the others.
   */
  callJudge(input: CaseRun & { scorer: string }): Promise<ScoreDetail>;
  /**
   * Score trace: every scorer of the case on the agent's last answer (the judges' verdicts come
   * in `judged`), then the trial recorded with its scores (one step, so a case costs one
   * workflow hop less).
   */
  scoreCase(run: CaseRun & { judged?: Record<string, ScoreDetail> }): Promise<CaseOutcome>;
  /** Emit span: the traces and scores of recorded case trials, in one batch, into the trace store. */
  emitCaseTraces(batch: { runId: string; trials: Array<{ caseIndex: number; trial: number }> }): Promise<void>;
  /** Those traces could not be written: their results stop naming them. */
  unlinkCaseTraces(batch: { runId: string; trials: Array<{ caseIndex: number; trial: number }> }): Promise<void>;
  /** A trial recorded as it is (failed, cancelled, or scored by scoreCase but not yet recorded). */
  recordCaseResult(record: CaseRecord): Promise<void>;
  markRun(runId: string, status: 'running' | 'paused'): Promise<void>;
  cancelPendingCases(runId: string, caseIndex?: number): Promise<void>;
  finishRun(runId: string, status: 'completed' | 'cancelled' | 'failed', error?: string): Promise<void>;
}
