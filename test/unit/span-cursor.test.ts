import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeSpanCursor, encodeSpanCursor } from '../../core/model/span-page.js';
import { agentText } from '../helpers/corpus.js';

describe('spans_cursor', () => {
  it('is base64url of [start_ms, span_id] and decodes back to the same key', () => {
    const key = { startMs: Date.UTC(2026, 10, 22, 12, 0, 0, 123), spanId: 'a1b2:c3/d4+é😀' };
    const cursor = encodeSpanCursor(key);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))).toEqual([key.startMs, key.spanId]);
    expect(decodeSpanCursor(cursor)).toEqual(key);
  });

  it('decodes back to the same key for any start time and any span id agents send (corpus, fast-check)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Date.UTC(2200, 0, 1) }), agentText({ wellFormed: true }), (startMs, spanId) => {
        fc.pre(spanId !== '');
        const cursor = encodeSpanCursor({ startMs, spanId });
        expect(cursor).toMatch(/^[A-Za-z0-9_-]*$/);
        expect(decodeSpanCursor(cursor)).toEqual({ startMs, spanId });
      }),
      { numRuns: 100 },
    );
  });

  it('rejects what it did not issue', () => {
    const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    for (const bad of [
      '',
      'not a cursor!',
      Buffer.from('not json').toString('base64url'),
      enc({ startMs: 1, spanId: 'x' }),
      enc([1]),
      enc(['1', 'x']),
      enc([1.5, 'x']),
      enc([-1, 'x']),
      enc([Date.UTC(2300, 0, 2), 'x']),
      enc([1, '']),
      enc([1, 2]),
    ]) {
      expect(decodeSpanCursor(bad), bad).toBeUndefined();
    }
  });
});
