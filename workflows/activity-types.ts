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

export interface ScoredCase {
  details: Record<string, ScoreDetail>;
  avgScore: number;
  passed: boolean;
}

export interface CaseRecord extends TrialRef {
  startedAt: number;
  endedAt: number;
  calls: AgentCall[];
  details: Record<string, ScoreDetail>;
  avgScore: number;
  passed: boolean;
  status: CaseOutcome;
  error?: string;
  approval?: { tool: string; approved: boolean; comment?: string; by?: string };
}

export interface EvalActivities {
  /** Agent execution: the case's agent call (`call` 1 is the call after an approval). */
  executeAgent(ref: TrialRef & { call: number; approval?: ApprovalDecision }): Promise<AgentCall>;
  /** Score trace: every scorer of the case on the agent's answer. */
  scoreCase(ref: TrialRef & { reply: AgentReply; latencyMs: number }): Promise<ScoredCase>;
  /** Emit span: the traces and scores of recorded case trials, in one batch, into the trace store. */
  emitCaseTraces(batch: { runId: string; trials: Array<{ caseIndex: number; trial: number }> }): Promise<void>;
  /** Those traces could not be written: their results stop naming them. */
  unlinkCaseTraces(batch: { runId: string; trials: Array<{ caseIndex: number; trial: number }> }): Promise<void>;
  recordCaseResult(record: CaseRecord): Promise<void>;
  markRun(runId: string, status: 'running' | 'paused'): Promise<void>;
  cancelPendingCases(runId: string, caseIndex?: number): Promise<void>;
  finishRun(runId: string, status: 'completed' | 'cancelled' | 'failed', error?: string): Promise<void>;
}
