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
} from '../core/model/analytics.js';
import type { RunComparison } from '../core/evals/compare.js';
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
import type { Comparison, ComparisonList, CreateComparisonBody, Feedback, FeedbackBody, FeedbackList } from '../core/model/feedback.js';
import type { IngestTraceSchema, ManySpansSchema, OneSpanSchema } from '../core/model/ingest-body.js';
import type { AdminProjectView, ApiKeyView, CreateKeySchema, CreateProjectSchema, ProjectView, RateLimitsSchema } from '../core/model/project.js';
import type { AddMemberSchema, AuthState, MemberView, SessionView, SetRoleSchema } from '../core/model/user.js';
import type { AuditPage } from '../core/model/audit.js';
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
import type { CreateQueueBody, ItemList, QueueItem, QueueList, ReviewQueue } from '../core/model/queue.js';
import type { CreateScoreSchema, Score } from '../core/model/score.js';
import type { CreateCustomScorerSchema, CustomScorer, CustomScorerList } from '../core/model/custom-scorer.js';
import type { OnlineEvaluationList, OnlineRule, OnlineRuleBody, OnlineRuleList } from '../core/model/online-rule.js';
import type { CalibrationList, CalibrationListQuerySchema, JudgeCalibrationAnswer, JudgeCalibrationQuerySchema } from '../core/model/calibration.js';
import type { RecomputeCostsSchema, RecomputeResult } from '../core/model/cost.js';
import type { SuiteList, SuiteSummary, SuiteVersion, SuiteVersionInfo } from '../core/model/suite.js';
import type { SpanView, TraceDetail, TraceList } from '../core/model/trace.js';
import type {
  HealthView,
  LocalResultsAnswer,
  Page,
  Query,
  RateLimitsView,
  Requester,
  RunList,
  RunListParams,
  RunStatusView,
  SuiteInput,
  TraceListParams,
} from './api-types.js';
import { AgentEvalError, ServiceApiError } from './errors.js';
import type { RequestOptions } from './http.js';

const enc = encodeURIComponent;

/**
 * Every endpoint of the service, typed (docs/api.md, evals.md, suites.md, prompts.md,
 * feedback.md, alerts.md, security.md): request bodies are the input types of the zod schemas the
 * API validates them with, answers the model types it builds them from, so the client and the
 * service compile against the same definitions. Browser-safe (types only, every call through its
 * {@link Requester}): `AgentEvalClient` is this over the SDK's transport, the dashboard over its own.
 */
export class AgentEvalApi {
  constructor(protected readonly requester: Requester) {}

  /** The project named with every call (undefined: the key's own). */
  get project(): string | undefined {
    return this.requester.project;
  }

  /** Any endpoint, for what the groups below do not cover. */
  request<T>(method: string, path: string, opts?: RequestOptions): Promise<T> {
    return this.requester.request<T>(method, path, opts);
  }

  private get<T>(path: string, query?: Query): Promise<T> {
    return this.requester.request<T>('GET', path, { query });
  }

  /**
   * A creating POST, with an `Idempotency-Key` when `key` is given: the request is then safe to
   * send again (a lost answer, 503, or 409 while the first sending still runs), and every sending
   * gets the first answer (docs/api.md, "Retries: Idempotency-Key").
   */
  private create<T>(path: string, json: unknown, key: string | undefined, alreadyIdempotent = false): Promise<T> {
    return this.requester.request<T>('POST', path, {
      json,
      idempotent: key !== undefined || alreadyIdempotent,
      headers: key !== undefined ? { 'idempotency-key': key } : undefined,
    });
  }

  private post<T>(path: string, json?: unknown, opts: Omit<RequestOptions, 'json'> = {}): Promise<T> {
    return this.requester.request<T>('POST', path, { ...opts, json: json ?? {} });
  }

  private put<T>(path: string, json: unknown): Promise<T> {
    return this.requester.request<T>('PUT', path, { json });
  }

  private del(path: string, query?: Query): Promise<void> {
    return this.requester.request<void>('DELETE', path, { query });
  }

  /**
   * The project of project-scoped admin routes (keys, rate limits): the client's `project`, else
   * the one project the key reaches.
   */
  async projectId(explicit?: string): Promise<string> {
    const id = explicit ?? this.project;
    if (id) return id;
    const { projects } = await this.projects.list();
    if (projects.length === 1) return projects[0].id;
    throw new AgentEvalError(`Name the project: these credentials reach ${projects.length} projects (set project or AGENT_EVAL_PROJECT)`);
  }

