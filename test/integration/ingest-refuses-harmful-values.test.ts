import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRequest, postTraces } from '../fixtures/otlp/harness.js';
import { eventually } from '../helpers/eventually.js';
import { childrenOf } from '../helpers/ingest-trace.js';
import { startTestService, type TestService } from '../helpers/server.js';

/**
 * Values that were accepted and hurt later, refused at the door through the real ingest routes
 * and OTLP/HTTP (JSON and protobuf), on the real service (chDB, PostgreSQL, its worker's online
 * evaluator): a NUL trace id (stored, it froze every online rule of its project and made
 * metadata routes answer 500), a date that does not exist (stored as another day), OTLP/JSON ids
 * that are not hex (stored as 1-byte ids), absurd token counts (2^53-1) and spans older than
 * RETENTION_DAYS (acknowledged, then dropped by the TTL). The JSON routes refuse the whole request
 * (422 naming `spans[i]`); OTLP refuses the span alone in partial_success and stores the rest.
 */

let svc: TestService;
const PROJECT = 'door-rules';
const RETENTION_DAYS = 30;
const DAY_MS = 86_400_000;

beforeAll(async () => {
  svc = await startTestService({ RETENTION_DAYS: String(RETENTION_DAYS), ONLINE_EVAL_TICK_MS: '100', ONLINE_EVAL_LEASE_MS: '10000' });
});

afterAll(async () => {
  await svc?.stop();
});

interface Issue {
  field: string;
  message: string;
}

async function call(method: string, path: string, json?: unknown): Promise<{ status: number; body: Record<string, unknown>; text: string }> {
  const res = await svc.api(path, { method, project: PROJECT, ...(json === undefined ? {} : { json }) });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown>, text };
}

/** The 422's {field: message}. */
async function refused(path: string, json: unknown): Promise<Record<string, string>> {
  const out = await call('POST', path, json);
  expect(out.status, out.text).toBe(422);
  expect(out.body).toMatchObject({ error: 'Validation error', code: 'VALIDATION_ERROR', message: 'Field validation failed' });
  return Object.fromEntries((out.body.details as Issue[]).map((d) => [d.field, d.message]));
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A JSON ingest body: a root span and a generation span, `edit` applied to the generation span. */
function trace(traceId: string, edit: (span: Record<string, unknown>) => void = () => {}, start = Date.now() - 5000) {
  const attributes = { model: 'gpt-4o', input_tokens: 10, output_tokens: 20 };
  const generation = childrenOf(traceId, start)('llm', 10, 490, { name: 'llm', type: 'generation', attributes, output: 'the answer is ok' });
  edit(generation);
  return {
    trace_id: traceId,
    name: 'door',
    status: 'ok',
    duration_ms: 1000,
    spans: [
      { span_id: `${traceId}-root`, name: 'agent', type: 'span', start_time: iso(start), end_time: iso(start + 1000), input: 'q', output: 'the answer is ok' },
      generation,
    ],
  };
}

/** How many span rows of the project the analytical store holds whose trace id matches `where` (a ClickHouse condition on trace_id). */
async function storedSpans(where: string): Promise<number> {
  const rs = await svc.clickhouse.query({
    query: `SELECT count() AS n FROM agent_eval.spans WHERE project_id = {project:String} AND ${where}`,
    query_params: { project: PROJECT },
    format: 'JSONEachRow',
  });
  const [row] = await rs.json<{ n: string }>();
  return Number(row.n);
}

async function traceSpanIds(traceId: string): Promise<string[]> {
  const out = await call('GET', `/api/traces/${traceId}`);
  expect(out.status, out.text).toBe(200);
  return (out.body.spans as Array<{ span_id: string }>).map((s) => s.span_id).sort();
}

// OTLP over HTTP, to the OTLP port, as the OTel exporters send it.
const TRACE_HEX = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1';
const spanHex = (n: number) => n.toString(16).padStart(16, '0');
const nanos = (ms: number) => `${BigInt(Math.round(ms)) * 1_000_000n}`;

interface OtlpSpan {
  traceId: string | Buffer;
  spanId: string | Buffer;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: Array<{ key: string; value: Record<string, unknown> }>;
}

function otlpSpan(traceId: string, n: number, extra: Partial<OtlpSpan> = {}): OtlpSpan {
  const start = Date.now() - 2000;
  return { traceId, spanId: spanHex(n), name: `step-${n}`, startTimeUnixNano: nanos(start + n), endTimeUnixNano: nanos(start + n + 100), ...extra };
}

async function exportOtlp(
  spans: OtlpSpan[],
  encoding: 'json' | 'protobuf',
): Promise<{ status: number; partial?: { rejectedSpans: number; errorMessage: string } }> {
  const key = await svc.keyFor(PROJECT);
  const request = {
    resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'door' } }] }, scopeSpans: [{ scope: { name: 'door' }, spans }] }],
  };
  if (encoding === 'json') {
    const res = await postTraces(svc.otlpHttpUrl!, JSON.stringify(request), {
      contentType: 'application/json',
      project: PROJECT,
      headers: { 'x-api-key': key },
    });
    const body = (await res.json()) as { partialSuccess?: { rejectedSpans: string; errorMessage: string } };
    return {
      status: res.status,
      partial: body.partialSuccess && { rejectedSpans: Number(body.partialSuccess.rejectedSpans), errorMessage: body.partialSuccess.errorMessage },
    };
  }
  const toBytes = (id: string | Buffer) => (typeof id === 'string' ? Buffer.from(id, 'hex') : id);
  const binary = {
    ...request,
    resourceSpans: [
      {
        ...request.resourceSpans[0],
        scopeSpans: [{ scope: { name: 'door' }, spans: spans.map((s) => ({ ...s, traceId: toBytes(s.traceId), spanId: toBytes(s.spanId) })) }],
      },
    ],
  };
  const res = await postTraces(svc.otlpHttpUrl!, encodeRequest(binary), { project: PROJECT, headers: { 'x-api-key': key } });
  const { otlpTypes } = await import('../../collector/otlp/index.js');
  const { ExportTraceServiceResponse } = otlpTypes();
  const decoded = ExportTraceServiceResponse.toObject(ExportTraceServiceResponse.decode(new Uint8Array(await res.arrayBuffer())), { longs: Number }) as {
    partialSuccess?: { rejectedSpans: number; errorMessage: string };
  };
  return { status: res.status, partial: decoded.partialSuccess };
}

