import type { z } from 'zod';
import type { Agent, AgentList, CreateAgentSchema } from '../core/model/agent.js';
import type { AlertEventList, AlertRule, AlertRuleBody, AlertRuleList } from '../core/model/alert.js';
import type {
  ComponentHealth,
  ComponentHealthQuerySchema,
  CorrelationQuerySchema,
  MetricSeries,
  MetricSeriesQuerySchema,
  ScoreCorrelation,
  ScoreTrends,
  ScoreTrendsQuerySchema,
  ToolAnalytics,
  ToolAnalyticsQuerySchema,
} from '../core/model/analytics.js';
import type { RunComparison } from '../core/evals/compare.js';
import type { RunFailureAnalysis, TraceFailureAnalysis, TraceFailureQuerySchema } from '../core/model/failures.js';
import type {
  CaseResultView,
  CompleteLocalRunSchema,
  ControlAction,
  CreateEvalRunSchema,
  CreateLocalRunSchema,
  CreateRunSchema,
  LocalResultSchema,
  RunStatus,
  RunView,
} from '../core/model/eval-run.js';
import type { IngestTraceSchema, ManySpansSchema, OneSpanSchema } from '../core/model/ingest-body.js';
import type {
  PromptBody,
  PromptLabels,
  PromptList,
  PromptTraceList,
  PromptUpdateBody,
  PromptVersion,
  PromptVersionList,
  RenderedPrompt,
} from '../core/model/prompt.js';
import type { CreateScoreSchema, Score } from '../core/model/score.js';
import type { CreateCustomScorerSchema, CustomScorer, CustomScorerList } from '../core/model/custom-scorer.js';
import type {
  EvaluationStatus,
  OnlineEvaluationList,
  OnlineRule,
  OnlineRuleBody,
  OnlineRuleList,
  OnlineSessionEvaluationList,
} from '../core/model/online-rule.js';
import type { CalibrationList, CalibrationListQuerySchema, JudgeCalibrationAnswer, JudgeCalibrationQuerySchema } from '../core/model/calibration.js';
import type { RecomputeCostsSchema, RecomputeResult } from '../core/model/cost.js';
import type { SuiteList, SuiteSummary, SuiteVersion, SuiteVersionInfo } from '../core/model/suite.js';
import type { SpanView, TraceDetail, TraceList } from '../core/model/trace.js';
import type {
  HealthView,
  LocalResultsAnswer,
  Page,
  Requester,
  RunList,
  RunListParams,
  RunStatusView,
  SessionListParams,
  SuiteInput,
  TraceListParams,
} from './api-types.js';
import type { SessionDetail, SessionList } from '../core/model/trace-session.js';
import type { DataDeletionView } from '../core/model/data-deletion.js';
import type { CostBreakdown, CostBreakdownQuerySchema } from '../core/model/cost-analytics.js';
import { AgentEvalError, ServiceApiError } from './errors.js';
import type { RequestOptions } from './http.js';
import { EndpointCalls, enc } from './endpoint-calls.js';
import {
  adminProjectEndpoints,
  auditEndpoints,
  authEndpoints,
  keyEndpoints,
  memberEndpoints,
  projectEndpoints,
  rateLimitEndpoints,
} from './endpoints-admin.js';
import { feedbackEndpoints, queueEndpoints } from './endpoints-feedback.js';
import { exportEndpoints } from './endpoints-exports.js';
import { datasetEndpoints } from './endpoints-datasets.js';

/**
 * Every endpoint of the service, typed (docs/api.md, evals.md, suites.md, prompts.md,
 * feedback.md, alerts.md, security.md): request bodies are the input types of the zod schemas the
 * API validates them with, answers the model types it builds them from, so the client and the
 * service compile against the same definitions. Browser-safe (types only, every call through its
 * {@link Requester}): `AgentEvalClient` is this over the SDK's transport, the dashboard over its own.
 */
export class AgentEvalApi {
  /** The calls every group is built from (the requester is read when a call is made). */
  private readonly calls = new EndpointCalls(() => this.requester);

  constructor(protected readonly requester: Requester) {}

