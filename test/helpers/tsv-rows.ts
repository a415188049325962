import { SPAN_COLUMNS, type SpanColumn } from '../../core/store/clickhouse/rows.js';
import { tsvFieldText } from '../../core/store/clickhouse/tsv.js';

/** The fields of one TabSeparated row as written (escapes kept). */
export const tsvFields = (line: string): string[] => line.split('\t');

/** A span row of the write path (TabSeparated of SPAN_COLUMNS), by column, each field's text (unescaped; `\N` stays `\N`). */
export function spanRowFields(line: string): Record<SpanColumn, string> {
  const fields = tsvFields(line);
  return Object.fromEntries(SPAN_COLUMNS.map((c, i) => [c, fields[i] === '\\N' ? '\\N' : tsvFieldText(fields[i] ?? '')])) as Record<SpanColumn, string>;
}
