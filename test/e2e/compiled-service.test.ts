import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportVia, recordTrace } from './helpers/otel.js';
import { expectTraceStoredAsSent, loadCorpus, sentFromJson, sentFromRecorded, toSpanSpecs } from '../helpers/corpus.js';
import { buildDist, pollUntil, removeDir, REPO_ROOT, spawnServiceProcess, stopProcess, type ServiceProcess } from '../helpers/processes.js';
import { apiFetch, makeDataDir } from '../helpers/server.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { cachedCliPath } from '../../workflows/engine/temporal-release.js';
import { locateTemporalCli } from '../../workflows/engine/temporal-cli.js';

/**
 * The compiled service end to end (issue 27: production starts without a TypeScript loader):
 * `node <flags> dist/main.js serve`, as `npm start` and the container run it, no tsx in the
 * process. It applies the migrations and loads the OTLP protos from the package root (not from
 * dist/), stores a corpus trace sent as JSON and one sent over OTLP/HTTP protobuf and reads them
 * back as sent, and completes an evaluation run: the Temporal workflow bundle built from
 * dist/workflows/workflows.js (an empty cache dir, so it is built here) and the regex scorer on
 * the regex pool's worker thread from dist/core/safe-regex/worker.js. The compiled CLI runs a
 * TypeScript agent module locally (`run --local`), registering tsx's loader for it alone.
 */

const HOME_CACHE = process.env.AGENT_EVAL_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'agent-eval');

let service: ServiceProcess | undefined;
let agent: TestAgent | undefined;
let work: string;
const dataDir = makeDataDir('agent-eval-compiled-data-');
const corpus = loadCorpus();

beforeAll(async () => {
  // What `npm start` does first; a no-op when another test (or the last run) built the current sources.
  await buildDist();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-eval-compiled-'));
  // An empty cache dir but for the Temporal CLI global-setup prepared: the workflow bundle is built from dist/.
  const cacheDir = path.join(work, 'cache');
  const binary = locateTemporalCli({ cacheDir: HOME_CACHE }).path;
  if (!binary) throw new Error(`no temporal binary in ${HOME_CACHE}: run scripts/temporal.sh fetch once`);
  fs.mkdirSync(path.dirname(cachedCliPath(cacheDir)), { recursive: true });
  fs.symlinkSync(binary, cachedCliPath(cacheDir));

  agent = await startTestAgent((req) => ({ json: { output: `answer to ${String(req.body.input)}` } }));
  // No loader handed down either: NODE_OPTIONS could carry `--import tsx`.
  service = await spawnServiceProcess(dataDir, { AGENT_EVAL_CACHE_DIR: cacheDir, NODE_OPTIONS: '' }, 120_000, { entry: 'dist' });
}, 360_000);

