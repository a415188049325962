import { stringify } from 'csv-stringify/sync';
import type { EvalCase } from '../model/case-schema.js';
import type { ExportFormat } from '../model/dataset.js';
import type { SuiteDefinition } from '../model/suite.js';
import { suiteYaml } from '../model/suite-yaml.js';

/**
 * A suite version as a file (GET /api/suites/{id}/versions/{v}/export, docs/api.md): JSONL (one
 * case per line, whole: what an import reads back unchanged), CSV (one case per row, the columns
 * below, which an import with the default mapping reads back), or the suite file (YAML, the
 * definition whole). Texts are written byte for byte (line breaks, CRLF, emoji, RTL).
 */

/** The CSV columns, named by the case field each holds (the import's default mapping). */
export const CSV_COLUMNS = [
  'name',
  'input',
  'expected.output',
  'expected',
  'scorers',
  'minScore',
  'weight',
  'turns',
  'simulation',
  'metadata',
  'source',
] as const;

/** Columns whose cells are JSON (the import reads them as JSON by default). */
export const JSON_COLUMNS: readonly string[] = ['expected', 'scorers', 'turns', 'simulation', 'metadata', 'source', 'expected.trajectory'];

/** A text as it is; any other value as JSON; nothing as an empty cell. */
const cell = (value: unknown): string => (value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value));

const json = (value: unknown): string => (value === undefined ? '' : JSON.stringify(value));

function csvRow(c: EvalCase): string[] {
  const { output, ...rest } = c.expected;
  return [
    c.name,
    cell(c.input),
    cell(output),
    Object.keys(rest).length ? JSON.stringify(rest) : '',
    json(c.scorers),
    c.minScore === undefined ? '' : String(c.minScore),
    c.weight === 1 ? '' : String(c.weight),
    json(c.turns),
    json(c.simulation),
    json(c.metadata),
    json(c.source),
  ];
}

/** The cases of a version as JSON Lines: one case object per line. */
export function casesJsonl(cases: readonly EvalCase[]): string {
  return cases.map((c) => JSON.stringify(c)).join('\n') + '\n';
}

/** The cases of a version as CSV (RFC 4180: quoted where needed, CRLF between records). */
export function casesCsv(cases: readonly EvalCase[]): string {
  return stringify([[...CSV_COLUMNS], ...cases.map(csvRow)], { record_delimiter: 'windows', quoted_match: /^\s|\s$/ });
}

export function exportSuite(def: SuiteDefinition, format: ExportFormat): string {
  if (format === 'yaml') return suiteYaml(def);
  return format === 'csv' ? casesCsv(def.cases) : casesJsonl(def.cases);
}
