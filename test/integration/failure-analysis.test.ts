import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FailureGroup, RunFailureAnalysis, TraceFailureAnalysis } from '../../core/model/failures.js';
import { texts } from '../fixtures/corpus/texts.js';
import { eventually } from '../helpers/eventually.js';
import { fakeProviderEnv, startFakeProvider, type FakeProvider } from '../helpers/fake-providers.js';
import { spanAt } from '../helpers/ingest-trace.js';
import { resultsByCase, untilCompleted } from '../helpers/run-results.js';
import { startTestService, type TestService } from '../helpers/server.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { expectJson as json, type ErrorBody } from '../helpers/test-service-hooks.js';

/**
 * Failure analysis on the real service (Temporal, embedded PostgreSQL, chDB): a run against an
 * agent with planted failure kinds (an outage answered 500 with a different request id each time,
 * wrong answers, a tool that fails inside the agent's own trace), and production traces whose
 * tools fail with messages that differ only in numbers, ids and URLs. The groups must be the ones
 * an engineer would draw by hand, in the same order every time, and labelled once by the judge.
 */

let service: TestService;
let agent: TestAgent;
let anthropic: FakeProvider;

const HOTEL_FAILURE = (card: number) => `payment declined: card ending ${card} was refused by the issuer\n\n${texts.travelStacktrace}`;

beforeAll(async () => {
  anthropic = await startFakeProvider('anthropic');
  agent = await startTestAgent((req) => {
    const input = req.body.input as { kind: string; answer?: string; card?: number };
    if (input.kind === 'outage')
      return { status: 500, raw: `upstream model overloaded (request ${randomUUID()}); retry after ${Math.round(Math.random() * 900)} ms` };
    const spans =
      input.kind === 'hotel'
        ? [
            {
              span_id: `hotel-${req.body.trace_id.slice(0, 8)}`,
              name: 'book_hotel',
              type: 'tool',
              status: 'error',
              status_message: HOTEL_FAILURE(input.card ?? 4242),
              input: { city: 'Kyoto', nights: 3 },
            },
          ]
        : [];
    return { json: { output: input.answer ?? texts.travelAnswer, spans } };
  });
  service = await startTestService({ ...fakeProviderEnv({ anthropic }), EVAL_RETRY_TIME_SCALE: '0.001' });
  await json(await service.api('/api/agents', { method: 'POST', json: { name: 'trip-agent', endpoint: agent.url } }), 201);
}, 180_000);

afterAll(async () => {
  await service?.stop();
  await agent?.close();
  await anthropic?.close();
});

/** A run of the planted cases; the failed ones are three outages, two wrong answers and two failed hotel bookings. */
async function plantedRun(): Promise<string> {
  const items = [
    ...[1, 2, 3].map((i) => ({ name: `outage ${i}`, input: { kind: 'outage' }, expected: { outputContains: ['Kyoto'] } })),
    { name: 'wrong city', input: { kind: 'answer', answer: `${texts.travelAnswer}\n\nSee you in Lyon!` }, expected: { outputContains: ['Osaka'] } },
    { name: 'wrong date', input: { kind: 'answer', answer: texts.supportAnswer }, expected: { outputContains: ['14 March'] } },
    ...[4242, 1881].map((card) => ({
      name: `hotel ${card}`,
      input: { kind: 'hotel', card, answer: 'Booked!' },
      expected: { outputContains: ['hotel confirmed'] },
    })),
    { name: 'good', input: { kind: 'answer', answer: texts.travelAnswer }, expected: { outputContains: ['Kyoto'] } },
  ];
  const created = await json<{ id: string }>(
    await service.api('/api/runs', { method: 'POST', json: { agentId: 'trip-agent', dataset: { items }, scorers: ['contains'], config: { parallel: true } } }),
    202,
  );
  await untilCompleted(service, created.id);
  return created.id;
}

const byKind = (groups: FailureGroup[]) =>
  groups.map((g) => ({ kind: g.signature.kind, scorer: g.signature.scorer, count: g.count, path: g.signature.span_path }));