  /** The project named with every call (undefined: the key's own). */
  get project(): string | undefined {
    return this.requester.project;
  }

  /** Any endpoint, for what the groups below do not cover. */
  request<T>(method: string, path: string, opts?: RequestOptions): Promise<T> {
    return this.calls.request<T>(method, path, opts);
  }

  /**
   * The project of project-scoped admin routes (keys, rate limits): the client's `project`, else
   * the one project the key reaches.
   */
  projectId(explicit?: string): Promise<string> {
    return this.calls.projectId(explicit);
  }

  /** GET /api/health (no credentials needed). */
  health(): Promise<HealthView> {
    return this.calls.get('/api/health');
  }

  readonly traces = {
    /** POST /api/traces/ingest: a trace and its spans in the SPEC's JSON shape. */
    ingest: (body: z.input<typeof IngestTraceSchema>) =>
      this.calls.request<{ trace_id: string; ingested: boolean; spans_accepted: number }>('POST', '/api/traces/ingest', { json: body, idempotent: true }),
    /** GET /api/traces: newest first, with filters and keyset paging (`next_cursor`). */
    list: (params: TraceListParams = {}) => this.calls.get<TraceList>('/api/traces', { ...params }),
    /** GET /api/traces/{id}: the trace and one page of its spans. */
    get: (traceId: string, page: { spans_limit?: number; spans_cursor?: string } = {}) => this.calls.get<TraceDetail>(`/api/traces/${enc(traceId)}`, page),
    /** Every span of a trace, walking its span pages. */
    allSpans: async (traceId: string): Promise<TraceDetail['spans']> => {
      const spans: TraceDetail['spans'] = [];
      let cursor: string | undefined;
      do {
        const page: TraceDetail = await this.traces.get(traceId, { spans_limit: 10_000, spans_cursor: cursor });
        spans.push(...page.spans);
        cursor = page.spans_next_cursor ?? undefined;
      } while (cursor);
      return spans;
    },
    /**
     * DELETE /api/traces/{id} (projects:admin): the trace's spans, summary, scores and everything
     * about it (docs/api.md, "Deleting data"). Resolves null once it is gone (204), or the deletion
     * still under way (202: it completes in the background; GET /api/deletions/{id} follows it).
     */
    delete: async (traceId: string): Promise<DataDeletionView | null> =>
      (await this.calls.request<DataDeletionView | undefined>('DELETE', `/api/traces/${enc(traceId)}`)) ?? null,
  };

  readonly sessions = {
    /** GET /api/sessions: conversations, latest activity first, keyset paging (`next_cursor`). */
    list: (params: SessionListParams = {}) => this.calls.get<SessionList>('/api/sessions', { ...params }),
    /** GET /api/sessions/{id}: the session and its turns, oldest first. */
    get: (sessionId: string) => this.calls.get<SessionDetail>(`/api/sessions/${enc(sessionId)}`),
  };

  readonly spans = {
    /** POST /api/spans: `{trace_id, spans}` or one span with its `trace_id`. */
    create: (body: z.input<typeof ManySpansSchema> | z.input<typeof OneSpanSchema>) =>
      this.calls.request<{ trace_id: string; span_ids: string[]; ingested: boolean }>('POST', '/api/spans', { json: body, idempotent: true }),
    /** GET /api/spans/{id}: the span whole. */
    get: (spanId: string) => this.calls.get<SpanView>(`/api/spans/${enc(spanId)}`),
  };

  readonly scores = {
    /** POST /api/scores; with the score's own `id`, or `idempotencyKey`, sending it again stores it once. */
    create: (body: z.input<typeof CreateScoreSchema>, opts: { idempotencyKey?: string } = {}) =>
      this.calls.create<Score>('/api/scores', body, opts.idempotencyKey, body.id !== undefined),
    /** GET /api/scores?trace_id=: the trace's scores, newest first. */
    list: (traceId: string) => this.calls.get<{ scores: Score[] }>('/api/scores', { trace_id: traceId }),
  };

