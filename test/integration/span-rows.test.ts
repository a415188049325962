import type { KafkaMessage } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { decodeMessage, MESSAGE_HEADERS } from '../../collector/kafka/envelope.js';
import { MAX_TIME_MS, MIN_TIME_MS } from '../../core/model/limits.js';
import type { SpanRecord } from '../../core/model/span.js';
import { SPAN_COLUMNS, SPAN_ROWS, spanRow } from '../../core/store/clickhouse/rows.js';
import { encodeRowBatch } from '../../core/store/clickhouse/trace-stats-rows.js';
import { useMigratedClickHouse } from '../helpers/clickhouse-store.js';
import { chatSpan } from '../helpers/span-record.js';

// Span rows travel as TabSeparated (core/store/clickhouse/tsv.ts): every value a client can send must
// come back from the real store as it was sent, whatever characters it holds; blank lines above all,
// which chDB's inline insert data cannot carry raw (docs/chdb-inline-insert-empty-line.md).
const { ch, store } = useMigratedClickHouse();

const HOSTILE = [
  '',
  ' ',
  '  padded  ',
  'a,b',
  '"',
  '""',
  'say "hi", then "bye"',
  'line 1\nline 2',
  'crlf\r\n',
  '\ttab\t',
  'nul\u0000byte',
  'back\\slash',
  '\\',
  '\\N',
  'NULL',
  "it's",
  "''",
  '{}',
  "{'a':'b'}",
  '[1,2]',
  '日本語 ✓',
  '😀 emoji',
  '\u2028\u2029',
  ',"\n\\\'',
  'Paragraph one.\n\nParagraph two.',
  '\n\nleading',
  'trailing\n\n',
  '\n\n\n',
  '\r',
  'x\r\n\r\ny',
  '\\n literal',
  'ends with a backslash\\',
  '```ts\nconst a = 1;\n\nconst b = 2;\n```',
  '\\0',
  '\\t',
  "\\'",
  'مرحبا بالعالم',
  'שלום',
  '👩‍👩‍👧 🇯🇵',
];

let seq = 0;
function span(fields: Partial<SpanRecord> = {}): SpanRecord {
  seq++;
  return chatSpan(Date.UTC(2026, 10, 20, 12, 0, 0, 123), {
    trace_id: `t-${seq}`,
    span_id: `s-${seq}`,
    resource_attributes: { 'service.name': 'bot' },
    ...fields,
  });
}

async function stored(spans: SpanRecord[]) {
  await store.writeRows(encodeRowBatch(spans));
  return Promise.all(spans.map(async (s) => (await store.getSpan(s.project_id, s.span_id))!));
}

