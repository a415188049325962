import { makeDataDir } from './data-dir.js';
import { loadConfig } from '../../core/config.js';
import { createLogger } from '../../core/logger.js';
import { startService, type RunningService } from '../../runtime/service.js';

export { REPO_ROOT } from './processes.js';

export { makeDataDir };

export interface TestService extends RunningService {
  dataDir: string;
  /** fetch against the API with the default project header. */
  api(pathname: string, init?: RequestInit & { project?: string | null; json?: unknown }): Promise<Response>;
}

/** The real service in this process: chDB, embedded PostgreSQL, all roles, ephemeral ports. */
export async function startTestService(env: Record<string, string> = {}): Promise<TestService> {
  const dataDir = env.AGENT_EVAL_DATA_DIR ?? makeDataDir();
  const config = loadConfig({
    PORT: '0',
    OTLP_GRPC_PORT: '0',
    OTLP_HTTP_PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    AGENT_EVAL_DATA_DIR: dataDir,
    ...env,
  });
  const service = await startService(config, createLogger(config.logLevel));
  return {
    ...service,
    dataDir,
    api: (pathname, init = {}) => apiFetch(service.apiUrl!, service.defaultProjectId, pathname, init),
  };
}

export function apiFetch(
  baseUrl: string,
  defaultProject: string,
  pathname: string,
  init: RequestInit & { project?: string | null; json?: unknown } = {},
): Promise<Response> {
  const headers = new Headers(init.headers);
  const project = init.project === undefined ? defaultProject : init.project;
  if (project) headers.set('x-project-id', project);
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
  return { trace_id: traceId, name: opts.name ?? 'agent-run', status: opts.status ?? 'ok', duration_ms: 1000, start_time: new Date(start).toISOString(), spans };
}