  /** GET /api/health (no credentials needed). */
  health(): Promise<HealthView> {
    return this.get('/api/health');
  }

  readonly traces = {
    /** POST /api/traces/ingest: a trace and its spans in the SPEC's JSON shape. */
    ingest: (body: z.input<typeof IngestTraceSchema>) =>
      this.requester.request<{ trace_id: string; ingested: boolean; spans_accepted: number }>('POST', '/api/traces/ingest', { json: body, idempotent: true }),
    /** GET /api/traces: newest first, with filters and keyset paging (`next_cursor`). */
    list: (params: TraceListParams = {}) => this.get<TraceList>('/api/traces', { ...params }),
    /** GET /api/traces/{id}: the trace and one page of its spans. */
    get: (traceId: string, page: { spans_limit?: number; spans_cursor?: string } = {}) => this.get<TraceDetail>(`/api/traces/${enc(traceId)}`, page),
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
  };

  readonly spans = {
    /** POST /api/spans: `{trace_id, spans}` or one span with its `trace_id`. */
    create: (body: z.input<typeof ManySpansSchema> | z.input<typeof OneSpanSchema>) =>
      this.requester.request<{ trace_id: string; span_ids: string[]; ingested: boolean }>('POST', '/api/spans', { json: body, idempotent: true }),
    /** GET /api/spans/{id}: the span whole. */
    get: (spanId: string) => this.get<SpanView>(`/api/spans/${enc(spanId)}`),
  };

  readonly scores = {
    /** POST /api/scores; with the score's own `id`, or `idempotencyKey`, sending it again stores it once. */
    create: (body: z.input<typeof CreateScoreSchema>, opts: { idempotencyKey?: string } = {}) =>
      this.create<Score>('/api/scores', body, opts.idempotencyKey, body.id !== undefined),
    /** GET /api/scores?trace_id=: the trace's scores, newest first. */
    list: (traceId: string) => this.get<{ scores: Score[] }>('/api/scores', { trace_id: traceId }),
  };

  readonly agents = {
    create: (body: z.input<typeof CreateAgentSchema>) => this.post<Agent>('/api/agents', body),
    list: (page: Page = {}) => this.get<AgentList>('/api/agents', page),
    /** By id or name. */
    get: (idOrName: string) => this.get<Agent>(`/api/agents/${enc(idOrName)}`),
    update: (idOrName: string, body: z.input<typeof CreateAgentSchema>) => this.put<Agent>(`/api/agents/${enc(idOrName)}`, body),
    delete: (idOrName: string) => this.del(`/api/agents/${enc(idOrName)}`),
  };

  readonly suites = {
    /** POST /api/suites: a definition or YAML text; version 1. */
    create: (suite: SuiteInput) => this.requester.request<SuiteSummary>('POST', '/api/suites', suiteBody(suite)),
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
    list: (params: Page & { name?: string } = {}) => this.get<SuiteList>('/api/suites', params),
    /** The live suite with exactly this name, or null. */
    findByName: async (name: string): Promise<SuiteSummary | null> => {
      for (let offset = 0; ; offset += 1000) {
        const page: SuiteList = await this.suites.list({ name, limit: 1000, offset });
        const hit = page.suites.find((s) => s.name === name);
        if (hit) return hit;
        if (offset + page.suites.length >= page.total || page.suites.length === 0) return null;
      }
    },
    get: (id: string, opts: { version?: number } = {}) => this.get<SuiteVersion>(`/api/suites/${enc(id)}`, opts),
    versions: (id: string) => this.get<{ id: string; versions: SuiteVersionInfo[] }>(`/api/suites/${enc(id)}/versions`),
    /** PUT /api/suites/{id}: a whole definition; a new version. */
    update: (id: string, suite: SuiteInput) => this.requester.request<SuiteSummary>('PUT', `/api/suites/${enc(id)}`, suiteBody(suite)),
    delete: (id: string) => this.del(`/api/suites/${enc(id)}`),
  };

