import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeJsonRequest, OtlpDecodeError, requestToRawSpans } from '../../../collector/otlp/index.js';
import { agentText } from '../../helpers/corpus.js';
import { otlpRequest, snakeCaseKeys } from '../../helpers/otlp-request.js';

const TRACE_ID = '5B8EFFF798038103D269B633813FC60C';
const SPAN_ID = 'EEE19B7EC3C1B174';

const SCOPE = { name: 'ai', version: '4.0.0' };

/** An OTLP/JSON body as the spec's example and OTel SDKs write it (lowerCamelCase, hex ids). */
const camelCase = otlpRequest('agent', SCOPE, {
  traceId: TRACE_ID,
  spanId: SPAN_ID,
  parentSpanId: '',
  name: 'ai.generateText',
  kind: 2,
  startTimeUnixNano: '1544712660000000000',
  endTimeUnixNano: 1544712661000000000,
  attributes: [
    { key: 'ai.usage.promptTokens', value: { intValue: '12' } },
    { key: 'n', value: { intValue: 7 } },
    { key: 'huge', value: { intValue: '-9223372036854775808' } },
    { key: 'd', value: { doubleValue: '1.5' } },
    { key: 'inf', value: { doubleValue: 'Infinity' } },
    { key: 'b', value: { boolValue: true } },
    { key: 'bytes', value: { bytesValue: 'AQL/' } },
    { key: 'arr', value: { arrayValue: { values: [{ stringValue: 'x' }, { doubleValue: 2.5 }] } } },
    { key: 'kv', value: { kvlistValue: { values: [{ key: 'a', value: { intValue: '1' } }] } } },
  ],
  events: [{ timeUnixNano: '1544712660500000000', name: 'ev', attributes: [] }],
  status: { code: 'STATUS_CODE_OK' },
});

/**
 * The same request with proto field names, as generic protobuf JSON printers can emit (the
 * envelope's keys too: `resource_spans`, `scope_spans`, `string_value`).
 */
const snakeCase = snakeCaseKeys(
  otlpRequest('agent', SCOPE, {
    trace_id: TRACE_ID,
    span_id: SPAN_ID,
    parent_span_id: '',
    name: 'ai.generateText',
    kind: 'SPAN_KIND_SERVER',
    start_time_unix_nano: 1544712660000000000,
    end_time_unix_nano: '1544712661000000000',
    attributes: [
      { key: 'ai.usage.promptTokens', value: { int_value: 12 } },
      { key: 'n', value: { int_value: '7' } },
      { key: 'huge', value: { int_value: '-9223372036854775808' } },
      { key: 'd', value: { double_value: 1.5 } },
      { key: 'inf', value: { double_value: 'Infinity' } },
      { key: 'b', value: { bool_value: true } },
      { key: 'bytes', value: { bytes_value: 'AQL/' } },
      { key: 'arr', value: { array_value: { values: [{ string_value: 'x' }, { double_value: 2.5 }] } } },
      { key: 'kv', value: { kvlist_value: { values: [{ key: 'a', value: { int_value: 1 } }] } } },
    ],
    events: [{ time_unix_nano: 1544712660500000000, name: 'ev' }],
    status: { code: 1 },
  }),
);

const expected = {
  traceId: TRACE_ID.toLowerCase(),
  spanId: SPAN_ID.toLowerCase(),
  parentSpanId: null,
  name: 'ai.generateText',
  kind: 'server',
  startTimeMs: 1544712660000,
  endTimeMs: 1544712661000,
  attributes: {
    'ai.usage.promptTokens': 12,
    n: 7,
    huge: '-9223372036854775808',
    d: 1.5,
    inf: 'Infinity',
    b: true,
    bytes: 'AQL/',
    arr: ['x', 2.5],
    kv: { a: 1 },
  },
  events: [{ name: 'ev', timeMs: 1544712660500, attributes: {} }],
  status: { code: 'ok' },
  resource: { 'service.name': 'agent' },
  scope: { name: 'ai', version: '4.0.0' },
};

