import { SPAN_COLUMNS, type SpanColumn } from '../../core/store/clickhouse/rows.js';

/** A CSV field as written (quoted with `""` inside, or bare), then its delimiter. */
const CSV_FIELD = /("(?:[^"]|"")*"|[^,\n]*)(,|\n|$)/gy;

/** The fields of one CSV row as written: quoted fields keep their quotes. */
export function csvFields(line: string): string[] {
  const fields: string[] = [];
  CSV_FIELD.lastIndex = 0;
  for (let m = CSV_FIELD.exec(line); m; m = CSV_FIELD.exec(line)) {
    fields.push(m[1]);
    if (m[2] !== ',') break;
  }
  return fields;
}

/** A CSV field's text: a quoted field unquoted, a bare one as it is. */
export const csvFieldText = (field: string): string => (field.startsWith('"') ? field.slice(1, -1).replaceAll('""', '"') : field);

/** A span row of the write path (CSV of SPAN_COLUMNS), by column, each field's text. */
export function spanRowFields(line: string): Record<SpanColumn, string> {
  const fields = csvFields(line);
  return Object.fromEntries(SPAN_COLUMNS.map((c, i) => [c, csvFieldText(fields[i] ?? '')])) as Record<SpanColumn, string>;
}
