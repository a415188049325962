import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutToBytes, truncateSpan } from '../../../collector/truncate.js';
import type { SpanRecord } from '../../../core/model/span.js';
import { TRUNCATION_ATTRIBUTES } from '../../../core/model/truncation.js';
import { encodeSpanRow } from '../../../core/store/clickhouse/rows.js';
import { longAnswer } from '../../fixtures/corpus/texts.js';
import { agentText } from '../../helpers/corpus.js';
import { spanRecord } from '../../helpers/span-record.js';

const span = (fields: Partial<SpanRecord> = {}): SpanRecord =>
  spanRecord({ kind: 'client', start_time: Date.UTC(2026, 10, 1), end_time: Date.UTC(2026, 10, 1, 0, 0, 1), duration_ms: 1000, model: 'gpt-4o', ...fields });

const bytes = (s: string) => Buffer.byteLength(s);
/** The corpus' ~600 KB answer: a long RAG summary in markdown, blank lines and code fences included. */
const ANSWER = longAnswer();

describe('spans cut to fit MAX_SPAN_BYTES', () => {
  it('cut a text at a character boundary, never past the byte bound', () => {
    fc.assert(
      fc.property(fc.oneof(agentText({ wellFormed: true }), fc.string({ unit: 'grapheme', maxLength: 300 })), fc.nat(1200), (text, max) => {
        const cut = cutToBytes(text, max);
        expect(bytes(cut)).toBeLessThanOrEqual(Math.max(0, max));
        expect(text.startsWith(cut)).toBe(true);
        expect(cut.isWellFormed()).toBe(true);
      }),
    );
  });

  it('cut the largest text first, keep its beginning byte for byte, and record its original size', () => {
    const s = span({ input: 'short question\n\nwith a blank line', output: ANSWER, attributes: { 'gen_ai.system': 'openai' } });
    const max = 64 * 1024;
    const fitted = truncateSpan(s, max, encodeSpanRow)!;
    expect(bytes(fitted.line)).toBeLessThanOrEqual(max);
    expect(fitted.span.input).toBe('short question\n\nwith a blank line');
    expect(ANSWER.startsWith(fitted.span.output)).toBe(true);
    expect(bytes(fitted.span.output)).toBeGreaterThan(max / 2);
    expect(fitted.span.attributes[TRUNCATION_ATTRIBUTES.output]).toBe(String(bytes(ANSWER)));
    expect(fitted.span.attributes[TRUNCATION_ATTRIBUTES.input]).toBeUndefined();
    expect(fitted.line).toBe(encodeSpanRow(fitted.span));
  });

  it('cut attribute values and whole events when they are the largest, keeping events a JSON array', () => {
    const events = JSON.stringify(Array.from({ length: 400 }, (_, i) => ({ name: `event ${i}`, attributes: { text: 'x'.repeat(100) } })));
    const s = span({ attributes: { 'llm.input_messages': ANSWER, small: 'kept' }, events });
    const fitted = truncateSpan(s, 32 * 1024, encodeSpanRow)!;
    expect(bytes(fitted.line)).toBeLessThanOrEqual(32 * 1024);
    expect(fitted.span.attributes.small).toBe('kept');
    expect(ANSWER.startsWith(fitted.span.attributes['llm.input_messages'])).toBe(true);
    expect(JSON.parse(fitted.span.attributes[TRUNCATION_ATTRIBUTES.attributes])).toEqual({ 'llm.input_messages': bytes(ANSWER) });
    expect(Array.isArray(JSON.parse(fitted.span.events))).toBe(true);
  });

  it('cut an attribute under the key `__proto__` like any other, and record it by that key', () => {
    const attributes = JSON.parse(`{"__proto__":${JSON.stringify(ANSWER)},"small":"kept"}`) as Record<string, string>;
    const fitted = truncateSpan(span({ attributes }), 32 * 1024, encodeSpanRow)!;
    expect(bytes(fitted.line)).toBeLessThanOrEqual(32 * 1024);
    expect(Object.getPrototypeOf(fitted.span.attributes)).toBe(Object.prototype);
    expect(ANSWER.startsWith(Object.getOwnPropertyDescriptor(fitted.span.attributes, '__proto__')!.value as string)).toBe(true);
    expect(JSON.parse(fitted.span.attributes[TRUNCATION_ATTRIBUTES.attributes])).toEqual(JSON.parse(`{"__proto__":${bytes(ANSWER)}}`));
  });

  it('fit any span whose keys and names fit, whatever its texts hold', () => {
    fc.assert(
      fc.property(
        fc.oneof(agentText(), fc.string({ unit: 'binary', maxLength: 20_000 })),
        fc.oneof(agentText(), fc.string({ unit: 'grapheme', maxLength: 5_000 })),
        fc.dictionary(fc.string({ maxLength: 10 }), fc.oneof(agentText(), fc.string({ unit: 'binary', maxLength: 3_000 })), { maxKeys: 8 }),
        (input, output, attributes) => {
          const max = 16_384;
          const fitted = truncateSpan(span({ input, output, attributes: { ...attributes } }), max, encodeSpanRow);
          expect(fitted).not.toBeNull();
          expect(bytes(fitted!.line)).toBeLessThanOrEqual(max);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('give up only when ids, names and keys alone are over the bound', () => {
    const keys = Object.fromEntries(Array.from({ length: 1_000 }, (_, k) => [`custom.attribute.key.number.${k}`, 'v']));
    expect(truncateSpan(span({ attributes: keys }), 16_384, encodeSpanRow)).toBeNull();
  });
});
