import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiOnStores } from '../helpers/api-on-stores.js';
import { silentServer } from '../helpers/hang.js';
import { apiFetch, startTestService, type TestService } from '../helpers/server.js';
import { servicePostgresUrl } from '../helpers/service-postgres.js';

/**
 * A feedback and its scores are stored together or not at all (docs/feedback.md, "Feedback
 * becomes scores"). A second API over the service's PostgreSQL whose ClickHouse is down (or
 * hangs) takes the POST; the service itself then shows what was stored.
 */

let svc: TestService;

beforeAll(async () => {
  // The API role alone: feedback needs no workflow engine. No keys: both APIs are the same caller.
  svc = await startTestService({ AGENT_EVAL_ROLES: 'api', TEMPORAL_ADDRESS: '127.0.0.1:1', AUTH_MODE: 'none' });
});
afterAll(async () => {
  await svc?.stop();
});

async function stored(traceId: string): Promise<{ feedback: number; scores: number }> {
  const list = (await (await svc.api(`/api/feedback?trace_id=${traceId}`)).json()) as { total: number };
  const scores = (await (await svc.api(`/api/scores?trace_id=${traceId}`)).json()) as { scores: unknown[] };
  return { feedback: list.total, scores: scores.scores.length };
}

async function withBrokenAnalytics<T>(clickhouseUrl: string, timeoutMs: number, fn: (base: string) => Promise<T>): Promise<T> {
  const api = await startApiOnStores({ clickhouseUrl, postgresUrl: servicePostgresUrl(svc.dataDir), clickhouseTimeoutMs: timeoutMs });
  try {
    return await fn(api.base);
  } finally {
    await api.close();
  }
}

describe('POST /api/feedback when the analytical store fails', () => {
  it('stores nothing when ClickHouse is down (503), and a retry stores the feedback with its score once', async () => {
    const body = { type: 'rating', trace_id: 'fb-atomic-down', value: 0.9, comment: 'good' };
    await withBrokenAnalytics('http://127.0.0.1:9', 1000, async (base) => {
      const res = await apiFetch(base, svc.defaultProjectId, '/api/feedback', { method: 'POST', json: body });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBeTruthy();
      expect(((await res.json()) as { error: string }).error).toBe('Analytical store service unavailable');
    });
    expect(await stored('fb-atomic-down')).toEqual({ feedback: 0, scores: 0 });

    const retry = await svc.api('/api/feedback', { method: 'POST', json: body });
    expect(retry.status).toBe(201);
    const feedback = (await retry.json()) as { id: string; score_ids: string[] };
    expect(await stored('fb-atomic-down')).toEqual({ feedback: 1, scores: 1 });
    const [score] = ((await (await svc.api('/api/scores?trace_id=fb-atomic-down')).json()) as { scores: Array<{ id: string; evidence: string[] }> }).scores;
    expect(score).toMatchObject({ id: feedback.score_ids[0], evidence: [`feedback:${feedback.id}`] });
  });

  it('stores nothing when ClickHouse hangs past its timeout, and the key of the failed request is free for the retry', async () => {
    const hung = await silentServer();
    const body = { type: 'correction', trace_id: 'fb-atomic-hung', original: 'Paris is in Spain', corrected: 'Paris is in France' };
    const headers = { 'idempotency-key': 'fb-atomic-key' };
    try {
      await withBrokenAnalytics(`http://${hung.address}`, 1500, async (base) => {
        const res = await apiFetch(base, svc.defaultProjectId, '/api/feedback', { method: 'POST', json: body, headers });
        expect(res.status).toBe(503);
      });
    } finally {
      await hung.close();
    }
    expect(await stored('fb-atomic-hung')).toEqual({ feedback: 0, scores: 0 });

    const retry = await svc.api('/api/feedback', { method: 'POST', json: body, headers });
    const text = await retry.text();
    expect(retry.status, text).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    const again = await svc.api('/api/feedback', { method: 'POST', json: body, headers });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(text);
    expect(await stored('fb-atomic-hung')).toEqual({ feedback: 1, scores: 1 });
  });
});
