import { describe, expect, it } from 'vitest';
import { OtlpDecodeError } from '../../../collector/otlp/errors.js';
import { anyValueToAttr, keyValuesToAttrs } from '../../../collector/otlp/any-value.js';
import { enumNumber, nanosToMs, toHexId, toInt64 } from '../../../collector/otlp/scalars.js';

/** A protobufjs Long as the decoder receives it: two 32-bit halves. */
function long(value: bigint, unsigned = false): { low: number; high: number; unsigned: boolean } {
  const bits = BigInt.asUintN(64, value);
  return { low: Number(bits & 0xffffffffn) | 0, high: Number(bits >> 32n) | 0, unsigned };
}

describe('toHexId', () => {
  it('hex-encodes bytes and lower-cases hex strings', () => {
    expect(toHexId(new Uint8Array([0xab, 0x01]), 'id', 2)).toEqual({ hex: 'ab01' });
    expect(toHexId(Buffer.from('00ff', 'hex').subarray(1), 'id', 1)).toEqual({ hex: 'ff' });
    expect(toHexId('ABCDEF0123456789', 'id', 8)).toEqual({ hex: 'abcdef0123456789' });
  });
  it('decodes base64 ids of the right size and treats empty or absent as empty', () => {
    expect(toHexId(Buffer.from('eee19b7ec3c1b174', 'hex').toString('base64'), 'id', 8)).toEqual({ hex: 'eee19b7ec3c1b174' });
    expect(toHexId('', 'id', 8)).toEqual({ hex: '' });
    expect(toHexId(undefined, 'id', 8)).toEqual({ hex: '' });
    expect(toHexId([], 'id', 8)).toEqual({ hex: '' });
  });
  it('names an id that is not hex, or not of its size, as a problem of that id (the span alone is refused)', () => {
    expect(toHexId('zz', 'traceId', 16)).toEqual({ hex: '', problem: 'traceId must be 16 bytes (32 hex characters)' });
    expect(toHexId('zz top!', 'spanId', 8)).toEqual({ hex: '', problem: 'spanId must be 8 bytes (16 hex characters)' });
    expect(toHexId('abcd', 'spanId', 8)).toEqual({ hex: 'abcd', problem: 'spanId must be 8 bytes (16 hex characters)' });
    expect(toHexId(new Uint8Array([1, 2, 3]), 'traceId', 16)).toEqual({ hex: '010203', problem: 'traceId must be 16 bytes (32 hex characters)' });
    // Base64 of a 1-byte value is no longer taken for an id.
    expect(toHexId('AQ==', 'spanId', 8).problem).toBe('spanId must be 8 bytes (16 hex characters)');
  });
  it('rejects a value of another type as undecodable', () => {
    expect(() => toHexId(12, 'spanId', 8)).toThrow(OtlpDecodeError);
  });
});

describe('nanosToMs', () => {
  it('converts Long, string, number and bigint nanoseconds to milliseconds kept to the microsecond', () => {
    const nanos = '1700000000123456789';
    expect(nanosToMs(long(BigInt(nanos), true), 't')).toBe(1700000000123.457);
    expect(nanosToMs(nanos, 't')).toBe(1700000000123.457);
    expect(nanosToMs(1700000000123456789, 't')).toBe(1700000000123.457);
    expect(nanosToMs(1700000000123456789n, 't')).toBe(1700000000123.457);
    expect(nanosToMs('1000000', 't')).toBe(1);
  });
  it('treats absent as 0 (ingest rejects the span) and garbage as undecodable', () => {
    expect(nanosToMs(undefined, 't')).toBe(0);
    expect(() => nanosToMs('soon', 't')).toThrow(OtlpDecodeError);
  });
});

describe('toInt64', () => {
  it('gives numbers in the safe range and exact strings beyond', () => {
    expect(toInt64(long(-5n), 'i')).toBe(-5);
    expect(toInt64(long(2n ** 63n - 1n), 'i')).toBe('9223372036854775807');
    expect(toInt64(long(-(2n ** 63n)), 'i')).toBe('-9223372036854775808');
    expect(toInt64(long(2n ** 64n - 1n, true), 'i')).toBe('18446744073709551615');
    expect(toInt64('9007199254740991', 'i')).toBe(9007199254740991);
    expect(toInt64('9007199254740993', 'i')).toBe('9007199254740993');
    expect(toInt64(3, 'i')).toBe(3);
  });
});

describe('enumNumber', () => {
  const names = ['UNSET', 'OK', 'ERROR'];
  it('accepts numbers, numeric strings, full and short names', () => {
    expect([1, '2', 'STATUS_CODE_OK', 'error', 7].map((v) => enumNumber(v, names, 'STATUS_CODE_'))).toEqual([1, 2, 1, 2, 7]);
    expect(enumNumber('nope', names, 'STATUS_CODE_')).toBeUndefined();
    expect(enumNumber(undefined, names, 'STATUS_CODE_')).toBeUndefined();
  });
});

describe('AnyValue', () => {
  it('maps the empty AnyValue and a missing value to null', () => {
    expect(anyValueToAttr({})).toBeNull();
    expect(anyValueToAttr(undefined)).toBeNull();
    expect(keyValuesToAttrs([{ key: 'k' }])).toEqual({ k: null });
  });
  it('keeps "__proto__" as an ordinary key', () => {
    const attrs = keyValuesToAttrs([{ key: '__proto__', value: { stringValue: 'x' } }]);
    expect(Object.keys(attrs)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(attrs)).toBe(Object.prototype);
  });
  it('lets the last of duplicate keys win', () => {
    expect(
      keyValuesToAttrs([
        { key: 'a', value: { intValue: 1 } },
        { key: 'a', value: { intValue: 2 } },
      ]),
    ).toEqual({ a: 2 });
  });
  it('refuses hostile nesting instead of exhausting the stack', () => {
    let value: Record<string, unknown> = { stringValue: 'leaf' };
    for (let i = 0; i < 200; i++) value = { arrayValue: { values: [value] } };
    expect(() => anyValueToAttr(value)).toThrow(/nested deeper/);
  });
});
