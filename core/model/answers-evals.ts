import { z } from 'zod';
import { object, offsetList, offsetPageFields, Time, timestamps } from './answer-fields.js';
import { RUN_STATUSES } from './run-status.js';
import { CASE_STATUSES, RUN_EXECUTIONS } from './eval-run.js';
import { PROMPT_TYPES } from './prompt.js';
import { AGGREGATIONS } from './eval-case.js';
import { SCORER_DATA_TYPES } from './custom-scorer.js';

/**
 * What the agents, suites, runs and prompts endpoints answer, as zod schemas: see
 * core/model/answers.ts (the traces, spans, sessions and scores ones, and how they are used).
 */

// ---- Agents (core/model/agent.ts) ----

/** Agent (its header values are never shown, only their names). */
export const AgentSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    endpoint: z.string(),
    description: z.string().nullable(),
    header_names: z.array(z.string()),
    ...timestamps,
  })
  .meta({ id: 'Agent' });

/** AgentList. */
export const AgentListSchema = offsetList('agents', AgentSchema);

// ---- Suites (core/model/suite.ts) ----

/** SuiteSummary. */
export const SuiteSummarySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    version: z.number().int(),
    case_count: z.number().int(),
    agent_id: z.string().nullable(),
    ...timestamps,
  })
  .meta({ id: 'SuiteSummary' });

/** SuiteList. */
export const SuiteListSchema = offsetList('suites', SuiteSummarySchema);

/** SuiteVersion: GET /api/suites/{id}. */
export const SuiteVersionSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    version: z.number().int(),
    latest_version: z.number().int(),
    definition: object('The suite definition (docs/suites.md): name, cases, scorers, thresholds'),
    ...timestamps,
    version_created_at: Time,
  })
  .meta({ id: 'SuiteVersion' });

/** GET /api/suites/{id}/versions. */
export const SuiteVersionsSchema = z.object({
  id: z.string(),
  versions: z.array(z.object({ version: z.number().int(), created_at: Time, case_count: z.number().int() })),
});

// ---- Datasets from production (core/model/dataset.ts) ----

const storedCase = object('A case as the suite version stores it (docs/suites.md)');

/** CasesAdded: POST /api/suites/{id}/cases/from-traces. */
export const CasesAddedSchema = z.object({ suite: SuiteSummarySchema.nullable(), cases: z.array(storedCase), truncated: z.boolean() });

/** CasesImported: POST /api/suites/{id}/cases/import. */
export const CasesImportedSchema = z.object({
  suite: SuiteSummarySchema.nullable(),
  cases: z.array(storedCase),
  errors: z.array(z.object({ row: z.number().int(), line: z.number().int(), field: z.string(), message: z.string() })),
});

// ---- Custom scorers (core/model/custom-scorer.ts) ----

/** CustomScorer (its header values are never shown, only their names). */
export const CustomScorerSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    endpoint: z.string(),
    data_type: z.enum(SCORER_DATA_TYPES),
    description: z.string().nullable(),
    header_names: z.array(z.string()),
    ...timestamps,
  })
  .meta({ id: 'CustomScorer' });

/** CustomScorerList. */
export const CustomScorerListSchema = offsetList('scorers', CustomScorerSchema);

// ---- Runs (core/model/eval-run.ts) ----

const Progress = z.object({
  completed: z.number().int().describe('Trials recorded, cancelled ones included'),
  total: z.number().int(),
  cancelled: z.number().int().describe('Of the recorded trials, those cancelled before they ran'),
});

/** RunView. */
export const RunViewSchema = z
  .object({
    id: z.string(),
    run_id: z.string(),
    name: z.string().nullable(),
    suite_name: z.string().nullable(),
    suite_id: z.string().nullable(),
    suite_version: z.number().int().nullable(),
    agent_id: z.string().nullable(),
    agent_name: z.string(),
    agent_version: z.string(),
    execution: z.enum(RUN_EXECUTIONS),
    status: z.enum(RUN_STATUSES),
    config: object("The run's configuration: trials, concurrency, scorers, timeouts (docs/evals.md)"),
    aggregation: z.enum(AGGREGATIONS),
    min_score: z.number(),
    summary: z.object({
      total_cases: z.number().int(),
      passed: z.number().int(),
      failed: z.number().int(),
      cancelled: z.number().int(),
      avg_score: z.number(),
      scores_by_scorer: z.record(z.string(), z.number()),
      duration_ms: z.number(),
    }),
    cost: object("The run's cost: the agent's and the judges' (docs/costs.md)").nullable().optional(),
    progress: Progress,
    error: z.string().nullable(),
    created_at: Time,
    started_at: Time.nullable(),
    completed_at: Time.nullable(),
  })
  .meta({ id: 'Run' });