const CONTROL = 'must not contain control characters (U+0000-U+001F, U+007F-U+009F)';

describe('ids with control characters', () => {
  it('refuses a NUL trace id on the JSON routes and stores nothing of it', async () => {
    expect(await refused('/api/traces/ingest', { ...trace('door-nul'), trace_id: 'nul\u0000trace' })).toEqual({ trace_id: CONTROL });
    expect(await refused('/api/spans', { trace_id: 'nul\u0000trace', spans: trace('x').spans })).toEqual({ trace_id: CONTROL });
    expect(await refused('/api/scores', { trace_id: 'nul\u0000trace', name: 'accuracy', value: 1 })).toEqual({ trace_id: CONTROL });
    expect(await storedSpans('position(trace_id, char(0)) > 0')).toBe(0);
    // A NUL, or any control character, in a span's id refuses the whole request.
    for (const c of ['\u0000', '\u001b', '\u0085']) {
      expect(
        await refused(
          '/api/traces/ingest',
          trace('door-ctl-span', (s) => (s.span_id = `llm${c}`)),
        ),
      ).toEqual({ 'spans[1].span_id': CONTROL });
      expect(
        await refused(
          '/api/traces/ingest',
          trace('door-ctl-span', (s) => (s.parent_span_id = `root${c}`)),
        ),
      ).toEqual({ 'spans[1].parent_span_id': CONTROL });
    }
    expect((await call('GET', '/api/traces/door-ctl-span')).status).toBe(404);
    // Looked up by such an id: 400, never the database's 500.
    const lookup = await call('GET', `/api/traces/${encodeURIComponent('nul\u0000trace')}`);
    expect(lookup.status).toBe(400);
    expect(lookup.body).toEqual({ error: `Path parameters ${CONTROL}`, code: 'CONTROL_CHARACTERS', status: 400 });
  });
});

describe('dates that do not exist', () => {
  it('refuses 2026-02-30 in a span, a trace and a list filter, instead of storing 2 March', async () => {
    expect(
      await refused(
        '/api/traces/ingest',
        trace('door-feb-30', (s) => (s.start_time = '2026-02-30T00:00:00Z')),
      ),
    ).toEqual({
      'spans[1].start_time': 'must be a date and time that exist (2026-02-30T00:00:00Z does not)',
    });
    expect((await call('GET', '/api/traces/door-feb-30')).status).toBe(404);
    expect(await refused('/api/traces/ingest', { ...trace('door-feb-30'), start_time: '2026-02-30T10:00:00.000Z' })).toEqual({
      start_time: 'must be a date and time that exist (2026-02-30T10:00:00.000Z does not)',
    });
    const list = await call('GET', '/api/traces?start_time=2026-02-30T00:00:00Z');
    expect(list.status).toBe(422);
    expect(list.body.details).toEqual([{ field: 'start_time', message: 'must be a date and time that exist (2026-02-30T00:00:00Z does not)' }]);
  });
});

