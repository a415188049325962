import type { z } from 'zod';
import type { RunStatus, RunView } from '../core/model/eval-run.js';
import type { SuiteDefinitionSchema } from '../core/model/suite.js';
import type { RequestOptions } from './http.js';

/** The shapes of the typed client's parameters and answers that the model does not already name. */

export type Page = { limit?: number; offset?: number };
export type Query = Record<string, string | number | boolean | undefined | null>;

/** GET /api/health. */
export interface HealthView {
  status: 'healthy' | 'degraded' | 'unhealthy';
  version: string;
  services: Record<string, string>;
  auth?: string;
  ingest?: Record<string, unknown>;
}

/** GET /api/runs/{id}/status: the run view's progress fields, with live progress. */
export type RunStatusView = Pick<RunView, 'run_id' | 'id' | 'status' | 'progress' | 'summary' | 'created_at' | 'started_at' | 'completed_at' | 'error'>;

/** A suite as a client writes it: the definition (the file's aliases `scorers`, `minScore`, `agent` work too), or YAML text. */
export type SuiteInput = z.input<typeof SuiteDefinitionSchema> | string;

/** GET /api/traces filters (docs/api.md, "Traces"). */
export interface TraceListParams extends Page {
  status?: 'ok' | 'error';
  name?: string;
  start_time?: string | number;
  end_time?: string | number;
  model?: string;
  component_type?: string;
  min_duration_ms?: number;
  has_errors?: boolean;
  score_name?: string;
  score_below?: number;
  search?: string;
  /** Sessions (docs/api.md, "Sessions"): traces of this session / end user / environment. */
  session_id?: string;
  user_id?: string;
  environment?: string;
  /** Traces tagged so (`tag.tags`, `langfuse.trace.tags`, `ai.telemetry.metadata.tags`, `tags`: docs/api.md). */
  tag?: string;
  /** Who made the traces: production traffic, evaluation runs' cases, online rules' judges. */
  source?: 'production' | 'evaluation' | 'online-judge';
  /** The list's order (newest first by default); `sort=score` takes the score's name in `sort_score`. */
  sort?: 'time' | 'duration' | 'cost' | 'tokens' | 'score';
  order?: 'asc' | 'desc';
  sort_score?: string;
  cursor?: string;
}

/** GET /api/sessions filters (docs/api.md, "Sessions"): keyset paging only. */
export interface SessionListParams {
  limit?: number;
  user_id?: string;
  start_time?: string | number;
  end_time?: string | number;
  has_errors?: boolean;
  /** With `score_below`: sessions whose mean score of this name is below it. */
  score_name?: string;
  score_below?: number;
  cursor?: string;
}

/** GET /api/runs filters (docs/evals.md, "GET /api/runs"). */
export interface RunListParams extends Page {
  status?: RunStatus;
  suite_name?: string;
  suite_id?: string;
  agent_id?: string;
  agent_version?: string;
}

export interface RunList {
  runs: RunView[];
  total: number;
  limit: number;
  offset: number;
}

/** What `POST /api/runs/{id}/results` answers. */
export interface LocalResultsAnswer {
  run_id: string;
  accepted: number;
  progress: RunView['progress'];
}

/**
 * What carries a call: the SDK's {@link Transport} in Node (keys, retries, time-outs), or the
 * dashboard's session-cookie fetch in a browser. `project` is the one named with every call.
 */
export interface Requester {
  readonly project?: string;
  request<T>(method: string, path: string, opts?: RequestOptions): Promise<T>;
}

/** A project's requests per minute per group (GET/PUT /api/projects/{id}/rate-limits). */
export type RateLimitsView = { ingest: number; query: number; eval_runs: number; window: string };
