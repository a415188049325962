import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SpanRecord } from '../../../core/model/span.js';
import { tsvFieldText, tsvMap, tsvNumber, tsvText, tsvTime, tsvValue } from '../../../core/store/clickhouse/tsv.js';
import { encodeSpanColumns, encodeSpanRow, SPAN_COLUMNS } from '../../../core/store/clickhouse/rows.js';
import { agentText } from '../../helpers/corpus.js';
import { chatSpan } from '../../helpers/span-record.js';
import { spanRowFields, tsvFields } from '../../helpers/tsv-rows.js';

const span = (fields: Partial<SpanRecord> = {}): SpanRecord =>
  chatSpan(Date.UTC(2026, 10, 24, 1, 2, 3, 4), {
    parent_span_id: 'root',
    attributes: { a: '1' },
    resource_attributes: { 'service.name': 'bot' },
    ...fields,
  });

const pricing = { at: 1, cost: { input: 0.5, output: 1.5e-7, cached_input: 0, total: 0.50000015, version: 'v1' } };

describe('span rows as TabSeparated', () => {
  it('write a string as it is unless it holds a backslash, tab, line break or NUL, which are escaped', () => {
    expect(tsvText('')).toBe('');
    expect(tsvText('a, "b" \'c\' ✓ 𝄞')).toBe('a, "b" \'c\' ✓ 𝄞');
    expect(tsvText('Paragraph one.\n\nParagraph two.')).toBe('Paragraph one.\\n\\nParagraph two.');
    expect(tsvText('a\tb\r\nc\u0000d\\e')).toBe('a\\tb\\r\\nc\\0d\\\\e');
    expect(tsvText('\\N')).toBe('\\\\N');
    expect(tsvFieldText(tsvText('x\n\n\\n\t\\\r\u0000'))).toBe('x\n\n\\n\t\\\r\u0000');
  });

  it('never put a raw line break in a row, whatever its values hold', () => {
    const odd = 'one\n\ntwo\r\n\r\nthree\n';
    const line = encodeSpanRow(span({ name: odd, input: odd, output: '\n\n', attributes: { [odd]: odd }, events: JSON.stringify([{ name: odd }]) }));
    expect(line).not.toMatch(/[\n\r]/);
    expect(tsvFields(line)).toHaveLength(SPAN_COLUMNS.length);
  });

  it('write maps as ClickHouse text: quotes, backslashes and control characters escaped in keys and values', () => {
    expect(tsvMap({})).toBe('{}');
    expect(tsvMap({ "it's": 'back\\slash', q: '["stop"]' })).toBe(`{'it\\'s':'back\\\\slash','q':'["stop"]'}`);
    expect(tsvMap({ 'k\n': 'a\n\nb\tc' })).toBe(`{'k\\n':'a\\n\\nb\\tc'}`);
    expect(tsvMap({ n: 5 })).toBe(`{'n':'5'}`);
  });

  it('write times as seconds.mmm where ClickHouse reads them as a Unix time, and as date text elsewhere', () => {
    expect(tsvTime(Date.UTC(2026, 10, 24, 0, 0, 0, 5))).toBe('1795478400.005');
    expect(tsvTime(1e11)).toBe('100000000.000');
    expect(tsvTime(1e11 - 1)).toBe('1973-03-03 09:46:39.999');
    expect(tsvTime(Date.UTC(1970, 0, 2))).toBe('1970-01-02 00:00:00.000');
    expect(tsvTime(Date.UTC(2299, 0, 1))).toBe('2299-01-01 00:00:00.000');
    expect(tsvTime(1e11 + 0.9)).toBe('100000000.000');
    expect(tsvTime(NaN)).toBe('\\N');
  });

  it('write numbers as they are, NULL for what is not finite, and any value by its type', () => {
    expect([tsvNumber(0), tsvNumber(2 ** 53 - 1), tsvNumber(1.5e-7), tsvNumber(Infinity), tsvNumber(NaN)]).toEqual([
      '0',
      '9007199254740991',
      '1.5e-7',
      '\\N',
      '\\N',
    ]);
    expect([tsvValue(null), tsvValue(undefined), tsvValue(true), tsvValue('x'), tsvValue(7), tsvValue({ k: 'v' }), tsvValue([1, 'a'])]).toEqual([
      '\\N',
      '\\N',
      '1',
      'x',
      '7',
      `{'k':'v'}`,
      '[1,"a"]',
    ]);
  });

  it('encode a span as one field per column, priced or not, whatever its strings hold', () => {
    const odd = 'a "b", c\nd\\e \'f\' \u0000 \ud800 ✓';
    const spans = [
      span(),
      span({ pricing, cached_input_tokens: 2 }),
      span({ parent_span_id: null, component_type: null, model: null, pricing: { at: 1, cost: null } }),
      span({
        name: odd,
        input: odd,
        output: odd,
        status_message: odd,
        events: JSON.stringify([{ name: odd }]),
        attributes: { [odd]: odd },
        resource_attributes: { [odd]: '' },
      }),
    ];
    for (const s of spans) {
      expect(tsvFields(encodeSpanRow(s))).toHaveLength(SPAN_COLUMNS.length);
      expect(spanRowFields(encodeSpanRow(s))).toMatchObject({
        name: s.name,
        input: s.input,
        output: s.output,
        status_message: s.status_message,
        events: s.events,
      });
    }
    const fields = spanRowFields(encodeSpanRow(spans[1]));
    expect(tsvFields(encodeSpanRow(spans[1]))).toHaveLength(SPAN_COLUMNS.length);
    expect(fields).toMatchObject({
      span_id: 's',
      parent_span_id: 'root',
      start_time: '1795482123.004',
      cached_input_tokens: '2',
      input_cost: '0.5',
      output_cost: '1.5e-7',
      total_cost: '0.50000015',
      cost_version: 'v1',
    });
    expect(spanRowFields(encodeSpanRow(spans[2]))).toMatchObject({
      parent_span_id: '',
      component_type: '',
      model: '',
      cached_input_tokens: '0',
      input_cost: '\\N',
      total_cost: '\\N',
      cost_version: '',
    });
  });

  it('give back every text column and the events as written, for any text agents send (corpus, fast-check)', () => {
    fc.assert(
      fc.property(agentText(), agentText(), agentText(), agentText(), (name, input, output, key) => {
        const s = span({ name, input, output, status_message: output, attributes: { [key]: input }, events: JSON.stringify([{ name: key }]) });
        const line = encodeSpanRow(s);
        expect(line).not.toMatch(/[\n\r]/);
        expect(tsvFields(line)).toHaveLength(SPAN_COLUMNS.length);
        expect(spanRowFields(line)).toMatchObject({ name, input, output, status_message: output, events: s.events });
      }),
    );
  });

  it('encode a row that leaves columns out (an older format) with NULL there, which ClickHouse reads as their defaults', () => {
    const fields = spanRowFields(
      encodeSpanColumns({ project_id: 'p', trace_id: 't', span_id: 's', start_time: '2026-11-01 00:00:00.000', end_time: 1795478400005 }),
    );
    expect(fields).toMatchObject({
      span_id: 's',
      start_time: '2026-11-01 00:00:00.000',
      end_time: '1795478400.005',
      name: '\\N',
      cached_input_tokens: '\\N',
      cost_version: '\\N',
    });
  });
});
