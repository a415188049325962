import { describe, expect, it } from 'vitest';
import type { SpanRecord } from '../../core/model/span.js';
import { csvMap, csvNumber, csvText, csvTime, csvValue } from '../../core/store/clickhouse/csv.js';
import { encodeSpanColumns, encodeSpanRow, SPAN_COLUMNS } from '../../core/store/clickhouse/rows.js';
import { csvFields, spanRowFields } from '../helpers/csv-rows.js';

function span(fields: Partial<SpanRecord> = {}): SpanRecord {
  return {
    project_id: 'p', trace_id: 't', span_id: 's', parent_span_id: 'root', name: 'chat', span_type: 'generation', component_type: 'generation',
    convention: 'genai', kind: 'client', status: 'ok', status_message: '', start_time: Date.UTC(2026, 10, 24, 1, 2, 3, 4), end_time: Date.UTC(2026, 10, 24, 1, 2, 3, 54),
    duration_ms: 50, model: 'gpt-4o', input: 'hi', output: 'hello', input_tokens: 3, output_tokens: 5, attributes: { a: '1' },
    resource_attributes: { 'service.name': 'bot' }, scope_name: 'otel', scope_version: '1', events: '[]', ...fields,
  };
}

const pricing = { at: 1, cost: { input: 0.5, output: 1.5e-7, cached_input: 0, total: 0.50000015, version: 'v1' } };

describe('span rows as CSV', () => {
  it('quote every string, doubling its quotes and keeping commas, newlines and NUL as they are', () => {
    expect(csvText('')).toBe('""');
    expect(csvText('a,b\nc\u0000')).toBe('"a,b\nc\u0000"');
    expect(csvText('say "hi"')).toBe('"say ""hi"""');
    expect(csvText('\\N')).toBe('"\\N"');
  });

  it("write maps as ClickHouse text inside a quoted field: quotes and backslashes escaped in keys and values", () => {
    expect(csvMap({})).toBe('"{}"');
    expect(csvMap({ "it's": 'back\\slash', q: '["stop"]' })).toBe(`"{'it\\'s':'back\\\\slash','q':'[""stop""]'}"`);
    expect(csvMap({ n: 5 })).toBe(`"{'n':'5'}"`);
  });

  it('write times as seconds.mmm where ClickHouse reads them as a Unix time, and as date text elsewhere', () => {
    expect(csvTime(Date.UTC(2026, 10, 24, 0, 0, 0, 5))).toBe('1795478400.005');
    expect(csvTime(1e11)).toBe('100000000.000');
    expect(csvTime(1e11 - 1)).toBe('1973-03-03 09:46:39.999');
    expect(csvTime(Date.UTC(1970, 0, 2))).toBe('1970-01-02 00:00:00.000');
    expect(csvTime(Date.UTC(2299, 0, 1))).toBe('2299-01-01 00:00:00.000');
    expect(csvTime(1e11 + 0.9)).toBe('100000000.000');
    expect(csvTime(NaN)).toBe('\\N');
  });

  it('write numbers as they are, NULL for what is not finite, and any value by its type', () => {
    expect([csvNumber(0), csvNumber(2 ** 53 - 1), csvNumber(1.5e-7), csvNumber(Infinity), csvNumber(NaN)]).toEqual(['0', '9007199254740991', '1.5e-7', '\\N', '\\N']);
    expect([csvValue(null), csvValue(undefined), csvValue(true), csvValue('x'), csvValue(7), csvValue({ k: 'v' }), csvValue([1, 'a'])]).toEqual([
      '\\N', '\\N', '1', '"x"', '7', `"{'k':'v'}"`, '"[1,""a""]"',
    ]);
  });

  it('encode a span as one field per column, priced or not, whatever its strings hold', () => {
    const odd = 'a "b", c\nd\\e \'f\' \u0000 \ud800 ✓';
    const spans = [
      span(),
      span({ pricing, cached_input_tokens: 2 }),
      span({ parent_span_id: null, component_type: null, model: null, pricing: { at: 1, cost: null } }),
      span({ name: odd, input: odd, output: odd, status_message: odd, events: JSON.stringify([{ name: odd }]), attributes: { [odd]: odd }, resource_attributes: { [odd]: '' } }),
    ];
    for (const s of spans) {
      expect(csvFields(encodeSpanRow(s))).toHaveLength(SPAN_COLUMNS.length);
      expect(spanRowFields(encodeSpanRow(s))).toMatchObject({ name: s.name, input: s.input, output: s.output, status_message: s.status_message, events: s.events });
    }
    const fields = spanRowFields(encodeSpanRow(spans[1]));
    expect(csvFields(encodeSpanRow(spans[1]))).toHaveLength(SPAN_COLUMNS.length);
    expect(fields).toMatchObject({ span_id: 's', parent_span_id: 'root', start_time: '1795482123.004', cached_input_tokens: '2', input_cost: '0.5', output_cost: '1.5e-7', total_cost: '0.50000015', cost_version: 'v1' });
    expect(spanRowFields(encodeSpanRow(spans[2]))).toMatchObject({ parent_span_id: '', component_type: '', model: '', cached_input_tokens: '0', input_cost: '\\N', total_cost: '\\N', cost_version: '' });
  });

  it('encode a row that leaves columns out (an older format) with NULL there, which ClickHouse reads as their defaults', () => {
    const fields = spanRowFields(encodeSpanColumns({ project_id: 'p', trace_id: 't', span_id: 's', start_time: '2026-11-01 00:00:00.000', end_time: 1795478400005 }));
    expect(fields).toMatchObject({ span_id: 's', start_time: '2026-11-01 00:00:00.000', end_time: '1795478400.005', name: '\\N', cached_input_tokens: '\\N', cost_version: '\\N' });
  });
});
