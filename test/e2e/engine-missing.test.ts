import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, spawnServiceProcess, stopProcess, type ServiceProcess } from '../helpers/processes.js';
import { apiFetch, makeDataDir } from '../helpers/server.js';
import { expectTracingWorks } from './helpers/tracing-works.js';
import { SERVICE_NODE_FLAGS } from '../../runtime/node-flags.js';

/**
 * No way to provide the workflow engine (issue 27): the release download fails (the mirror
 * answers 404) and there is no Go. Tracing works; health names the engine unavailable with how to
 * fix it; run routes answer 503 saying exactly how to provide it; `agent-eval doctor` says the same.
 */

let service: ServiceProcess | undefined;
let mirror: http.Server | undefined;
let work: string;
let env: Record<string, string>;

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-eval-engine-missing-'));
  mirror = http.createServer((_req, res) => res.writeHead(404).end());
  await new Promise<void>((resolve) => mirror!.listen(0, '127.0.0.1', () => resolve()));
  fs.mkdirSync(path.join(work, 'cache'));
  env = {
    AGENT_EVAL_CACHE_DIR: path.join(work, 'cache'),
    TEMPORAL_CLI_DOWNLOAD_URL: `http://127.0.0.1:${(mirror.address() as AddressInfo).port}`,
    PATH: (process.env.PATH ?? '')
      .split(path.delimiter)
      .filter((dir) => !fs.existsSync(path.join(dir, 'temporal')) && !fs.existsSync(path.join(dir, 'go')))
      .join(path.delimiter),
  };
  service = await spawnServiceProcess(makeDataDir('agent-eval-engine-missing-data-'), env);
});

afterAll(async () => {
  await stopProcess(service);
  await new Promise((resolve) => mirror?.close(resolve));
  fs.rmSync(work, { recursive: true, force: true });
});

const api = (p: string, init: RequestInit & { json?: unknown } = {}) => apiFetch(service!.apiUrl!, service!.projectId, p, init);

describe('no Temporal CLI, no download, no Go', () => {
  it('keeps tracing working', async () => {
    await expectTracingWorks(api);
  });

  it('reports the engine unavailable in health, degraded, with how to fix it', async () => {
    const body = (await (await api('/api/health')).json()) as { status: string; services: Record<string, string>; reasons: Record<string, string> };
    expect(body).toMatchObject({ status: 'degraded', services: { workflow_engine: 'unavailable', analytical_store: 'ok', metadata_store: 'ok' } });
    expect(body.reasons.workflow_engine).toMatch(/answered 404/);
    expect(body.reasons.workflow_engine).toMatch(/Go is not installed/);
    expect(body.reasons.workflow_engine).toMatch(/TEMPORAL_CLI_PATH.*TEMPORAL_ADDRESS.*Go/);
  });

  it('answers run routes 503 saying exactly how to provide the engine', async () => {
    expect((await api('/api/agents', { method: 'POST', json: { name: 'a', endpoint: 'http://127.0.0.1:1/agent' } })).status).toBe(201);
    const res = await api('/api/runs', { method: 'POST', json: { agentId: 'a', dataset: { items: [{ input: 'x' }] }, scorers: ['contains'] } });
    expect(res.status).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = (await res.json()) as { error: string; details: string };
    expect(body.error).toBe('Workflow engine service unavailable');
    expect(body.details).toMatch(/^The workflow engine is not available: no Temporal CLI/);
    expect(body.details).toContain('set TEMPORAL_CLI_PATH to a temporal v1.5.1 binary');
    expect(body.details).toContain('or TEMPORAL_ADDRESS to a running Temporal server');
    expect(body.details).toContain('install Go');
  });

  it('agent-eval doctor says the engine is missing and how to fix it, and reads the service health', () => {
    const out = spawnSync(process.execPath, [...SERVICE_NODE_FLAGS, '--import', 'tsx', 'main.ts', 'doctor'], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        ...env,
        TEMPORAL_CLI_DOWNLOAD_URL: 'none',
        AGENT_EVAL_DATA_DIR: service!.dataDir,
        AGENT_EVAL_URL: service!.apiUrl!,
        NO_COLOR: '1',
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(out.status, out.stderr).toBe(1);
    expect(out.stdout).toMatch(/^ready\s+data dir: /m);
    expect(out.stdout).toMatch(/^missing\s+workflow engine: Temporal CLI not installed/m);
    expect(out.stdout).toMatch(/fix: set TEMPORAL_CLI_PATH/);
    expect(out.stdout).toMatch(/^missing\s+running service: .* is degraded .*workflow_engine unavailable/m);
    expect(out.stderr).toBe('');
  });
});
