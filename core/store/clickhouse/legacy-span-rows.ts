import { SPAN_COLUMNS } from './rows.js';
import { tsvText } from './tsv.js';

/**
 * Span rows of Kafka message format 3 (CSV lines of SPAN_COLUMNS, written by the collector before
 * rows became TabSeparated) as TabSeparated rows. Only the dialect that collector wrote: fields
 * divided by `,`, rows by `\n`; strings always quoted with `"`, a `"` inside doubled, line breaks
 * raw; numbers, times and `\N` bare. A quoted field of a map column holds ClickHouse's map text,
 * whose quotes and backslashes are already escaped: only its raw control characters are escaped
 * here. Other quoted fields are strings, escaped as TabSeparated fields.
 */

const MAP_COLUMNS = new Set(SPAN_COLUMNS.flatMap((c, i) => (c === 'attributes' || c === 'resource_attributes' ? [i] : [])));

/** A map's text with the raw characters a TabSeparated row cannot hold escaped (its `\` and `'` are escapes already). */
const escapeMapControls = (text: string): string => text.replace(/[\t\n\r\0]/g, (c) => ({ '\t': '\\t', '\n': '\\n', '\r': '\\r', '\0': '\\0' })[c] ?? c);

export function csvSpanRowsToTsv(chunk: string): string[] {
  const rows: string[] = [];
  let fields: string[] = [];
  let i = 0;
  const endRow = () => {
    if (fields.length !== SPAN_COLUMNS.length) throw new Error(`row ${rows.length + 1} has ${fields.length} fields, not ${SPAN_COLUMNS.length}`);
    rows.push(fields.join('\t'));
    fields = [];
  };
  while (i <= chunk.length) {
    let field: string;
    if (chunk[i] === '"') {
      let text = '';
      let at = i + 1;
      for (;;) {
        const quote = chunk.indexOf('"', at);
        if (quote === -1) throw new Error(`row ${rows.length + 1}: a quoted field is not closed`);
        text += chunk.slice(at, quote);
        if (chunk[quote + 1] === '"') {
          text += '"';
          at = quote + 2;
          continue;
        }
        i = quote + 1;
        break;
      }
      field = MAP_COLUMNS.has(fields.length) ? escapeMapControls(text) : tsvText(text);
    } else {
      let end = i;
      while (end < chunk.length && chunk[end] !== ',' && chunk[end] !== '\n') end++;
      field = chunk.slice(i, end);
      i = end;
    }
    fields.push(field);
    const next = chunk[i];
    if (next === ',') {
      i++;
      continue;
    }
    if (next !== '\n' && i < chunk.length) throw new Error(`row ${rows.length + 1}: unexpected ${JSON.stringify(next)} after a field`);
    endRow();
    i++;
    // A trailing newline ends the last row; nothing follows it.
    if (i >= chunk.length) break;
  }
  return rows;
}