  /** Runs: both API families, managed and local execution (docs/evals.md). */
  readonly runs = {
    /** POST /api/runs: an inline dataset run by the service's workflows against a registered agent. */
    create: (body: z.input<typeof CreateRunSchema>, opts: { idempotencyKey?: string } = {}) => this.create<RunView>('/api/runs', body, opts.idempotencyKey),
    /** POST /api/evals/runs: a stored suite by name, run by the service's workflows. */
    createFromSuite: (body: z.input<typeof CreateEvalRunSchema>, opts: { idempotencyKey?: string } = {}) =>
      this.create<RunView>('/api/evals/runs', body, opts.idempotencyKey),
    /** POST /api/runs with `execution: "local"`: a run the caller executes and reports with addResults() and complete(). */
    createLocal: (body: Omit<z.input<typeof CreateLocalRunSchema>, 'execution'>) => this.post<RunView>('/api/runs', { ...body, execution: 'local' }),
    /** POST /api/runs/{id}/results: case trials of a local run, recorded once each by (case_index, trial). */
    addResults: (runId: string, results: Array<z.input<typeof LocalResultSchema>>) =>
      this.requester.request<LocalResultsAnswer>('POST', `/api/runs/${enc(runId)}/results`, { json: { results }, idempotent: true }),
    /** POST /api/runs/{id}/complete: ends a local run (`completed` by default) and stores its summary. */
    complete: (runId: string, body: z.input<typeof CompleteLocalRunSchema> = {}) =>
      this.requester.request<RunView>('POST', `/api/runs/${enc(runId)}/complete`, { json: body, idempotent: true }),
    list: (params: RunListParams = {}) => this.get<RunList>('/api/runs', { ...params }),
    get: (runId: string) => this.get<RunView>(`/api/runs/${enc(runId)}`),
    status: (runId: string) => this.get<RunStatusView>(`/api/runs/${enc(runId)}/status`),
    results: (runId: string, opts: { failedOnly?: boolean } = {}) =>
      this.get<{ results: CaseResultView[] }>(`/api/runs/${enc(runId)}/results`, { failed_only: opts.failedOnly ? 'true' : undefined }),
    control: (runId: string, action: ControlAction) =>
      this.post<{ run_id: string; action: ControlAction; status: RunStatus; accepted: boolean }>(`/api/runs/${enc(runId)}/control`, { action }),
    pause: (runId: string) => this.runs.control(runId, 'pause'),
    resume: (runId: string) => this.runs.control(runId, 'resume'),
    cancel: (runId: string) => this.runs.control(runId, 'cancel'),
    cancelCase: (runId: string, caseIndex: number) =>
      this.post<{ run_id: string; case_index: number; action: 'cancel'; accepted: boolean }>(`/api/runs/${enc(runId)}/cases/${caseIndex}/cancel`),
    approve: (runId: string, caseIndex: number, decision: { approved: boolean; comment?: string; trial?: number }) =>
      this.post<{ run_id: string; case_index: number; trial: number; approved: boolean; accepted: boolean }>(
        `/api/runs/${enc(runId)}/cases/${caseIndex}/approval`,
        decision,
      ),
    approvals: (runId: string) =>
      this.get<{ run_id: string; approvals: Array<{ case_index: number; trial: number; tool: string; reason: string | null; since: number }> }>(
        `/api/runs/${enc(runId)}/approvals`,
      ),
  };

  /** The SPEC's first family, `/api/evals/...` (the same runs as {@link runs}). */
  readonly evals = {
    createRun: (body: z.input<typeof CreateEvalRunSchema>, opts: { idempotencyKey?: string } = {}) =>
      this.create<RunView>('/api/evals/runs', body, opts.idempotencyKey),
    getRun: (runId: string) => this.get<RunView>(`/api/evals/runs/${enc(runId)}`),
    results: (runId: string, opts: { failedOnly?: boolean } = {}) =>
      this.get<{ results: CaseResultView[] }>(`/api/evals/runs/${enc(runId)}/results`, { failed_only: opts.failedOnly ? 'true' : undefined }),
    compare: (baselineRunId: string, candidateRunId: string, opts: { threshold?: number; alpha?: number } = {}) =>
      this.requester.request<RunComparison>('POST', '/api/evals/compare', {
        json: { baseline_run_id: baselineRunId, candidate_run_id: candidateRunId, ...opts },
        idempotent: true,
      }),
  };

  /**
   * POST /api/compare: per case and scorer, regressions beyond `threshold` (default 0.05) and
   * the significance of the change (paired permutation test at `alpha`, default 0.05).
   */
  compare(baselineRunId: string, candidateRunId: string, opts: { threshold?: number; alpha?: number } = {}): Promise<RunComparison> {
    return this.requester.request<RunComparison>('POST', '/api/compare', {
      json: { baseline_run_id: baselineRunId, candidate_run_id: candidateRunId, ...opts },
      idempotent: true,
    });
  }