describe('failure analysis of a run', () => {
  let runId: string;
  let analysis: RunFailureAnalysis;

  beforeAll(async () => {
    runId = await plantedRun();
    analysis = await json<RunFailureAnalysis>(await service.api(`/api/runs/${runId}/failures`), 200);
  }, 180_000);

  it('groups the failed cases by what went wrong, the largest group first', async () => {
    const results = await resultsByCase(service, runId);
    expect(results.good.passed).toBe(true);
    expect(analysis.run_id).toBe(runId);
    expect(analysis.failure_count).toBe(7);
    // Ties (two groups of two) are ordered by their keys: the order is fixed, whichever it is.
    const [first, ...ties] = byKind(analysis.groups);
    expect(first).toEqual({ kind: 'agent_error', scorer: null, count: 3, path: 'agent call' });
    expect(ties).toHaveLength(2);
    expect(ties).toEqual(
      expect.arrayContaining([
        { kind: 'scorer', scorer: 'contains', count: 2, path: null },
        { kind: 'scorer', scorer: 'contains', count: 2, path: 'agent call > book_hotel' },
      ]),
    );
    expect(analysis.groups[1].key < analysis.groups[2].key).toBe(true);
    const outage = analysis.groups[0];
    // The request ids and delays differ in every answer; the signature keeps what they share.
    expect(outage.signature.error_type).toBe('agent answered <n>');
    expect(outage.signature.message).toContain('upstream model overloaded (request <id>); retry after <n> ms');
    expect(outage.examples.map((e) => e.case_name).sort()).toEqual(['outage 1', 'outage 2', 'outage 3']);
    for (const example of outage.examples) {
      expect(example.trace_id).toBe(results[example.case_name!].trace_id);
      expect(example.message).toMatch(/^agent answered 500: upstream model overloaded \(request [0-9a-f-]{36}\)/);
    }
    const hotel = analysis.groups.find((g) => g.signature.span_path === 'agent call > book_hotel')!;
    expect(hotel.examples.map((e) => e.case_name).sort()).toEqual(['hotel 1881', 'hotel 4242']);
    // Different expected phrases, one reason once normalized.
    const wrong = analysis.groups.find((g) => g.signature.kind === 'scorer' && g.signature.span_path === null)!;
    expect(wrong.examples.map((e) => e.case_name).sort()).toEqual(['wrong city', 'wrong date']);
    expect(wrong.examples[0].message).not.toBe(wrong.examples[1].message);
    expect(analysis.groups.every((g) => g.label === null)).toBe(true);
    expect(analysis.label_note).toBeNull();
  });

  it('answers the same groups in the same order every time', async () => {
    const again = await json<RunFailureAnalysis>(await service.api(`/api/runs/${runId}/failures`), 200);
    expect(again).toEqual(analysis);
    const evalFamily = await json<RunFailureAnalysis>(await service.api(`/api/evals/runs/${runId}/failures`), 200);
    expect(evalFamily).toEqual(analysis);
  });

  it('labels each group once with the judge provider, and reads the labels back after', async () => {
    anthropic.requests.length = 0;
    anthropic.setDefault((req) => ({ verdict: { label: `Label for ${JSON.stringify(req.body).includes('agent_error') ? 'the outage' : 'wrong answers'} ✓` } }));
    const labelled = await json<RunFailureAnalysis>(await service.api(`/api/runs/${runId}/failures?label=true`), 200);
    expect(anthropic.requests).toHaveLength(3);
    expect(labelled.groups[0].label).toBe('Label for the outage ✓');
    expect(labelled.groups.slice(1).every((g) => g.label === 'Label for wrong answers ✓')).toBe(true);
    expect(labelled.label_note).toBeNull();
    const prompt = JSON.stringify(anthropic.requests[0].body);
    expect(prompt).toContain('upstream model overloaded');
    const again = await json<RunFailureAnalysis>(await service.api(`/api/runs/${runId}/failures?label=1`), 200);
    expect(anthropic.requests).toHaveLength(3);
    expect(again.groups.map((g) => g.label)).toEqual(labelled.groups.map((g) => g.label));
  });

  it('refuses what is not a run of the project', async () => {
    const missing = await json<ErrorBody>(await service.api(`/api/runs/${randomUUID()}/failures`), 404);
    expect(missing.code).toBe('RUN_NOT_FOUND');
    await json(await service.api(`/api/runs/not-a-run/failures`), 404);
    await json(await service.api(`/api/runs/${runId}/failures`, { project: 'failure-analysis-other' }), 404);
    const bad = await json<ErrorBody>(await service.api(`/api/runs/${runId}/failures?label=maybe`), 422);
    expect(JSON.stringify(bad.details)).toContain('label');
  });
});

