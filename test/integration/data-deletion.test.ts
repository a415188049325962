import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataDeletionView } from '../../core/model/data-deletion.js';
import { loadCorpus, type CorpusJsonTrace } from '../helpers/corpus.js';
import { eventually } from '../helpers/eventually.js';
import { startTestApi, type TestApi } from '../helpers/server.js';
import { openServiceMetadata } from '../helpers/metadata-store.js';
import { pruneMetadata } from '../../core/retention/metadata-retention.js';
import { randomUUID } from 'node:crypto';

// Deleting data (issue 27): one trace, and every trace of an end user or a session (GDPR
// erasure), through the API of a running service on real chDB and PostgreSQL, with the realistic
// corpus (multi-paragraph text, tool calls, every script). After a deletion nothing of the deleted
// traces is readable anywhere: the trace, its spans, its scores, its feedback, the list.
let svc: TestApi;
const corpus = loadCorpus();

/** The corpus' SPEC trace under another id, each span naming this end user and session. */
function trace(id: string, attrs: Record<string, string>): CorpusJsonTrace['body'] {
  const body = structuredClone(corpus.json[0].body);
  body.trace_id = id;
  body.spans = body.spans.map((s) => ({
    ...s,
    span_id: `${id}.${s.span_id}`,
    ...(s.parent_span_id ? { parent_span_id: `${id}.${s.parent_span_id}` } : {}),
    attributes: { ...s.attributes, ...attrs },
  }));
  return body;
}

async function ingest(body: unknown): Promise<void> {
  const res = await svc.api('/api/traces/ingest', { method: 'POST', json: body });
  expect(res.status, await res.clone().text()).toBe(201);
}

async function rate(traceId: string, userId: string): Promise<void> {
  const res = await svc.api('/api/feedback', {
    method: 'POST',
    json: { type: 'rating', trace_id: traceId, user_id: userId, value: 0.5, comment: 'Helpful.\n\nBut slow.' },
  });
  expect(res.status, await res.clone().text()).toBe(201);
}

const status = async (path: string) => (await svc.api(path)).status;

async function listed(): Promise<string[]> {
  const res = await svc.api('/api/traces?limit=100');
  return ((await res.json()) as { traces: Array<{ trace_id: string }> }).traces.map((t) => t.trace_id);
}

async function feedbackOf(traceId: string): Promise<unknown[]> {
  const res = await svc.api(`/api/feedback?trace_id=${encodeURIComponent(traceId)}`);
  return ((await res.json()) as { feedback: unknown[] }).feedback;
}

beforeAll(async () => {
  svc = await startTestApi();
  await ingest(trace('del-one', { 'user.id': 'u-keep', 'session.id': 's-keep' }));
  await ingest(trace('del-keep', { 'user.id': 'u-keep', 'session.id': 's-keep' }));
  await ingest(trace('del-ana-1', { 'user.id': 'ana@example.com', 'session.id': 's-ana-1' }));
  await ingest(trace('del-ana-2', { 'user.id': 'ana@example.com', 'session.id': 's-ana-2' }));
  await ingest(trace('del-session', { 'user.id': 'u-keep', 'session.id': 's-chat-42' }));
  // The same session named as the Vercel AI SDK names it (any key sessions are read from counts).
  await ingest(trace('del-session-ai', { 'ai.telemetry.metadata.sessionId': 's-chat-42' }));
  for (const id of ['del-one', 'del-keep', 'del-ana-1']) await rate(id, 'reviewer-1');
  await rate('del-keep', 'ana@example.com');
});
afterAll(async () => {
  await svc?.stop();
});

describe('DELETE /api/traces/{id}', () => {
  it('removes the trace, its spans, scores and feedback from every read, and leaves other traces whole', async () => {
    const spanId = `del-one.${corpus.json[0].body.spans[0].span_id}`;
    expect(await status(`/api/spans/${encodeURIComponent(spanId)}`)).toBe(200);
    const res = await svc.api('/api/traces/del-one', { method: 'DELETE' });
    expect(res.status).toBe(204);
    expect(await status('/api/traces/del-one')).toBe(404);
    expect(await status(`/api/spans/${encodeURIComponent(spanId)}`)).toBe(404);
    expect(await (await svc.api('/api/scores?trace_id=del-one')).json()).toMatchObject({ scores: [] });
    expect(await feedbackOf('del-one')).toEqual([]);
    expect(await listed()).not.toContain('del-one');
    // The other traces are untouched, text and all.
    const kept = (await (await svc.api('/api/traces/del-keep')).json()) as { spans: Array<{ output: unknown }> };
    expect(kept.spans.length).toBe(corpus.json[0].body.spans.length);
    expect(await feedbackOf('del-keep')).toHaveLength(2);
  });

  it('answers 404 for a trace the project does not have, and needs an admin key', async () => {
    expect((await svc.api('/api/traces/no-such-trace', { method: 'DELETE' })).status).toBe(404);
    const created = await svc.api(`/api/projects/${svc.defaultProjectId}/keys`, { method: 'POST', json: { name: 'member', role: 'member' } });
    expect(created.status).toBe(201);
    const member = ((await created.json()) as { key: string }).key;
    expect((await svc.api('/api/traces/del-keep', { method: 'DELETE', key: member })).status).toBe(403);
    expect(await status('/api/traces/del-keep')).toBe(200);
  });
});

