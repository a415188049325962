import { describe, expect, it } from 'vitest';
import type { SessionDetail, SessionList } from '../../core/model/trace-session.js';
import type { TraceList } from '../../core/model/trace.js';
import { AgentEvalClient } from '../../sdk/index.js';
import { loadCorpus } from '../helpers/corpus.js';
import { expectJson, useTestApi } from '../helpers/test-service-hooks.js';
import { childrenOf, ingestTrace } from '../helpers/ingest-trace.js';

/**
 * Sessions (issue 29, docs/api.md "Sessions"): traces grouped by the session and user ids of every
 * convention (span attributes, resource attributes, the JSON body's trace attributes), over the
 * real service. Turns carry the corpus's real texts (multi-paragraph markdown, code fences, every
 * script); GET /api/sessions pages by keyset and filters; GET /api/sessions/{id} reads like the
 * conversation; GET /api/traces filters by session_id, user_id and environment; projects are apart.
 */
const svc = useTestApi();
const base = Math.floor(Date.now() / 60_000) * 60_000 - 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();
const texts = loadCorpus()
  .json.flatMap((t) => t.body.spans)
  .flatMap((s) => [s.input, s.output])
  .filter((v): v is string => typeof v === 'string' && v.length > 0);
const LONG_ANSWER = `${texts.find((t) => t.includes('\n\n')) ?? 'a\n\nb'}\n\n${'More detail. '.repeat(600)}`;

/** One turn: a root span with the turn's input and output, and a generation; ids by convention. */
function turn(id: string, minute: number, opts: { spanAttrs?: Record<string, string>; traceAttrs?: Record<string, string>; error?: boolean; output?: string }) {
  const start = base + minute * 60_000;
  return ingestTrace(id, {
    name: `turn ${id}`,
    start,
    durationMs: 2000,
    status: opts.error ? 'error' : 'ok',
    attributes: opts.traceAttrs ?? {},
    root: {
      span_id: `${id}-root`,
      name: 'support-agent',
      type: 'span',
      input: texts[minute % texts.length],
      output: opts.output ?? texts[(minute + 1) % texts.length],
      attributes: opts.spanAttrs ?? {},
    },
    spans: [
      childrenOf(id, start)('llm', 100, 1800, {
        name: 'chat gpt-4o',
        type: 'generation',
        model: 'gpt-4o',
        input_tokens: 100,
        output_tokens: 20,
        ...(opts.error ? { status: 'error', status_message: 'rate limited\n\nretry later' } : {}),
        attributes: {},
      }),
    ],
  });
}

// Session "conv-1": five turns, each naming the session the way one convention does.
const CONV1 = [
  turn('s1-a', 1, { spanAttrs: { 'gen_ai.conversation.id': 'conv-1', 'user.id': 'alice' } }),
  turn('s1-b', 2, { spanAttrs: { 'session.id': 'conv-1', 'user.id': 'alice' } }),
  turn('s1-c', 3, { spanAttrs: { 'langfuse.session.id': 'conv-1', 'langfuse.user.id': 'alice' }, error: true }),
  turn('s1-d', 4, { spanAttrs: { 'traceloop.association.properties.session_id': 'conv-1' }, output: LONG_ANSWER }),
  turn('s1-e', 5, { spanAttrs: { 'ai.telemetry.metadata.sessionId': 'conv-1', 'ai.telemetry.metadata.userId': 'alice' } }),
];
// Session "会话-2 ✓" (any script): the JSON body's trace attributes, a later user.
const CONV2 = [
  turn('s2-a', 10, { traceAttrs: { session_id: '会话-2 ✓', user_id: 'bob' } }),
  turn('s2-b', 11, { traceAttrs: { session_id: '会话-2 ✓', user_id: 'bob' } }),
];
// No session: a stray trace, and one whose id is unusable (a control character).
const LONE = [turn('lone', 20, {}), turn('bad-id', 21, { spanAttrs: { 'session.id': 'x\u0007y' } })];

async function ingest(body: unknown, project?: string) {
  const res = await svc.api('/api/traces/ingest', { method: 'POST', json: body, ...(project ? { project } : {}) });
  expect(res.status, await res.clone().text()).toBe(201);
}

