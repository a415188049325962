import { makeDataDir } from './data-dir.js';
import { readApiKey } from './credentials.js';
import { loadConfig } from '../../core/config.js';
import { createLogger } from '../../core/logger.js';
import { startService, type RunningService } from '../../runtime/service.js';
import { TEST_SERVICE_ENV, UNLIMITED } from './processes.js';

export { REPO_ROOT } from './processes.js';

export { makeDataDir };

export interface TestService extends RunningService {
  dataDir: string;
  /** The bootstrap admin key of the default project (from credentials.json); undefined with AUTH_MODE=none. */
  apiKey?: string;
  /** An admin key of `project`, creating the project on first use (the default project's is `apiKey`). */
  keyFor(project: string): Promise<string>;
  /**
   * fetch against the API as the project's admin: `project` (default: the default project; null:
   * no project header) with that project's key, or `key` (null: no credentials at all).
   */
  api(pathname: string, init?: RequestInit & { project?: string | null; json?: unknown; key?: string | null }): Promise<Response>;
}

/** The real service in this process: chDB, embedded PostgreSQL, all roles, ephemeral ports. */
export async function startTestService(env: Record<string, string> = {}): Promise<TestService> {
  const dataDir = env.AGENT_EVAL_DATA_DIR ?? makeDataDir();
  const config = loadConfig({
    ...TEST_SERVICE_ENV,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    AGENT_EVAL_DATA_DIR: dataDir,
    ...UNLIMITED,
    ...env,
  });
  const service = await startService(config, createLogger(config.logLevel));
  const apiKey = readApiKey(dataDir);
  const keys = new Map<string, Promise<string>>();
  const keyFor = (project: string): Promise<string> => {
    if (project === service.defaultProjectId && apiKey) return Promise.resolve(apiKey);
    let key = keys.get(project);
    if (!key) {
      key = createProjectKey(service.apiUrl!, apiKey, project);
      keys.set(project, key);
    }
    return key;
  };
  return {
    ...service,
    dataDir,
    apiKey,
    keyFor,
    async api(pathname, init = {}) {
      const project = init.project === undefined ? service.defaultProjectId : init.project;
      const key = init.key !== undefined ? init.key : config.auth.mode === 'none' ? null : await keyFor(project ?? service.defaultProjectId);
      return apiFetch(service.apiUrl!, project, pathname, { ...init, key });
    },
  };
}

/** Creates `project` (POST /api/projects with the bootstrap key, a server admin's) and returns its first admin key. */
async function createProjectKey(apiUrl: string, adminKey: string | undefined, project: string): Promise<string> {
  const res = await apiFetch(apiUrl, null, '/api/projects', { method: 'POST', key: adminKey ?? null, json: { id: project, name: project } });
  const body = (await res.json()) as { api_key?: { key: string } };
  if (res.status !== 201 || !body.api_key) throw new Error(`creating test project ${project}: ${res.status} ${JSON.stringify(body)}`);
  return body.api_key.key;
}

export function apiFetch(
  baseUrl: string,
  project: string | null,
  pathname: string,
  init: RequestInit & { json?: unknown; key?: string | null } = {},
): Promise<Response> {
  const headers = new Headers(init.headers);
  if (project) headers.set('x-project-id', project);
  if (init.key && !headers.has('x-api-key') && !headers.has('authorization')) headers.set('x-api-key', init.key);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set('content-type', 'application/json');
    body = JSON.stringify(init.json);
  }
  return fetch(`${baseUrl}${pathname}`, { ...init, headers, body });
}

/** A JSON ingest body of one trace with `spanCount` spans under one root. */
export function sampleTrace(traceId: string, opts: { spanCount?: number; start?: number; name?: string; status?: 'ok' | 'error' } = {}) {
  const start = opts.start ?? Date.now() - 10_000;
  const spanCount = opts.spanCount ?? 3;
  const spans = [
    { span_id: `${traceId}-root`, name: 'agent', type: 'span', start_time: new Date(start).toISOString(), end_time: new Date(start + 1000).toISOString() },
  ];
  for (let i = 1; i < spanCount; i++) {
    const isTool = i % 2 === 0;
    spans.push({
      span_id: `${traceId}-${i}`,
      parent_span_id: `${traceId}-root`,
      name: isTool ? 'search' : 'llm',
      type: isTool ? 'tool' : 'generation',
      start_time: new Date(start + i * 10).toISOString(),
      end_time: new Date(start + i * 10 + 5).toISOString(),
      attributes: isTool ? { tool_name: 'search' } : { model: 'gpt-4o', input_tokens: 10, output_tokens: 20 },
    } as (typeof spans)[number]);
  }
  return {
    trace_id: traceId,
    name: opts.name ?? 'agent-run',
    status: opts.status ?? 'ok',
    duration_ms: 1000,
    start_time: new Date(start).toISOString(),
    spans,
  };
}