  readonly agents = {
    create: (body: z.input<typeof CreateAgentSchema>) => this.calls.post<Agent>('/api/agents', body),
    list: (page: Page = {}) => this.calls.get<AgentList>('/api/agents', page),
    /** By id or name. */
    get: (idOrName: string) => this.calls.get<Agent>(`/api/agents/${enc(idOrName)}`),
    update: (idOrName: string, body: z.input<typeof CreateAgentSchema>) => this.calls.put<Agent>(`/api/agents/${enc(idOrName)}`, body),
    delete: (idOrName: string) => this.calls.del(`/api/agents/${enc(idOrName)}`),
  };

  readonly suites = {
    /** POST /api/suites: a definition or YAML text; version 1. */
    create: (suite: SuiteInput) => this.calls.request<SuiteSummary>('POST', '/api/suites', suiteBody(suite)),
    /**
     * Creates the suite, or writes a new version of the live suite with that name: what
     * `agent-eval suites push` does. Resolves with the summary of the version written.
     */
    push: async (suite: SuiteInput): Promise<SuiteSummary> => {
      try {
        return await this.suites.create(suite);
      } catch (err) {
        if (!(err instanceof ServiceApiError && err.status === 409)) throw err;
        const existing = await this.suites.findByName(this.suiteName(suite));
        if (!existing) throw err;
        return this.suites.update(existing.id, suite);
      }
    },
    list: (params: Page & { name?: string } = {}) => this.calls.get<SuiteList>('/api/suites', params),
    /** The live suite with exactly this name, or null. */
    findByName: async (name: string): Promise<SuiteSummary | null> => {
      for (let offset = 0; ; offset += 1000) {
        const page: SuiteList = await this.suites.list({ name, limit: 1000, offset });
        const hit = page.suites.find((s) => s.name === name);
        if (hit) return hit;
        if (offset + page.suites.length >= page.total || page.suites.length === 0) return null;
      }
    },
    get: (id: string, opts: { version?: number } = {}) => this.calls.get<SuiteVersion>(`/api/suites/${enc(id)}`, opts),
    versions: (id: string) => this.calls.get<{ id: string; versions: SuiteVersionInfo[] }>(`/api/suites/${enc(id)}/versions`),
    /** PUT /api/suites/{id}: a whole definition; a new version. */
    update: (id: string, suite: SuiteInput) => this.calls.request<SuiteSummary>('PUT', `/api/suites/${enc(id)}`, suiteBody(suite)),
    delete: (id: string) => this.calls.del(`/api/suites/${enc(id)}`),
    ...datasetEndpoints(this.calls),
  };