/** RunList. */
export const RunListSchema = offsetList('runs', RunViewSchema);

/** RunStatusView: GET /api/runs/{id}/status. */
export const RunStatusSchema = RunViewSchema.pick({
  run_id: true,
  id: true,
  status: true,
  progress: true,
  summary: true,
  created_at: true,
  started_at: true,
  completed_at: true,
  error: true,
}).meta({ id: 'RunStatus' });

/** CaseResultView: a case of GET /api/runs/{id}/results. */
export const CaseResultSchema = z
  .object({
    case_index: z.number().int(),
    case_name: z.string(),
    status: z.enum([...CASE_STATUSES, 'pending']),
    scores: z.record(z.string(), z.number()),
    avg_score: z.number(),
    passed: z.boolean(),
    duration_ms: z.number(),
    details: z.record(z.string(), object("A scorer's detail: score, passed, reason")),
    error: z.string().optional(),
    trace_id: z.string().nullable(),
    output: z.unknown(),
    trials: z.array(object('One trial of the case: its scores, output, turns (docs/evals.md)')),
    running: z.array(z.object({ trial: z.number().int(), turns: z.array(object('A turn of a conversation trial')) })).optional(),
    cost: z.object({ total_usd: z.number(), judges_usd: z.number(), unpriced_llm_calls: z.number().int() }).nullable().optional(),
    input: z.unknown().optional().describe("The case's input as the suite gave it (null for a conversation: its turns are the input). Results endpoints only"),
    expected: z.unknown().optional().describe("The case's expected output, when it has one. Results endpoints only"),
  })
  .meta({ id: 'CaseResult' });

/** GET /api/runs/{id}/results. */
export const CaseResultListSchema = z.object({ results: z.array(CaseResultSchema) });

const ScoreChangeSchema = z.object({ case_name: z.string(), scorer: z.string(), baseline_score: z.number(), candidate_score: z.number(), delta: z.number() });
const CaseSideSchema = z.object({
  case_index: z.number().int().nullable(),
  trace_id: z.string().nullable(),
  duration_ms: z.number().nullable(),
  cost_usd: z.number().nullable(),
});
const CaseSideDetailSchema = z.object({
  input: z.unknown(),
  expected: z.unknown(),
  output: z.unknown(),
  error: z.string().nullable(),
  details: z.record(z.string(), z.unknown()).describe("Per scorer: score, passed, reason, evidence (as in the run's results)"),
});

/** RunComparison: POST /api/compare and /api/evals/compare (core/evals/compare.ts). */
export const RunComparisonSchema = z
  .object({
    baseline: z.object({ run_id: z.string(), agent_version: z.string() }),
    candidate: z.object({ run_id: z.string(), agent_version: z.string() }),
    passed: z.boolean(),
    overall_delta: z.number(),
    regressions: z.array(ScoreChangeSchema),
    improvements: z.array(ScoreChangeSchema),
    unchanged_count: z.number().int(),
    threshold: z.number(),
    significance: object('method, n, n_changed, p_value, alpha, significant, mean_delta, ci95, conclusive, note (docs/scorers.md, "Comparing runs")'),
    cases: z.array(
      z.object({
        case_name: z.string(),
        baseline_score: z.number(),
        candidate_score: z.number(),
        delta: z.number(),
        baseline_status: z.string(),
        candidate_status: z.string(),
        conversation: object('A conversation case compared turn by turn').optional(),
        change: z.enum(['regressed', 'improved', 'mixed', 'unchanged']),
        baseline_case: CaseSideSchema,
        candidate_case: CaseSideSchema,
        duration_delta_ms: z.number().nullable(),
        cost_delta_usd: z.number().nullable(),
        baseline_detail: CaseSideDetailSchema.optional(),
        candidate_detail: CaseSideDetailSchema.optional(),
      }),
    ),
    only_in_baseline: z.array(z.string()),
    only_in_candidate: z.array(z.string()),
    same_suite_version: z.boolean().nullable(),
    case_counts: z.object({
      compared: z.number().int(),
      regressed: z.number().int(),
      improved: z.number().int(),
      mixed: z.number().int(),
      unchanged: z.number().int(),
    }),
    totals: z.object({
      baseline_mean_duration_ms: z.number().nullable(),
      candidate_mean_duration_ms: z.number().nullable(),
      mean_duration_delta_ms: z.number().nullable(),
      baseline_cost_usd: z.number().nullable(),
      candidate_cost_usd: z.number().nullable(),
      cost_delta_usd: z.number().nullable(),
      priced_cases: z.number().int(),
    }),
  })
  .meta({ id: 'RunComparison' });

