import { describe, expect, it } from 'vitest';
import type { SessionDetail, SessionList } from '../../core/model/trace-session.js';
import { AgentEvalClient } from '../../sdk/index.js';
import { loadCorpus } from '../helpers/corpus.js';
import { expectJson, useTestApi } from '../helpers/test-service-hooks.js';
import { ingestTrace } from '../helpers/ingest-trace.js';

/**
 * Scores per session (issue 29, docs/api.md "Sessions"): the session list and the session view
 * carry, per score name, the mean of each turn's latest score of that name and how many turns have
 * one; GET /api/sessions filters by such a mean (`score_name` + `score_below`). Turns carry the
 * corpus's real texts; scores go through POST /api/scores as a client or an evaluation sends them;
 * another project's scores of the same trace ids never count.
 */
const svc = useTestApi();
const OTHER = 'session-scores-other';
const base = Math.floor(Date.now() / 60_000) * 60_000 - 3_600_000;
const texts = loadCorpus()
  .json.flatMap((t) => t.body.spans)
  .flatMap((s) => [s.input, s.output])
  .filter((v): v is string => typeof v === 'string' && v.length > 0);

function turn(id: string, minute: number, session: string) {
  const root = { span_id: `${id}-root`, name: 'support-agent', type: 'span', input: texts[minute % texts.length], output: texts[(minute + 1) % texts.length] };
  return ingestTrace(id, {
    name: `turn ${id}`,
    start: base + minute * 60_000,
    durationMs: 1000,
    root: { ...root, attributes: { 'session.id': session, 'user.id': 'layla@example.com' } },
  });
}

async function post(path: string, body: unknown, project?: string): Promise<void> {
  const res = await svc.api(path, { method: 'POST', json: body, ...(project ? { project } : {}) });
  expect(res.status, await res.clone().text()).toBe(201);
}
const score = (trace_id: string, name: string, value: number, extra: Record<string, unknown> = {}) => ({ trace_id, name, value, ...extra });

describe('scores per session', () => {
  it('gives each session the mean per score name of its turns, in the list and the view', async () => {
    for (const [i, id] of ['a1', 'a2', 'a3'].entries()) await post('/api/traces/ingest', turn(id, i + 1, 'conv-a'));
    for (const [i, id] of ['b1', 'b2'].entries()) await post('/api/traces/ingest', turn(id, i + 10, 'conv-b'));
    await post('/api/traces/ingest', turn('c1', 20, 'conv-c'));
    // conv-a: helpfulness 0.9, 0.6 (a2's first 0.1 is replaced by its latest), a3 unscored; toolCalls on a1 only.
    await post('/api/scores', score('a1', 'helpfulness', 0.9));
    await post('/api/scores', score('a2', 'helpfulness', 0.1));
    await new Promise((r) => setTimeout(r, 5));
    await post('/api/scores', score('a2', 'helpfulness', 0.6));
    await post('/api/scores', score('a1', 'toolCalls', 0.5, { source: 'eval', scorer_name: 'toolCalls', reason: 'strict: call 1 (search_flights) differs' }));
    // conv-b: helpfulness 0.2 and 0.4.
    await post('/api/scores', score('b1', 'helpfulness', 0.2));
    await post('/api/scores', score('b2', 'helpfulness', 0.4));
    // Another project: the same trace ids, perfect scores. Never counted here.
    for (const id of ['a1', 'a2', 'b1']) await post('/api/traces/ingest', turn(id, 1, 'conv-a'), OTHER);
    for (const id of ['a1', 'a2', 'b1']) await post('/api/scores', score(id, 'helpfulness', 1), OTHER);

    const list = await expectJson<SessionList>(await svc.api('/api/sessions'), 200);
    const byId = new Map(list.sessions.map((s) => [s.session_id, s]));
    const a = byId.get('conv-a')!;
    expect(a.scores.map((s) => s.name)).toEqual(['helpfulness', 'toolCalls']);
    expect(a.scores[0].mean).toBeCloseTo(0.75, 9);
    expect(a.scores[0].count).toBe(2);
    expect(a.scores[1]).toEqual({ name: 'toolCalls', mean: 0.5, count: 1 });
    expect(byId.get('conv-b')!.scores).toHaveLength(1);
    expect(byId.get('conv-b')!.scores[0].mean).toBeCloseTo(0.3, 9);
    expect(byId.get('conv-c')!.scores).toEqual([]);

    const view = await expectJson<SessionDetail>(await svc.api('/api/sessions/conv-a'), 200);
    expect(view.scores).toEqual(a.scores);
    // Each turn still carries its own trace summary; the session's means are over them.
    expect(view.traces.map((t) => t.trace_id)).toEqual(['a1', 'a2', 'a3']);

    const theirs = await expectJson<SessionDetail>(await svc.api('/api/sessions/conv-a', { project: OTHER }), 200);
    expect(theirs.scores).toEqual([{ name: 'helpfulness', mean: 1, count: 3 }]);
  });

  it('filters sessions by the mean of a score, through the API and the SDK', async () => {
    const low = await expectJson<SessionList>(await svc.api('/api/sessions?score_name=helpfulness&score_below=0.5'), 200);
    expect(low.sessions.map((s) => s.session_id)).toEqual(['conv-b']);
    expect(low.total).toBe(1);
    const below = await expectJson<SessionList>(await svc.api('/api/sessions?score_name=helpfulness&score_below=0.8'), 200);
    expect(below.sessions.map((s) => s.session_id)).toEqual(['conv-b', 'conv-a']);
    // A session with no score of that name is left out, whatever the threshold.
    const tools = await new AgentEvalClient({ url: svc.apiUrl, apiKey: svc.apiKey }).sessions.list({ score_name: 'toolCalls', score_below: 1 });
    expect(tools.sessions.map((s) => s.session_id)).toEqual(['conv-a']);
    expect((await expectJson<SessionList>(await svc.api('/api/sessions?score_name=helpfulness&score_below=1', { project: OTHER }), 200)).total).toBe(0);
    // Paged by keyset with the filter on.
    const first = await expectJson<SessionList>(await svc.api('/api/sessions?score_name=helpfulness&score_below=0.8&limit=1'), 200);
    const second = await expectJson<SessionList>(
      await svc.api(`/api/sessions?score_name=helpfulness&score_below=0.8&limit=1&cursor=${encodeURIComponent(first.next_cursor!)}`),
      200,
    );
    expect([...first.sessions, ...second.sessions].map((s) => s.session_id)).toEqual(['conv-b', 'conv-a']);
    expect(second.next_cursor).toBeNull();
  });

  it('refuses a threshold without its score name, and the other way round, naming the parameter', async () => {
    for (const [q, field] of [
      ['score_below=0.5', 'score_name'],
      ['score_name=helpfulness', 'score_below'],
      ['score_name=helpfulness&score_below=2', 'score_below'],
      ['score_name=helpfulness&score_below=x', 'score_below'],
    ] as const) {
      const body = await expectJson<{ details: Array<{ field: string }> }>(await svc.api(`/api/sessions?${q}`), 422);
      expect(
        body.details.map((d) => d.field),
        q,
      ).toContain(field);
    }
  });
});
