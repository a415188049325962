import { z } from 'zod';
import { AGGREGATIONS, EvalCaseSchema, ScorerRefListSchema, type Aggregation, type ScoreDetail, type ScorerRef, type TokenUsage, type ToolCall } from './eval-case.js';

/** SPEC States: every status a run can have (docs/evals.md draws the transitions). */
export const RUN_STATUSES = ['pending', 'running', 'paused', 'completed', 'cancelled', 'failed'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
/** A run in one of these never changes again. */
export const FINAL_RUN_STATUSES: ReadonlySet<RunStatus> = new Set(['completed', 'cancelled', 'failed']);

export const CASE_STATUSES = ['passed', 'failed', 'cancelled'] as const;
export type CaseStatus = (typeof CASE_STATUSES)[number];

/** Most cases one run may hold (times repetitions: case executions). */
export const MAX_RUN_CASES = 10_000;
export const MAX_REPETITIONS = 100;

/** A run's `config`; the same for both API families. */
const RunConfigShape = z.object({
  /** Cases run at once (bounded by `concurrency`) when true, one by one when false. */
  parallel: z.boolean().default(false),
  /** Time-out of one agent call, in ms (the SPEC's sample: 300000). */
  timeout_ms: z.number().int().min(1).max(300_000).default(300_000),
  concurrency: z.number().int().min(1).max(1000).optional(),
  repetitions: z.number().int().min(1).max(MAX_REPETITIONS).default(1),
});
export const RunConfigSchema = RunConfigShape.prefault({});
export type RunConfig = z.output<typeof RunConfigSchema>;

const Text = z.string().min(1).max(512);

/** POST /api/evals/runs (first family): a stored suite by name. */
export const CreateEvalRunSchema = z.object({
  suite_name: Text,
  agent_version: Text,
  /** The agent's id or name; else the suite's agent. */
  agent_id: Text.optional(),
  /** A suite version; the latest when absent. */
  suite_version: z.number().int().min(1).optional(),
  config: RunConfigSchema,
});
export type CreateEvalRun = z.output<typeof CreateEvalRunSchema>;

/** POST /api/runs (second family): an inline dataset and scorers. */
export const CreateRunSchema = z.object({
  agentId: Text,
  agentVersion: Text.default('unversioned'),
  name: z.string().max(512).optional(),
  dataset: z.object({
    items: z
      .array(EvalCaseSchema.extend({ name: z.string().min(1).max(512).optional() }))
      .min(1)
      .max(MAX_RUN_CASES),
  }),
  scorers: ScorerRefListSchema.min(1),
  config: RunConfigShape.extend({
    minScore: z.number().min(0).max(1).default(0.7),
    aggregation: z.enum(AGGREGATIONS).default('mean'),
  }).prefault({}),
});
export type CreateRun = z.output<typeof CreateRunSchema>;

/** POST /api/runs/{id}/control. */
export const CONTROL_ACTIONS = ['pause', 'resume', 'cancel'] as const;
export type ControlAction = (typeof CONTROL_ACTIONS)[number];

/** A case of a run as stored when the run is created (its scorers already resolved). */
export interface RunCase {
  case_index: number;
  name: string;
  input: unknown;
  expected: Record<string, unknown>;
  scorers: ScorerRef[];
  min_score: number | null;
  weight: number;
}

/** Everything a new run is created with, whichever family asked. */
export interface NewRun {
  projectId: string;
  name?: string;
  suite?: { id: string; version: number; name: string };
  agent: { id: string; name: string };
  agentVersion: string;
  config: RunConfig;
  aggregation: Aggregation;
  minScore: number;
  cases: Array<Omit<RunCase, 'case_index'>>;
}

export interface RunSummary {
  total_cases: number;
  passed: number;
  failed: number;
  cancelled: number;
  avg_score: number;
  scores_by_scorer: Record<string, number>;
  duration_ms: number;
}

/** One run as both families show it (`run_id` and `id` are the same). */
export interface RunView {
  id: string;
  run_id: string;
  name: string | null;
  suite_name: string | null;
  suite_id: string | null;
  suite_version: number | null;
  agent_id: string;
  agent_name: string;
  agent_version: string;
  status: RunStatus;
  config: RunConfig;
  aggregation: Aggregation;
  min_score: number;
  summary: RunSummary;
  progress: { completed: number; total: number };
  error: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
}

/** What one trial of a case produced (stored once per run, case and trial). */
export interface TrialRecord {
  status: CaseStatus;
  details: Record<string, ScoreDetail>;
  avg_score: number;
  passed: boolean;
  duration_ms: number;
  latency_ms: number | null;
  output: unknown;
  tool_calls: ToolCall[] | null;
  usage: TokenUsage | null;
  approval: unknown;
  error: string | null;
  trace_id: string | null;
}

/** SPEC "Eval case result", with every trial when the run repeats cases. */
export interface CaseResultView {
  case_index: number;
  case_name: string;
  status: CaseStatus | 'pending';
  scores: Record<string, number>;
  avg_score: number;
  passed: boolean;
  duration_ms: number;
  details: Record<string, ScoreDetail>;
  error?: string;
  trace_id: string | null;
  output: unknown;
  trials: Array<TrialRecord & { trial: number }>;
}
