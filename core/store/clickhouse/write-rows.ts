import { DataRejectedError } from '../../errors.js';
import { SPAN_COLUMNS } from './rows.js';
import { TSV_NULL, tsvText } from './tsv.js';

/**
 * The rows of one write as `write_rows` lines (migrations/clickhouse/007, WRITE_COLUMNS): span
 * rows with an empty `stats` field after them, summary rows with their trace's key, NULL for every
 * other span column, and the summary's JSON in `stats`. Ingest and Kafka messages keep carrying
 * span rows (SPAN_COLUMNS) and summaries (JSON lines) as before; this is the last step before the
 * insert, so neither form changes.
 */

/** The span columns of a summary row after its project_id and trace_id: all NULL (the columns' defaults). */
const NO_SPAN_FIELDS = `\t${TSV_NULL}`.repeat(SPAN_COLUMNS.length - 2);

/** Span rows (one line, or a Kafka message's lines) as `write_rows` lines. */
export function spanWriteRows(rows: string): string {
  return `${rows.includes('\n') ? rows.replaceAll('\n', '\t\n') : rows}\t`;
}

/**
 * Summary rows (one JSON line, or a Kafka message's lines) as `write_rows` lines. A row that is
 * not a JSON object naming its project and trace is refused as bad data: the view would read it
 * as a summary of nothing, dated 1970, instead of failing.
 */
export function statsWriteRows(rows: string): string {
  return rows.split('\n').map(statsWriteRow).join('\n');
}

function statsWriteRow(json: string): string {
  let row: unknown;
  try {
    row = JSON.parse(json);
  } catch {
    throw new DataRejectedError('a trace summary row is not JSON');
  }
  const { project_id: project, trace_id: trace } = (row ?? {}) as { project_id?: unknown; trace_id?: unknown };
  if (typeof project !== 'string' || typeof trace !== 'string' || typeof (row as { min_start?: unknown }).min_start !== 'number') {
    throw new DataRejectedError('a trace summary row lacks its project_id, trace_id or min_start');
  }
  return `${tsvText(project)}\t${tsvText(trace)}${NO_SPAN_FIELDS}\t${tsvText(json)}`;
}