describe('decodeJsonRequest', () => {
  it('decodes lowerCamelCase OTLP/JSON with string and number integers', () => {
    expect(decodeJsonRequest(JSON.stringify(camelCase))).toEqual([expected]);
  });

  it('decodes snake_case field names and enum names the same way', () => {
    expect(decodeJsonRequest(Buffer.from(JSON.stringify(snakeCase)))).toEqual([expected]);
  });

  it('tolerates base64 ids from generic proto3 JSON encoders', () => {
    const span = { traceId: Buffer.from(TRACE_ID, 'hex').toString('base64'), spanId: Buffer.from(SPAN_ID, 'hex').toString('base64') };
    const [out] = requestToRawSpans({ resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] });
    expect(out).toMatchObject({ traceId: expected.traceId, spanId: expected.spanId, parentSpanId: null });
  });

  it('marks a span whose ids are not hex, or not 16 / 8 bytes, for refusal and decodes its neighbours', () => {
    const spans = requestToRawSpans({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                { traceId: 'zz', spanId: SPAN_ID },
                { traceId: TRACE_ID, spanId: 'abcd' },
                { traceId: TRACE_ID, spanId: SPAN_ID, parentSpanId: 'not hex!' },
                { traceId: TRACE_ID.slice(0, 30), spanId: SPAN_ID },
                { traceId: TRACE_ID, spanId: SPAN_ID },
              ],
            },
          ],
        },
      ],
    });
    expect(spans.map((s) => s.decodeProblem)).toEqual([
      'traceId must be 16 bytes (32 hex characters)',
      'spanId must be 8 bytes (16 hex characters)',
      'parentSpanId must be 8 bytes (16 hex characters)',
      'traceId must be 16 bytes (32 hex characters)',
      undefined,
    ]);
    // Text that is not hex is never shown as an id; hex of the wrong size is.
    expect(spans[0].traceId).toBe('');
    expect(spans[1].spanId).toBe('abcd');
    expect(spans[4]).toMatchObject({ traceId: expected.traceId, spanId: expected.spanId });
  });

  it('gives back every text as sent, for any text agents send, lone surrogates included (corpus, fast-check)', () => {
    fc.assert(
      fc.property(agentText(), agentText(), agentText(), (name, key, value) => {
        const request = {
          resourceSpans: [
            {
              resource: { attributes: [{ key: 'service.name', value: { stringValue: value } }] },
              scopeSpans: [
                {
                  scope: { name: key },
                  spans: [
                    {
                      traceId: TRACE_ID,
                      spanId: SPAN_ID,
                      name,
                      attributes: [{ key, value: { stringValue: value } }],
                      events: [{ name: value, timeUnixNano: '1000000' }],
                      status: { code: 2, message: name },
                    },
                  ],
                },
              ],
            },
          ],
        };
        const [span] = decodeJsonRequest(JSON.stringify(request));
        expect(span).toMatchObject({
          name,
          attributes: { [key]: value },
          events: [{ name: value }],
          status: { code: 'error', ...(name ? { message: name } : {}) }, // an empty message is left out
          resource: { 'service.name': value },
          scope: { name: key },
        });
      }),
      { numRuns: 60 },
    );
  });

  it('accepts status codes and kinds as names, numbers or numeric strings', () => {
    const decode = (status: unknown, kind: unknown) => requestToRawSpans({ resourceSpans: [{ scopeSpans: [{ spans: [{ spanId: '01', status, kind }] }] }] })[0];
    expect(decode({ code: 'STATUS_CODE_ERROR', message: 'm' }, 'SPAN_KIND_CONSUMER')).toMatchObject({
      status: { code: 'error', message: 'm' },
      kind: 'consumer',
    });
    expect(decode({ code: 2 }, '4')).toMatchObject({ status: { code: 'error' }, kind: 'producer' });
    expect(decode({}, 'SPAN_KIND_UNSPECIFIED')).toMatchObject({ status: { code: 'unset' } });
    expect(decode({ code: 'NOT_A_CODE' }, 'NOT_A_KIND')).toMatchObject({ status: { code: 'unset' } });
  });

  it('reads the legacy instrumentationLibrarySpans shape', () => {
    const [span] = requestToRawSpans({
      resourceSpans: [{ instrumentationLibrarySpans: [{ instrumentationLibrary: { name: 'old', version: '0.1' }, spans: [{ spanId: '01' }] }] }],
    });
    expect(span.scope).toEqual({ name: 'old', version: '0.1' });
  });

  it('treats absent collections and an empty object as no spans', () => {
    expect(decodeJsonRequest('{}')).toEqual([]);
    expect(decodeJsonRequest('\uFEFF{}')).toEqual([]);
    expect(decodeJsonRequest('{"resourceSpans":[{}]}')).toEqual([]);
    expect(decodeJsonRequest('{"resourceSpans":[{"scopeSpans":[{"spans":null}]}]}')).toEqual([]);
  });

  it('throws a typed error with the location for undecodable input', () => {
    expect(() => decodeJsonRequest('{"resourceSpans": [')).toThrow(OtlpDecodeError);
    expect(() => decodeJsonRequest('null')).toThrow(OtlpDecodeError);
    expect(() => decodeJsonRequest('{"resourceSpans": "nope"}')).toThrow(/resourceSpans/);
    const badId = { resourceSpans: [{ scopeSpans: [{ spans: [{}, { traceId: 12 }] }] }] };
    expect(() => requestToRawSpans(badId)).toThrow('resourceSpans[0].scopeSpans[0].spans[1]: expected traceId to be a hex string');
    const badAttr = { resourceSpans: [{ scopeSpans: [{ spans: [{ attributes: [{ key: 'a', value: { intValue: 'x' } }] }] }] }] };
    expect(() => requestToRawSpans(badAttr)).toThrow('resourceSpans[0].scopeSpans[0].spans[0].attributes[0].value: expected intValue to be an integer');
  });
});