  /** Runs: both API families, managed and local execution (docs/evals.md). */
  readonly runs = {
    /** POST /api/runs: an inline dataset run by the service's workflows against a registered agent. */
    create: (body: z.input<typeof CreateRunSchema>, opts: { idempotencyKey?: string } = {}) =>
      this.calls.create<RunView>('/api/runs', body, opts.idempotencyKey),
    /** POST /api/evals/runs: a stored suite by name, run by the service's workflows. */
    createFromSuite: (body: z.input<typeof CreateEvalRunSchema>, opts: { idempotencyKey?: string } = {}) =>
      this.calls.create<RunView>('/api/evals/runs', body, opts.idempotencyKey),
    /** POST /api/runs with `execution: "local"`: a run the caller executes and reports with addResults() and complete(). */
    createLocal: (body: Omit<z.input<typeof CreateLocalRunSchema>, 'execution'>) => this.calls.post<RunView>('/api/runs', { ...body, execution: 'local' }),
    /** POST /api/runs/{id}/results: case trials of a local run, recorded once each by (case_index, trial). */
    addResults: (runId: string, results: Array<z.input<typeof LocalResultSchema>>) =>
      this.calls.request<LocalResultsAnswer>('POST', `/api/runs/${enc(runId)}/results`, { json: { results }, idempotent: true }),
    /** POST /api/runs/{id}/complete: ends a local run (`completed` by default) and stores its summary. */
    complete: (runId: string, body: z.input<typeof CompleteLocalRunSchema> = {}) =>
      this.calls.request<RunView>('POST', `/api/runs/${enc(runId)}/complete`, { json: body, idempotent: true }),
    list: (params: RunListParams = {}) => this.calls.get<RunList>('/api/runs', { ...params }),
    get: (runId: string) => this.calls.get<RunView>(`/api/runs/${enc(runId)}`),
    status: (runId: string) => this.calls.get<RunStatusView>(`/api/runs/${enc(runId)}/status`),
    results: (runId: string, opts: { failedOnly?: boolean } = {}) =>
      this.calls.get<{ results: CaseResultView[] }>(`/api/runs/${enc(runId)}/results`, { failed_only: opts.failedOnly ? 'true' : undefined }),
    control: (runId: string, action: ControlAction) =>
      this.calls.post<{ run_id: string; action: ControlAction; status: RunStatus; accepted: boolean }>(`/api/runs/${enc(runId)}/control`, { action }),
    pause: (runId: string) => this.runs.control(runId, 'pause'),
    resume: (runId: string) => this.runs.control(runId, 'resume'),
    cancel: (runId: string) => this.runs.control(runId, 'cancel'),
    cancelCase: (runId: string, caseIndex: number) =>
      this.calls.post<{ run_id: string; case_index: number; action: 'cancel'; accepted: boolean }>(`/api/runs/${enc(runId)}/cases/${caseIndex}/cancel`),
    approve: (runId: string, caseIndex: number, decision: { approved: boolean; comment?: string; trial?: number }) =>
      this.calls.post<{ run_id: string; case_index: number; trial: number; approved: boolean; accepted: boolean }>(
        `/api/runs/${enc(runId)}/cases/${caseIndex}/approval`,
        decision,
      ),
    approvals: (runId: string) =>
      this.calls.get<{ run_id: string; approvals: Array<{ case_index: number; trial: number; tool: string; reason: string | null; since: number }> }>(
        `/api/runs/${enc(runId)}/approvals`,
      ),
    /** The run's failed cases grouped by signature (docs/api.md, "Failure analysis"); `label` names the largest groups with the judge provider. */
    failures: (runId: string, opts: { label?: boolean } = {}) =>
      this.calls.get<RunFailureAnalysis>(`/api/runs/${enc(runId)}/failures`, { label: opts.label ? 'true' : undefined }),
  };

  /** The SPEC's first family, `/api/evals/...` (the same runs as {@link runs}). */
  readonly evals = {
    createRun: (body: z.input<typeof CreateEvalRunSchema>, opts: { idempotencyKey?: string } = {}) =>
      this.calls.create<RunView>('/api/evals/runs', body, opts.idempotencyKey),
    getRun: (runId: string) => this.calls.get<RunView>(`/api/evals/runs/${enc(runId)}`),
    results: (runId: string, opts: { failedOnly?: boolean } = {}) =>
      this.calls.get<{ results: CaseResultView[] }>(`/api/evals/runs/${enc(runId)}/results`, { failed_only: opts.failedOnly ? 'true' : undefined }),
    compare: (baselineRunId: string, candidateRunId: string, opts: { threshold?: number; alpha?: number } = {}) =>
      this.calls.request<RunComparison>('POST', '/api/evals/compare', {
        json: { baseline_run_id: baselineRunId, candidate_run_id: candidateRunId, ...opts },
        idempotent: true,
      }),
  };

  /**
   * POST /api/compare: per case and scorer, regressions beyond `threshold` (default 0.05) and
   * the significance of the change (paired permutation test at `alpha`, default 0.05).
   */
  compare(baselineRunId: string, candidateRunId: string, opts: { threshold?: number; alpha?: number } = {}): Promise<RunComparison> {
    return this.calls.request<RunComparison>('POST', '/api/compare', {
      json: { baseline_run_id: baselineRunId, candidate_run_id: candidateRunId, ...opts },
      idempotent: true,
    });
  }

