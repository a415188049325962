import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { recordTrace, type RecordedTrace } from '../e2e/helpers/otel.js';
import { exportSpans } from '../fixtures/otlp/sdk.js';
import { expectTraceStoredAsSent, loadCorpus, readWholeTrace, sentFromJson, sentFromRecorded, toSpanSpecs, type SentTrace } from '../helpers/corpus.js';
import { readApiKey } from '../helpers/credentials.js';
import { REPO_ROOT, removeDir, spawnServiceProcess, stopProcess, type ServiceProcess } from '../helpers/processes.js';
import { apiFetch, makeDataDir } from '../helpers/server.js';

/**
 * Backup and restore of an embedded install (docs/operations.md, "Backup and restore"), as a user
 * does it: a service runs on a data dir with traces of every convention, scores, an agent, a
 * suite, a second project and keys; `agent-eval backup --out FILE` takes the backup while traces
 * keep arriving; the service stops, the data dir is wiped, `agent-eval restore FILE` fills it, the
 * service starts on it, and everything reads back as before (span texts byte for byte) and the
 * old keys still authenticate. Writes racing the backup are in it whole or not at all.
 */

const dataDir = makeDataDir('agent-eval-backup-');
const outDir = makeDataDir('agent-eval-backup-out-');
const archive = path.join(outDir, 'backup.tar.gz');
const corpus = loadCorpus();
const OTHER = 'backup-other';
let svc: ServiceProcess | undefined;
let adminKey: string;
let otherKey: string;
let memberKey: string;
let runId: string;
const sent: SentTrace[] = [];

const serviceEnv = { AUTH_MODE: 'required' };

function cli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'main.ts', ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, AGENT_EVAL_CONFIG: path.join(outDir, 'no-config.json'), NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

const api = (pathname: string, init: Parameters<typeof apiFetch>[3] & { project?: string | null } = {}) =>
  apiFetch(svc!.apiUrl!, init.project === undefined ? svc!.projectId : init.project, pathname, { key: adminKey, ...init });

async function json<T = Record<string, unknown>>(res: Response, status = 200): Promise<T> {
  const text = await res.text();
  expect(res.status, text.slice(0, 500)).toBe(status);
  return JSON.parse(text) as T;
}

/** What a user reads of the install, apart from the traces read whole: lists, scores, keys. */
async function snapshotViews(): Promise<Record<string, unknown>> {
  const traces = await json<{ traces: Array<{ trace_id: string }> }>(await api('/api/traces?limit=1000'));
  const scores: Record<string, unknown> = {};
  for (const t of sent) scores[t.trace_id] = (await json<{ scores: unknown[] }>(await api(`/api/scores?trace_id=${encodeURIComponent(t.trace_id)}`))).scores;
  const withoutLastUse = (keys: Array<Record<string, unknown>>) => keys.map(({ last_used_at: _, ...k }) => k);
  return {
    traces: traces.traces.filter((t) => !t.trace_id.startsWith('during-')),
    scores,
    agents: await json(await api('/api/agents')),
    run: await json(await api(`/api/runs/${runId}`)),
    runResults: await json(await api(`/api/runs/${runId}/results`)),
    suites: await json(await api('/api/suites')),
    projects: await json(await api('/api/projects', { project: null })),
    keys: withoutLastUse((await json<{ keys: Array<Record<string, unknown>> }>(await api(`/api/projects/${svc!.projectId}/keys`))).keys),
    otherKeys: withoutLastUse(
      (await json<{ keys: Array<Record<string, unknown>> }>(await api(`/api/projects/${OTHER}/keys`, { project: OTHER, key: otherKey }))).keys,
    ),
    otherTraces: await json(await api('/api/traces?limit=100', { project: OTHER, key: otherKey })),
  };
}

async function duringTrace(i: number): Promise<number> {
  const start = Date.now() - 5_000;
  const spans = Array.from({ length: 5 }, (_, s) => ({
    span_id: `during-${i}-${s}`,
    parent_span_id: s === 0 ? undefined : `during-${i}-0`,
    name: s === 0 ? 'agent' : `step ${s}`,
    type: 'span',
    start_time: new Date(start + s).toISOString(),
    end_time: new Date(start + s + 100).toISOString(),
  }));
  const res = await api('/api/traces/ingest', {
    method: 'POST',
    json: { trace_id: `during-${i}`, name: `during ${i}`, status: 'ok', duration_ms: 105, spans },
  });
  const text = await res.text();
  if (res.status !== 201) duringErrors.push(text.slice(0, 300));
  return res.status;
}

