import { z } from 'zod';
import { idString } from './ids.js';
import type { RunCost, TraceCost } from './cost.js';
import { CaseFields, oneShape } from './case-schema.js';
import type { ConversationEnd, ScriptedTurn, Simulation } from './conversation.js';
import { AGGREGATIONS, ScorerRefListSchema, type Aggregation, type ScoreDetail, type ScorerRef, type TokenUsage, type ToolCall } from './eval-case.js';
import type { RunStatus } from './run-status.js';
import { LocalConversationFields, UploadedDetailsSchema, UploadedToolCallsSchema, UploadedUsageSchema } from './local-results.js';

export { RUN_STATUSES, FINAL_RUN_STATUSES, isFinalRunStatus, type RunStatus } from './run-status.js';

export const CASE_STATUSES = ['passed', 'failed', 'cancelled'] as const;
export type CaseStatus = (typeof CASE_STATUSES)[number];

/** Most cases one run may hold (times repetitions: case executions). */
export const MAX_RUN_CASES = 10_000;
export const MAX_REPETITIONS = 100;

/** Defaults of a run's `trace_settle` (docs/evals.md, "What scorers see of the trace"). */
export const DEFAULT_TRACE_QUIET_MS = 2000;
export const DEFAULT_TRACE_SETTLE_MAX_MS = 15_000;

/**
 * How long scoring waits for a case's trace to settle before scorers that read it run: until no
 * span of the trace was stored for `quiet_ms`, at most `max_ms` after the agent answered. Either
 * at 0: no wait (the trace is read as it stands).
 */
export const TraceSettleSchema = z.strictObject({
  quiet_ms: z.number().int().min(0).max(60_000).default(DEFAULT_TRACE_QUIET_MS),
  max_ms: z.number().int().min(0).max(300_000).default(DEFAULT_TRACE_SETTLE_MAX_MS),
});
export type TraceSettle = z.output<typeof TraceSettleSchema>;

/** A run's `config`; the same for both API families. */
const RunConfigShape = z.object({
  /** Cases run at once (bounded by `concurrency`) when true, one by one when false. */
  parallel: z.boolean().default(false),
  /** Time-out of one agent call, in ms (the SPEC's sample: 300000). */
  timeout_ms: z.number().int().min(1).max(300_000).default(300_000),
  concurrency: z.number().int().min(1).max(1000).optional(),
  repetitions: z.number().int().min(1).max(MAX_REPETITIONS).default(1),
  /** Caps what the run's LLM judges may spend (docs/judges.md); none when absent. */
  judge_budget: z
    .strictObject({
      max_tokens: z.number().int().min(1).max(1e12).optional(),
      max_cost_usd: z.number().positive().max(1e9).optional(),
    })
    .optional(),
  /** The settle wait of the case traces' reads (defaults when absent: stored runs keep meaning the same). */
  trace_settle: TraceSettleSchema.optional(),
  /**
   * Deterministic replay (docs/evals.md, "Simulated users"): the id of an earlier run of the
   * project whose recorded user turns the simulated cases reuse instead of asking the LLM.
   */
  replay_from: idString(128).optional(),
});
export const RunConfigSchema = RunConfigShape.prefault({});
export type RunConfig = z.output<typeof RunConfigSchema>;

/** A suite's or agent's name or id, an agent version: ids (core/model/ids.ts). */
const Text = idString(512);

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
      .array(CaseFields.extend({ name: z.string().min(1).max(512).optional() }).superRefine(oneShape))
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

/**
 * A case of a run as stored when the run is created (its scorers already resolved). A
 * conversation case has `turns` (scripted) or `simulation` (a simulated user) and a null `input`;
 * a single-turn case has neither (null, or absent in a case built by a client).
 */
export interface RunCase {
  case_index: number;
  name: string;
  input: unknown;
  expected: Record<string, unknown>;
  scorers: ScorerRef[];
  min_score: number | null;
  weight: number;
  turns?: ScriptedTurn[] | null;
  simulation?: Simulation | null;
}

/** Everything a new run is created with, whichever family asked. */
export interface NewRun {
  projectId: string;
  name?: string;
  suite?: { id: string | null; version: number | null; name: string };
  /** `id` is null for a local run whose agent is not a registered one. */
  agent: { id: string | null; name: string };
  /** `managed` (default): started on the workflow engine; `local`: created `running`, results uploaded by the client. */
  execution?: RunExecution;
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
  /** Null for a local run whose agent is not a registered one. */
  agent_id: string | null;
  agent_name: string;
  agent_version: string;
  /** `managed`: driven by the service's workflows; `local`: executed by a client that uploaded its results. */
  execution: RunExecution;
  status: RunStatus;
  config: RunConfig;
  aggregation: Aggregation;
  min_score: number;
  summary: RunSummary;
  /** USD of the run's case traces, judges included (docs/costs.md); null when the analytical store did not answer. GET run only. */
  cost?: RunCost | null;
  /** Trials recorded of all (cases x repetitions); `cancelled` of the recorded were cancelled, not run (a cancelled run records each trial it did not run). */
  progress: { completed: number; total: number; cancelled: number };
  error: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
}

/**
 * One turn of a conversation trial as recorded when it was answered and scored (docs/evals.md,
 * "Conversations"): stored once per (run, case, trial, turn), shown while the run goes on.
 */