describe('OTLP ids that are not hex, or not 16 / 8 bytes', () => {
  it('refuses the span whose OTLP/JSON trace id is "zz" in partial_success and stores its neighbours', async () => {
    const out = await exportOtlp([otlpSpan(TRACE_HEX, 1), otlpSpan('zz', 2), otlpSpan(TRACE_HEX, 3)], 'json');
    expect(out.status).toBe(200);
    expect(out.partial).toEqual({
      rejectedSpans: 1,
      errorMessage: `1 span(s) rejected: spans[1] (span_id ${spanHex(2)}): traceId must be 16 bytes (32 hex characters)`,
    });
    expect(await eventually(() => traceSpanIds(TRACE_HEX))).toEqual([spanHex(1), spanHex(3)]);
    // No trace id of fewer than 16 bytes was stored (the JSON routes' ids of this project are not hex).
    expect(await storedSpans("match(trace_id, '^[0-9a-f]{1,31}$')")).toBe(0);
  });

  it('refuses spans with ids of the wrong size the same way over OTLP/JSON and protobuf', async () => {
    const traceId = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb2';
    const json = await exportOtlp([otlpSpan(traceId, 1), otlpSpan(traceId, 2, { spanId: 'abcd' }), otlpSpan('0123', 3)], 'json');
    expect(json.partial?.rejectedSpans).toBe(2);
    expect(json.partial?.errorMessage).toContain('spans[1] (span_id abcd): spanId must be 8 bytes (16 hex characters)');
    expect(json.partial?.errorMessage).toContain('spans[2] (span_id 0000000000000003): traceId must be 16 bytes (32 hex characters)');
    const proto = await exportOtlp([otlpSpan(traceId, 4), otlpSpan(traceId, 5, { spanId: Buffer.from('abcd', 'hex') }), otlpSpan('0123', 6)], 'protobuf');
    expect(proto.status).toBe(200);
    expect(proto.partial?.rejectedSpans).toBe(2);
    expect(proto.partial?.errorMessage).toContain('spans[1] (span_id abcd): spanId must be 8 bytes (16 hex characters)');
    expect(proto.partial?.errorMessage).toContain('spans[2] (span_id 0000000000000006): traceId must be 16 bytes (32 hex characters)');
    expect(await eventually(() => traceSpanIds(traceId))).toEqual([spanHex(1), spanHex(4)]);
  });
});

