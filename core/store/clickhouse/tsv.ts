import { toClickHouseTime } from './time.js';

/**
 * Values as ClickHouse's TabSeparated input reads them: the form of `spans` rows on the write path
 * (rows.ts). A row is one line: a value's backslashes, tabs, newlines, carriage returns and NUL
 * bytes are escaped (`\\`, `\t`, `\n`, `\r`, `\0`), so its text never holds a raw line break.
 *
 * That is what makes it safe in-process: chDB runs an insert as the statement text
 * `INSERT ... FORMAT f` followed by the data, through ClickHouse's multi-query parser, which ends
 * inline data at the first empty line and runs what follows as the next statement. A CSV value
 * with a blank line in it ("Paragraph one.\n\nParagraph two.") was cut there: the rows before it
 * stored, the row itself truncated, the rest refused (docs/chdb-inline-insert-empty-line.md). A
 * TabSeparated body has an empty line only where a row has no columns, which no table here has;
 * `assertNoEmptyLine` (inline-insert.ts) checks it before every insert all the same.
 *
 * It also costs little on both sides: most values (names, ids, one-line texts) need no escaping at
 * all, found by one regular-expression scan, and ClickHouse parses a field up to the next tab
 * without a key to look up per value (docs/benchmarks.md, "Span rows as TabSeparated"). Lone UTF-16
 * surrogates need nothing here: the rows become UTF-8 with Buffer.from, which writes U+FFFD in their
 * place.
 */

/** What a field holding NULL is (`format_tsv_null_representation`): a non-Nullable column reads it as its default. */
export const TSV_NULL = '\\N';

/**
 * The settings of every TabSeparated insert, pinned so a server's profile cannot change how rows
 * are read: no header is guessed from the first row, every row has every column, a line ends at
 * `\n` only, and NULL becomes the column's default where the column cannot hold it.
 */
export const TSV_INSERT_SETTINGS = {
  format_tsv_null_representation: TSV_NULL,
  input_format_tsv_detect_header: 0,
  input_format_tsv_skip_first_lines: 0,
  input_format_tsv_allow_variable_number_of_columns: 0,
  input_format_tsv_crlf_end_of_line: 0,
  input_format_tsv_empty_as_default: 0,
  input_format_null_as_default: 1,
  date_time_input_format: 'basic',
} as const;

/** Characters a TabSeparated field escapes. */
const FIELD_SPECIALS = /[\\\t\n\r\0]/;

/** `text` with each of `\`, tab, LF, CR and NUL written as its backslash escape (backslashes first). */
function escapeControls(text: string): string {
  let s = text.includes('\\') ? text.replaceAll('\\', '\\\\') : text;
  if (s.includes('\n')) s = s.replaceAll('\n', '\\n');
  if (s.includes('\t')) s = s.replaceAll('\t', '\\t');
  if (s.includes('\r')) s = s.replaceAll('\r', '\\r');
  if (s.includes('\0')) s = s.replaceAll('\0', '\\0');
  return s;
}

/** A string as a TabSeparated field: as it is, unless it holds a character to escape. */
export function tsvText(s: string): string {
  return FIELD_SPECIALS.test(s) ? escapeControls(s) : s;
}

const LITERAL_SPECIALS = /['\\\t\n\r\0]/;

/**
 * A string as a ClickHouse quoted literal, the form of a Map's keys and values in a TabSeparated
 * field: ClickHouse reads the map text straight from the row (one level of escapes), so a quote is
 * `\'` and the characters a field escapes are escaped the same way inside the literal.
 */
function literal(s: string): string {
  if (!LITERAL_SPECIALS.test(s)) return `'${s}'`;
  const escaped = escapeControls(s);
  return `'${escaped.includes("'") ? escaped.replaceAll("'", "\\'") : escaped}'`;
}

/** A Map(String, String) as a TabSeparated field: `{'k':'v',...}`. */
export function tsvMap(m: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const k of Object.keys(m)) {
    const v = m[k];
    parts.push(`${literal(k)}:${literal(typeof v === 'string' ? v : String(v))}`);
  }
  return `{${parts.join(',')}}`;
}

/** A number; NULL when it is not finite (as JSON.stringify writes null). */
export function tsvNumber(n: number): string {
  return Number.isFinite(n) ? String(n) : TSV_NULL;
}

/** 1973-03-03: from here on a DateTime64 reads `seconds.mmm` as a Unix time; shorter numbers read as dates. */
const UNIX_TEXT_FROM_MS = 1e11;
/** 2286-11-20: past it the seconds take 11 digits; the store holds up to 2299, as text. */
const UNIX_TEXT_UNTIL_MS = 1e13;

/**
 * Milliseconds since the epoch as a DateTime64(3) field: `seconds.mmm`, which costs far less to
 * write and read than date text, or the text itself outside the years where ClickHouse reads a
 * Unix time unambiguously.
 */
export function tsvTime(ms: number): string {
  if (!Number.isFinite(ms)) return TSV_NULL;
  const t = Math.trunc(ms);
  if (t < UNIX_TEXT_FROM_MS || t >= UNIX_TEXT_UNTIL_MS) return toClickHouseTime(t);
  const seconds = Math.floor(t / 1000);
  const millis = t - seconds * 1000;
  return `${seconds}.${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}`;
}

/** Any value of a row as a TabSeparated field, by its JS type. */
export function tsvValue(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return tsvText(v);
    case 'number':
      return tsvNumber(v);
    case 'boolean':
      return v ? '1' : '0';
    case 'object':
      if (v === null) return TSV_NULL;
      return Array.isArray(v) ? tsvText(JSON.stringify(v)) : tsvMap(v as Record<string, unknown>);
    default:
      return TSV_NULL;
  }
}

const UNESCAPES: Record<string, string> = { '\\': '\\', t: '\t', n: '\n', r: '\r', '0': '\0', b: '\b', f: '\f', "'": "'" };
const ESCAPE_SEQUENCE = /\\(.)/gs;

/** A TabSeparated field's text (the inverse of tsvText). */
export function tsvFieldText(field: string): string {
  return field.includes('\\') ? field.replace(ESCAPE_SEQUENCE, (_, c: string) => UNESCAPES[c] ?? c) : field;
}
