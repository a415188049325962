import { makeDataDir } from './data-dir.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../core/config.js';
import { createLogger } from '../../core/logger.js';
import { startService, type RunningService } from '../../runtime/service.js';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

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

export interface ChildService {
  child: ChildProcess;
  apiUrl: string;
  projectId: string;
  /** Everything the process wrote to stdout/stderr so far. */
  output(): string;
}

/** `agent-eval serve` as a separate OS process (for kill -9 and SIGTERM tests). */
export async function spawnService(dataDir: string, env: Record<string, string> = {}): Promise<ChildService> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'main.ts', 'serve'], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: '0', OTLP_GRPC_PORT: '0', OTLP_HTTP_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', AGENT_EVAL_DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-200_000)));
  child.stderr!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-200_000)));
  const ready = await new Promise<{ api: string; project_id: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start in time:\n${out}`)), 90_000);
    const onData = () => {
      // Only whole lines: a chunk may end in the middle of the ready line.
      for (const line of out.split('\n').slice(0, -1)) {
        if (!line.includes('agent-eval ready')) continue;
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        resolve(JSON.parse(line) as { api: string; project_id: string });
        return;
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code} before it was ready:\n${out}`));
    });
  });
  return { child, apiUrl: ready.api, projectId: ready.project_id, output: () => out };
}

export function waitForExit(child: ChildProcess, timeoutMs = 30_000): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('process did not exit in time')), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
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
  return { trace_id: traceId, name: opts.name ?? 'agent-run', status: opts.status ?? 'ok', duration_ms: 1000, start_time: new Date(start).toISOString(), spans };
}