describe('token counts past MAX_TOKENS_PER_SPAN', () => {
  const MESSAGE = 'a token count must be a whole number from 0 to 1000000000';

  it('refuses 2^53-1 tokens on the JSON routes, in attributes or at the top level', async () => {
    expect(
      await refused(
        '/api/traces/ingest',
        trace('door-tokens', (s) => (s.attributes = { model: 'gpt-4o', 'gen_ai.usage.input_tokens': 2 ** 53 - 1 })),
      ),
    ).toEqual({
      'spans[1]': `gen_ai.usage.input_tokens is 9007199254740991; ${MESSAGE}`,
    });
    expect(
      await refused(
        '/api/traces/ingest',
        trace('door-tokens', (s) => (s.output_tokens = 2 ** 53 - 1)),
      ),
    ).toEqual({
      'spans[1].output_tokens': 'must be at most 1000000000 (a whole number of tokens)',
    });
    expect(
      await refused('/api/spans', { trace_id: 'door-tokens', spans: trace('door-tokens', (s) => (s.attributes = { 'llm.token_count.prompt': -5 })).spans }),
    ).toEqual({
      'spans[1]': `llm.token_count.prompt is -5; ${MESSAGE}`,
    });
    expect((await call('GET', '/api/traces/door-tokens')).status).toBe(404);
  });

  it('refuses the span alone on OTLP and stores its neighbours, whose tokens count', async () => {
    const traceId = 'cccccccccccccccccccccccccccccc03';
    const usage = (input: Record<string, unknown>) => [
      { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
      { key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o' } },
      { key: 'gen_ai.usage.input_tokens', value: input },
      { key: 'gen_ai.usage.output_tokens', value: { intValue: '5' } },
    ];
    for (const encoding of ['json', 'protobuf'] as const) {
      const base = encoding === 'json' ? 10 : 20;
      const out = await exportOtlp(
        [
          otlpSpan(traceId, base + 1, { attributes: usage({ intValue: '7' }) }),
          otlpSpan(traceId, base + 2, { attributes: usage({ intValue: '9007199254740991' }) }),
        ],
        encoding,
      );
      expect(out.status).toBe(200);
      expect(out.partial).toEqual({
        rejectedSpans: 1,
        errorMessage: `1 span(s) rejected: spans[1] (span_id ${spanHex(base + 2)}): gen_ai.usage.input_tokens is 9007199254740991; ${MESSAGE}`,
      });
    }
    expect(await eventually(() => traceSpanIds(traceId))).toEqual([spanHex(11), spanHex(21)]);
    const summary = await call('GET', `/api/traces?limit=1000`);
    const listed = (summary.body.traces as Array<{ trace_id: string; total_input_tokens: number }>).find((t) => t.trace_id === traceId);
    expect(listed?.total_input_tokens).toBe(14);
  });
});

describe(`spans older than RETENTION_DAYS (${RETENTION_DAYS})`, () => {
  const old = Date.now() - (RETENTION_DAYS + 5) * DAY_MS;
  const message = (ms: number) => `start time ${iso(ms)} is older than the retention of ${RETENTION_DAYS} days (RETENTION_DAYS)`;

  it('refuses a trace and its spans on the JSON routes, naming the retention', async () => {
    const body = trace('door-old', () => {}, old);
    const issues = await refused('/api/traces/ingest', body);
    expect(issues).toEqual({ 'spans[0]': message(old), 'spans[1]': message(old + 10) });
    expect(await refused('/api/traces/ingest', { trace_id: 'door-old-header', name: 'n', status: 'ok', duration_ms: 1, start_time: iso(old) })).toEqual({
      start_time: message(old),
    });
    expect((await call('GET', '/api/traces/door-old')).status).toBe(404);
    // Within the retention: stored.
    expect(
      (
        await call(
          'POST',
          '/api/traces/ingest',
          trace('door-recent', () => {}, Date.now() - (RETENTION_DAYS - 1) * DAY_MS),
        )
      ).status,
    ).toBe(201);
  });

  it('refuses an old span alone on OTLP, in partial_success', async () => {
    const traceId = 'dddddddddddddddddddddddddddddd04';
    const oldSpan = otlpSpan(traceId, 2, { startTimeUnixNano: nanos(old), endTimeUnixNano: nanos(old + 100) });
    const out = await exportOtlp([otlpSpan(traceId, 1), oldSpan], 'protobuf');
    expect(out.partial).toEqual({ rejectedSpans: 1, errorMessage: `1 span(s) rejected: spans[1] (span_id ${spanHex(2)}): ${message(old)}` });
    expect(await eventually(() => traceSpanIds(traceId))).toEqual([spanHex(1)]);
  });
});

describe('after hostile requests', () => {
  it('an online rule keeps scoring, and queues, agents and runs keep answering', async () => {
    const rule = await call('POST', '/api/evals/online-rules', {
      name: 'keeps going',
      filter: { trace_name: 'door-after' },
      scorers: ['contains'],
      expected: { outputContains: ['ok'] },
      delay_seconds: 1,
      since: iso(Date.now() - 3600_000),
    });
    expect(rule.status, rule.text).toBe(201);
    const ruleId = String(rule.body.id);
    // Hostile requests of every kind.
    await refused('/api/traces/ingest', { ...trace('nul\u0000after'), name: 'door-after' });
    await exportOtlp([otlpSpan('zz', 1)], 'json');
    expect((await call('GET', `/api/agents/${encodeURIComponent('a\u0000b')}`)).status).toBe(400);
    expect((await call('GET', `/api/runs?suite_name=${encodeURIComponent('a\u0000b')}`)).status).toBe(422);
    expect((await call('GET', `/api/queues/${encodeURIComponent('q\u0000')}`)).status).toBe(400);
    // Then a normal trace: the rule scores it.
    expect((await call('POST', '/api/traces/ingest', { ...trace('door-after-ok'), name: 'door-after' })).status).toBe(201);
    const evaluations = await eventually(async () => {
      const list = await call('GET', `/api/evals/online-rules/${ruleId}/evaluations`);
      expect(list.status, list.text).toBe(200);
      const done = (list.body.evaluations as Array<{ trace_id: string; status: string }>).filter((e) => e.status === 'done');
      expect(done.map((e) => e.trace_id)).toEqual(['door-after-ok']);
      return done;
    }, 60_000);
    expect(evaluations).toHaveLength(1);

    const queue = await call('POST', '/api/queues', { name: 'after', trace_ids: ['door-after-ok'] });
    expect(queue.status, queue.text).toBe(201);
    const next = await call('POST', `/api/queues/${String(queue.body.id)}/next`, { reviewer: 'rev' });
    expect(next.status, next.text).toBe(200);
    expect(next.body.item).toMatchObject({ trace_id: 'door-after-ok' });
    expect((await call('POST', '/api/agents', { name: 'door-agent', endpoint: 'http://127.0.0.1:9/agent' })).status).toBe(201);
    expect((await call('GET', '/api/agents/door-agent')).status).toBe(200);
    const run = await call('POST', '/api/runs', { execution: 'local', agentId: 'door-agent', dataset: { items: [{ input: 'q' }] }, scorers: ['contains'] });
    expect(run.status, run.text).toBe(201);
    const runs = await call('GET', '/api/runs');
    expect(runs.status, runs.text).toBe(200);
    expect((runs.body.runs as Array<{ run_id: string }>).map((r) => r.run_id)).toContain(run.body.run_id);
  });
});
