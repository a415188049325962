import { toClickHouseTime } from './time.js';

/**
 * Values as ClickHouse's CSV input reads them: the form of `spans` rows on the write path
 * (rows.ts). CSV costs ClickHouse much less to parse than JSONEachRow (no key to look up per
 * value, and a string ends at the next `"`, found by a vector scan), and costs JS much less to
 * write: a string only needs its `"` doubled, found with `indexOf` (memchr), where
 * `JSON.stringify` inspects every character. Measured in docs/benchmarks.md ("Span rows as CSV").
 *
 * A string is always quoted, so its spaces, commas, newlines and NUL bytes are kept as they are
 * and an empty string is never read as NULL. Lone UTF-16 surrogates need nothing here: the rows
 * become UTF-8 with Buffer.from, which writes U+FFFD in their place.
 */

/** What an unquoted field holding NULL is (`format_csv_null_representation`): a non-Nullable column reads it as its default. */
export const CSV_NULL = '\\N';

/**
 * The settings of every CSV insert, pinned so a server's profile cannot change how rows are
 * read: values are quoted with `"` only, no header is guessed from the first row, and NULL
 * becomes the column's default where the column cannot hold it.
 */
export const CSV_INSERT_SETTINGS = {
  format_csv_delimiter: ',',
  format_csv_allow_double_quotes: 1,
  format_csv_allow_single_quotes: 0,
  format_csv_null_representation: CSV_NULL,
  input_format_csv_detect_header: 0,
  input_format_csv_allow_variable_number_of_columns: 0,
  input_format_csv_empty_as_default: 1,
  input_format_null_as_default: 1,
  date_time_input_format: 'basic',
} as const;

/** A string as a quoted CSV field. */
export function csvText(s: string): string {
  return s.includes('"') ? `"${s.replaceAll('"', '""')}"` : `"${s}"`;
}

const LITERAL_SPECIALS = /['\\]/g;

/** A string as a ClickHouse quoted literal, the form of a Map's keys and values in text formats. */
function literal(s: string): string {
  return s.includes("'") || s.includes('\\') ? `'${s.replace(LITERAL_SPECIALS, '\\$&')}'` : `'${s}'`;
}

/** A Map(String, String) as a CSV field: `{'k':'v',...}`, quoted. */
export function csvMap(m: Record<string, unknown>): string {
  let text = '{';
  for (const k of Object.keys(m)) {
    const v = m[k];
    text += `${text.length > 1 ? ',' : ''}${literal(k)}:${literal(typeof v === 'string' ? v : String(v))}`;
  }
  return csvText(`${text}}`);
}

/** A number; NULL when it is not finite (as JSON.stringify writes null). */
export function csvNumber(n: number): string {
  return Number.isFinite(n) ? String(n) : CSV_NULL;
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
export function csvTime(ms: number): string {
  if (!Number.isFinite(ms)) return CSV_NULL;
  const t = Math.trunc(ms);
  if (t < UNIX_TEXT_FROM_MS || t >= UNIX_TEXT_UNTIL_MS) return toClickHouseTime(t);
  const seconds = Math.floor(t / 1000);
  const millis = t - seconds * 1000;
  return `${seconds}.${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}`;
}

/** Any value of a row as a CSV field, by its JS type. */
export function csvValue(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return csvText(v);
    case 'number':
      return csvNumber(v);
    case 'boolean':
      return v ? '1' : '0';
    case 'object':
      if (v === null) return CSV_NULL;
      return Array.isArray(v) ? csvText(JSON.stringify(v)) : csvMap(v as Record<string, unknown>);
    default:
      return CSV_NULL;
  }
}
