import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { PayloadTooLargeError } from '../../../core/errors.js';
import { OtlpDecodeError } from '../../../collector/otlp/errors.js';
import { readBody } from '../../../collector/otlp/read-body.js';

function chunked(data: Buffer, size = 64 * 1024): Readable {
  const parts: Buffer[] = [];
  for (let i = 0; i < data.length; i += size) parts.push(data.subarray(i, i + size));
  return Readable.from(parts);
}

describe('readBody', () => {
  it('returns identity and gzip bodies whole', async () => {
    const data = Buffer.from('x'.repeat(200_000));
    // Buffer.equals: vitest's deep equality walks 200 KB byte by byte.
    expect((await readBody(chunked(data), { limitBytes: 1e6, gzip: false })).equals(data)).toBe(true);
    expect((await readBody(chunked(zlib.gzipSync(data)), { limitBytes: 1e6, gzip: true })).equals(data)).toBe(true);
  });

  it('refuses a declared or streamed length over the limit', async () => {
    await expect(readBody(chunked(Buffer.alloc(10)), { limitBytes: 5, gzip: false, declaredLength: 10 })).rejects.toBeInstanceOf(PayloadTooLargeError);
    await expect(readBody(chunked(Buffer.alloc(300_000)), { limitBytes: 100_000, gzip: false })).rejects.toBeInstanceOf(PayloadTooLargeError);
  });

  it('stops a gzip bomb at the limit instead of inflating it', async () => {
    // 512 concatenated gzip members of 1 MB of zeroes each: about 500 KB that inflate to 512 MB.
    const member = zlib.gzipSync(Buffer.alloc(1024 * 1024), { level: 9 });
    const bomb = Buffer.concat(Array.from({ length: 512 }, () => member));
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const before = process.memoryUsage().rss;
    await expect(readBody(chunked(bomb), { limitBytes: 1024 * 1024, gzip: true })).rejects.toBeInstanceOf(PayloadTooLargeError);
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
  });

  it('reports truncated or corrupt gzip as undecodable', async () => {
    const gz = zlib.gzipSync(Buffer.from('hello world, hello world'));
    await expect(readBody(chunked(gz.subarray(0, gz.length - 6)), { limitBytes: 1e6, gzip: true })).rejects.toBeInstanceOf(OtlpDecodeError);
    await expect(readBody(chunked(Buffer.from('not gzip at all')), { limitBytes: 1e6, gzip: true })).rejects.toBeInstanceOf(OtlpDecodeError);
  });
});