  readonly projects = projectEndpoints(this.calls);
  readonly adminProjects = adminProjectEndpoints(this.calls);
  readonly audit = auditEndpoints(this.calls);
  /** Bulk export's jobs (docs/api.md, "Bulk export"); the Node client adds the streamed exports and downloads. */
  readonly exports = exportEndpoints(this.calls);
  readonly keys = keyEndpoints(this.calls);
  readonly members = memberEndpoints(this.calls);
  readonly auth = authEndpoints(this.calls);
  readonly rateLimits = rateLimitEndpoints(this.calls);

  readonly prompts = {
    list: (params: Page & { name?: string; label?: string } = {}) => this.calls.get<PromptList>('/api/prompts', params),
    create: (body: PromptBody) => this.calls.post<PromptVersion>('/api/prompts', body),
    /** By id or name; the newest version, or `version` / `label`. */
    get: (idOrName: string, select: { version?: number; label?: string } = {}) => this.calls.get<PromptVersion>(`/api/prompts/${enc(idOrName)}`, select),
    /** PUT: a new version. */
    update: (idOrName: string, body: PromptUpdateBody) => this.calls.put<PromptVersion>(`/api/prompts/${enc(idOrName)}`, body),
    versions: (idOrName: string, page: Page = {}) => this.calls.get<PromptVersionList>(`/api/prompts/${enc(idOrName)}/versions`, page),
    setLabels: (idOrName: string, body: { label?: string; labels?: string[]; version: number }) =>
      this.calls.post<PromptLabels>(`/api/prompts/${enc(idOrName)}/labels`, body),
    removeLabel: (idOrName: string, label: string) => this.calls.request<PromptLabels>('DELETE', `/api/prompts/${enc(idOrName)}/labels/${enc(label)}`),
    render: (idOrName: string, body: { variables?: Record<string, string | number | boolean>; version?: number; label?: string } = {}) =>
      this.calls.request<{ id: string; name: string; version: number } & RenderedPrompt>('POST', `/api/prompts/${enc(idOrName)}/render`, {
        json: body,
        idempotent: true,
      }),
    traces: (idOrName: string, params: Page & { version?: number; label?: string } = {}) =>
      this.calls.get<{ id: string; name: string; version: number | null } & PromptTraceList>(`/api/prompts/${enc(idOrName)}/traces`, params),
  };

  readonly feedback = feedbackEndpoints(this.calls);
  readonly queues = queueEndpoints(this.calls);

  readonly alerts = {
    rules: {
      create: (body: AlertRuleBody) => this.calls.post<AlertRule>('/api/alerts/rules', body),
      list: (params: Page & { enabled?: boolean; state?: string } = {}) => this.calls.get<AlertRuleList>('/api/alerts/rules', params),
      get: (id: string) => this.calls.get<AlertRule>(`/api/alerts/rules/${enc(id)}`),
      update: (id: string, body: Partial<AlertRuleBody>) => this.calls.put<AlertRule>(`/api/alerts/rules/${enc(id)}`, body),
      delete: (id: string) => this.calls.del('/api/alerts/rules', { id }),
    },
    events: (params: Page & { rule_id?: string; kind?: string; start_time?: string | number; end_time?: string | number } = {}) =>
      this.calls.get<AlertEventList>('/api/alerts/events', params),
  };

  readonly analytics = {
    scores: (params: z.input<typeof ScoreTrendsQuerySchema> = {}) => this.calls.get<ScoreTrends>('/api/analytics/scores', params),
    components: (params: z.input<typeof ComponentHealthQuerySchema> = {}) => this.calls.get<ComponentHealth>('/api/analytics/components', params),
    timeseries: (params: z.input<typeof MetricSeriesQuerySchema> = {}) => this.calls.get<MetricSeries>('/api/analytics/timeseries', params),
    correlation: (params: z.input<typeof CorrelationQuerySchema>) => this.calls.get<ScoreCorrelation>('/api/analytics/correlation', params),
    /** Per tool: calls, error rate, latency, argument-mismatch rate from the runs' toolCalls scores. */
    tools: (params: z.input<typeof ToolAnalyticsQuerySchema> = {}) => this.calls.get<ToolAnalytics>('/api/analytics/tools', params),
    /** What model calls cost by model, agent, prompt, user, session or suite, per bucket, with the costliest traces and sessions. */
    costs: (params: z.input<typeof CostBreakdownQuerySchema> = {}) => this.calls.get<CostBreakdown>('/api/analytics/costs', params),
    /** GET /api/failures: the window's traces with errors grouped by their failing span (docs/api.md, "Failure analysis"). */
    failures: ({ label, ...params }: Omit<z.input<typeof TraceFailureQuerySchema>, 'limit' | 'label'> & { limit?: number; label?: boolean } = {}) =>
      this.calls.get<TraceFailureAnalysis>('/api/failures', { ...params, label: label ? 'true' : undefined }),
  };

