import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distCurrent, pollUntil, spawnServiceProcess, stopProcess, type ServiceProcess } from '../helpers/processes.js';
import { apiFetch, makeDataDir } from '../helpers/server.js';
import { expectTracingWorks } from './helpers/tracing-works.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { cachedCliPath, releasePlatform, TEMPORAL_CLI_VERSION } from '../../workflows/engine/temporal-release.js';
import { locateTemporalCli } from '../../workflows/engine/temporal-cli.js';

/**
 * The first start on a fresh machine (issue 27): an empty cache dir, no Temporal CLI anywhere, the
 * pinned release served by a local server standing in for GitHub (an archive this test builds from
 * a real `temporal` binary, with its SHA-256). The API answers within seconds, ingest works, runs
 * answer 503 saying the engine is starting while the download is held back; once released, the
 * archive is verified, the engine starts and a run completes.
 */

const HOME_CACHE = process.env.AGENT_EVAL_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'agent-eval');

let service: ServiceProcess | undefined;
let agent: TestAgent | undefined;
let releaseServer: http.Server | undefined;
let work: string;
const requested: string[] = [];
let release!: () => void;
const held = new Promise<void>((resolve) => (release = resolve));

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-eval-first-start-'));
  // A real binary to serve: the one this machine's cache holds (built once by scripts/temporal.sh).
  const binary = locateTemporalCli({ cacheDir: HOME_CACHE }).path;
  if (!binary) throw new Error(`no temporal binary in ${HOME_CACHE} to build the release archive from: run scripts/temporal.sh fetch once`);
  const platform = releasePlatform()!;
  const version = TEMPORAL_CLI_VERSION.slice(1);
  const archiveDir = path.join(work, 'releases', TEMPORAL_CLI_VERSION);
  fs.mkdirSync(archiveDir, { recursive: true });
  const archive = path.join(archiveDir, `temporal_cli_${version}_${platform}.tar.gz`);
  // Goreleaser's layout: the binary at the archive's root.
  execFileSync('bash', ['-c', `tar -cf - -C "${path.dirname(binary)}" "${path.basename(binary)}" | gzip -1 > "${archive}"`]);
  const sha256 = crypto.createHash('sha256').update(fs.readFileSync(archive)).digest('hex');

  releaseServer = http.createServer((req, res) => {
    requested.push(req.url ?? '');
    const file = path.join(work, 'releases', decodeURIComponent(req.url ?? '/'));
    if (!file.startsWith(path.join(work, 'releases')) || !fs.existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    // Held until the test has seen the service while the engine is starting.
    void held.then(() => {
      res.writeHead(200, { 'content-length': String(fs.statSync(file).size) });
      fs.createReadStream(file).pipe(res);
    });
  });
  await new Promise<void>((resolve) => releaseServer!.listen(0, '127.0.0.1', () => resolve()));
  const base = `http://127.0.0.1:${(releaseServer.address() as AddressInfo).port}/`;

  agent = await startTestAgent((req) => ({ json: { output: `answer to ${String(req.body.input)}` } }));
  const cacheDir = path.join(work, 'empty-cache');
  fs.mkdirSync(cacheDir);
  // The start is timed: the compiled service is built (when stale) before.
  await distCurrent();
  const started = Date.now();
  service = await spawnServiceProcess(
    makeDataDir('agent-eval-first-start-data-'),
    {
      AGENT_EVAL_CACHE_DIR: cacheDir,
      TEMPORAL_CLI_DOWNLOAD_URL: base,
      TEMPORAL_CLI_SHA256: sha256,
      // No temporal and no Go on PATH: only the download can provide the CLI (and a failed
      // download never falls back to a real 10-minute Go build here).
      PATH: (process.env.PATH ?? '')
        .split(path.delimiter)
        .filter((dir) => !fs.existsSync(path.join(dir, 'temporal')) && !fs.existsSync(path.join(dir, 'go')))
        .join(path.delimiter),
    },
    60_000,
    { waitForEngine: false, freshPostgres: true },
  );
  startedWithinMs = Date.now() - started;
}, 300_000);

let startedWithinMs = Infinity;

afterAll(async () => {
  release();
  await stopProcess(service);
  await agent?.close();
  await new Promise((resolve) => releaseServer?.close(resolve));
  fs.rmSync(work, { recursive: true, force: true });
});

const api = (p: string, init: RequestInit & { json?: unknown } = {}) => apiFetch(service!.apiUrl!, service!.projectId, p, init);
const runBody = { agentId: 'first', dataset: { items: [{ name: 'c1', input: 'q1', expected: { outputContains: ['q1'] } }] }, scorers: ['contains'] };

describe('first start with an empty cache dir', () => {
  it('answers health within 15 s, degraded with the engine starting and why', async () => {
    expect(startedWithinMs).toBeLessThan(15_000);
    const res = await api('/api/health');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; services: Record<string, string>; reasons: Record<string, string> };
    expect(body).toMatchObject({ status: 'degraded', services: { analytical_store: 'ok', metadata_store: 'ok', workflow_engine: 'starting' } });
    expect(body.reasons.workflow_engine).toMatch(/starting: downloading the Temporal CLI v1\.5\.1/);
    expect(service!.output()).toContain('downloading the Temporal CLI');
  });

  it('ingests traces while the engine is starting', async () => {
    await expectTracingWorks(api);
  });

  it('answers run routes 503 with Retry-After and a message saying the engine is starting', async () => {
    expect((await api('/api/agents', { method: 'POST', json: { name: 'first', endpoint: agent!.url } })).status).toBe(201);
    const res = await api('/api/runs', { method: 'POST', json: runBody });
    expect(res.status).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = (await res.json()) as { error: string; details: string; status: number };
    expect(body).toMatchObject({ error: 'Workflow engine service unavailable', status: 503 });
    expect(body.details).toMatch(/workflow engine is starting \(downloading the Temporal CLI/);
    // Nothing stored for the refused run.
    expect(((await (await api('/api/runs')).json()) as { total: number }).total).toBe(0);
  });

  it('downloads the pinned release once released, verifies it, and then runs work', async () => {
    release();
    await pollUntil(
      'the engine to be ready',
      async () => {
        const body = (await (await api('/api/health')).json()) as { status: string; services: Record<string, string> };
        return body.services.workflow_engine === 'ok' && body.status === 'healthy' ? body : undefined;
      },
      { timeoutMs: 120_000, describe: () => service!.output().slice(-3000) },
    );
    expect(requested).toEqual([`/${TEMPORAL_CLI_VERSION}/temporal_cli_${TEMPORAL_CLI_VERSION.slice(1)}_${releasePlatform()}.tar.gz`]);
    expect(service!.output()).toContain('Temporal CLI downloaded and its SHA-256 verified');
    expect(service!.output()).toContain('workflow engine ready');
    // Installed where the next start finds it (the cache dir), not downloaded again.
    expect(fs.existsSync(cachedCliPath(path.join(work, 'empty-cache')))).toBe(true);

    const created = await api('/api/runs', { method: 'POST', json: runBody });
    expect(created.status, await created.clone().text()).toBe(202);
    const runId = ((await created.json()) as { id: string }).id;
    const done = await pollUntil(
      'the run to complete',
      async () => {
        const run = (await (await api(`/api/runs/${runId}`)).json()) as { status: string; summary: { passed: number } };
        return run.status === 'completed' ? run : undefined;
      },
      { timeoutMs: 90_000 },
    );
    expect(done.summary.passed).toBe(1);
  });
});
