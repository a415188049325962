import { OtlpDecodeError } from './errors.js';

/**
 * Scalar conversions shared by the protobuf and OTLP/JSON paths. A protobufjs-decoded message
 * gives bytes as Uint8Array and 64-bit integers as Long; OTLP/JSON gives ids as hex strings and
 * 64-bit integers as decimal strings or numbers (proto3 JSON mapping, with the OTLP/JSON
 * exception for ids). Both are accepted everywhere.
 */

/** A plain object node of the decoded request (protobufjs message or parsed JSON). */
export type Node = Record<string, unknown>;

/** protobufjs's Long (or any object of the same shape). */
interface LongLike {
  low: number;
  high: number;
  unsigned?: boolean;
}

const HEX = /^[0-9a-fA-F]*$/;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;
const DECIMAL = /^-?\d+$/;
const TWO_POW_32 = 4_294_967_296;

/**
 * Bytes given as a plain array of octets: protobufjs uses an empty array as the default of an
 * unset bytes field, and some JSON encoders write bytes that way.
 */
function octets(v: unknown): Buffer | undefined {
  if (!Array.isArray(v)) return undefined;
  return v.every((b) => Number.isInteger(b) && b >= 0 && b <= 255) ? Buffer.from(v as number[]) : undefined;
}

function isLong(v: unknown): v is LongLike {
  return typeof v === 'object' && v !== null && typeof (v as LongLike).low === 'number' && typeof (v as LongLike).high === 'number';
}

/** Reads a field by its lowerCamelCase or snake_case name (OTLP/JSON receivers must accept both). */
export function field(node: Node, camel: string, snake?: string): unknown {
  const v = node[camel];
  if (v !== undefined && v !== null) return v;
  return snake === undefined ? undefined : node[snake];
}

/** An embedded message, or undefined when absent. */
export function asNode(v: unknown, what: string): Node | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'object' && !Array.isArray(v)) return v as Node;
  throw new OtlpDecodeError(`expected ${what} to be an object`);
}

/** A repeated field; absent means empty. */
export function asList(v: unknown, what: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) return v;
  throw new OtlpDecodeError(`expected ${what} to be an array`);
}

/** A string field; absent means ''. Numbers and booleans are tolerated and stringified. */
export function asString(v: unknown, what: string): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new OtlpDecodeError(`expected ${what} to be a string`);
}

/** OTLP's id sizes (trace.proto): a trace id is 16 bytes, a span id 8. */
export const TRACE_ID_BYTES = 16;
export const SPAN_ID_BYTES = 8;

/**
 * Why a decoded id (lowercase hex) is not an OTLP id of `bytes` bytes, or undefined when it is
 * one or is empty (ingest refuses an empty trace or span id itself; an empty parent is a root).
 * Both decoders (protobuf and the message walk of OTLP/JSON) ask it, so they refuse the same spans.
 */
export function idLengthProblem(hex: string, what: string, bytes: number): string | undefined {
  if (hex === '' || hex.length === bytes * 2) return undefined;
  return `${what} must be ${bytes} bytes (${bytes * 2} hex characters)`;
}

/** A trace or span id as decoded: lowercase hex, and why it is not an id of its size, when it is not. */
export interface DecodedId {
  hex: string;
  problem?: string;
}

function checkedId(hex: string, what: string, bytes: number): DecodedId {
  const problem = idLengthProblem(hex, what, bytes);
  return problem ? { hex, problem } : { hex };
}

/**
 * A trace or span id of `bytes` bytes, as lowercase hex. Protobuf bytes are hex-encoded; OTLP/JSON
 * ids are hex strings (OTLP spec, "JSON Protobuf Encoding": ids are hex, not base64), but base64
 * from generic proto3 JSON encoders is tolerated when it decodes to an id of the right size.
 * Absent or empty gives ''. Text that is neither, or an id of another size, comes back with its
 * `problem`: the span alone is refused (partial_success), not the whole request.
 */
