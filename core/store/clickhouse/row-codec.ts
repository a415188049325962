import type { RowCodec } from '../row-codec.js';
import { csvSpanRowsToTsv } from './legacy-span-rows.js';
import { encodeSpanColumns, encodeSpanRow } from './rows.js';
import { createTraceStatsRows, encodeRowBatch } from './trace-stats-rows.js';

/**
 * The analytical store's row codec (core/store/row-codec.ts): span rows as TabSeparated lines of
 * SPAN_COLUMNS (rows.ts, tsv.ts), summary rows as JSONEachRow lines of `trace_stats_input`
 * (trace-stats-rows.ts), both inserted into `write_rows` as they are.
 */
export const spanRowCodec: RowCodec = {
  encodeSpan: encodeSpanRow,
  summaries: createTraceStatsRows,
  encodeBatch: encodeRowBatch,
  spanRowsOfCsv: csvSpanRowsToTsv,
  spanRowOfColumns: encodeSpanColumns,
};