  readonly projects = {
    list: () => this.get<{ projects: ProjectView[] }>('/api/projects'),
    get: (id: string) => this.get<ProjectView & { rate_limits: RateLimitsView }>(`/api/projects/${enc(id)}`),
    /** POST /api/projects (a server admin's): the project and its first admin key (`api_key.key`, shown once). */
    create: (body: z.input<typeof CreateProjectSchema>) => this.post<ProjectView & { api_key: ApiKeyView & { key: string } }>('/api/projects', body),
  };

  /** Every project, for server admins (docs/security.md, "Server admins and project governance"). */
  readonly adminProjects = {
    list: () => this.get<{ projects: AdminProjectView[] }>('/api/admin/projects'),
    /** Read-only from now: reads work, writes are refused (403 PROJECT_ARCHIVED). */
    archive: (id: string) => this.post<AdminProjectView>(`/api/admin/projects/${enc(id)}/archive`),
    unarchive: (id: string) => this.post<AdminProjectView>(`/api/admin/projects/${enc(id)}/unarchive`),
    /** An archived project: its keys stop at once (status `deleting`), its data leaves both stores in the background (then `deleted`). */
    delete: (id: string) => this.requester.request<AdminProjectView>('DELETE', `/api/admin/projects/${enc(id)}`),
  };

  /** GET /api/audit: newest first; a server admin reads every entry, a project admin their project's (docs/security.md, "Audit log"). */
  readonly audit = {
    list: (
      params: { action?: string; actor?: string; project?: string; since?: string | number; until?: string | number; limit?: number; cursor?: string } = {},
    ) => this.get<AuditPage>('/api/audit', params),
  };

  /** API keys of a project (the client's project when `projectId` is absent). */
  readonly keys = {
    list: async (projectId?: string) => this.get<{ keys: ApiKeyView[] }>(`/api/projects/${enc(await this.projectId(projectId))}/keys`),
    /** The new key's secret is in `key`, shown this once. */
    create: async (body: z.input<typeof CreateKeySchema>, projectId?: string) =>
      this.post<ApiKeyView & { key: string }>(`/api/projects/${enc(await this.projectId(projectId))}/keys`, body),
    revoke: async (keyId: string, projectId?: string) => this.del(`/api/projects/${enc(await this.projectId(projectId))}/keys/${enc(keyId)}`),
  };

  /** People's roles in a project (docs/security.md, "Signing in"); the client's project when `projectId` is absent. */
  readonly members = {
    list: async (projectId?: string) => this.get<{ members: MemberView[] }>(`/api/projects/${enc(await this.projectId(projectId))}/members`),
    /** A role for a person named by `user_id` or `email` (they must have signed in once). */
    add: async (body: z.input<typeof AddMemberSchema>, projectId?: string) =>
      this.post<MemberView>(`/api/projects/${enc(await this.projectId(projectId))}/members`, body),
    setRole: async (userId: string, body: z.input<typeof SetRoleSchema>, projectId?: string) =>
      this.put<MemberView>(`/api/projects/${enc(await this.projectId(projectId))}/members/${enc(userId)}`, body),
    remove: async (userId: string, projectId?: string) => this.del(`/api/projects/${enc(await this.projectId(projectId))}/members/${enc(userId)}`),
  };

  /** The dashboard's sign-in (docs/security.md, "Signing in"): the session a browser's cookie carries. */
  readonly auth = {
    /** GET /api/auth/session (no credentials needed): how one signs in here, and the caller's session. */
    state: () => this.get<AuthState>('/api/auth/session'),
    /** POST /api/auth/key: an API key exchanged for a session (the cookie is set by the answer). */
    signInWithKey: (key: string) => this.post<SessionView>('/api/auth/key', { key }),
    signOut: () => this.post<void>('/api/auth/sign-out'),
  };

  readonly rateLimits = {
    get: async (projectId?: string) => this.get<RateLimitsView>(`/api/projects/${enc(await this.projectId(projectId))}/rate-limits`),
    /** Requests per minute per group; null restores the default. */
    set: async (limits: z.input<typeof RateLimitsSchema>, projectId?: string) =>
      this.put<RateLimitsView>(`/api/projects/${enc(await this.projectId(projectId))}/rate-limits`, limits),
  };

