import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import protobuf from 'protobufjs';
import { decodeProtobufRequest, OtlpDecodeError, otlpTypes, requestToRawSpans } from '../../../collector/otlp/index.js';
import { agentText } from '../../helpers/corpus.js';
import { otlpRequest } from '../../helpers/otlp-request.js';

const TRACE_ID = '5b8efff798038103d269b633813fc60c';
const SPAN_ID = 'eee19b7ec3c1b174';
const PARENT_ID = 'eee19b7ec3c1b173';

function encode(request: Record<string, unknown>): Uint8Array {
  const { ExportTraceServiceRequest } = otlpTypes();
  return ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject(request)).finish();
}

/** A request of one resource and one scope holding these spans. */
const encodeSpans = (...spans: Array<Record<string, unknown>>) => encode({ resourceSpans: [{ scopeSpans: [{ spans }] }] });

function hex(id: string): Buffer {
  return Buffer.from(id, 'hex');
}

/** One length-delimited field (wire type 2) as written by hand: its number, then the messages or text it holds, in order. */
function field(no: number, ...content: Array<Uint8Array | string>): Uint8Array {
  const bytes = Buffer.concat(content.map((c) => (typeof c === 'string' ? Buffer.from(c, 'utf8') : c)));
  return protobuf.Writer.create()
    .uint32((no << 3) | 2)
    .bytes(bytes)
    .finish();
}

/** An ExportTraceServiceRequest holding one span of these fields: resource_spans (1), its scope_spans (2), its spans (2). */
const requestOfSpan = (...spanFields: Uint8Array[]) => field(1, field(2, field(2, ...spanFields)));

