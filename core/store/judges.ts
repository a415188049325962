import type { JudgeGeneration } from '../judges/judge.js';

/*
 * LLM judges' calls and runs' judge spend (PostgreSQL, migration 010; store/postgres/judge-store.ts
 * implements it; docs/judges.md).
 *
 * Promises:
 * - `record` stores the call and adds it to its run's spend in one transaction: the spend is
 *   always the sum of the recorded calls. It resolves once committed.
 * - Not idempotent: every call recorded is a new row (a judge retried is a second call, and
 *   costs as one); a record retried after a lost answer counts twice.
 * - Reads see every committed call of any process; what they return is the caller's own copy.
 */

/** One judge call to record: what it was for, and its cost when the price table knows it. */
export interface NewJudgeCall {
  projectId: string;
  /** The run and case trial it judged; absent for judges outside a run. */
  run?: { runId: string; caseIndex: number; trial: number };
  traceId?: string;
  generation: JudgeGeneration;
  /** Null until the price table prices the model (issue 12's cost part). */
  cost?: { cost_usd: number; price_version: string } | null;
}

/** A stored judge call, as a case's trace shows it. */
export interface StoredJudgeCall {
  id: string;
  case_index: number;
  trial: number;
  scorer: string;
  provider: string;
  model: string;
  attempt: number;
  status: JudgeGeneration['status'];
  error: string | null;
  input: unknown;
  output: unknown;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  cost_usd: number | null;
  price_version: string | null;
  started_ms: number;
  ended_ms: number;
}

/** What a run's judges have spent so far. */
export interface JudgeUsage {
  calls: number;
  input_tokens: number;
  output_tokens: number;
  /** input + output. */
  tokens: number;
  /** Of the calls the price table priced. */
  cost_usd: number;
}

/** LLM judges' calls and each run's judge spend (PostgreSQL). */
export interface JudgeStore {
  /** Stores the call and adds its tokens and cost to its run's spend, in one transaction. */
  record(call: NewJudgeCall): Promise<void>;
  runUsage(runId: string): Promise<JudgeUsage>;
  /** The calls made while judging these case trials, oldest first. */
  callsForTrials(runId: string, trials: Array<{ caseIndex: number; trial: number }>): Promise<StoredJudgeCall[]>;
}
