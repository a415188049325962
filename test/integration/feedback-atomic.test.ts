import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiOnStores } from '../helpers/api-on-stores.js';
import { silentServer } from '../helpers/hang.js';
import { apiFetch, startTestApi, type TestApi } from '../helpers/server.js';
import { servicePostgresUrl } from '../helpers/service-postgres.js';
import { texts } from '../fixtures/corpus/texts.js';

/**
 * A feedback and its scores are stored together or not at all (docs/feedback.md, "Feedback
 * becomes scores"). A second API over the service's PostgreSQL whose ClickHouse is down (or
 * hangs) takes the POST; the service itself then shows what was stored.
 */

let svc: TestApi;

beforeAll(async () => {
  // The API role alone: feedback needs no workflow engine. No keys: both APIs are the same caller.
  svc = await startTestApi({ AUTH_MODE: 'none' });
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

describe("a comparison's answer and a queue item's completion when the analytical store fails", () => {
  it('an answer stores nothing while ClickHouse is down (the comparison stays pending); the retry records the preference and its scores once', async () => {
    // Two real answers of a support agent: multi-paragraph markdown, CRLF question, Hebrew policy text.
    const created = await svc.api('/api/feedback/comparisons', {
      method: 'POST',
      json: {
        prompt: texts.supportQuestion,
        output_a: texts.supportAnswer,
        output_b: texts.policyRefundsHebrew,
        trace_a: 'cmp-atomic-a',
        trace_b: 'cmp-atomic-b',
      },
    });
    expect(created.status).toBe(201);
    const comparison = (await created.json()) as { id: string };
    const answer = { preferred: 'a', reason: 'Answers the question.\n\nCites the refund policy.', user_id: 'reviewer-1' };
    await withBrokenAnalytics('http://127.0.0.1:9', 1000, async (base) => {
      const res = await apiFetch(base, svc.defaultProjectId, `/api/feedback/comparisons/${comparison.id}/answer`, { method: 'POST', json: answer });
      expect(res.status).toBe(503);
      expect(((await res.json()) as { error: string }).error).toBe('Analytical store service unavailable');
    });
    const pending = (await (await svc.api(`/api/feedback/comparisons/${comparison.id}`)).json()) as { status: string; feedback_id: string | null };
    expect(pending).toMatchObject({ status: 'pending', feedback_id: null });
    expect(await stored('cmp-atomic-a')).toEqual({ feedback: 0, scores: 0 });
    expect(await stored('cmp-atomic-b')).toEqual({ feedback: 0, scores: 0 });

    const retry = await svc.api(`/api/feedback/comparisons/${comparison.id}/answer`, { method: 'POST', json: answer });
    expect(retry.status).toBe(201);
    const answered = (await retry.json()) as { comparison: { status: string }; feedback: { id: string; preference: { chosen: string; reason: string } } };
    expect(answered.comparison.status).toBe('answered');
    expect(answered.feedback.preference).toMatchObject({ chosen: texts.supportAnswer, reason: answer.reason });
    expect(await stored('cmp-atomic-a')).toEqual({ feedback: 1, scores: 1 });
    expect(await stored('cmp-atomic-b')).toEqual({ feedback: 0, scores: 1 });
  });

  it('a completion stores nothing while ClickHouse is down (the item stays open, no correction); the retry completes it with its scores', async () => {
    const queue = (await (
      await svc.api('/api/queues', { method: 'POST', json: { name: 'atomic review', score_names: ['accuracy'], trace_ids: ['queue-atomic-1'] } })
    ).json()) as { id: string };
    const item = ((await (await svc.api(`/api/queues/${queue.id}/next?reviewer=alice`)).json()) as { item: { id: string } }).item;
    const body = {
      reviewer: 'alice',
      scores: { accuracy: 0.5 },
      comment: 'Half right.',
      correction: { original: texts.travelAnswer, corrected: `${texts.travelAnswer}\n\n> Note: the museum is closed on Mondays.` },
    };
    const path = `/api/queues/${queue.id}/items/${item.id}/complete`;
    await withBrokenAnalytics('http://127.0.0.1:9', 1000, async (base) => {
      const res = await apiFetch(base, svc.defaultProjectId, path, { method: 'POST', json: body });
      expect(res.status).toBe(503);
    });
    const open = (await (await svc.api(`/api/queues/${queue.id}/items/${item.id}`)).json()) as { status: string; feedback_id: string | null };
    expect(open.status).not.toBe('completed');
    expect(open.feedback_id).toBeNull();
    expect(await stored('queue-atomic-1')).toEqual({ feedback: 0, scores: 0 });

    const retry = await svc.api(path, { method: 'POST', json: body });
    expect(retry.status, await retry.clone().text()).toBe(200);
    const done = (await retry.json()) as { item: { status: string }; feedback: { correction: { corrected: string } }; score_ids: string[] };
    expect(done.item.status).toBe('completed');
    expect(done.feedback.correction.corrected).toBe(body.correction.corrected);
    expect(await stored('queue-atomic-1')).toEqual({ feedback: 1, scores: 2 });
  });
});
