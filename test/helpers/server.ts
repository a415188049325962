import { makeDataDir } from './data-dir.js';
import { readApiKey } from './credentials.js';
import { ingestTrace } from './ingest-trace.js';
import { loadConfig, type Config } from '../../core/config.js';
import { createLogger } from '../../core/logger.js';
import type { ClickHouseClient } from '../../core/store/clickhouse/client.js';
import { listen } from '../../runtime/http-server.js';
import { bootstrapCredentials, startService, type RunningService } from '../../runtime/service.js';
import { openStores, runCleanups } from '../../runtime/stores.js';
import { openUi } from '../../runtime/ui.js';
import { openWritePath } from '../../runtime/write-path.js';
import { appOnStores } from './api-on-stores.js';
import { TEST_SERVICE_ENV, UNLIMITED } from './processes.js';
import { seedServicePostgres } from './service-postgres.js';
import { expectAnswerMatchesOpenApi } from './openapi-responses.js';

export { REPO_ROOT } from './processes.js';

export { makeDataDir };

/** What a test reaches of a service it started: its API, its keys and its stores. */
export interface TestApi {
  apiUrl?: string;
  defaultProjectId: string;
  dataDir: string;
  /** The analytical store's client (see Stores.clickhouse). */
  clickhouse: ClickHouseClient;
  /** The bootstrap admin key of the default project (from credentials.json); undefined with AUTH_MODE=none. */
  apiKey?: string;
  /** An admin key of `project`, creating the project on first use (the default project's is `apiKey`). */
  keyFor(project: string): Promise<string>;
  /**
   * fetch against the API as the project's admin: `project` (default: the default project; null:
   * no project header) with that project's key, or `key` (null: no credentials at all).
   */
  api(pathname: string, init?: RequestInit & { project?: string | null; json?: unknown; key?: string | null }): Promise<Response>;
  stop(): Promise<void>;
}

export interface TestService extends RunningService, TestApi {}

/** The config of a test service: ephemeral ports on loopback, no limits, a new data dir (`env` overrides any of it). */
function testConfig(env: Record<string, string>): Config {
  return loadConfig({
    ...TEST_SERVICE_ENV,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    AGENT_EVAL_DATA_DIR: env.AGENT_EVAL_DATA_DIR ?? makeDataDir(),
    ...UNLIMITED,
    ...env,
  });
}

/**
 * The real service in this process: chDB, embedded PostgreSQL, all roles, ephemeral ports. The
 * embedded PostgreSQL of a new data dir is a copy of an initialised cluster (seedServicePostgres).
 */
export async function startTestService(env: Record<string, string> = {}): Promise<TestService> {
  const config = testConfig(env);
  if (!config.databaseUrl) await seedServicePostgres(config.dataDir);
  const service = await startService(config, createLogger(config.logLevel));
  return { ...service, ...testClient(config, service.apiUrl!, service.defaultProjectId, () => service.stop()) };
}

/**
 * The service's API alone, in this process (test/helpers/api-on-stores.ts, appOnStores: the
 * app's own wiring, `createApp(deps).callback()` on an ephemeral port), on the service's real
 * stores opened as the service opens them (chDB and embedded PostgreSQL, migrated; the first
 * admin key written as on a first start): for tests of API routes over the stores that need no
 * workflow engine, no worker and no receiver ports. Run routes answer 503 here. About 3 s less
 * per test file than startTestService, which starts and stops all of those.
 */
export async function startTestApi(env: Record<string, string> = {}): Promise<TestApi> {
  const config = testConfig(env);
  if (!config.databaseUrl) await seedServicePostgres(config.dataDir);
  const logger = createLogger(config.logLevel);
  const stores = await openStores(config, logger);
  const closing: Array<() => Promise<void>> = [() => stores.close()];
  const stop = () => runCleanups(closing, logger);
  try {
    const project = await stores.metadata.ensureDefaultProject();
    await bootstrapCredentials(config.dataDir, project, stores.metadata.keys, logger);
    const writePath = await openWritePath(config, stores.analytics, logger);
    closing.push(() => writePath.close());
    const api = appOnStores(config, { ...stores, writePath }, { defaultProjectId: project.id, logger, ui: await openUi(logger, { build: false }) });
    closing.push(() => api.close());
    api.resume();
    const server = await listen(api.app, config.port, config.host);
    closing.push(() => server.close());
    return { clickhouse: stores.clickhouse, ...testClient(config, `http://127.0.0.1:${server.port}`, project.id, stop) };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The keys and requests of a test service listening at `apiUrl`. */
function testClient(config: Config, apiUrl: string, defaultProjectId: string, stop: () => Promise<void>): Omit<TestApi, 'clickhouse'> {
  const apiKey = readApiKey(config.dataDir);
  const keys = new Map<string, Promise<string>>();
  const keyFor = (project: string): Promise<string> => {
    if (project === defaultProjectId && apiKey) return Promise.resolve(apiKey);
    let key = keys.get(project);
    if (!key) {
      key = createProjectKey(apiUrl, apiKey, project);
      keys.set(project, key);
    }
    return key;
  };
  return {
    apiUrl,
    defaultProjectId,
    dataDir: config.dataDir,
    apiKey,
    keyFor,
    stop,
    async api(pathname, init = {}) {
      const project = init.project === undefined ? defaultProjectId : init.project;
      const key = init.key !== undefined ? init.key : config.auth.mode === 'none' ? null : await keyFor(project ?? defaultProjectId);
      const res = await apiFetch(apiUrl, project, pathname, { ...init, key });
      // Every answer a test reads is checked against the OpenAPI document (docs/api.md, "OpenAPI").
      await expectAnswerMatchesOpenApi(init.method ?? 'GET', `${apiUrl}${pathname}`, res);
      return res;
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

/** A JSON ingest body of one trace of one span, its root, with an input and an output; 100 ms long, a minute ago unless `startMs` says when. */
export function oneSpanTrace(
  traceId: string,
  opts: { name?: string; status?: 'ok' | 'error'; attributes?: Record<string, string>; input?: string; output?: string; startMs?: number } = {},
) {
  return ingestTrace(traceId, {
    name: opts.name ?? 'agent-run',
    status: opts.status,
    start: opts.startMs ?? Date.now() - 60_000,
    durationMs: 100,
    attributes: opts.attributes ?? {},
    root: { span_id: `${traceId}-root`, name: 'agent', type: 'span', input: opts.input ?? 'in', output: opts.output ?? 'out' },
  });
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