describe('sessions', () => {
  it('assembles a session from every convention and reads like the conversation', async () => {
    for (const t of [...CONV1, ...CONV2, ...LONE]) await ingest(t);
    // Over OTLP: the session on the resource (OpenInference's session.id), one more turn of conv-1.
    const attr = (key: string, value: string) => ({ key, value: { stringValue: value } });
    const start = base + 6 * 60_000;
    const res = await fetch(`${svc.apiUrl}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': svc.apiKey! },
      body: JSON.stringify({
        resourceSpans: [
          {
            resource: { attributes: [attr('service.name', 'support-bot'), attr('session.id', 'conv-1'), attr('deployment.environment.name', 'prod')] },
            scopeSpans: [
              {
                scope: { name: 'openinference' },
                spans: [
                  {
                    traceId: '5e5510000000000000000000000000f1',
                    spanId: '00000000000000f1',
                    name: 'agent',
                    kind: 1,
                    startTimeUnixNano: `${start}000000`,
                    endTimeUnixNano: `${start + 1500}000000`,
                    attributes: [attr('openinference.span.kind', 'AGENT'), attr('input.value', texts[3]), attr('output.value', texts[4])],
                  },
                ],
              },
            ],
          },
        ],
      }),
    });
    expect(res.status, await res.clone().text()).toBe(200);

    const list = await expectJson<SessionList>(await svc.api('/api/sessions'), 200);
    expect(list.total).toBe(2);
    expect(list.sessions.map((s) => s.session_id)).toEqual(['会话-2 ✓', 'conv-1']);
    const conv1 = list.sessions[1];
    expect(conv1).toMatchObject({
      trace_count: 6,
      error_count: 1,
      user_ids: ['alice'],
      first_trace_name: 'turn s1-a',
      start_time: iso(base + 60_000),
      end_time: iso(base + 6 * 60_000 + 1500),
      duration_ms: 5 * 60_000 + 1500,
      total_input_tokens: 500,
      total_output_tokens: 100,
    });
    expect(conv1.total_cost).toBeGreaterThan(0);
    expect(list.sessions[0]).toMatchObject({ trace_count: 2, user_ids: ['bob'], error_count: 0 });

    const detail = await expectJson<SessionDetail>(await svc.api(`/api/sessions/${encodeURIComponent('conv-1')}`), 200);
    expect(detail.traces.map((t) => t.trace_id)).toEqual(['s1-a', 's1-b', 's1-c', 's1-d', 's1-e', '5e5510000000000000000000000000f1']);
    expect(detail.traces_truncated).toBe(false);
    expect(detail.traces[0]).toMatchObject({ session_id: 'conv-1', user_id: 'alice', input: texts[1 % texts.length], input_truncated: false });
    // A long answer is cut in the conversation view, whole in its trace.
    const long = detail.traces[3];
    expect(long.output_truncated).toBe(true);
    expect(LONG_ANSWER.startsWith(long.output!)).toBe(true);
    expect([...long.output!].length).toBe(4096);
    expect(detail.traces[5]).toMatchObject({ input: texts[3], output: texts[4], session_id: 'conv-1' });

    const other = await expectJson<SessionDetail>(await svc.api(`/api/sessions/${encodeURIComponent('会话-2 ✓')}`), 200);
    expect(other.traces.map((t) => t.user_id)).toEqual(['bob', 'bob']);
  });

  it('filters and pages the sessions list, and the trace list by session, user and environment', async () => {
    const byUser = await expectJson<SessionList>(await svc.api('/api/sessions?user_id=bob'), 200);
    expect(byUser.sessions.map((s) => s.session_id)).toEqual(['会话-2 ✓']);
    const failed = await expectJson<SessionList>(await svc.api('/api/sessions?has_errors=true'), 200);
    expect(failed.sessions.map((s) => s.session_id)).toEqual(['conv-1']);
    const late = await expectJson<SessionList>(await svc.api(`/api/sessions?start_time=${iso(base + 9 * 60_000)}`), 200);
    expect(late.sessions.map((s) => s.session_id)).toEqual(['会话-2 ✓']);

    const first = await expectJson<SessionList>(await svc.api('/api/sessions?limit=1'), 200);
    expect(first.sessions.map((s) => s.session_id)).toEqual(['会话-2 ✓']);
    expect(first.next_cursor).toBeTruthy();
    const second = await expectJson<SessionList>(await svc.api(`/api/sessions?limit=1&cursor=${encodeURIComponent(first.next_cursor!)}`), 200);
    expect(second.sessions.map((s) => s.session_id)).toEqual(['conv-1']);
    expect(second.next_cursor).toBeNull();
    expect(second.total).toBe(2);

    // The SDK's typed client reads the same.
    const client = new AgentEvalClient({ url: svc.apiUrl, apiKey: svc.apiKey });
    const viaSdk = await client.sessions.list({ user_id: 'alice', has_errors: true });
    expect(viaSdk.sessions.map((s) => [s.session_id, s.trace_count])).toEqual([['conv-1', 6]]);
    expect((await client.sessions.get('会话-2 ✓')).traces.map((t) => t.trace_id)).toEqual(['s2-a', 's2-b']);
    expect((await client.traces.list({ session_id: '会话-2 ✓' })).traces.map((t) => t.trace_id)).toEqual(['s2-b', 's2-a']);

    const traces = await expectJson<TraceList>(await svc.api(`/api/traces?session_id=conv-1&limit=100`), 200);
    expect(traces.traces.map((t) => t.trace_id).sort()).toEqual(['5e5510000000000000000000000000f1', 's1-a', 's1-b', 's1-c', 's1-d', 's1-e']);
    const alice = await expectJson<TraceList>(await svc.api(`/api/traces?user_id=alice&limit=100`), 200);
    expect(alice.traces.map((t) => t.trace_id).sort()).toEqual(['s1-a', 's1-b', 's1-c', 's1-e']);
    const prod = await expectJson<TraceList>(await svc.api(`/api/traces?environment=prod`), 200);
    expect(prod.traces.map((t) => t.trace_id)).toEqual(['5e5510000000000000000000000000f1']);
    const lone = await expectJson<TraceList>(await svc.api(`/api/traces?name=${encodeURIComponent('turn bad-id')}`), 200);
    expect(lone.traces[0]).toMatchObject({ session_id: null, user_id: null });
  });

  it('keeps projects apart and answers 404 and 422 for what it cannot serve', async () => {
    await ingest(turn('p2-a', 30, { spanAttrs: { 'session.id': 'conv-1' } }), 'other-sessions');
    const mine = await expectJson<SessionDetail>(await svc.api('/api/sessions/conv-1'), 200);
    expect(mine.trace_count).toBe(6);
    const theirs = await expectJson<SessionDetail>(await svc.api('/api/sessions/conv-1', { project: 'other-sessions' }), 200);
    expect(theirs.traces.map((t) => t.trace_id)).toEqual(['p2-a']);
    expect((await expectJson<SessionList>(await svc.api('/api/sessions', { project: 'other-sessions' }), 200)).total).toBe(1);

    const missing = await expectJson<{ error: string; code: string }>(await svc.api('/api/sessions/nope'), 404);
    expect(missing).toMatchObject({ code: 'SESSION_NOT_FOUND', error: "Session with ID 'nope' not found" });
    // Control characters in a path are refused at the door (as on every route); other odd ids are simply not found.
    for (const bad of ['%00', '%E2%80%AE%0A']) expect((await svc.api(`/api/sessions/${bad}`)).status, bad).toBe(400);
    for (const bad of [encodeURIComponent('x'.repeat(5000)), '%E2%80%AE', '%F0%9F%98%80']) {
      const res = await svc.api(`/api/sessions/${bad}`);
      expect(res.status, bad).toBe(404);
    }
    for (const q of ['limit=0', 'limit=201', 'has_errors=maybe', 'cursor=zz', 'start_time=2026-02-30T00:00:00Z', `user_id=${'u'.repeat(300)}`]) {
      const res = await svc.api(`/api/sessions?${q}`);
      expect(res.status, q).toBe(422);
    }
    expect((await svc.api(`/api/traces?session_id=${'s'.repeat(300)}`)).status).toBe(422);
  });
});