afterAll(async () => {
  await stopProcess(service);
  await agent?.close();
  removeDir(dataDir);
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

const api = (p: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> => apiFetch(service!.apiUrl!, service!.projectId, p, init);

describe('the compiled service (dist/main.js)', () => {
  it('runs from dist/ with no TypeScript loader', () => {
    const pid = service!.child.pid!;
    const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    expect(argv.slice(1)).toEqual(['--max-semi-space-size=64', 'dist/main.js', 'serve']);
    const environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    expect(environ.filter((v) => v.startsWith('NODE_OPTIONS=') && v.includes('tsx'))).toEqual([]);
  });

  it('answers health: both stores migrated, the engine ready', async () => {
    let last = '';
    // Polled: a probe slower than its budget on a loaded machine reads degraded for a moment.
    const body = await pollUntil(
      'health to say healthy',
      async () => {
        const res = await api('/api/health');
        last = `${res.status} ${await res.clone().text()}`;
        const b = (await res.json()) as { status: string; services: Record<string, string> };
        return res.status === 200 && b.status === 'healthy' ? b : undefined;
      },
      { timeoutMs: 30_000, describe: () => last },
    );
    expect(body.services).toMatchObject({ analytical_store: 'ok', metadata_store: 'ok', workflow_engine: 'ok' });
  });

  it('stores a corpus trace sent as JSON and reads it back as sent', async () => {
    const t = corpus.json[0];
    const res = await api('/api/traces/ingest', { method: 'POST', json: t.body });
    expect(res.status, (await res.clone().text()).slice(0, 1000)).toBe(201);
    await expectTraceStoredAsSent(api, sentFromJson(t, 'ingest'));
  });

  it('stores a corpus trace sent over OTLP/HTTP protobuf (protos from the package root) and reads it back as sent', async () => {
    const t = corpus.otel[0];
    const rec = await recordTrace(t.resource, toSpanSpecs(t));
    await exportVia('http/protobuf', service!.otlpHttpUrl!, service!.projectId, rec.spans);
    const sent = sentFromRecorded(t, rec);
    await pollUntil('the OTLP trace to be readable', async () => ((await api(`/api/traces/${sent.trace_id}`)).status === 200 ? true : undefined), {
      timeoutMs: 15_000,
    });
    await expectTraceStoredAsSent(api, sent);
  });

  it('completes an evaluation run: the workflow bundle from dist/, the regex scorer on its worker thread', async () => {
    expect((await api('/api/agents', { method: 'POST', json: { name: 'compiled', endpoint: agent!.url } })).status).toBe(201);
    const created = await api('/api/runs', {
      method: 'POST',
      json: {
        agentId: 'compiled',
        dataset: {
          items: [
            { name: 'c1', input: 'q1', expected: { outputContains: ['q1'], regex: ['^answer to q\\d$'] } },
            { name: 'c2', input: 'q2', expected: { outputContains: ['q2'], regex: ['^answer to q\\d$', 'nowhere'] } },
          ],
        },
        scorers: ['contains', 'regex'],
      },
    });
    expect(created.status, await created.clone().text()).toBe(202);
    const runId = ((await created.json()) as { id: string }).id;
    const done = await pollUntil(
      'the run to complete',
      async () => {
        const run = (await (await api(`/api/runs/${runId}`)).json()) as { status: string; summary: { passed: number; failed: number } };
        return ['completed', 'failed', 'cancelled'].includes(run.status) ? run : undefined;
      },
      { timeoutMs: 120_000, describe: () => service!.output().slice(-3000) },
    );
    expect(done.status).toBe('completed');
    expect(agent!.requests.map((r) => r.body.input).sort()).toEqual(['q1', 'q2']);
    const { results } = (await (await api(`/api/runs/${runId}/results`)).json()) as {
      results: Array<{ case_name: string; status: string; scores: Record<string, number> }>;
    };
    const byName = Object.fromEntries(results.map((r) => [r.case_name, r]));
    expect(byName.c1).toMatchObject({ status: 'passed', scores: { contains: 1, regex: 1 } });
    expect(byName.c2.scores).toMatchObject({ contains: 1, regex: 0.5 });
    // Built here (the cache dir was empty), from the compiled workflow sources.
    expect(service!.output()).toContain('workflow bundle built');
    const bundles = fs.readdirSync(path.join(work, 'cache', 'workflow-bundles'));
    expect(bundles).toHaveLength(1);
    expect(fs.readFileSync(path.join(work, 'cache', 'workflow-bundles', bundles[0]), 'utf8')).toContain('dist/workflows/workflows.js');
  });

  it('runs a TypeScript agent module with `run --local` (the compiled CLI registers tsx for it)', () => {
    fs.writeFileSync(
      path.join(work, 'agent.ts'),
      'interface Input { answer: string }\nexport function answer(input: Input): string { return input.answer; }\n',
    );
    fs.writeFileSync(
      path.join(work, 'local.yaml'),
      'name: local-ts\nscorers: [contains]\ncases:\n  - {name: hi, input: {answer: hello}, expected: {outputContains: [hello]}}\n',
    );
    const out = execFileSync(
      process.execPath,
      [path.join(REPO_ROOT, 'dist', 'main.js'), 'run', 'local.yaml', '--local', '--agent', 'agent.ts:answer', '--json'],
      {
        cwd: work,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          PATH: process.env.PATH,
          HOME: work,
          AGENT_EVAL_URL: service!.apiUrl!,
          AGENT_EVAL_PROJECT: service!.projectId,
          AGENT_EVAL_CONFIG: path.join(work, 'no-config.json'),
        },
        timeout: 120_000,
      },
    );
    expect(JSON.parse(out)).toMatchObject({ passed: true, run: { status: 'completed', execution: 'local', suite_name: 'local-ts' } });
  });
});