export function toHexId(v: unknown, what: string, bytes: number): DecodedId {
  if (v === undefined || v === null) return { hex: '' };
  if (v instanceof Uint8Array) return checkedId(Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex'), what, bytes);
  const array = octets(v);
  if (array) return checkedId(array.toString('hex'), what, bytes);
  if (typeof v !== 'string') throw new OtlpDecodeError(`expected ${what} to be a hex string`);
  if (v === '') return { hex: '' };
  const hex = HEX.test(v);
  if (hex && v.length === bytes * 2) return { hex: v.toLowerCase() };
  if (BASE64.test(v)) {
    const decoded = Buffer.from(v, 'base64');
    if (decoded.length === bytes) return { hex: decoded.toString('hex') };
  }
  // Shown in partial_success as the span's id only when it is hex: other text may be anything.
  return { hex: hex ? v.toLowerCase() : '', problem: idLengthProblem('-', what, bytes) };
}

/** An unsigned 64-bit count of nanoseconds as a double (exact to well under a microsecond). */
function nanosAsNumber(v: unknown, what: string): number {
  if (v === undefined || v === null || v === '') return 0;
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (isLong(v)) return (v.high >>> 0) * TWO_POW_32 + (v.low >>> 0);
  if (typeof v === 'string' && DECIMAL.test(v)) return Number(v);
  throw new OtlpDecodeError(`expected ${what} to be an integer number of nanoseconds`);
}

/**
 * fixed64 nanoseconds since the epoch -> milliseconds, kept to the microsecond (a double holds
 * epoch milliseconds with three decimals exactly; nanoseconds would exceed its 53 bits).
 */
export function nanosToMs(v: unknown, what: string): number {
  return Math.round(nanosAsNumber(v, what) / 1000) / 1000;
}

/**
 * An int64 as a number when it is a safe integer, else as its exact decimal string, so that
 * no value is silently rounded.
 */
export function toInt64(v: unknown, what: string): number | string {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (isLong(v)) {
    const high = v.unsigned ? v.high >>> 0 : v.high | 0;
    const n = high * TWO_POW_32 + (v.low >>> 0);
    if (Number.isSafeInteger(n)) return n;
    return ((BigInt(high) << 32n) + BigInt(v.low >>> 0)).toString();
  }
  if (typeof v === 'string' && DECIMAL.test(v.trim())) {
    const big = BigInt(v.trim());
    const n = Number(big);
    return Number.isSafeInteger(n) ? n : big.toString();
  }
  throw new OtlpDecodeError(`expected ${what} to be an integer`);
}

/**
 * A double, which proto3 JSON may write as a number, a numeric string or "NaN" / "Infinity" /
 * "-Infinity". Non-finite values stay as those names since JSON cannot carry them.
 */
export function toDouble(v: unknown, what: string): number | string {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (Number.isFinite(n)) return n;
  if (typeof v === 'number' || v === 'NaN' || v === 'Infinity' || v === '-Infinity') return String(v);
  throw new OtlpDecodeError(`expected ${what} to be a number`);
}

/** A bool; proto3 JSON parsers also accept the strings "true" / "false". */
export function toBool(v: unknown, what: string): boolean {
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 'false') return v === 'true';
  throw new OtlpDecodeError(`expected ${what} to be a boolean`);
}

/** Bytes as standard base64 (protobuf gives Uint8Array, proto3 JSON gives base64 already). */
export function toBase64(v: unknown, what: string): string {
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
  if (typeof v === 'string') return BASE64.test(v) ? Buffer.from(v, 'base64').toString('base64') : v;
  const array = octets(v);
  if (array) return array.toString('base64');
  throw new OtlpDecodeError(`expected ${what} to be base64 bytes`);
}

/**
 * An enum value by number or by name (proto3 JSON accepts both). Returns the numeric value, or
 * undefined when absent or unknown (proto3 enums are open: an unknown number is not an error).
 */
export function enumNumber(v: unknown, names: readonly string[], prefix: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number') return Number.isInteger(v) ? v : undefined;
  if (typeof v !== 'string') return undefined;
  if (DECIMAL.test(v)) return Number(v);
  const upper = v.toUpperCase();
  const index = names.indexOf(upper.startsWith(prefix) ? upper.slice(prefix.length) : upper);
  return index >= 0 ? index : undefined;
}