const sampleRequest = otlpRequest(
  'checkout-agent',
  { name: 'my.library', version: '1.0.0' },
  {
    traceId: hex(TRACE_ID),
    spanId: hex(SPAN_ID),
    parentSpanId: hex(PARENT_ID),
    name: 'chat gpt-4o',
    kind: 3,
    startTimeUnixNano: '1700000000123456789',
    endTimeUnixNano: '1700000001123456789',
    attributes: [
      { key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o' } },
      { key: 'gen_ai.usage.input_tokens', value: { intValue: 42 } },
      { key: 'big', value: { intValue: '9223372036854775807' } },
      { key: 'neg', value: { intValue: '-17' } },
      { key: 'temperature', value: { doubleValue: 0.25 } },
      { key: 'stream', value: { boolValue: false } },
      { key: 'empty', value: { stringValue: '' } },
      { key: 'unset', value: {} },
      { key: 'raw', value: { bytesValue: Buffer.from([1, 2, 255]) } },
      { key: 'list', value: { arrayValue: { values: [{ stringValue: 'a' }, { intValue: 1 }, { arrayValue: { values: [] } }] } } },
      {
        key: 'map',
        value: { kvlistValue: { values: [{ key: 'k', value: { kvlistValue: { values: [{ key: 'deep', value: { boolValue: true } }] } } }] } },
      },
    ],
    events: [{ name: 'gen_ai.content.prompt', timeUnixNano: '1700000000500000000', attributes: [{ key: 'gen_ai.prompt', value: { stringValue: 'hi' } }] }],
    status: { code: 2, message: 'boom' },
  },
  { traceId: hex(TRACE_ID), spanId: hex(PARENT_ID), name: 'root', startTimeUnixNano: '1700000000000000000', endTimeUnixNano: '1700000002000000000' },
);

describe('decodeProtobufRequest', () => {
  it('decodes ids, times, kind, status, resource and scope', () => {
    const [span, root] = decodeProtobufRequest(encode(sampleRequest));
    expect(span).toMatchObject({
      traceId: TRACE_ID,
      spanId: SPAN_ID,
      parentSpanId: PARENT_ID,
      name: 'chat gpt-4o',
      kind: 'client',
      startTimeMs: 1700000000123.457,
      endTimeMs: 1700000001123.457,
      status: { code: 'error', message: 'boom' },
      resource: { 'service.name': 'checkout-agent' },
      scope: { name: 'my.library', version: '1.0.0' },
    });
    expect(root.kind).toBeUndefined();
    expect(root).toMatchObject({ parentSpanId: null, status: { code: 'unset' }, events: [], attributes: {} });
    expect(root.resource).toBe(span.resource);
  });

  it('decodes every AnyValue shape', () => {
    const [span] = decodeProtobufRequest(encode(sampleRequest));
    expect(span.attributes).toEqual({
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.usage.input_tokens': 42,
      big: '9223372036854775807',
      neg: -17,
      temperature: 0.25,
      stream: false,
      empty: '',
      unset: null,
      raw: Buffer.from([1, 2, 255]).toString('base64'),
      list: ['a', 1, []],
      map: { k: { deep: true } },
    });
  });

  it('decodes events with their times', () => {
    const [span] = decodeProtobufRequest(encode(sampleRequest));
    expect(span.events).toEqual([{ name: 'gen_ai.content.prompt', timeMs: 1700000000500, attributes: { 'gen_ai.prompt': 'hi' } }]);
  });

  it('keeps request order across resources and scopes', () => {
    const spanIn = (id: string) => ({ traceId: hex(TRACE_ID), spanId: hex(id), startTimeUnixNano: '1' });
    const spans = decodeProtobufRequest(
      encode({
        resourceSpans: [
          {
            scopeSpans: [
              { scope: { name: 'a' }, spans: [spanIn('01'), spanIn('02')] },
              { scope: { name: 'b' }, spans: [spanIn('03')] },
            ],
          },
          { resource: { attributes: [{ key: 'r', value: { intValue: 2 } }] }, scopeSpans: [{ spans: [spanIn('04')] }] },
        ],
      }),
    );
    expect(spans.map((s) => [s.spanId, s.scope.name, s.resource])).toEqual([
      ['01', 'a', {}],
      ['02', 'a', {}],
      ['03', 'b', {}],
      ['04', '', { r: 2 }],
    ]);
  });

  it('gives back every text as sent, for any text agents send (corpus, fast-check; UTF-8 holds no lone surrogate: bytes that are not UTF-8 are the case below)', () => {
    fc.assert(
      fc.property(agentText({ wellFormed: true }), agentText({ wellFormed: true }), agentText({ wellFormed: true }), (name, key, value) => {
        const [span] = decodeProtobufRequest(
          encodeSpans({
            traceId: hex(TRACE_ID),
            spanId: hex(SPAN_ID),
            name,
            attributes: [{ key, value: { stringValue: value } }],
            events: [{ name: value, timeUnixNano: '1000000' }],
            status: { code: 2, message: name },
          }),
        );
        expect(span).toMatchObject({
          name: name,
          attributes: { [key]: value },
          events: [{ name: value }],
          status: { code: 'error', ...(name ? { message: name } : {}) }, // an empty message is left out
        });
      }),
      { numRuns: 60 },
    );
  });

  it('maps every span kind and leaves UNSPECIFIED and unknown kinds undefined', () => {
    const kinds = [0, 1, 2, 3, 4, 5, 9].map((kind) => decodeProtobufRequest(encodeSpans({ kind, spanId: hex('01') }))[0].kind);
    expect(kinds).toEqual([undefined, 'internal', 'server', 'client', 'producer', 'consumer', undefined]);
  });

  it('decodes an empty request to no spans', () => {
    expect(decodeProtobufRequest(new Uint8Array())).toEqual([]);
  });

  it('throws a typed error for bytes that are not a request', () => {
    expect(() => decodeProtobufRequest(Buffer.from('this is not protobuf'))).toThrow(OtlpDecodeError);
    const truncated = encode(sampleRequest).subarray(0, 40);
    expect(() => decodeProtobufRequest(truncated)).toThrow(/invalid protobuf/);
  });

  it('ignores fields it does not use (links, flags, trace_state, dropped counts)', () => {
    const [span] = decodeProtobufRequest(
      encodeSpans({
        traceId: hex(TRACE_ID),
        spanId: hex(SPAN_ID),
        traceState: 'a=b',
        flags: 0x301,
        droppedAttributesCount: 3,
        links: [{ traceId: hex(TRACE_ID), spanId: hex(PARENT_ID), flags: 1 }],
      }),
    );
    expect(span).toMatchObject({ traceId: TRACE_ID, spanId: SPAN_ID });
  });

  // decodeProtobufRequest reads the wire format itself; the message walk of decode.ts (which
  // OTLP/JSON takes) over protobufjs' decoding of the same bytes must give the same spans.
  describe('gives what the message walk gives over protobufjs decoding', () => {
    const viaMessages = (bytes: Uint8Array) => requestToRawSpans(otlpTypes().ExportTraceServiceRequest.decode(bytes));

    it('for every field and AnyValue shape', () => {
      const bytes = encode(sampleRequest);
      expect(decodeProtobufRequest(bytes)).toEqual(viaMessages(bytes));
    });

    it('for agent spans: long prompts, non-ASCII text, many attributes, several resources', () => {
      const prompt = 'Résumé du ticket 🚀 '.repeat(80);
      const spans = Array.from({ length: 20 }, (_, i) => ({
        traceId: hex(TRACE_ID),
        spanId: Buffer.from(`0000000000000${String(i).padStart(3, '0')}`, 'hex'),
        parentSpanId: i === 0 ? Buffer.alloc(0) : hex(SPAN_ID),
        name: `step ${i}`,
        kind: i % 6,
        startTimeUnixNano: String(1_700_000_000_000_000_000n + BigInt(i) * 1_000_123n),
        endTimeUnixNano: String(1_700_000_000_000_000_000n + BigInt(i) * 2_000_456n),
        attributes: [
          { key: 'gen_ai.input.messages', value: { stringValue: `${prompt}${i}` } },
          { key: 'gen_ai.usage.output_tokens', value: { intValue: i * 7 } },
          { key: 'ratio', value: { doubleValue: i / 3 } },
          { key: 'nan', value: { doubleValue: NaN } },
          { key: 'inf', value: { doubleValue: -Infinity } },
          { key: 'min', value: { intValue: '-9223372036854775808' } },
        ],
        status: { code: i % 3, message: i % 3 === 2 ? 'failed' : '' },
      }));
      const request = {
        resourceSpans: [
          {
            resource: { attributes: [{ key: 'service.name', value: { stringValue: 'a' } }] },
            scopeSpans: [{ scope: { name: 's' }, spans: spans.slice(0, 10) }],
          },
          { scopeSpans: [{ spans: spans.slice(10) }, { scope: { name: 'empty' }, spans: [] }] },
        ],
      };
      const bytes = encode(request);
      expect(decodeProtobufRequest(bytes)).toEqual(viaMessages(bytes));
    });

    it('for ids of the wrong size: the same spans are marked for refusal, with the same reason', () => {
      const bytes = encodeSpans(
        { traceId: Buffer.from([1, 2, 3]), spanId: hex(SPAN_ID) },
        { traceId: hex(TRACE_ID), spanId: Buffer.from([9]) },
        { traceId: hex(TRACE_ID), spanId: hex(SPAN_ID), parentSpanId: Buffer.alloc(9, 1) },
        { traceId: hex(TRACE_ID), spanId: hex(SPAN_ID), parentSpanId: hex(PARENT_ID) },
      );
      const spans = decodeProtobufRequest(bytes);
      expect(spans.map((s) => s.decodeProblem)).toEqual([
        'traceId must be 16 bytes (32 hex characters)',
        'spanId must be 8 bytes (16 hex characters)',
        'parentSpanId must be 8 bytes (16 hex characters)',
        undefined,
      ]);
      expect(spans).toEqual(viaMessages(bytes));
    });

    it('when a resource or scope comes after its spans on the wire (fields may come in any order)', () => {
      const bytes = field(
        1, // resource_spans
        field(2, field(2, field(1, hex(TRACE_ID)), field(2, hex(SPAN_ID))), field(1, field(1, 'late scope'))), // scope_spans: the span, then its scope
        field(1, field(1, field(1, 'r'), field(2, field(1, 'v')))), // resource: attributes r = 'v'
      );
      const [span] = decodeProtobufRequest(bytes);
      expect(span).toMatchObject({ spanId: SPAN_ID, scope: { name: 'late scope', version: '' }, resource: { r: 'v' } });
      expect([span]).toEqual(viaMessages(bytes));
    });

    it('for an AnyValue with several of its oneof fields set, and text that is not valid UTF-8', () => {
      const value = protobuf.Writer.create();
      value.uint32((3 << 3) | 0).int64(7); // int_value
      value.uint32((1 << 3) | 2).bytes(Buffer.from([0x68, 0xed, 0xa0, 0xbd, 0x69])); // string_value: a lone surrogate's bytes
      const bytes = requestOfSpan(field(2, hex(SPAN_ID)), field(9, field(1, 'k'), field(2, value.finish()))); // span_id, attributes k = value
      const [decoded] = decodeProtobufRequest(bytes);
      expect(typeof decoded.attributes.k).toBe('string');
      expect([decoded]).toEqual(viaMessages(bytes));
    });
  });

  it('refuses AnyValues nested past 64 levels with the span that holds them, however deep they go', () => {
    let value = protobuf.Writer.create()
      .uint32((2 << 3) | 0)
      .bool(true)
      .finish();
    for (let i = 0; i < 10_000; i++) value = field(5, field(1, value)); // array_value { values: [value] }
    const bytes = requestOfSpan(field(9, field(1, 'deep'), field(2, value))); // attributes deep = value
    expect(() => decodeProtobufRequest(bytes)).toThrow('resourceSpans[0].scopeSpans[0].spans[0]: AnyValue is nested deeper than 64 levels');
  });

  it('refuses an invalid wire type or a length past the end as invalid protobuf', () => {
    expect(() => decodeProtobufRequest(Uint8Array.from([(1 << 3) | 7]))).toThrow(/^invalid protobuf ExportTraceServiceRequest: /);
    expect(() => decodeProtobufRequest(Uint8Array.from([(1 << 3) | 2, 100, 1, 2]))).toThrow(/^invalid protobuf ExportTraceServiceRequest: index out of range/);
  });
});
