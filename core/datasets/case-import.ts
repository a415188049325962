import { ValidationError } from '../errors.js';
import { EvalCaseSchema } from '../model/case-schema.js';
import type { CasesImported, ColumnMapping, ImportBody, RowError } from '../model/dataset.js';
import { pgSafeText } from '../model/pg-json.js';
import type { SuiteDefinition } from '../model/suite.js';
import { fieldName } from '../validate.js';
import { readRows, type FileRow } from './import-rows.js';
import { appendCases, defaultCaseScorers, freeCaseName, type SuiteAppendDeps } from './suite-append.js';
import { JSON_COLUMNS } from './suite-export.js';

/**
 * POST /api/suites/{id}/cases/import (docs/api.md "Import"): a CSV or JSONL file's rows as cases
 * through a column mapping. Each row is checked as a case on its own; a bad row is reported with
 * its row, line, field and reason, and the good rows are added as one new version (with
 * `strict`, any bad row refuses the file).
 */

const NUMBER_FIELDS = new Set(['minScore', 'weight']);
const FIELD = /^(name|input|scorers|minScore|weight|turns|simulation|metadata|source|expected|(expected|metadata)\.[^.]{1,256})$/;

/** Columns named like a case field map to it; with the default mapping, other columns go to `metadata.<column>`. */
export function defaultMapping(columns: readonly string[]): ColumnMapping {
  const mapping: ColumnMapping = {};
  for (const column of columns) {
    if (FIELD.test(column)) mapping[column] = column;
    else if (column === 'expected_output') mapping['expected.output'] = column;
    else mapping[`metadata.${column}`] = column;
  }
  return mapping;
}

/** Sets `expected.output` / `metadata.x` / `name` on the case being built. */
function setField(target: Record<string, unknown>, field: string, value: unknown): void {
  const dot = field.indexOf('.');
  if (dot < 0) {
    // A whole `expected` or `metadata` column merges with its dotted ones, whichever comes first.
    const current = target[field];
    target[field] = isRecord(current) && isRecord(value) ? { ...value, ...current } : value;
    return;
  }
  const head = field.slice(0, dot);
  const current = target[head];
  const inner = isRecord(current) ? current : {};
  target[head] = { ...inner, [field.slice(dot + 1)]: value };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** One CSV cell as its field takes it: JSON columns parsed, numbers read, text kept as written. */
function cellValue(field: string, column: string, text: string, jsonColumns: ReadonlySet<string>): unknown {
  if (jsonColumns.has(column) || jsonColumns.has(field)) return JSON.parse(text);
  if (NUMBER_FIELDS.has(field)) {
    const n = Number(text);
    if (text.trim() === '' || !Number.isFinite(n)) throw new Error(`'${text}' is not a number`);
    return n;
  }
  return pgSafeText(text);
}

/** A row as a raw case; throws a RowError-shaped problem for a cell that cannot be read. */
function rowCase(row: FileRow, mapping: ColumnMapping, csv: boolean, jsonColumns: ReadonlySet<string>): Record<string, unknown> | RowError {
  const c: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(mapping)) {
    if (!Object.hasOwn(row.values, column)) continue;
    const raw = row.values[column];
    // An empty CSV cell gives nothing (the field keeps its default).
    if (raw === undefined || raw === null || (csv && raw === '')) continue;
    try {
      setField(c, field, csv ? cellValue(field, column, raw as string, jsonColumns) : raw);
    } catch (err) {
      return { row: row.row, line: row.line, field, message: `column '${column}': ${(err as Error).message}` };
    }
  }
  return c;
}

interface Checked {
  cases: Array<Record<string, unknown>>;
  errors: RowError[];
}

/** Checks each row as a case against the suite (names free, scorers known), naming the unnamed `row {n}`. */
function checkRows(def: SuiteDefinition, rows: FileRow[], body: ImportBody, mapping: ColumnMapping, scorers: SuiteAppendDeps['scorers']): Checked {
  const csv = body.format === 'csv';
  const jsonColumns = new Set(body.json_columns ?? JSON_COLUMNS);
  const taken = new Set(def.cases.map((c) => c.name));
  const out: Checked = { cases: [], errors: [] };
  for (const row of rows) {
    const c = rowCase(row, mapping, csv, jsonColumns);
    if ('message' in c) {
      out.errors.push(c as RowError);
      continue;
    }
    const fail = (field: string, message: string) => out.errors.push({ row: row.row, line: row.line, field, message });
    if (typeof c.name === 'string' && taken.has(c.name)) {
      fail('name', `the suite (or an earlier row) already has a case named '${c.name}'`);
      continue;
    }
    const named: Record<string, unknown> = { ...c, name: typeof c.name === 'string' ? c.name : freeCaseName(`row ${row.row}`, new Set(taken)) };
    const expected = isRecord(named.expected) ? named.expected : {};
    const refs = body.scorers ?? defaultCaseScorers(def, { output: 'output' in expected, trajectory: 'trajectory' in expected });
    const candidate = named.scorers === undefined && refs ? { ...named, scorers: refs } : named;
    const parsed = EvalCaseSchema.safeParse(candidate);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      fail(fieldName(issue.path), issue.message);
      continue;
    }
    const own = parsed.data.scorers ?? def.defaultScorers;
    if (!own.length) {
      fail('scorers', 'a case needs at least one scorer: map a scorers column, give scorers in the request, or set the suite defaultScorers');
      continue;
    }
    const [problem] = scorers.check(own);
    if (problem) {
      fail(`scorers[${problem.index}]`, problem.message);
      continue;
    }
    taken.add(parsed.data.name);
    out.cases.push(candidate);
  }
  return out;
}

export async function importCases(deps: SuiteAppendDeps, projectId: string, suiteId: string, body: ImportBody): Promise<CasesImported> {
  const read = readRows(body.format, body.content);
  const mapping = body.mapping ?? defaultMapping(read.columns);
  let errors: RowError[] = [];
  const refuse = (all: RowError[]) =>
    new ValidationError(all.slice(0, 100).map((e) => ({ field: `rows[${e.row}].${e.field}`, message: `line ${e.line}: ${e.message}` })));
  const { summary, cases } = await appendCases(
    deps,
    projectId,
    suiteId,
    (def) => {
      const checked = checkRows(def, read.rows, body, mapping, deps.scorers);
      errors = [...read.errors, ...checked.errors].sort((a, b) => a.row - b.row);
      if (!checked.cases.length) throw errors.length ? refuse(errors) : new ValidationError([{ field: 'content', message: 'has no rows' }]);
      if (errors.length && body.strict) throw refuse(errors);
      return checked.cases;
    },
    body.preview,
  );
  return { suite: summary, cases, errors };
}
