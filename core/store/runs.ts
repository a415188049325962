import type { CaseResultView, NewRun, RunCase, RunStatus, RunView, TrialRecord, TurnResult } from '../model/eval-run.js';

/*
 * Evaluation runs, their cases and their trials' results, a conversation trial's turn by turn
 * (PostgreSQL, migrations 003, 004, 009, 017;
 * store/postgres/run-store.ts implements it; docs/evals.md).
 *
 * Promises:
 * - Durability: `create` stores the run and all its cases in one transaction, resolved once
 *   committed; every other write resolves once committed too.
 * - Idempotency: a trial is recorded once per (run, case, trial): `recordTrial` and
 *   `cancelPending` retried after a lost answer change nothing, and the first record stays (a
 *   retried activity never overwrites a result). `setStatus` and `finish` never move a final run
 *   (completed, cancelled, failed). `create` is not idempotent (every call is a new run; the
 *   API's Idempotency-Key covers retries).
 * - Isolation: the API's reads (`get`, `list`, `results`) name a project and see only its runs;
 *   the worker's calls take the run id the workflow was started with.
 * - A run's summary is computed from its stored results, the same way while it runs and when it
 *   ends (core/evals/case-results.ts); `finish` stores it once.
 * - What a caller gets is its own copy, read fresh from PostgreSQL (no cache): every read sees
 *   every committed write of any process.
 */

export interface RunListQuery {
  limit: number;
  offset: number;
  status?: RunStatus;
  suite_name?: string;
  /** The suite's id (runs keep it when the suite is renamed). */
  suite_id?: string;
  agent_id?: string;
  agent_version?: string;
}

/** What the worker needs of a run to execute one of its cases (managed runs only: they always name an agent). */
export type RunForWorker = Pick<RunView, 'id' | 'agent_name' | 'agent_version' | 'status' | 'config' | 'aggregation' | 'min_score'> & {
  project_id: string;
  agent_id: string;
};

/** What a trial's trace needs beyond its result: when it ran and its agent calls. */
export interface TrialTraceData {
  started_ms: number;
  ended_ms: number;
  calls: unknown[];
}

export interface StoredTrialTrace extends TrialTraceData {
  case_index: number;
  trial: number;
  case_name: string;
  input: unknown;
  status: TrialRecord['status'];
  details: TrialRecord['details'];
  avg_score: number;
  error: string | null;
}

/** A recorded turn with what the worker needs of it beyond its result: its agent calls and times. */
export interface StoredTurn extends TurnResult, TrialTraceData {}

/** Evaluation runs, their cases and results (PostgreSQL). Every API read filters by project. */
export interface RunStore {
  create(run: NewRun): Promise<string>;
  /** Removes a run whose workflow could not be started (nothing ran). */
  discard(runId: string): Promise<void>;
  get(projectId: string, runId: string): Promise<RunView | null>;
  list(projectId: string, query: RunListQuery): Promise<{ runs: RunView[]; total: number }>;
  results(projectId: string, runId: string): Promise<CaseResultView[] | null>;
  /** The run as a workflow activity reads it (no project filter: run ids come from the workflow). */
  forWorker(runId: string): Promise<RunForWorker | null>;
  getCase(runId: string, caseIndex: number): Promise<RunCase | null>;
  /** Several cases of a run at once, in case order (the cases a local run's upload names). */
  casesOf(runId: string, caseIndexes: number[]): Promise<RunCase[]>;
  /** A trial's stored outcome and agent calls, if it is recorded already. */
  recordedTrial(runId: string, caseIndex: number, trial: number): Promise<{ status: 'passed' | 'failed' | 'cancelled'; calls: unknown[] } | null>;
  /** Moves a run to `status` unless it is already final; true when it moved. */
  setStatus(runId: string, status: 'running' | 'paused'): Promise<boolean>;
  /** Records a trial once (with what its trace is built from): a retried call after a lost acknowledgement changes nothing. */
  recordTrial(runId: string, caseIndex: number, trial: number, record: TrialRecord, trace: TrialTraceData): Promise<void>;
  /** The stored trials' trace data, with their case's name and input, for writing their traces. */
  trialsForTrace(runId: string, trials: Array<{ caseIndex: number; trial: number }>): Promise<StoredTrialTrace[]>;
  /** Records one turn of a conversation trial once: a retried call after a lost acknowledgement changes nothing. */
  recordTurn(runId: string, caseIndex: number, trial: number, turn: TurnResult, trace: TrialTraceData): Promise<void>;
  /** A conversation trial's recorded turns, in order. */
  turnsOf(runId: string, caseIndex: number, trial: number): Promise<StoredTurn[]>;
  /** These trials' traces could not be written: their results stop naming them. */
  unlinkTraces(runId: string, trials: Array<{ caseIndex: number; trial: number }>): Promise<void>;
  /** Records `cancelled` for every trial without a result (optionally one case only). */
  cancelPending(runId: string, caseIndex?: number): Promise<number>;
  /** Final status with the summary computed from the stored results; a final run is left alone. */
  finish(runId: string, status: 'completed' | 'cancelled' | 'failed', error?: string): Promise<void>;
}
