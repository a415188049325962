/**
 * Failures of the gateway (gateway.ts) as ClickHouse's HTTP interface answers them: a non-2xx
 * status, `X-ClickHouse-Exception-Code`, and the body `Code: N. DB::Exception: message. (TYPE)`.
 * @clickhouse/client's parseError reads code and type from that body, so an error from chDB
 * reaches a remote client as the same ClickHouseError (code, type) as an in-process caller
 * gets, and core/errors.ts classifies it the same way (permanent or transient).
 */
import { GatewayError } from './gateway-protocol.js';

export interface ErrorReply {
  status: number;
  code: number;
  body: string;
}

const CLICKHOUSE_TEXT = /Code: (\d+)\. DB::Exception: /;

/** chDB's own text of an error (`Code: 60. DB::Exception: ... (UNKNOWN_TABLE)`), along the cause chain. */
function clickhouseText(err: unknown): { code: number; text: string } | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const m = CLICKHOUSE_TEXT.exec(e.message);
    if (m) return { code: Number(m[1]), text: e.message.slice(m.index) };
  }
  return undefined;
}

/** Errors raised in JS (by chdb's bindings or the gateway itself) under ClickHouse's code for them. */
function jsError(err: unknown): GatewayError {
  // The gateway's own refusal, also when chDB's streamed insert wrapped it (a body source that threw).
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) if (e instanceof GatewayError) return e;
  const e = err as { code?: unknown; reason?: unknown; message?: unknown } | null;
  const message = typeof e?.message === 'string' ? e.message : String(err);
  if (e?.code === 'CHDB_ABORT' || (err instanceof Error && err.name === 'AbortError')) return new GatewayError(394, 'QUERY_WAS_CANCELLED', message);
  if (e?.code === 'CHDB_TIMEOUT') return new GatewayError(159, 'TIMEOUT_EXCEEDED', message);
  if (e?.code === 'CHDB_BIND') return new GatewayError(457, 'BAD_QUERY_PARAMETER', message);
  if (e?.reason === 'row-too-large') return new GatewayError(131, 'TOO_LARGE_STRING_SIZE', message);
  if (e?.reason === 'source-error') return new GatewayError(33, 'CANNOT_READ_ALL_DATA', message);
  if (typeof e?.code === 'string' && e.code.startsWith('Z_')) return new GatewayError(271, 'CANNOT_DECOMPRESS', message);
  if (/Invalid setting name/.test(message)) return new GatewayError(115, 'UNKNOWN_SETTING', message);
  return new GatewayError(1001, 'STD_EXCEPTION', message);
}

const BAD_REQUEST = new Set([
  'SYNTAX_ERROR',
  'INCORRECT_DATA',
  'TYPE_MISMATCH',
  'VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE',
  'ILLEGAL_COLUMN',
  'THERE_IS_NO_COLUMN',
  'DUPLICATE_COLUMN',
  'BAD_QUERY_PARAMETER',
  'TOO_LARGE_STRING_SIZE',
]);

/** ClickHouse's HTTP status for an error type (HTTPHandler's exceptionCodeToHTTPStatus, in outline). */
function httpStatus(type: string): number {
  if (type === 'AUTHENTICATION_FAILED' || type === 'REQUIRED_PASSWORD') return 401;
  if (type.startsWith('CANNOT_PARSE_') || BAD_REQUEST.has(type)) return 400;
  if (type.startsWith('UNKNOWN_')) return 404;
  if (type === 'QUERY_IS_TOO_LARGE') return 413;
  if (type === 'NOT_IMPLEMENTED') return 501;
  if (type === 'TOO_MANY_SIMULTANEOUS_QUERIES') return 503;
  return 500;
}

/** The answer to a failed request. chDB's own error text is sent as it is. */
export function errorReply(err: unknown): ErrorReply {
  const native = clickhouseText(err);
  if (native) {
    const type = /\(([A-Z0-9_]+)\)\s*$/.exec(native.text)?.[1] ?? '';
    return { status: httpStatus(type), code: native.code, body: native.text.endsWith('\n') ? native.text : `${native.text}\n` };
  }
  const e = jsError(err);
  // One line, ending as ClickHouse's messages do: `message. (TYPE)`.
  const message = e.message.replace(/\s+/g, ' ').replace(/[.\s]+$/, '');
  return { status: httpStatus(e.type), code: e.code, body: `Code: ${e.code}. DB::Exception: ${message}. (${e.type})\n` };
}
