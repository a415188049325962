import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EvalCase } from '../../../core/model/case-schema.js';
import { defaultMapping } from '../../../core/datasets/case-import.js';
import { readRows } from '../../../core/datasets/import-rows.js';
import { casesCsv, casesJsonl, CSV_COLUMNS } from '../../../core/datasets/suite-export.js';
import { hostileStrings, texts } from '../../fixtures/corpus/texts.js';

/**
 * A suite version's CSV and JSONL (issue 31) read back cell for cell: texts byte for byte (blank
 * lines, CRLF, quotes, commas, emoji, RTL), whatever they hold; the default mapping puts every
 * exported column back on its field.
 */

const text = fc.oneof(
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }).filter((s) => s.isWellFormed()),
  fc.constantFrom(texts.supportQuestion, texts.policyRefundsHebrew, texts.multilingual, '"quoted", with comma', 'a\r\n\r\nb', ' padded '),
);

const caseOf = (name: string, input: string, output: string): EvalCase => ({ name, input, expected: output === '' ? {} : { output }, weight: 1 });

describe('suite export read back', () => {
  it('CSV: every text comes back in its cell as written', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(text, text, text), { minLength: 1, maxLength: 8 }), (rows) => {
        const cases = rows.map(([name, input, output], i) => caseOf(`${i}:${name}`, input, output));
        const read = readRows('csv', casesCsv(cases));
        expect(read.errors).toEqual([]);
        expect(read.columns).toEqual([...CSV_COLUMNS]);
        expect(read.rows.map((r) => [r.values.name, r.values.input, r.values['expected.output']])).toEqual(
          cases.map((c) => [c.name, c.input, (c.expected.output as string | undefined) ?? '']),
        );
      }),
      { numRuns: 200 },
    );
  });

  it('JSONL: every case comes back whole', () => {
    const hostile = hostileStrings().filter((h) => h.wellFormed);
    const cases = hostile.map((h, i) => caseOf(`h${i}`, h.text, h.text));
    const read = readRows('jsonl', casesJsonl(cases));
    expect(read.errors).toEqual([]);
    expect(read.rows.map((r) => r.values)).toEqual(cases);
  });

  it('maps exported columns to their fields and other columns to metadata', () => {
    expect(defaultMapping(['name', 'input', 'expected.output', 'expected_output', 'team'])).toEqual({
      name: 'name',
      input: 'input',
      'expected.output': 'expected_output',
      'metadata.team': 'team',
    });
  });

  it('names the line of a CSV row whose cells do not match the header', () => {
    const read = readRows('csv', 'name,input\r\n"multi\r\nline",x\r\nshort\r\nok,y\r\n');
    expect(read.rows.map((r) => [r.row, r.line, r.values.name])).toEqual([
      [1, 2, 'multi\r\nline'],
      [3, 5, 'ok'],
    ]);
    expect(read.errors).toEqual([{ row: 2, line: 4, field: '(row)', message: 'has 1 cells; the header has 2' }]);
  });
});