let before: Record<string, unknown>;
/** How many during-N traces were sent while the backup ran. */
let duringSent = 0;
const duringErrors: string[] = [];
const recorded = new Map<string, RecordedTrace>();

beforeAll(async () => {
  svc = await spawnServiceProcess(dataDir, serviceEnv, 120_000, { waitForEngine: false });
  adminKey = readApiKey(dataDir)!;
  for (const t of corpus.otel) recorded.set(t.name, await recordTrace(t.resource, toSpanSpecs(t)));
}, 180_000);

afterAll(async () => {
  await stopProcess(svc);
  removeDir(dataDir);
  removeDir(outDir);
});

describe('agent-eval backup and restore of an embedded install', () => {
  it('stores traces of every convention, scores, an agent, a suite, a run, a second project and keys', async () => {
    for (const t of corpus.json) {
      await json(await api('/api/traces/ingest', { method: 'POST', json: t.body }), 201);
      sent.push(sentFromJson(t, 'ingest'));
    }
    for (const t of corpus.otel) {
      const rec = recorded.get(t.name)!;
      const exporter = new ProtoExporter({ url: `${svc!.otlpHttpUrl}/v1/traces`, headers: { 'x-api-key': adminKey }, timeoutMillis: 30_000 });
      const result = await exportSpans(exporter, rec.spans);
      await exporter.shutdown();
      expect(result.error?.message ?? '', t.name).toBe('');
      sent.push(sentFromRecorded(t, rec));
    }
    for (const t of sent) await expectTraceStoredAsSent((p) => api(p), t);
    for (const [i, t] of sent.entries()) {
      await json(
        await api('/api/scores', {
          method: 'POST',
          json: { trace_id: t.trace_id, name: 'helpfulness', value: (i + 1) / 10, reason: `reason ${i}: ünïcode ✓\nsecond line`, source: 'annotation' },
        }),
        201,
      );
    }
    await json(
      await api('/api/agents', {
        method: 'POST',
        json: { name: 'weather-bot', endpoint: 'http://127.0.0.1:8931/agent', headers: { Authorization: 'Bearer sk-test' } },
      }),
      201,
    );
    await json(
      await api('/api/suites', {
        method: 'POST',
        json: {
          name: 'weather',
          agent_id: 'weather-bot',
          defaultScorers: ['contains'],
          cases: [{ name: 'paris', input: { city: 'Paris' }, expected: { outputContains: ['sunny'] } }],
        },
      }),
      201,
    );
    // A run executed by its client (no workflow engine needed), its results and summary.
    const run = await json<{ id: string }>(
      await api('/api/runs', {
        method: 'POST',
        json: {
          execution: 'local',
          agentId: 'weather-bot',
          agentVersion: 'v1',
          dataset: {
            items: [
              { name: 'paris', input: { city: 'Paris' }, expected: { outputContains: ['sunny'] } },
              { name: 'oslo', input: { city: 'Oslo' }, expected: { outputContains: ['snow'] } },
            ],
          },
          scorers: ['contains'],
        },
      }),
      201,
    );
    runId = run.id;
    await json(
      await api(`/api/runs/${runId}/results`, {
        method: 'POST',
        json: {
          results: [
            { case_index: 0, output: 'sunny in Paris ☀', details: { contains: { score: 1, reason: 'found sunny', evidence: ['sunny'] } }, duration_ms: 120 },
            { case_index: 1, output: 'rain in Oslo', details: { contains: { score: 0, reason: 'snow missing', evidence: [] } }, duration_ms: 95 },
          ],
        },
      }),
    );
    await json(await api(`/api/runs/${runId}/complete`, { method: 'POST', json: {} }));
    const created = await json<{ api_key: { key: string } }>(
      await api('/api/projects', { method: 'POST', project: null, json: { id: OTHER, name: 'Other team' } }),
      201,
    );
    otherKey = created.api_key.key;
    memberKey = (await json<{ key: string }>(await api(`/api/projects/${svc!.projectId}/keys`, { method: 'POST', json: { name: 'ci', role: 'member' } }), 201))
      .key;
    await json(
      await api('/api/traces/ingest', { method: 'POST', project: OTHER, key: otherKey, json: { ...corpus.json[0].body, trace_id: 'other-team-trace' } }),
      201,
    );
    before = await snapshotViews();
    expect((before.traces as unknown[]).length).toBe(sent.length);
    expect((before.run as { status: string }).status).toBe('completed');
    expect((before.runResults as { results: unknown[] }).results).toHaveLength(2);
  }, 120_000);

  it('backs up while the service runs and traces keep arriving', async () => {
    let stop = false;
    const statuses: number[] = [];
    const writer = (async () => {
      for (let i = 0; !stop; i++) statuses.push(await duringTrace(i));
    })();
    await new Promise((r) => setTimeout(r, 300));
    const result = await cli(['backup', '--out', archive], { AGENT_EVAL_URL: svc!.apiUrl!, AGENT_EVAL_API_KEY: adminKey });
    await new Promise((r) => setTimeout(r, 300));
    stop = true;
    await writer;
    duringSent = statuses.length;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Backed up to .*backup\.tar\.gz \(\d+ bytes\), as of \d{4}-/);
    expect(fs.statSync(archive).mode & 0o777).toBe(0o600);
    // Writes were held for the snapshot, not refused.
    expect(statuses.length).toBeGreaterThan(2);
    expect(duringErrors.slice(0, 3)).toEqual([]);
    expect(statuses.filter((s) => s !== 201)).toEqual([]);
    // A member key is not a server admin's: it cannot take the install's data away.
    const refused = await cli(['backup', '--out', path.join(outDir, 'member.tar.gz')], { AGENT_EVAL_URL: svc!.apiUrl!, AGENT_EVAL_API_KEY: memberKey });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Backup failed: 403');
    expect(fs.existsSync(path.join(outDir, 'member.tar.gz'))).toBe(false);
  }, 180_000);

  it('refuses to restore onto a running service, or into a data dir that is not empty', async () => {
    const running = await cli(['restore', archive, '--force'], { AGENT_EVAL_DATA_DIR: dataDir });
    expect(running.code, `${running.stdout}${running.stderr}${svc!.output().slice(-3000)}`).toBe(1);
    expect(running.stderr).toMatch(/a service is running on .*: stop it before restoring/);
    await stopProcess(svc);
    svc = undefined;
    const notEmpty = await cli(['restore', archive], { AGENT_EVAL_DATA_DIR: dataDir });
    expect(notEmpty.code).toBe(1);
    expect(notEmpty.stderr).toContain('is not empty');
  }, 120_000);

  it('restores into the wiped data dir: every trace, score, run, project and key is back', async () => {
    for (const entry of fs.readdirSync(dataDir)) fs.rmSync(path.join(dataDir, entry), { recursive: true, force: true });
    const restored = await cli(['restore', archive], { AGENT_EVAL_DATA_DIR: dataDir });
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    expect(restored.stdout).toContain('Restored the backup of');
    svc = await spawnServiceProcess(dataDir, serviceEnv, 120_000, { waitForEngine: false });
    // The same key file, and the old keys authenticate.
    expect(readApiKey(dataDir)).toBe(adminKey);
    for (const t of sent) await expectTraceStoredAsSent((p) => api(p), t);
    expect(await snapshotViews()).toEqual(before);
    const asMember = await apiFetch(svc.apiUrl!, svc.projectId, '/api/traces?limit=1', { key: memberKey });
    expect(asMember.status).toBe(200);
    const wrong = await apiFetch(svc.apiUrl!, svc.projectId, '/api/traces?limit=1', { key: `${memberKey.slice(0, -4)}xxxx` });
    expect(wrong.status).toBe(401);
  }, 240_000);

  it('has each trace written during the backup whole or not at all', async () => {
    const list = await json<{ traces: Array<{ trace_id: string; span_count: number }> }>(await api('/api/traces?limit=1000'));
    const listed = new Map(list.traces.filter((t) => t.trace_id.startsWith('during-')).map((t) => [t.trace_id, t.span_count]));
    // The writer ran before the backup started: some are in it.
    expect(listed.size).toBeGreaterThan(0);
    for (let i = 0; i < duringSent; i++) {
      const id = `during-${i}`;
      const whole = await readWholeTrace((p) => api(p), id, 100);
      if (!listed.has(id)) {
        expect(whole, `${id}: its spans are back, its summary is not`).toBeUndefined();
        continue;
      }
      expect(listed.get(id), id).toBe(5);
      expect(whole?.spans.length, id).toBe(5);
      expect(whole?.detail.span_count, id).toBe(5);
    }
  }, 120_000);
});