  readonly prompts = {
    list: (params: Page & { name?: string; label?: string } = {}) => this.get<PromptList>('/api/prompts', params),
    create: (body: PromptBody) => this.post<PromptVersion>('/api/prompts', body),
    /** By id or name; the newest version, or `version` / `label`. */
    get: (idOrName: string, select: { version?: number; label?: string } = {}) => this.get<PromptVersion>(`/api/prompts/${enc(idOrName)}`, select),
    /** PUT: a new version. */
    update: (idOrName: string, body: PromptUpdateBody) => this.put<PromptVersion>(`/api/prompts/${enc(idOrName)}`, body),
    versions: (idOrName: string, page: Page = {}) => this.get<PromptVersionList>(`/api/prompts/${enc(idOrName)}/versions`, page),
    setLabels: (idOrName: string, body: { label?: string; labels?: string[]; version: number }) =>
      this.post<PromptLabels>(`/api/prompts/${enc(idOrName)}/labels`, body),
    removeLabel: (idOrName: string, label: string) => this.requester.request<PromptLabels>('DELETE', `/api/prompts/${enc(idOrName)}/labels/${enc(label)}`),
    render: (idOrName: string, body: { variables?: Record<string, string | number | boolean>; version?: number; label?: string } = {}) =>
      this.requester.request<{ id: string; name: string; version: number } & RenderedPrompt>('POST', `/api/prompts/${enc(idOrName)}/render`, {
        json: body,
        idempotent: true,
      }),
    traces: (idOrName: string, params: Page & { version?: number; label?: string } = {}) =>
      this.get<{ id: string; name: string; version: number | null } & PromptTraceList>(`/api/prompts/${enc(idOrName)}/traces`, params),
  };

  readonly feedback = {
    /** POST /api/feedback; with `idempotencyKey`, sending it again records it once. */
    create: (body: FeedbackBody, opts: { idempotencyKey?: string } = {}) => this.create<Feedback>('/api/feedback', body, opts.idempotencyKey),
    list: (params: Page & Query = {}) => this.get<FeedbackList>('/api/feedback', params),
    get: (id: string) => this.get<Feedback>(`/api/feedback/${enc(id)}`),
    comparisons: {
      create: (body: CreateComparisonBody) => this.post<Comparison>('/api/feedback/comparisons', body),
      list: (params: Page & { status?: 'pending' | 'answered' } = {}) => this.get<ComparisonList>('/api/feedback/comparisons', params),
      get: (id: string) => this.get<Comparison>(`/api/feedback/comparisons/${enc(id)}`),
      answer: (id: string, body: { preferred: 'a' | 'b' | 'tie'; reason?: string | null; user_id?: string | null }) =>
        this.requester.request<{ comparison: Comparison; feedback: Feedback }>('POST', `/api/feedback/comparisons/${enc(id)}/answer`, {
          json: body,
          idempotent: true,
        }),
    },
  };

  readonly queues = {
    create: (body: CreateQueueBody) => this.post<ReviewQueue & { truncated: boolean }>('/api/queues', body),
    list: (page: Page = {}) => this.get<QueueList>('/api/queues', page),
    get: (id: string) => this.get<ReviewQueue>(`/api/queues/${enc(id)}`),
    addItems: (id: string, body: { trace_ids?: string[]; filter?: Record<string, unknown>; max_items?: number }) =>
      this.post<ReviewQueue & { truncated: boolean }>(`/api/queues/${enc(id)}/items`, body),
    items: (id: string, params: Page & { state?: string } = {}) => this.get<ItemList>(`/api/queues/${enc(id)}/items`, params),
    item: (id: string, itemId: string) => this.get<QueueItem>(`/api/queues/${enc(id)}/items/${enc(itemId)}`),
    /** Locks the next pending item for `reviewer`. */
    next: (id: string, body: { reviewer?: string; lock_seconds?: number } = {}) =>
      this.post<{ item: QueueItem | null; lock_seconds: number }>(`/api/queues/${enc(id)}/next`, body),
    complete: (
      id: string,
      itemId: string,
      body: {
        scores?: Record<string, number | boolean | string>;
        correction?: { original?: string | null; corrected: string } | null;
        comment?: string | null;
        reviewer?: string;
      },
    ) =>
      this.requester.request<{ item: QueueItem; feedback: Feedback | null; score_ids: string[] }>(
        'POST',
        `/api/queues/${enc(id)}/items/${enc(itemId)}/complete`,
        { json: body, idempotent: true },
      ),
    skip: (id: string, itemId: string, body: { reviewer?: string } = {}) => this.post<QueueItem>(`/api/queues/${enc(id)}/items/${enc(itemId)}/skip`, body),
    toSuite: (id: string, itemId: string, body: { suite_id?: string; suite_name?: string; case_name?: string; scorers?: unknown[] }) =>
      this.post<Record<string, unknown>>(`/api/queues/${enc(id)}/items/${enc(itemId)}/to-suite`, body),
  };