/** LocalResultsAnswer: POST /api/runs/{id}/results. */
export const LocalResultsAnswerSchema = z.object({ run_id: z.string(), accepted: z.number().int(), progress: Progress });

// ---- Prompts (core/model/prompt.ts) ----

const ChatMessages = z.array(object('A chat message: role and content')).nullable();

/** PromptVersion. */
export const PromptVersionSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.enum(PROMPT_TYPES),
    version: z.number().int(),
    latest_version: z.number().int(),
    labels: z.array(z.string()),
    template: z.string().nullable(),
    messages: ChatMessages,
    config: z.record(z.string(), z.unknown()).nullable(),
    description: z.string().nullable(),
    commit_message: z.string().nullable(),
    variables: z.array(z.string()),
    ...timestamps,
    version_created_at: Time,
  })
  .meta({ id: 'PromptVersion' });

/** PromptList. */
export const PromptListSchema = z.object({
  prompts: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      type: z.enum(PROMPT_TYPES),
      description: z.string().nullable(),
      latest_version: z.number().int(),
      labels: z.record(z.string(), z.number().int()),
      ...timestamps,
    }),
  ),
  ...offsetPageFields,
});

/** PromptVersionList. */
export const PromptVersionListSchema = z.object({
  id: z.string(),
  name: z.string(),
  versions: z.array(z.object({ version: z.number().int(), labels: z.array(z.string()), commit_message: z.string().nullable(), created_at: Time })),
  ...offsetPageFields,
});

/** PromptLabels. */
export const PromptLabelsSchema = z.object({
  id: z.string(),
  name: z.string(),
  latest_version: z.number().int(),
  labels: z.record(z.string(), z.number().int()),
});

/** POST /api/prompts/{id}/render: the version and the RenderedPrompt. */
export const RenderedPromptSchema = z.object({
  id: z.string(),
  name: z.string(),
  version: z.number().int(),
  type: z.enum(PROMPT_TYPES),
  text: z.string().nullable(),
  messages: ChatMessages,
  used: z.array(z.string()),
  missing: z.array(z.string()),
  unused: z.array(z.string()),
});

/** GET /api/prompts/{id}/traces. */
export const PromptTracesSchema = z.object({
  id: z.string(),
  name: z.string(),
  version: z.number().int().nullable(),
  traces: z.array(z.object({ trace_id: z.string(), start_time: Time, versions: z.array(z.number().int()), span_count: z.number().int() })),
  ...offsetPageFields,
});

/** POST /api/runs/{id}/control. */
export const RunControlAnswerSchema = z.object({
  run_id: z.string(),
  action: z.enum(['pause', 'resume', 'cancel']),
  status: z.enum(RUN_STATUSES),
  accepted: z.boolean(),
});

/** POST /api/runs/{id}/cases/{index}/cancel. */
export const CaseCancelAnswerSchema = z.object({ run_id: z.string(), case_index: z.number().int(), action: z.literal('cancel'), accepted: z.boolean() });

/** POST /api/runs/{id}/cases/{index}/approval. */
export const ApprovalAnswerSchema = z.object({
  run_id: z.string(),
  case_index: z.number().int(),
  trial: z.number().int(),
  approved: z.boolean(),
  accepted: z.boolean(),
});

/** GET /api/runs/{id}/approvals: tool calls waiting for a person. */
export const ApprovalListSchema = z.object({
  run_id: z.string(),
  approvals: z.array(z.object({ case_index: z.number().int(), trial: z.number().int(), tool: z.string(), reason: z.string().nullable(), since: z.number() })),
});
