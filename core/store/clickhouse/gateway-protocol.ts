/**
 * The part of ClickHouse's HTTP interface the gateway (gateway.ts) speaks, as pure functions:
 * what a request's URL asks for, its query parameters in the form chDB binds, and the INSERT
 * statements whose body can be streamed to chDB as it is.
 * (https://clickhouse.com/docs/interfaces/http)
 */
import { randomUUID } from 'node:crypto';

export class GatewayError extends Error {
  constructor(
    readonly code: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** What one request asks for. */
export interface GatewayRequest {
  /** `query` of the URL. With a body, the body follows it as its data (ClickHouse joins them with a newline). */
  query?: string;
  queryId: string;
  /** `param_<name>` values as sent: ClickHouse's escaped text of the value. */
  params: Record<string, string>;
  /** Every other URL parameter, except the HTTP interface's own below. */
  settings: Record<string, string>;
  /** Output format when the SQL names none (ClickHouse's default is TabSeparated). */
  defaultFormat: string;
  /** `enable_http_compression=1`: compress the response as Accept-Encoding allows. */
  compressResponse: boolean;
  /** `user` / `password` of the URL, ClickHouse's third way of sending credentials. */
  user?: string;
  password?: string;
}

/**
 * Parameters of the HTTP interface that are not settings, and settings that only ClickHouse's
 * HTTP server reads (chDB refuses them as unknown). `database` is accepted and ignored, as the
 * in-process chDB connection ignores the client's `database`: the SQL names its database.
 * Sessions are accepted and ignored: every request shares the one chDB connection.
 */
const NOT_SETTINGS = new Set([
  'query',
  'query_id',
  'database',
  'default_format',
  'user',
  'password',
  'quota_key',
  'role',
  'stacktrace',
  'session_id',
  'session_timeout',
  'session_check',
  'close_session',
  'buffer_size',
  'wait_end_of_query',
  'client_protocol_version',
  'compress',
  'decompress',
  'enable_http_compression',
  'send_progress_in_http_headers',
  'http_headers_progress_interval_ms',
  'http_send_progress_interval_ms',
  'http_response_buffer_size',
  'http_zlib_compression_level',
  'http_native_compression_disable_checksumming_on_decompress',
  'http_response_compression_method',
]);

export function parseRequestUrl(url: URL): GatewayRequest {
  const q = url.searchParams;
  // ClickHouse's own block compression (compress=1 / decompress=1): @clickhouse/client never sends it.
  if (q.get('compress') === '1' || q.get('decompress') === '1') {
    throw new GatewayError(48, 'NOT_IMPLEMENTED', 'The gateway does not implement ClickHouse native compression (compress/decompress); use Content-Encoding');
  }
  const params: Record<string, string> = {};
  const settings: Record<string, string> = {};
  for (const [key, value] of q) {
    if (key.startsWith('param_')) params[key.slice('param_'.length)] = value;
    else if (!NOT_SETTINGS.has(key)) settings[key] = value;
  }
  return {
    query: q.get('query') ?? undefined,
    queryId: q.get('query_id') || randomUUID(),
    params,
    settings,
    defaultFormat: q.get('default_format') || 'TabSeparated',
    compressResponse: q.get('enable_http_compression') === '1',
    user: q.get('user') ?? undefined,
    password: q.get('password') ?? undefined,
  };
}

/** `{name:Type}` placeholders of the SQL: the declared type of each parameter. */
function declaredTypes(sql: string): Map<string, string> {
  const types = new Map<string, string>();
  for (const m of sql.matchAll(/\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*((?:[^{}']|'(?:[^'\\]|\\.)*')+?)\s*\}/g)) {
    if (!types.has(m[1])) types.set(m[1], m[2]);
  }
  return types;
}

/** Types whose text holds quoted strings ([...], (...), {...}), where a quote can be escaped as ''. */
const COMPOSITE = /^(?:(?:Nullable|LowCardinality)\(\s*)*(?:Array|Tuple|Map|Nested)\s*\(/i;

const ESCAPES: Record<string, string> = { '\\': '\\', '0': '\0', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', a: '\x07', v: '\x0b', e: '\x1b' };

/**
 * Query parameters as chDB binds them. ClickHouse parses a parameter's text with the escaped
 * (TSV) rules of its type; chDB's binder takes JS values and escapes a string itself (a
 * backslash becomes `\\`), so the text as sent (`it\'s`, `['a\\b']`) would bind a different
 * value. Each text is unescaped here into the string whose chDB escaping means the same value:
 * `\\ \t \n` ... become the characters they stand for, `\'` a plain quote, or inside a quoted
 * string of an Array/Tuple/Map `''` (SQL-style), the one escape of a quote chDB's form can carry.
 * `\N` alone is NULL.
 */
export function bindParams(sql: string, params: Record<string, string>): Record<string, string | null> {
  const types = declaredTypes(sql);
  const bound: Record<string, string | null> = {};
  for (const [name, text] of Object.entries(params)) {
    bound[name] = text === '\\N' ? null : unescapeParam(text, COMPOSITE.test(types.get(name) ?? ''));
  }
  return bound;
}

function unescapeParam(text: string, composite: boolean): string {
  if (!text.includes('\\') && !composite) return text;
  let out = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'" && composite) {
      if (quoted && text[i + 1] === "'") {
        out += "''";
        i++;
      } else {
        quoted = !quoted;
        out += c;
      }
      continue;
    }
    if (c !== '\\' || i + 1 === text.length) {
      out += c;
      continue;
    }
    const e = text[++i];
    if (e === "'") out += quoted ? "''" : "'";
    else if (e === 'x' && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      out += String.fromCharCode(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else out += ESCAPES[e] ?? e;
  }
  return out;
}

/** Formats whose rows end at a raw newline: chDB streams them in chunks cut at row boundaries. */
const STREAMABLE_FORMATS = new Set(['JSONEachRow', 'JSONCompactEachRow', 'TSV', 'TabSeparated']);
/** Formats chDB takes as one piece of bytes: a quoted CSV value may hold a raw newline, so the body cannot be cut into chunks. */
const WHOLE_FORMATS = new Set(['CSV']);

/** An insert whose body goes to chDB as bytes: in chunks as it arrives (`streamed`), or read whole first. */
export type PassthroughInsert = { table: string; columns?: string[] } & (
  { streamed: true; format: 'JSONEachRow' | 'JSONCompactEachRow' | 'TSV' | 'TabSeparated' } | { streamed: false; format: 'CSV' }
);

const IDENT = '[A-Za-z0-9_]+';
const INSERT = new RegExp(`^\\s*INSERT\\s+INTO\\s+(?:TABLE\\s+)?(${IDENT}(?:\\.${IDENT})?)\\s*(?:\\(([^()]*)\\))?\\s*FORMAT\\s+(\\w+)\\s*;?\\s*$`, 'i');

/**
 * `INSERT INTO db.t [(a, b)] FORMAT JSONEachRow` (what @clickhouse/client's insert sends) or
 * `... FORMAT CSV` (read whole): the body can go to chDB's raw insert as bytes.
 * Anything else (VALUES, SETTINGS, other formats) runs as SQL text with the body appended.
 */
export function passthroughInsert(query: string): PassthroughInsert | undefined {
  const m = INSERT.exec(query);
  if (!m) return undefined;
  const streamed = STREAMABLE_FORMATS.has(m[3]);
  if (!streamed && !WHOLE_FORMATS.has(m[3])) return undefined;
  const columns = m[2]?.split(',').map((c) => c.trim());
  if (columns && !columns.every((c) => new RegExp(`^${IDENT}$`).test(c))) return undefined;
  return { table: m[1], columns, ...(streamed ? { streamed, format: m[3] as 'JSONEachRow' } : { streamed, format: 'CSV' as const }) };
}

/** The output format a query's answer is in: its FORMAT clause, else the request's default. */
export function outputFormat(sql: string, defaultFormat: string): string {
  return /\bFORMAT\s+(\w+)\s*;?\s*$/i.exec(sql)?.[1] ?? defaultFormat;
}