describe('POST /api/deletions: erasing an end user or a session', () => {
  async function erase(body: unknown): Promise<DataDeletionView> {
    const res = await svc.api('/api/deletions', { method: 'POST', json: body });
    expect(res.status, await res.clone().text()).toBe(202);
    const d = (await res.json()) as DataDeletionView;
    expect(res.headers.get('location')).toBe(`/api/deletions/${d.id}`);
    return eventually(async () => {
      const now = (await (await svc.api(`/api/deletions/${d.id}`)).json()) as DataDeletionView;
      expect(now.status).toBe('completed');
      return now;
    }, 30_000);
  }

  it("removes every trace naming the user, and the feedback the user gave, nobody else's", async () => {
    const done = await erase({ user_id: 'ana@example.com' });
    expect(done).toMatchObject({ kind: 'user', target: 'ana@example.com', traces_deleted: 2 });
    expect(done.rows_deleted?.analytics.spans).toBe(2 * corpus.json[0].body.spans.length);
    for (const id of ['del-ana-1', 'del-ana-2']) expect(await status(`/api/traces/${id}`)).toBe(404);
    // Ana's rating of another trace is gone; the reviewer's rating of it stays.
    const left = (await feedbackOf('del-keep')) as Array<{ user_id: string }>;
    expect(left.map((f) => f.user_id)).toEqual(['reviewer-1']);
    expect(await listed()).toEqual(expect.arrayContaining(['del-keep', 'del-session']));
  });

  it('removes every trace of a session', async () => {
    const done = await erase({ session_id: 's-chat-42' });
    expect(done).toMatchObject({ kind: 'session', traces_deleted: 2 });
    expect(await status('/api/traces/del-session')).toBe(404);
    expect(await status('/api/traces/del-session-ai')).toBe(404);
    expect(await status('/api/traces/del-keep')).toBe(200);
  });

  it('refuses a body without exactly one of user_id and session_id, and an unknown deletion is 404', async () => {
    for (const body of [{}, { user_id: 'a', session_id: 'b' }, { user_id: '' }, { user_id: 'a\u0000b' }, { trace_id: 'x' }]) {
      expect((await svc.api('/api/deletions', { method: 'POST', json: body })).status).toBe(422);
    }
    expect((await svc.api('/api/deletions/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await svc.api('/api/deletions/not-a-uuid')).status).toBe(404);
  });
});

describe('retention of the PostgreSQL side', () => {
  it('removes feedback and finished runs past their days, and keeps what is younger', async () => {
    const metadata = openServiceMetadata(svc.dataDir);
    try {
      const q = (sql: string, params: unknown[]) => metadata.pool.query(sql, params);
      const project = svc.defaultProjectId;
      const [oldFeedback, newFeedback] = [randomUUID(), randomUUID()];
      for (const [id, age] of [
        [oldFeedback, 40],
        [newFeedback, 5],
      ] as const) {
        await q(
          `INSERT INTO feedback (id, project_id, type, trace_id, data, created_at) VALUES ($1, $2, 'rating', 'del-keep', '{}', now() - make_interval(days => $3))`,
          [id, project, age],
        );
      }
      const [oldRun, newRun] = [randomUUID(), randomUUID()];
      for (const [id, age] of [
        [oldRun, 400],
        [newRun, 5],
      ] as const) {
        await q(
          `INSERT INTO eval_runs (id, project_id, suite_name, agent_id, agent_name, agent_version, status, config, aggregation, min_score, case_count, repetitions, completed_at)
           VALUES ($1, $2, 'retention', $3, 'agent', 'v1', 'completed', '{}', 'mean', 0.7, 1, 1, now() - make_interval(days => $4))`,
          [id, project, randomUUID(), age],
        );
        await q(
          `INSERT INTO eval_case_results (run_id, case_index, trial, status, passed, output) VALUES ($1, 0, 0, 'passed', true, '"Paris.\\n\\nIt is the capital."')`,
          [id],
        );
      }
      // Runs are kept unless RUN_RETENTION_DAYS says otherwise.
      const first = await pruneMetadata(metadata.retention, { days: 30, runDays: 0 });
      expect(first.feedback).toBeGreaterThanOrEqual(1);
      expect(first.eval_runs).toBeUndefined();
      const left = await q('SELECT id FROM feedback WHERE id = ANY($1::uuid[])', [[oldFeedback, newFeedback]]);
      expect(left.rows.map((r: { id: string }) => r.id)).toEqual([newFeedback]);
      const second = await pruneMetadata(metadata.retention, { days: 30, runDays: 365 });
      expect(second.eval_runs).toBe(1);
      const runs = await q('SELECT id FROM eval_runs WHERE id = ANY($1::uuid[])', [[oldRun, newRun]]);
      expect(runs.rows.map((r: { id: string }) => r.id)).toEqual([newRun]);
      // The run's results went with it.
      expect((await q('SELECT count(*)::int AS n FROM eval_case_results WHERE run_id = $1', [oldRun])).rows[0]).toEqual({ n: 0 });
      // 0 days keeps everything.
      expect(await pruneMetadata(metadata.retention, { days: 0, runDays: 0 })).toEqual({});
    } finally {
      await metadata.close();
    }
  });
});

describe('deleting a prompt and a run', () => {
  it('DELETE /api/prompts/{id} removes every version and label; the name can be used again', async () => {
    const template = 'You are a support agent.\n\nAnswer in {{language}}. 日本語も可 ✓';
    const created = await svc.api('/api/prompts', { method: 'POST', json: { name: 'del-prompt', type: 'text', template } });
    expect(created.status, await created.clone().text()).toBe(201);
    expect((await svc.api('/api/prompts/del-prompt', { method: 'PUT', json: { template: `${template}\n\nv2` } })).status).toBe(200);
    expect((await svc.api('/api/prompts/del-prompt/labels', { method: 'POST', json: { labels: ['production'], version: 2 } })).status).toBe(200);
    expect((await svc.api('/api/prompts/del-prompt', { method: 'DELETE' })).status).toBe(204);
    expect(await status('/api/prompts/del-prompt')).toBe(404);
    expect(await status('/api/prompts/del-prompt/versions')).toBe(404);
    expect((await svc.api('/api/prompts/del-prompt', { method: 'DELETE' })).status).toBe(404);
    const again = (await (await svc.api('/api/prompts', { method: 'POST', json: { name: 'del-prompt', type: 'text', template } })).json()) as {
      version: number;
    };
    expect(again.version).toBe(1);
  });

  it('DELETE /api/runs/{id} removes a finished run with its results, and refuses one still running (409)', async () => {
    const metadata = openServiceMetadata(svc.dataDir);
    const [done, running] = [randomUUID(), randomUUID()];
    try {
      for (const [id, state] of [
        [done, 'completed'],
        [running, 'running'],
      ] as const) {
        await metadata.pool.query(
          `INSERT INTO eval_runs (id, project_id, suite_name, agent_id, agent_name, agent_version, status, config, aggregation, min_score, case_count, repetitions, completed_at)
           VALUES ($1, $2, 'del-runs', $3, 'agent', 'v1', $4, '{}', 'mean', 0.7, 1, 1, CASE WHEN $4 = 'completed' THEN now() END)`,
          [id, svc.defaultProjectId, randomUUID(), state],
        );
        await metadata.pool.query(`INSERT INTO eval_case_results (run_id, case_index, trial, status, passed) VALUES ($1, 0, 0, 'passed', true)`, [id]);
      }
    } finally {
      await metadata.close();
    }
    expect(await status(`/api/runs/${done}`)).toBe(200);
    expect((await svc.api(`/api/runs/${done}`, { method: 'DELETE' })).status).toBe(204);
    expect(await status(`/api/runs/${done}`)).toBe(404);
    expect(await status(`/api/runs/${done}/results`)).toBe(404);
    const refused = await svc.api(`/api/runs/${running}`, { method: 'DELETE' });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ code: 'RUN_NOT_FINISHED' });
    expect(await status(`/api/runs/${running}`)).toBe(200);
    expect((await svc.api(`/api/runs/${randomUUID()}`, { method: 'DELETE' })).status).toBe(404);
  });
});
