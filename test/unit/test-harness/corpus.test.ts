import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { decodeIngestBody } from '../../../collector/json/ingest-body.js';
import { normalizeSpan } from '../../../collector/normalize/index.js';
import { IngestTraceSchema } from '../../../core/model/ingest-body.js';
import type { RawSpan } from '../../../core/model/raw-span.js';
import type { SpanRecord } from '../../../core/model/span.js';
import type { SpanView } from '../../../core/model/trace.js';
import { recordTrace } from '../../e2e/helpers/otel.js';
import { EVERY_ASCII, hostileStrings, LONG_ANSWER_MIN_BYTES, LONG_LINE_LENGTH, longAnswer, texts } from '../../fixtures/corpus/texts.js';
import { expectSpanAsSent, loadCorpus, sentFromJson, sentFromRecorded, toSpanSpecs, wellFormed, type SentTrace } from '../../helpers/corpus.js';

// The corpus of test/fixtures/corpus checked on its own, without a service: it holds what it says
// it holds, and its expectations are what the normalizer makes of its spans (so a failure of the
// integration tests that send it is about the way in, not about the corpus).

const corpus = loadCorpus();

describe('the corpus texts', () => {
  it('are what agents send: blank lines, markdown, code fences, tables, CRLF', () => {
    for (const [name, text] of Object.entries(texts)) {
      // The search results are JSON: their blank lines are inside strings, escaped.
      if (name === 'searchResults') expect(text).toContain('\\n\\n');
      else expect(text.includes('\n\n') || text.includes('\r\n\r\n'), `${name} has a blank line`).toBe(true);
    }
    const all = Object.values(texts).join('\n');
    expect(all).toMatch(/^#{1,3} /m);
    expect(all).toMatch(/^```ts\n[\s\S]+?\n```$/m);
    expect(all).toMatch(/^```python\n/m);
    expect(all).toMatch(/^\|.+\|$/m);
    expect(all).toMatch(/^\d\. /m);
    expect(texts.supportQuestion).toContain('\r\n\r\n');
  });

  it('cover the scripts and sequences: emoji ZWJ sequences and flags, Arabic, Hebrew, CJK, Devanagari, combining marks', () => {
    const all = Object.values(texts).join('\n');
    expect(all).toMatch(/\p{Extended_Pictographic}\u200d\p{Extended_Pictographic}/u);
    expect(all).toMatch(/\p{Regional_Indicator}{2}/u);
    expect(all).toMatch(/\u{1F3F4}\u{E0067}\u{E0062}/u);
    for (const script of ['Arabic', 'Hebrew', 'Han', 'Hiragana', 'Hangul', 'Devanagari']) {
      expect(all, script).toMatch(new RegExp(`\\p{Script=${script}}{2}`, 'u'));
    }
    expect(all).toMatch(/\p{L}\p{M}{2,}/u);
    expect(all).toMatch(/[\u{10000}-\u{10FFFF}]/u);
  });

  it(`generate one answer of at least ${LONG_ANSWER_MIN_BYTES} bytes, the same on every call`, () => {
    const long = longAnswer();
    const bytes = Buffer.byteLength(long);
    expect(bytes).toBeGreaterThanOrEqual(LONG_ANSWER_MIN_BYTES);
    expect(bytes).toBeLessThan(LONG_ANSWER_MIN_BYTES + 10_000);
    expect(long.split('\n\n').length).toBeGreaterThan(1000);
    expect(long).toContain('```ts\n');
    expect(long).toContain('e\u0301');
    expect(long.isWellFormed()).toBe(true);
    expect(longAnswer()).toBe(long);
  });

  it('hold every hostile string the issue names, each once', () => {
    const strings = hostileStrings().map((h) => h.text);
    const required = [
      'Paragraph one.\n\nParagraph two.',
      '\n\nleading',
      'trailing\n\n',
      '\n\n\n',
      '\r',
      '\r\n',
      'x\r\n\r\ny',
      '\t tabs \t',
      'back\\slash\\\\',
      '\\N',
      'NULL',
      'null',
      '"double" \'single\'',
      'a,b,c\n1,2,3',
      '{"json":"looking","n":[1,2]}',
      '```js\ncode\n```',
      '\u0000 NUL inside',
      "'; DROP TABLE spans; --",
      '\\n literal backslash-n',
      'end with backslash\\',
      "{'k':'v'}",
      '[1,2]',
      EVERY_ASCII,
    ];
    for (const s of required) expect(strings, JSON.stringify(s)).toContain(s);
    expect(strings.some((s) => s.includes('\u2028') && s.includes('\u2029'))).toBe(true);
    expect(strings.some((s) => s.includes('\u200d'))).toBe(true);
    expect(strings.some((s) => s.includes('\ufeff'))).toBe(true);
    expect(strings.some((s) => s.length === LONG_LINE_LENGTH && !/[\r\n]/.test(s))).toBe(true);
    expect(strings.filter((s) => !s.isWellFormed()).length).toBeGreaterThanOrEqual(2);
    expect(new Set(strings).size).toBe(strings.length);
    expect(EVERY_ASCII).toHaveLength(127);
  });

  it('use every hostile string as every text column and every map key and value of some span', () => {
    const strings = hostileStrings().map((h) => h.text);
    const otel = corpus.otel.find((t) => t.name === 'hostile (OTLP)')!;
    const json = corpus.json.find((t) => t.name === 'hostile (JSON)')!;
    for (const s of strings) {
      const label = JSON.stringify(s.slice(0, 40));
      expect(
        otel.spans.some((x) => x.name === s),
        `${label} OTLP name`,
      ).toBe(true);
      expect(otel.spans.some((x) => x.expect.input === s) && otel.spans.some((x) => x.expect.output === s), `${label} OTLP input, output`).toBe(true);
      expect(
        otel.spans.some((x) => x.expect.status_message === s),
        `${label} OTLP status message`,
      ).toBe(true);
      expect(otel.spans.some((x) => x.scope.name === s) && otel.spans.some((x) => x.scope.version === s), `${label} OTLP scope`).toBe(true);
      expect(
        otel.spans.some((x) => s in x.attributes) && otel.spans.some((x) => Object.values(x.attributes).includes(s)),
        `${label} OTLP attribute key, value`,
      ).toBe(true);
      expect(otel.resource[s], `${label} resource key and value`).toBe(s);
      expect(json.body.spans.some((x) => x.input === s) && json.body.spans.some((x) => x.output === s), `${label} JSON input, output`).toBe(true);
      expect(
        json.body.spans.some((x) => x.status_message === s),
        `${label} JSON status message`,
      ).toBe(true);
      expect(
        json.body.spans.some((x) => s in x.attributes) && json.body.spans.some((x) => Object.values(x.attributes).includes(s)),
        `${label} JSON attribute key, value`,
      ).toBe(true);
      expect(json.body.attributes[s], `${label} trace header key and value`).toBe(s);
      if (s.length <= 1024)
        expect(
          json.body.spans.some((x) => x.name === s),
          `${label} JSON name`,
        ).toBe(true);
      if (s.isWellFormed())
        expect(
          otel.spans.some((x) => x.events?.some((e) => e.name === s && Object.keys(e.attributes).includes(s))),
          `${label} event name and key`,
        ).toBe(true);
    }
  });

  it('put no lone surrogate in events (their JSON keeps one over OTLP/JSON and not over protobuf)', () => {
    for (const t of corpus.otel) {
      for (const s of t.spans) expect(JSON.stringify(s.events ?? []).includes('\\ud'), `${t.name}/${s.key}`).toBe(false);
    }
  });
});

// ---------------------------------------------------------------------------------------------

const KIND_NAMES = ['internal', 'server', 'client', 'producer', 'consumer'];
const STATUS_NAMES = ['unset', 'ok', 'error'] as const;
const hrMs = ([s, ns]: [number, number]) => s * 1000 + ns / 1e6;

/** A span of the real SDK as the OTLP receivers decode it (collector/otlp), without the wire. */
function rawOf(s: ReadableSpan): RawSpan {
  return {
    traceId: s.spanContext().traceId,
    spanId: s.spanContext().spanId,
    parentSpanId: s.parentSpanContext?.spanId ?? null,
    name: s.name,
    kind: KIND_NAMES[s.kind],
    startTimeMs: hrMs(s.startTime),
    endTimeMs: hrMs(s.endTime),
    attributes: s.attributes as RawSpan['attributes'],
    events: s.events.map((e) => ({ name: e.name, timeMs: hrMs(e.time), attributes: (e.attributes ?? {}) as RawSpan['attributes'] })),
    status: { code: STATUS_NAMES[s.status.code], ...(s.status.message ? { message: s.status.message } : {}) },
    resource: s.resource.attributes as RawSpan['attributes'],
    scope: { name: s.instrumentationScope.name, version: s.instrumentationScope.version ?? '' },
  };
}

/** A normalized span as the API would show it once stored (lone surrogates as U+FFFD, '' as null). */
function viewOf(r: SpanRecord): SpanView {
  const wfMap = (m: Record<string, string>) => Object.fromEntries(Object.entries(m).map(([k, v]) => [wellFormed(k), wellFormed(v)]));
  return {
    span_id: r.span_id,
    trace_id: r.trace_id,
    parent_span_id: r.parent_span_id,
    name: wellFormed(r.name),
    type: r.span_type,
    component_type: r.component_type,
    convention: r.convention,
    kind: r.kind === '' ? null : r.kind,
    status: r.status,
    status_message: r.status_message === '' ? null : wellFormed(r.status_message),
    start_time: new Date(r.start_time).toISOString(),
    end_time: new Date(r.end_time).toISOString(),
    duration_ms: r.duration_ms,
    model: r.model === null ? null : wellFormed(r.model),
    input: wellFormed(r.input),
    output: wellFormed(r.output),
    input_tokens: r.input_tokens,
    output_tokens: r.output_tokens,
    cached_input_tokens: 0,
    cost: null,
    attributes: wfMap(r.attributes),
    resource_attributes: wfMap(r.resource_attributes),
    scope: { name: wellFormed(r.scope_name), version: wellFormed(r.scope_version) },
    events: JSON.parse(r.events) as SpanView['events'],
  };
}

/**
 * The smallest MAX_SPAN_BYTES the service has had: no span of the corpus comes near it, so none is
 * cut to fit (collector/truncate.ts) and every text must come back whole.
 */
const UNDER_ANY_SPAN_LIMIT = 1_000_000;

/** UTF-8 bytes of a normalized span's texts and maps: about what its stored row takes. */
function textBytes(r: SpanRecord): number {
  const map = (m: Record<string, string>) => Object.entries(m).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0);
  return (
    [r.name, r.input, r.output, r.model ?? '', r.status_message, r.scope_name, r.scope_version, r.events].reduce((n, t) => n + Buffer.byteLength(t), 0) +
    map(r.attributes) +
    map(r.resource_attributes)
  );
}

function expectNormalizedAsSent(sent: SentTrace, raws: RawSpan[]): void {
  expect(raws.map((r) => r.spanId).sort()).toEqual(sent.spans.map((s) => s.span_id).sort());
  for (const s of sent.spans) {
    const label = `${sent.name}/${JSON.stringify(s.name.slice(0, 40))}`;
    const record = normalizeSpan(
      raws.find((r) => r.spanId === s.span_id)!,
      'p',
    );
    expect(textBytes(record), label).toBeLessThan(UNDER_ANY_SPAN_LIMIT);
    expectSpanAsSent(viewOf(record), s, label);
  }
}

describe('the corpus expectations are what the normalizer makes of its spans', () => {
  it.each(corpus.otel.map((t) => [t.name, t] as const))('%s, recorded by the real OpenTelemetry SDK', async (_name, t) => {
    const rec = await recordTrace(t.resource, toSpanSpecs(t));
    expectNormalizedAsSent(sentFromRecorded(t, rec), rec.spans.map(rawOf));
  });

  it.each(corpus.json.map((t) => [t.name, t] as const))('%s, as the JSON ingest body', (_name, t) => {
    const { spans } = decodeIngestBody(IngestTraceSchema.parse(JSON.parse(JSON.stringify(t.body))));
    expectNormalizedAsSent(sentFromJson(t, 'ingest'), spans);
  });
});
