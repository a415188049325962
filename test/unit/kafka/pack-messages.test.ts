import fc from 'fast-check';
import type { KafkaMessage } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { decodeMessage, packRowMessages, rowHeaders } from '../../../collector/kafka/envelope.js';
import { texts } from '../../fixtures/corpus/texts.js';

/** A row line as the codec writes it: TabSeparated, so a text's newlines, tabs and backslashes are escaped and a row is one line. */
const tsv = (text: string) => text.replaceAll('\\', '\\\\').replaceAll('\n', '\\n').replaceAll('\t', '\\t').replaceAll('\r', '\\r');
const corpusLines = Object.values(texts).map((t) => `p1\ttrace\tspan\t${tsv(t)}`);
const lineArb = fc.oneof(
  fc.constantFrom(...corpusLines),
  fc.string({ unit: 'grapheme', maxLength: 300 }).map((s) => `p1\t${tsv(s)}`),
);

function consumed(value: string, headers: Record<string, string>): KafkaMessage {
  return { value: Buffer.from(value), headers, key: null, timestamp: '0', attributes: 0, offset: '0', size: 0 } as unknown as KafkaMessage;
}

describe('a write packed into Kafka messages', () => {
  it("states each message's exact UTF-8 size, keeps it within the limit, and reads back the same rows in order", () => {
    fc.assert(
      fc.property(fc.array(lineArb, { maxLength: 40 }), fc.array(lineArb, { maxLength: 8 }), fc.integer({ min: 0, max: 3 }), (spans, stats, limitPick) => {
        if (spans.length + stats.length === 0) return;
        const longest = Math.max(...[...spans, ...stats].map((l) => Buffer.byteLength(l)));
        // Limits from "everything fits one message" down to "one row a message".
        const limit = [1 << 30, longest * 4 + 8, longest * 2 + 4, longest + 2][limitPick];
        const messages = packRowMessages({ spans, stats }, limit);
        const back = { spans: [] as string[], stats: [] as string[] };
        for (const m of messages) {
          expect(m.bytes).toBe(Buffer.byteLength(m.value));
          expect(m.bytes).toBeLessThanOrEqual(limit);
          const decoded = decodeMessage(consumed(m.value, rowHeaders(m) as Record<string, string>));
          for (const part of ['spans', 'stats'] as const) back[part].push(...decoded.batch[part].flatMap((chunk) => chunk.split('\n')));
        }
        expect(back).toEqual({ spans, stats });
      }),
      { numRuns: 300 },
    );
  });
});