describe('failure analysis of production traces', () => {
  const PROJECT = 'failure-analysis-production';

  /** A research agent's trace whose web search times out (numbers, ids and URLs differ every time) or whose model call is rate limited. */
  function researchTrace(i: number, failure: 'search' | 'model') {
    const traceId = randomUUID().replaceAll('-', '');
    const start = Date.now() - 60_000 + i * 100;
    const iso = (ms: number) => new Date(ms).toISOString();
    const search =
      failure === 'search'
        ? { status: 'error', status_message: `timeout after ${3000 + i * 7} ms calling https://search.example.com/v1/q?id=${randomUUID()}` }
        : { status: 'ok', output: texts.searchResults };
    /** A span under the root, `at` ms after the trace's start and `ms` long. */
    const childSpan = (suffix: string, name: string, type: string, [at, ms]: [number, number], more: Record<string, unknown>) =>
      spanAt(start, at, ms, { span_id: `${traceId.slice(0, 12)}${suffix}`, parent_span_id: `${traceId.slice(0, 12)}r`, name, type, ...more });
    return {
      trace_id: traceId,
      name: 'research-agent',
      status: 'error',
      duration_ms: 90,
      start_time: iso(start),
      spans: [
        {
          span_id: `${traceId.slice(0, 12)}r`,
          name: 'research-agent',
          type: 'span',
          start_time: iso(start),
          end_time: iso(start + 90),
          status: 'error',
          input: texts.researchQuestion,
        },
        childSpan('s', 'search_web', 'tool', [5, 35], { input: { query: 'agent evaluation 2026' }, ...search }),
        childSpan('m', 'chat gpt-4o', 'generation', [45, 40], {
          input: texts.researchSystemPrompt,
          ...(failure === 'model'
            ? { status: 'error', status_message: `Error 429: rate limited, retry in ${i}s`, attributes: { 'exception.type': 'RateLimitError' } }
            : { status: 'ok', output: texts.researchAnswer }),
        }),
      ],
    };
  }

  beforeAll(async () => {
    const traces = [...[0, 1, 2, 3].map((i) => researchTrace(i, 'search')), ...[4, 5].map((i) => researchTrace(i, 'model'))];
    for (const trace of traces) await json(await service.api('/api/traces/ingest', { method: 'POST', json: trace, project: PROJECT }), 201);
    await eventually(async () => {
      const list = await json<{ total: number }>(await service.api('/api/traces?has_errors=true&range=1h', { project: PROJECT }), 200);
      expect(list.total).toBe(6);
    });
  }, 60_000);

  it('groups traces by the failing span, its error type and message', async () => {
    const answer = await json<TraceFailureAnalysis>(await service.api('/api/failures?range=1h', { project: PROJECT }), 200);
    expect(answer.failure_count).toBe(6);
    expect(answer.truncated).toBe(false);
    expect(answer.groups.map((g) => [g.signature.span_path, g.signature.error_type, g.count])).toEqual([
      ['research-agent > search_web', null, 4],
      ['research-agent > chat gpt-<n>o', 'RateLimitError', 2],
    ]);
    expect(answer.groups[0].signature.message).toBe('timeout after <n> ms calling <url>');
    expect(answer.groups[1].signature.message).toBe('Error <n>: rate limited, retry in <n>s');
    expect(answer.groups[0].examples).toHaveLength(4);
    expect(answer.groups[0].examples[0].message).toMatch(/^timeout after \d+ ms calling https:\/\/search\.example\.com/);
  });

  it('counts only what the window and the limit take, and only the project', async () => {
    const limited = await json<TraceFailureAnalysis>(await service.api('/api/failures?range=1h&limit=2', { project: PROJECT }), 200);
    expect(limited.failure_count).toBe(2);
    expect(limited.truncated).toBe(true);
    const old = await json<TraceFailureAnalysis>(
      await service.api(
        `/api/failures?start_time=${new Date(Date.now() - 7 * 86_400_000).toISOString()}&end_time=${new Date(Date.now() - 6 * 86_400_000).toISOString()}`,
        { project: PROJECT },
      ),
      200,
    );
    expect(old.groups).toEqual([]);
    const other = await json<TraceFailureAnalysis>(await service.api('/api/failures?range=1h', { project: 'failure-analysis-empty' }), 200);
    expect(other.failure_count).toBe(0);
  });

  it('refuses bad windows and limits with the field named', async () => {
    for (const query of [
      'limit=0',
      'limit=1001',
      'range=1y',
      'range=1h&start_time=2026-01-01T00:00:00Z',
      'start_time=2026-02-01T00:00:00Z&end_time=2026-01-01T00:00:00Z',
    ]) {
      const bad = await json<ErrorBody>(await service.api(`/api/failures?${query}`, { project: PROJECT }), 422);
      expect(bad.code, query).toBe('VALIDATION_ERROR');
    }
  });
});