  /** HTTP custom scorers (docs/scorers.md). */
  readonly scorers = {
    create: (body: z.input<typeof CreateCustomScorerSchema>) => this.calls.post<CustomScorer>('/api/scorers', body),
    list: (page: Page = {}) => this.calls.get<CustomScorerList>('/api/scorers', page),
    /** By id or name. */
    get: (idOrName: string) => this.calls.get<CustomScorer>(`/api/scorers/${enc(idOrName)}`),
    delete: (idOrName: string) => this.calls.del(`/api/scorers/${enc(idOrName)}`),
  };

  /** Online evaluation rules (docs/online-evals.md). */
  readonly onlineRules = {
    create: (body: OnlineRuleBody & { since?: string | number }) => this.calls.post<OnlineRule>('/api/evals/online-rules', body),
    list: (page: Page = {}) => this.calls.get<OnlineRuleList>('/api/evals/online-rules', page),
    /** The rule with its `stats`. */
    get: (id: string) => this.calls.get<OnlineRule>(`/api/evals/online-rules/${enc(id)}`),
    /** Merges `body` into the stored rule (`{enabled: false}` pauses it). */
    update: (id: string, body: Partial<OnlineRuleBody>) => this.calls.put<OnlineRule>(`/api/evals/online-rules/${enc(id)}`, body),
    delete: (id: string) => this.calls.del(`/api/evals/online-rules/${enc(id)}`),
    evaluations: (id: string, page: Page = {}) => this.calls.get<OnlineEvaluationList>(`/api/evals/online-rules/${enc(id)}/evaluations`, page),
    /** A session rule's evaluations, one per (session, generation) (docs/online-evals.md, "Session rules"). */
    sessionEvaluations: (id: string, query: Page & { session_id?: string; status?: EvaluationStatus } = {}) =>
      this.calls.get<OnlineSessionEvaluationList>(`/api/evals/online-rules/${enc(id)}/evaluations`, query),
  };

  /** Judges' agreement with people (docs/judges.md, Calibration). */
  readonly judges = {
    calibration: (name: string, params: z.input<typeof JudgeCalibrationQuerySchema> = {}) =>
      this.calls.get<JudgeCalibrationAnswer>(`/api/judges/${enc(name)}/calibration`, params),
    calibrations: (params: { min_pairs?: number } & Omit<z.input<typeof CalibrationListQuerySchema>, 'min_pairs'> = {}) =>
      this.calls.get<CalibrationList>('/api/judges/calibration', params),
  };

  /** Costs (docs/costs.md): the price table in force, and recomputing a window's costs with it. */
  readonly costs = {
    prices: () => this.calls.get<{ version: string; currency: string; unit: string; models: unknown[] }>('/api/admin/prices'),
    recompute: (body: z.input<typeof RecomputeCostsSchema>) => this.calls.post<RecomputeResult>('/api/admin/recompute-costs', body),
  };

  /** A suite's name, for push(): from its definition (AgentEvalClient also reads YAML text). */
  protected suiteName(suite: SuiteInput): string {
    const name = typeof suite === 'string' ? undefined : (suite as { name?: unknown }).name;
    if (typeof name !== 'string' || !name.trim()) throw new AgentEvalError('name is required');
    return name.trim();
  }
}

/** The request of a suite write: YAML text as YAML (the service's one parser reads it), else JSON. */
const suiteBody = (suite: SuiteInput): RequestOptions =>
  typeof suite === 'string' ? { text: { body: suite, contentType: 'application/yaml' } } : { json: suite };