  readonly alerts = {
    rules: {
      create: (body: AlertRuleBody) => this.post<AlertRule>('/api/alerts/rules', body),
      list: (params: Page & { enabled?: boolean; state?: string } = {}) => this.get<AlertRuleList>('/api/alerts/rules', params),
      get: (id: string) => this.get<AlertRule>(`/api/alerts/rules/${enc(id)}`),
      update: (id: string, body: Partial<AlertRuleBody>) => this.put<AlertRule>(`/api/alerts/rules/${enc(id)}`, body),
      delete: (id: string) => this.del('/api/alerts/rules', { id }),
    },
    events: (params: Page & { rule_id?: string; kind?: string; start_time?: string | number; end_time?: string | number } = {}) =>
      this.get<AlertEventList>('/api/alerts/events', params),
  };

  readonly analytics = {
    scores: (params: z.input<typeof ScoreTrendsQuerySchema> = {}) => this.get<ScoreTrends>('/api/analytics/scores', params),
    components: (params: z.input<typeof ComponentHealthQuerySchema> = {}) => this.get<ComponentHealth>('/api/analytics/components', params),
    timeseries: (params: z.input<typeof MetricSeriesQuerySchema> = {}) => this.get<MetricSeries>('/api/analytics/timeseries', params),
    correlation: (params: z.input<typeof CorrelationQuerySchema>) => this.get<ScoreCorrelation>('/api/analytics/correlation', params),
  };

  /** HTTP custom scorers (docs/scorers.md). */
  readonly scorers = {
    create: (body: z.input<typeof CreateCustomScorerSchema>) => this.post<CustomScorer>('/api/scorers', body),
    list: (page: Page = {}) => this.get<CustomScorerList>('/api/scorers', page),
    /** By id or name. */
    get: (idOrName: string) => this.get<CustomScorer>(`/api/scorers/${enc(idOrName)}`),
    delete: (idOrName: string) => this.del(`/api/scorers/${enc(idOrName)}`),
  };

  /** Online evaluation rules (docs/online-evals.md). */
  readonly onlineRules = {
    create: (body: OnlineRuleBody & { since?: string | number }) => this.post<OnlineRule>('/api/evals/online-rules', body),
    list: (page: Page = {}) => this.get<OnlineRuleList>('/api/evals/online-rules', page),
    /** The rule with its `stats`. */
    get: (id: string) => this.get<OnlineRule>(`/api/evals/online-rules/${enc(id)}`),
    /** Merges `body` into the stored rule (`{enabled: false}` pauses it). */
    update: (id: string, body: Partial<OnlineRuleBody>) => this.put<OnlineRule>(`/api/evals/online-rules/${enc(id)}`, body),
    delete: (id: string) => this.del(`/api/evals/online-rules/${enc(id)}`),
    evaluations: (id: string, page: Page = {}) => this.get<OnlineEvaluationList>(`/api/evals/online-rules/${enc(id)}/evaluations`, page),
  };

  /** Judges' agreement with people (docs/judges.md, Calibration). */
  readonly judges = {
    calibration: (name: string, params: z.input<typeof JudgeCalibrationQuerySchema> = {}) =>
      this.get<JudgeCalibrationAnswer>(`/api/judges/${enc(name)}/calibration`, params),
    calibrations: (params: { min_pairs?: number } & Omit<z.input<typeof CalibrationListQuerySchema>, 'min_pairs'> = {}) =>
      this.get<CalibrationList>('/api/judges/calibration', params),
  };

  /** Costs (docs/costs.md): the price table in force, and recomputing a window's costs with it. */
  readonly costs = {
    prices: () => this.get<{ version: string; currency: string; unit: string; models: unknown[] }>('/api/admin/prices'),
    recompute: (body: z.input<typeof RecomputeCostsSchema>) => this.post<RecomputeResult>('/api/admin/recompute-costs', body),
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