export interface TurnResult {
  /** 1-based. */
  turn: number;
  /** The user's message (a scripted turn's input as text: non-strings as their JSON text). */
  user: string;
  output: unknown;
  tool_calls: ToolCall[] | null;
  usage: TokenUsage | null;
  /** The agent's time on this turn (its calls', an approval's second call included). */
  latency_ms: number | null;
  /** The turn's own scores (its scorers on its answer); empty when the turn has none. */
  details: Record<string, ScoreDetail>;
  /** Null when the turn has no scorers. */
  avg_score: number | null;
  /** The turn's scores meet their minimum and the agent answered. */
  passed: boolean;
  approval: unknown;
  /** The agent call failed (after its retries), or its answer was refused. */
  error: string | null;
  /** The case trial's trace, which holds one agent call span per turn. */
  trace_id: string | null;
}

/** How a conversation trial ended and what its conversation-level scorers found (null for single-turn trials). */
export interface ConversationRecord {
  /** Why the conversation ended; null when it did not end (the trial failed or was cancelled on the way). */
  ended: ConversationEnd | null;
  /** Turns the agent answered. */
  turns_done: number;
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
  /**
   * A conversation trial's turns, in order (absent for single-turn trials). `details` then holds
   * the case-level scores: the conversation-level scorers' and the last answer's (docs/evals.md,
   * "Conversations").
   */
  turns?: TurnResult[];
  conversation?: ConversationRecord | null;
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
  /** A conversation case's trials under way: the turns recorded so far (absent when none is). */
  running?: Array<{ trial: number; turns: TurnResult[] }>;
  /** USD of the case's trial traces (docs/costs.md); null when the analytical store did not answer. Results endpoints only. */
  cost?: TraceCost | null;
  /** The case's input and expected output as the suite gave them (null for a conversation's input). Results endpoints only. */
  input?: unknown;
  expected?: unknown;
}

/**
 * Who executes a run: `managed` runs are driven by the service's workflows (the agent is an HTTP
 * endpoint it calls); `local` runs are executed by a client (the SDK's `evaluate()`, the CLI's
 * `--local`), which uploads each case's result; no workflow drives them (docs/evals.md, "Runs
 * executed outside the service").
 */
export const RUN_EXECUTIONS = ['managed', 'local'] as const;
export type RunExecution = (typeof RUN_EXECUTIONS)[number];

/**
 * POST /api/runs with `execution: "local"`: the run, its cases and their scorers, created
 * `running` with no workflow. `agentId` labels the agent that runs in the client: a registered
 * agent's id or name links the run to it, any other text is kept as the agent's name. Scorers
 * are the client's (the registry's or its own custom ones), so only their names are checked.
 */
export const CreateLocalRunSchema = z.object({
  execution: z.literal('local'),
  agentId: Text,
  agentVersion: Text.default('unversioned'),
  name: z.string().max(512).optional(),
  /** The suite the cases come from: its name groups the run with the suite's other runs; `id` and `version` pin a stored version. */
  suite: z
    .object({ name: Text, id: z.uuid().optional(), version: z.number().int().min(1).optional() })
    .refine((s) => (s.id === undefined) === (s.version === undefined), { message: 'give both id and version, or neither', path: ['version'] })
    .optional(),
  dataset: CreateRunSchema.shape.dataset,
  /** Scorers of every item without its own; may be empty when every item lists its own. */
  scorers: ScorerRefListSchema.default([]),
  config: RunConfigShape.extend({
    minScore: z.number().min(0).max(1).default(0.7),
    aggregation: z.enum(AGGREGATIONS).default('mean'),
  }).prefault({}),
});
export type CreateLocalRun = z.output<typeof CreateLocalRunSchema>;

const Hex = (length: number) => z.string().regex(new RegExp(`^[0-9a-f]{${length}}$`), `must be ${length} lower-case hex digits`);

/** One case trial's outcome as a client uploads it; the service judges `passed` from `details`. */
export const LocalResultSchema = z.object({
  case_index: z
    .number()
    .int()
    .min(0)
    .max(MAX_RUN_CASES - 1),
  trial: z
    .number()
    .int()
    .min(0)
    .max(MAX_REPETITIONS - 1)
    .default(0),
  /** Per scorer of the case: `{score, reason, evidence}` (empty when the agent failed; a conversation's end scores). */
  details: UploadedDetailsSchema,
  output: z.unknown().optional(),
  tool_calls: UploadedToolCallsSchema,
  usage: UploadedUsageSchema,
  /** Why the trial failed (the agent threw, timed out...): the case fails whatever its scores. */
  error: z.string().max(65_536).nullish(),
  duration_ms: z.number().min(0).max(86_400_000),
  latency_ms: z.number().min(0).max(86_400_000).nullish(),
  /** The trial's trace (W3C ids) as the client exported it; its scores are written to it. */
  trace_id: Hex(32).nullish(),
  span_id: Hex(16).nullish(),
  /** Epoch ms at which the trial started. */
  started_at: z.number().int().min(0).optional(),
  /** A conversation case's trial: its turns and how it ended (local-results.ts). */
  ...LocalConversationFields,
});
export type LocalResult = z.output<typeof LocalResultSchema>;

/** POST /api/runs/{id}/results: up to 1,000 trials per request, recorded once each. */
export const LocalResultsSchema = z.object({ results: z.array(LocalResultSchema).min(1).max(1000) });

/** POST /api/runs/{id}/complete: how a local run ended. */
export const CompleteLocalRunSchema = z
  .object({ status: z.enum(['completed', 'cancelled', 'failed']).default('completed'), error: z.string().max(4096).optional() })
  .prefault({});
