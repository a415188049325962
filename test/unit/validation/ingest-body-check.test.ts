import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkedIngestTrace, checkedManySpans, checkedOneSpan } from '../../../core/model/ingest-body-check.js';
import { IngestTraceSchema, ManySpansSchema, OneSpanSchema, type IngestTrace } from '../../../core/model/ingest-body.js';
import { agentText, loadCorpus, toSpansBodies } from '../../helpers/corpus.js';

/**
 * The hand check of the JSON write bodies (core/model/ingest-body-check.ts) against the zod
 * schemas it stands in for: on every body it accepts, the value is the schema's; it never
 * accepts what the schema refuses (then the schema names the problem, as before).
 */
function agrees(check: (b: unknown) => unknown, schema: { safeParse(b: unknown): { success: boolean; data?: unknown } }, body: unknown) {
  const fast = check(body);
  const parsed = schema.safeParse(body);
  if (fast !== undefined) {
    expect(parsed.success, JSON.stringify(body)?.slice(0, 300)).toBe(true);
    expect(fast).toStrictEqual(parsed.data);
  }
  return { fast, parsed };
}

const corpus = loadCorpus(Date.parse('2026-11-20T10:00:00Z'));

describe('the hand check of JSON write bodies', () => {
  it('accepts every trace of the realistic corpus with the value the schema parses', () => {
    for (const trace of corpus.json) {
      const { fast } = agrees(checkedIngestTrace, IngestTraceSchema, trace.body);
      expect(fast, trace.name).toBeDefined();
      const [many, one] = toSpansBodies(trace);
      expect(agrees(checkedManySpans, ManySpansSchema, many).fast, trace.name).toBeDefined();
      expect(agrees(checkedOneSpan, OneSpanSchema, one).fast, trace.name).toBeDefined();
    }
  });

  it('leaves every refusal to the schema: bad ids, kinds, times, tokens, statuses, shapes', () => {
    const body = corpus.json[0].body;
    const span = body.spans[0];
    const broken: unknown[] = [
      null,
      [],
      'trace',
      { ...body, trace_id: '' },
      { ...body, trace_id: 'a\u0000b' },
      { ...body, trace_id: 'x'.repeat(129) },
      { ...body, trace_id: '\ud800' },
      { ...body, status: 'unset' },
      { ...body, duration_ms: -1 },
      { ...body, duration_ms: '5' },
      { ...body, start_time: '2026-02-30T00:00:00Z' },
      { ...body, attributes: { nested: { a: 1 } } },
      { ...body, attributes: [] },
      { ...body, spans: {} },
      { ...body, spans: [{ ...span, type: 'agent' }] },
      { ...body, spans: [{ ...span, start_time: 1.5 }] },
      { ...body, spans: [{ ...span, start_time: '2026-13-01' }] },
      { ...body, spans: [{ ...span, end_time: null }] },
      { ...body, spans: [{ ...span, input_tokens: 2 ** 53 - 1 }] },
      { ...body, spans: [{ ...span, output_tokens: -1 }] },
      { ...body, spans: [{ ...span, name: '' }] },
      { ...body, spans: [{ ...span, parent_span_id: 'p\u0085' }] },
      { ...body, spans: [{ ...span, status: 'ERROR' }] },
      { ...body, spans: [{ ...span, model: 7 }] },
      { ...body, spans: [{ ...span, attributes: null }] },
      JSON.parse('{"trace_id":"t","name":"n","status":"ok","duration_ms":1,"attributes":{"__proto__":{"nested":1}}}'),
    ];
    for (const b of broken) {
      const { fast, parsed } = agrees(checkedIngestTrace, IngestTraceSchema, b);
      if (!parsed.success) expect(fast).toBeUndefined();
    }
    expect(agrees(checkedManySpans, ManySpansSchema, { trace_id: 't', spans: [] }).fast).toBeUndefined();
  });

  it('keeps a `__proto__` attribute key as data, as OTLP does: both the hand check and the schema', () => {
    const body = JSON.parse(
      '{"trace_id":"t","name":"n","status":"ok","duration_ms":1,"attributes":{"a":"1","__proto__":"x"},' +
        '"spans":[{"span_id":"s","name":"n","type":"span","start_time":1700000000000,"attributes":{"__proto__":{"k":[1]},"b":2}}]}',
    ) as { spans: Array<Record<string, unknown>> };
    const { fast, parsed } = agrees(checkedIngestTrace, IngestTraceSchema, body);
    for (const trace of [fast, parsed.data] as IngestTrace[]) {
      expect(Object.getPrototypeOf(trace.attributes)).toBe(Object.prototype);
      expect(Object.entries(trace.attributes)).toEqual(
        expect.arrayContaining([
          ['a', '1'],
          ['__proto__', 'x'],
        ]),
      );
      expect(Object.keys(trace.attributes)).toHaveLength(2);
      expect(Object.entries(trace.spans[0].attributes)).toEqual(
        expect.arrayContaining([
          ['__proto__', { k: [1] }],
          ['b', 2],
        ]),
      );
      expect(Object.getPrototypeOf(trace.spans[0].attributes)).toBe(Object.prototype);
    }
    const one = { ...body.spans[0], trace_id: 't' };
    expect(Object.keys((agrees(checkedOneSpan, OneSpanSchema, one).fast as { attributes: object }).attributes)).toEqual(['__proto__', 'b']);
    // A trace attribute is text, a number or a boolean, under any key: the schema names the key.
    const nested: unknown = JSON.parse('{"trace_id":"t","name":"n","status":"ok","duration_ms":1,"attributes":{"__proto__":{"nested":1}}}');
    const refused = IngestTraceSchema.safeParse(nested);
    expect(refused.success).toBe(false);
    expect(refused.error!.issues.map((i) => i.path)).toEqual([['attributes', '__proto__']]);
    expect(checkedIngestTrace(nested)).toBeUndefined();
  });

  it('gives the schema’s answer on arbitrary bodies (property)', () => {
    /** Valid nine times in ten, so bodies the hand check accepts are common and the refusals still come. */
    const mostly = <T, U>(valid: fc.Arbitrary<T>, invalid: fc.Arbitrary<U>) => fc.oneof({ arbitrary: valid, weight: 19 }, { arbitrary: invalid, weight: 1 });
    const text = agentText({ maxLength: 60 }).filter((t) => t.length > 0 && t.length <= 1024);
    const id = mostly(
      fc.oneof(
        fc.constantFrom('t-1', 'span-2', 'x'.repeat(128)),
        agentText({ wellFormed: true, maxLength: 40 }).filter((t) => t.length > 0 && !/[\u0000-\u001f\u007f-\u009f]/.test(t)),
      ),
      fc.constantFrom('x'.repeat(129), '', 'a\u0000', '\ud83d', 7),
    );
    const time = mostly(
      fc.oneof(
        fc.integer({ min: 100_000_000, max: 7_000_000_000_000 }),
        fc.constantFrom('2026-11-20T10:00:00Z', '2026-11-20T10:00:00.123+02:00', '2028-02-29'),
      ),
      fc.oneof(fc.integer({ min: -10, max: 86_400_000 }), fc.double(), fc.constantFrom('2026-02-29T00:00:00Z', 'yesterday', '', '2026-11-20T24:00:00Z')),
    );
    const json = fc.jsonValue({ maxDepth: 3 });
    // Keys as agents send them, and now and then the one JSON.parse keeps but an assignment would not.
    const attributeKey = fc.oneof({ arbitrary: agentText({ maxLength: 20 }), weight: 9 }, { arbitrary: fc.constant('__proto__'), weight: 1 });
    const span = fc.record(
      {
        span_id: id,
        parent_span_id: mostly(fc.oneof(id, fc.constant(null)), fc.constant('')),
        name: mostly(text, fc.constantFrom('', 5)),
        type: mostly(
          fc.constantFrom('span', 'generation', 'tool', 'retrieval', 'reasoning', 'planning', 'routing', 'memory', 'prompt'),
          fc.constantFrom('agent', 'LLM'),
        ),
        start_time: time,
        end_time: time,
        status: mostly(fc.constantFrom('ok', 'error'), fc.constantFrom('unset', 'OK')),
        status_message: mostly(text, fc.integer()),
        attributes: mostly(fc.dictionary(attributeKey, json, { maxKeys: 5 }), json),
        model: mostly(fc.string(), fc.integer()),
        input: json,
        output: json,
        input_tokens: mostly(fc.nat({ max: 1_000_000_000 }), fc.oneof(fc.integer({ min: -5, max: -1 }), fc.constant(1_000_000_001), fc.double())),
        output_tokens: mostly(fc.nat({ max: 1_000_000_000 }), fc.constant(-1)),
        extra: json,
      },
      { requiredKeys: ['span_id', 'name', 'type', 'start_time'] },
    );
    const trace = fc.record(
      {
        trace_id: id,
        name: mostly(text, fc.constant('')),
        status: mostly(fc.constantFrom('ok', 'error'), fc.constant('running')),
        duration_ms: mostly(fc.oneof(fc.nat(), fc.double({ min: 0, max: 1e9, noNaN: true })), fc.constantFrom(-1, 10 * 365 * 86_400_000 + 1)),
        start_time: time,
        attributes: mostly(fc.dictionary(attributeKey, fc.oneof(fc.string(), fc.integer(), fc.boolean()), { maxKeys: 5 }), json),
        spans: fc.array(span, { maxLength: 3 }),
      },
      { requiredKeys: ['trace_id', 'name', 'status', 'duration_ms'] },
    );
    // Bodies as JSON.parse gives them (no undefined, no NaN).
    const asParsed = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;
    let accepted = 0;
    fc.assert(
      fc.property(trace, (t) => {
        const body = asParsed(t);
        if (agrees(checkedIngestTrace, IngestTraceSchema, body).fast !== undefined) accepted++;
        const b = body as { trace_id: unknown; spans?: unknown[] };
        agrees(checkedManySpans, ManySpansSchema, { trace_id: b.trace_id, spans: b.spans });
        if (b.spans?.[0]) agrees(checkedOneSpan, OneSpanSchema, { ...b.spans[0], trace_id: b.trace_id });
      }),
      { numRuns: 2000 },
    );
    // The property saw the hand check say yes often enough to mean something.
    expect(accepted).toBeGreaterThan(200);
  });
});