describe('span rows through the real store', () => {
  it('keep every string as it was sent: quotes, commas, newlines, NUL, backslashes, NULL look-alikes, non-ASCII', async () => {
    const spans = HOSTILE.map((text, i) =>
      span({
        name: text,
        status_message: text,
        model: text || null,
        input: text,
        output: `${text}|${i}`,
        kind: text,
        scope_name: text,
        scope_version: text,
        parent_span_id: text === '' ? null : text,
        attributes: { [text]: text, [`k${i}`]: `${text}${text}`, "key 'quoted'": 'v\\' },
        resource_attributes: { 'service.name': text },
        events: JSON.stringify([{ name: text, time: '2026-11-20T12:00:00.123Z', attributes: { v: text } }]),
      }),
    );
    const back = await stored(spans);
    back.forEach((b, i) => {
      const s = spans[i];
      expect({
        name: b.name,
        input: b.input,
        output: b.output,
        model: b.model,
        status_message: b.status_message ?? '',
        kind: b.kind ?? '',
        parent: b.parent_span_id,
      }).toEqual({
        name: s.name,
        input: s.input,
        output: s.output,
        model: s.model,
        status_message: s.status_message,
        kind: s.kind,
        parent: s.parent_span_id,
      });
      expect(b.scope).toEqual({ name: s.scope_name, version: s.scope_version });
      expect(b.attributes).toEqual(s.attributes);
      expect(b.resource_attributes).toEqual(s.resource_attributes);
      expect(b.events).toEqual(JSON.parse(s.events));
    });
  });

  it('keep a 1 MB prompt whole, and store a lone UTF-16 surrogate as U+FFFD, keys included', async () => {
    const big = `${'x'.repeat(500_000)}"\n,${'y'.repeat(500_000)}`;
    const [long, odd] = await stored([span({ input: big }), span({ input: 'cut \ud83d', output: '\udc00 lone', attributes: { 'k\ud800': 'v\udfff' } })]);
    expect(long.input).toBe(big);
    expect(odd.input).toBe('cut \ufffd');
    expect(odd.output).toBe('\ufffd lone');
    expect(odd.attributes).toEqual({ 'k\ufffd': 'v\ufffd' });
  });

  it('keep times to the millisecond across the accepted range, including the years written as date text', async () => {
    // A copy of spans without its TTL: the store drops rows older than 90 days as it writes them.
    await ch.client.command({ query: 'CREATE TABLE agent_eval.spans_any_time AS agent_eval.spans' });
    await ch.client.command({ query: 'ALTER TABLE agent_eval.spans_any_time REMOVE TTL' });
    const times = [MIN_TIME_MS, MIN_TIME_MS + 1, 1e11 - 1, 1e11, 1e11 + 7, Date.UTC(2026, 10, 24, 0, 0, 0, 5), MAX_TIME_MS - 1, MAX_TIME_MS];
    const spans = times.map((t, i) => span({ span_id: `time-${i}`, start_time: t, end_time: t + i, duration_ms: i }));
    await ch.insertRows('agent_eval.spans_any_time', SPAN_ROWS, Buffer.from(encodeRowBatch(spans).spans.join('\n')));
    const rows = await (
      await ch.client.query({
        query: 'SELECT toUnixTimestamp64Milli(start_time) AS start, toUnixTimestamp64Milli(end_time) AS end FROM agent_eval.spans_any_time ORDER BY span_id',
        format: 'JSONEachRow',
      })
    ).json<{ start: string; end: string }>();
    expect(rows.map((r) => [Number(r.start), Number(r.end)])).toEqual(times.map((t, i) => [t, t + i]));
  });

  it('keep token counts up to 2^53 and costs: NULL where a span was not priced, the figures where it was', async () => {
    const pricing = { at: Date.now(), cost: { input: 0.0000025, output: 1.5e-7, cached_input: 0, total: 0.00000265, version: '2026-11-01' } };
    const [priced, unpriced] = await stored([
      span({ input_tokens: Number.MAX_SAFE_INTEGER, output_tokens: 2 ** 40, cached_input_tokens: 7, pricing }),
      span({ model: 'unknown-model' }),
    ]);
    expect([priced.input_tokens, priced.output_tokens, priced.cached_input_tokens]).toEqual([Number.MAX_SAFE_INTEGER, 2 ** 40, 7]);
    expect(priced.cost).toEqual(pricing.cost);
    expect(unpriced.cost).toBeNull();
    expect(unpriced.cached_input_tokens).toBe(0);
  });

  it('store the rows of a format-2 Kafka message (JSON lines, from before the upgrade) as the same spans', async () => {
    const before = span({ input: 'a "quoted"\nanswer', attributes: { "it's": 'back\\slash' }, start_time: Date.UTC(2026, 10, 1, 0, 0, 0, 999) });
    // What that release wrote: spanRow's columns with times as ticks, cost columns left out when unpriced.
    const costColumns = new Set(['cached_input_tokens', 'input_cost', 'output_cost', 'cached_input_cost', 'total_cost', 'cost_version']);
    const jsonRow = Object.fromEntries(Object.entries(spanRow(before)).filter(([column]) => !costColumns.has(column)));
    const message = {
      value: Buffer.from(JSON.stringify(jsonRow)),
      headers: { [MESSAGE_HEADERS.format]: Buffer.from('2'), [MESSAGE_HEADERS.table]: Buffer.from('spans') },
    } as unknown as KafkaMessage;
    const decoded = decodeMessage(message);
    expect(decoded.rows).toBe(1);
    await store.writeRows(decoded.batch);
    const back = (await store.getSpan('p', before.span_id))!;
    expect({ input: back.input, attributes: back.attributes, start: back.start_time, cost: back.cost, cached: back.cached_input_tokens }).toEqual({
      input: before.input,
      attributes: before.attributes,
      start: '2026-11-01T00:00:00.999Z',
      cost: null,
      cached: 0,
    });
  });

  it('store the rows of a format-3 Kafka message (CSV lines, from before the upgrade) whole, blank lines included', async () => {
    // What that release wrote: every string quoted with its quotes doubled, maps as ClickHouse text, line breaks raw.
    const quoted = (t: string) => `"${t.replaceAll('"', '""')}"`;
    const literal = (t: string) => `'${t.replace(/['\\]/g, '\\$&')}'`;
    const csvMap = (m: Record<string, string>) =>
      quoted(
        `{${Object.entries(m)
          .map(([k, v]) => `${literal(k)}:${literal(v)}`)
          .join(',')}}`,
      );
    const text = 'Paragraph one.\n\nParagraph "two", with\ttabs\r\n\r\nand a back\\slash';
    const before = span({ name: text, input: text, output: '\n\n', attributes: { [text]: text, "it's": 'a\n\nb' } });
    const row = spanRow(before);
    const fields = SPAN_COLUMNS.map((c) => {
      const v = (row as unknown as Record<string, unknown>)[c];
      if (c === 'start_time' || c === 'end_time') return String((v as number) / 1000);
      if (v === null || v === undefined) return '\\N';
      if (typeof v === 'number') return String(v);
      return typeof v === 'string' ? quoted(v) : csvMap(v as Record<string, string>);
    });
    const csv = `${fields.join(',')}\n${fields.join(',').replace(before.span_id, `${before.span_id}-2`)}\n`;
    const message = {
      value: Buffer.from(csv),
      headers: { [MESSAGE_HEADERS.format]: Buffer.from('3'), [MESSAGE_HEADERS.table]: Buffer.from('spans') },
    } as unknown as KafkaMessage;
    const decoded = decodeMessage(message);
    expect(decoded.rows).toBe(2);
    await store.writeRows(decoded.batch);
    for (const id of [before.span_id, `${before.span_id}-2`]) {
      const back = (await store.getSpan('p', id))!;
      expect({ name: back.name, input: back.input, output: back.output, attributes: back.attributes }).toEqual({
        name: before.name,
        input: before.input,
        output: before.output,
        attributes: before.attributes,
      });
    }
  });
});
