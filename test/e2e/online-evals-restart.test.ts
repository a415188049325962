import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OnlineEvaluationList, OnlineRule } from '../../core/model/online-rule.js';
import { isSampled } from '../../core/online/sampling.js';
import type { Score } from '../../core/model/score.js';
import { eventually } from '../helpers/eventually.js';
import { exited, removeDir, spawnServiceProcess, stopProcess, type ServiceProcess } from '../helpers/processes.js';
import { apiFetch, makeDataDir } from '../helpers/server.js';

// The service as its own OS process, killed with SIGKILL and stopped with SIGTERM while an online
// rule is scoring, then started again on the same data dir. A slow HTTP custom scorer in this
// process counts the calls per trace, so the test sees what was scored how often.

let current: ServiceProcess | undefined;
const dataDir = makeDataDir('agent-eval-online-restart-');
const calls = new Map<string, number>();
let scorer: http.Server;
let scorerUrl: string;

/** Answers each scoring after 60 ms with 1, counting the calls per trace id. */
beforeAll(async () => {
  scorer = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { trace?: { trace_id?: string } };
      const traceId = body.trace?.trace_id ?? '?';
      calls.set(traceId, (calls.get(traceId) ?? 0) + 1);
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ value: 1, reason: 'fine' }));
      }, 60);
    });
  });
  await new Promise<void>((resolve) => scorer.listen(0, '127.0.0.1', () => resolve()));
  scorerUrl = `http://127.0.0.1:${(scorer.address() as AddressInfo).port}/score`;
});

afterAll(async () => {
  await stopProcess(current);
  await new Promise<void>((resolve) => {
    scorer.closeAllConnections();
    scorer.close(() => resolve());
  });
  removeDir(dataDir);
});

const ENV = { ONLINE_EVAL_TICK_MS: '200', ONLINE_EVAL_LEASE_MS: '2000', ONLINE_EVAL_CONCURRENCY: '4' };

async function start(): Promise<ServiceProcess> {
  current = await spawnServiceProcess(dataDir, ENV);
  return current;
}

async function api<T>(svc: ServiceProcess, path: string, init: RequestInit & { json?: unknown } = {}, status = 200): Promise<T> {
  const res = await apiFetch(svc.apiUrl!, svc.projectId, path, init);
  const text = await res.text();
  expect(res.status, `${path}: ${text}`).toBe(status);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Traces ending now, sent as they end. */
async function ingest(svc: ServiceProcess, ids: string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 25) {
    await Promise.all(
      ids.slice(i, i + 25).map((id) => {
        const end = Date.now();
        const iso = (ms: number) => new Date(ms).toISOString();
        const body = {
          trace_id: id,
          name: 'prod',
          status: 'ok',
          duration_ms: 300,
          start_time: iso(end - 300),
          spans: [{ span_id: 'root', name: 'agent', type: 'span', start_time: iso(end - 300), end_time: iso(end), input: 'q', output: 'the answer is ok' }],
        };
        return api(svc, '/api/traces/ingest', { method: 'POST', json: body }, 201);
      }),
    );
  }
}

const scoredSoFar = (ids: string[]) => ids.filter((id) => calls.has(id)).length;

describe('online evaluation across restarts of the worker', () => {
  it('scores every sampled trace, none twice, through a kill -9 and a SIGTERM mid-way', async () => {
    let svc = await start();
    await api(svc, '/api/scorers', { method: 'POST', json: { name: 'slow_check', endpoint: scorerUrl, dataType: 'numeric' } }, 201);
    const wave1 = Array.from({ length: 300 }, (_, i) => `restart-a-${i}`);
    await ingest(svc, wave1);
    const rule = await api<OnlineRule>(
      svc,
      '/api/evals/online-rules',
      {
        method: 'POST',
        json: {
          name: 'survivor',
          sample_rate: 0.5,
          scorers: ['slow_check', 'contains'],
          expected: { outputContains: ['ok'] },
          delay_seconds: 2,
          since: new Date(Date.now() - 3600_000).toISOString(),
        },
      },
      201,
    );
    const sampled1 = wave1.filter((id) => isSampled(rule.id, id, 0.5));

    // Crash while about a third of the first wave is scored.
    await eventually(() => expect(scoredSoFar(sampled1)).toBeGreaterThanOrEqual(sampled1.length / 3), 120_000);
    svc.child.kill('SIGKILL');
    await exited(svc.child);
    const atCrash = scoredSoFar(sampled1);
    expect(atCrash).toBeLessThan(sampled1.length);

    // The next process picks the rule up where the first left it; a second wave arrives meanwhile.
    svc = await start();
    const wave2 = Array.from({ length: 100 }, (_, i) => `restart-b-${i}`);
    await ingest(svc, wave2);
    const sampled2 = wave2.filter((id) => isSampled(rule.id, id, 0.5));
    const all = [...sampled1, ...sampled2];
    await eventually(() => expect(scoredSoFar(all)).toBeGreaterThanOrEqual(atCrash + (all.length - atCrash) / 3), 120_000);
    // A graceful stop mid-way: what is under way finishes or is handed back.
    svc.child.kill('SIGTERM');
    expect(await exited(svc.child, 60_000)).toEqual({ code: 0, signal: null });

    svc = await start();
    const final = await eventually(async () => {
      const r = await api<OnlineRule>(svc, `/api/evals/online-rules/${rule.id}`);
      expect(r.stats.scored + r.stats.skipped_by_sampling).toBeGreaterThanOrEqual(wave1.length + wave2.length);
      expect(r.stats.pending).toBe(0);
      return r;
    }, 120_000);

    // Counted once each, exactly the decision function's traces.
    expect(final.stats).toMatchObject({ scored: all.length, errors: 0, lag_seconds: 0 });
    expect(final.stats.skipped_by_sampling).toBe(wave1.length + wave2.length - all.length);
    const evaluations = await api<OnlineEvaluationList>(svc, `/api/evals/online-rules/${rule.id}/evaluations?limit=1000`);
    expect(evaluations.total).toBe(all.length);
    expect(evaluations.evaluations.map((e) => e.trace_id).sort()).toEqual([...all].sort());
    expect(evaluations.evaluations.filter((e) => e.status !== 'done')).toEqual([]);

    // The scorer saw every sampled trace and no other; only evaluations cut short by the crash
    // were scored again (their scores have the same ids, so each trace has one score per scorer).
    expect([...calls.keys()].sort()).toEqual([...all].sort());
    const again = [...calls].filter(([, n]) => n > 1);
    expect(again.every(([, n]) => n === 2)).toBe(true);
    expect(again.length).toBeLessThanOrEqual(20);
    for (const id of all) {
      const { scores } = await api<{ scores: Score[] }>(svc, `/api/scores?trace_id=${id}`);
      expect(scores.map((s) => s.name).sort(), id).toEqual(['contains', 'slow_check']);
      expect(scores.every((s) => s.value === 1 && s.source === 'eval')).toBe(true);
    }
  }, 600_000);
});
