import { z } from 'zod';
import { ScorerRefListSchema } from './eval-case.js';
import type { EvalCase } from './case-schema.js';
import type { SuiteSummary } from './suite.js';
import { MAX_SESSION_ID_CHARS } from './trace-session-ids.js';
import { TraceFilterSchema } from './trace-filter.js';

/**
 * Suites fed from production and from files (docs/api.md "Datasets from production"): the
 * bodies of POST /api/suites/{id}/cases/from-traces and /cases/import, and what they answer.
 * The domain is core/datasets/.
 */

/** What a case takes from a trace or span. `input` always; the others when listed. */
export const CASE_FIELDS = ['input', 'output', 'trajectory', 'metadata'] as const;
export type CaseField = (typeof CASE_FIELDS)[number];

/** Most traces one from-traces call adds (the filter's `cap` and `trace_ids` alike). */
export const MAX_TRACES_PER_ADD = 1000;
/** The cap of a filter when the body gives none. */
export const DEFAULT_FILTER_CAP = 100;

const Id = z.string().min(1).max(256);

/** How a trace or span becomes a case (every way of choosing traces shares them). */
export const CaseOptionsFields = {
  /** Default `['input', 'output']`. */
  fields: z
    .array(z.enum(CASE_FIELDS))
    .max(CASE_FIELDS.length)
    .default(['input', 'output'])
    .transform((f) => [...new Set<CaseField>(['input', ...f])]),
  /** The output as `expected.output` (true, the default) or only kept in `metadata.output` for reference (false). */
  expected_from_output: z.boolean().default(true),
  /** Attribute keys of the span copied into `metadata.attributes` (with `metadata` in fields). */
  attributes: z.array(z.string().min(1).max(256)).max(100).default([]),
  /** The new cases' own scorers; default none when the suite has defaultScorers, else exactMatch (output) and toolCalls (trajectory). */
  scorers: ScorerRefListSchema.optional(),
};

/**
 * POST /api/suites/{id}/cases/from-traces: exactly one of `trace_ids`, `span_id`, `session_id`
 * (the session's traces as one scripted conversation) or `filter` (the trace list's filters,
 * newest first, at most `cap`). `preview` answers the cases without writing a version.
 */
export const FromTracesSchema = z
  .strictObject({
    trace_ids: z.array(Id).min(1).max(MAX_TRACES_PER_ADD).optional(),
    span_id: Id.optional(),
    session_id: z.string().min(1).max(MAX_SESSION_ID_CHARS).optional(),
    filter: TraceFilterSchema.optional(),
    cap: z.number().int().min(1).max(MAX_TRACES_PER_ADD).default(DEFAULT_FILTER_CAP),
    preview: z.boolean().default(false),
    /** The case's name, when one case is added; default `{trace name}: {trace id}` made unique. */
    case_name: z.string().min(1).max(512).optional(),
    ...CaseOptionsFields,
  })
  .superRefine((b, ctx) => {
    const given = (['trace_ids', 'span_id', 'session_id', 'filter'] as const).filter((k) => b[k] !== undefined);
    if (given.length !== 1)
      ctx.addIssue({ code: 'custom', path: [given[1] ?? 'trace_ids'], message: 'give exactly one of trace_ids, span_id, session_id or filter' });
    if (b.case_name !== undefined && (b.filter !== undefined || (b.trace_ids?.length ?? 0) > 1))
      ctx.addIssue({ code: 'custom', path: ['case_name'], message: 'names one case: give it with one trace, a span or a session' });
  });
export type FromTracesBody = z.output<typeof FromTracesSchema>;

/** The answer of from-traces and import: the version written (null on a preview) and the cases. */
export interface CasesAdded {
  /** The suite's new version; null when nothing was written (a preview). */
  suite: SuiteSummary | null;
  /** The cases added (or that would be, on a preview), as the version stores them. */
  cases: EvalCase[];
  /** A filter matched more traces than `cap`: the newest `cap` were taken. */
  truncated: boolean;
}

export const IMPORT_FORMATS = ['csv', 'jsonl'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/**
 * Where each case field is read from in a row: a CSV column or a JSONL key. Keys are the case's
 * fields (`name`, `input`, `expected.output`, `expected.<any>`, `scorers`, `minScore`, `weight`,
 * `turns`, `simulation`, `metadata`, `metadata.<key>`); the default maps each column of the same
 * name (docs/api.md "Import").
 */
export const ColumnMappingSchema = z
  .record(
    z.string().regex(/^(name|input|scorers|minScore|weight|turns|simulation|metadata|expected|(expected|metadata)\.[^.]{1,256})$/, 'is not a case field'),
    z.string().min(1).max(256),
  )
  .refine((m) => Object.keys(m).length <= 200, 'at most 200 mapped fields');
export type ColumnMapping = z.output<typeof ColumnMappingSchema>;

/** POST /api/suites/{id}/cases/import. */
export const ImportSchema = z.strictObject({
  format: z.enum(IMPORT_FORMATS),
  /** The file's text, byte for byte. */
  content: z.string().min(1),
  mapping: ColumnMappingSchema.optional(),
  /** Columns read as JSON (CSV cells are text otherwise); default: `expected`, `scorers`, `turns`, `simulation`, `metadata`, `expected.trajectory`. */
  json_columns: z.array(z.string().min(1).max(256)).max(200).optional(),
  /** Refuse the whole file when any row is bad (default: add the good rows, report the bad). */
  strict: z.boolean().default(false),
  preview: z.boolean().default(false),
  /** Scorers of the imported cases that give none (same default as from-traces). */
  scorers: ScorerRefListSchema.optional(),
});
export type ImportBody = z.output<typeof ImportSchema>;

/** A row that did not become a case: its number (1 = the first data row) and line in the file. */
export interface RowError {
  row: number;
  line: number;
  field: string;
  message: string;
}

export interface CasesImported extends Omit<CasesAdded, 'truncated'> {
  errors: RowError[];
}

export const EXPORT_FORMATS = ['jsonl', 'csv', 'yaml'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
