import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { AppError, PayloadTooLargeError } from '../../core/errors.js';
import { OtlpDecodeError } from './errors.js';

/** The client went away or the body ended early; nobody is left to answer. */
export class BodyAbortedError extends AppError {
  constructor(cause?: unknown) {
    super(400, 'BODY_ABORTED', 'The request body was not received completely', undefined, { cause });
  }
}

export interface ReadBodyOptions {
  /** Maximum bytes, enforced on the wire bytes and again on the gunzipped bytes. */
  limitBytes: number;
  /** `Content-Encoding: gzip` was sent. */
  gzip: boolean;
  /** The declared Content-Length, checked before reading anything. */
  declaredLength?: number;
}

/**
 * Reads a request body into memory without a body parser, stopping at `limitBytes` both before
 * and after decompression: output is counted chunk by chunk as zlib produces it and the
 * inflater is destroyed at the limit, so a gzip bomb costs at most the limit in memory.
 * Rejects with PayloadTooLargeError (413), OtlpDecodeError for broken gzip (400), or
 * BodyAbortedError. On rejection the rest of the body is drained (discarded) so that the
 * response can still be delivered on the same connection.
 */
export function readBody(req: Readable, options: ReadBodyOptions): Promise<Buffer> {
  const { limitBytes, gzip } = options;
  if (options.declaredLength !== undefined && options.declaredLength > limitBytes) {
    req.resume();
    return Promise.reject(new PayloadTooLargeError(limitBytes));
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let wireBytes = 0;
    let bodyBytes = 0;
    let settled = false;
    const inflater = gzip ? zlib.createGunzip() : undefined;

    const settle = (err: Error | undefined) => {
      if (settled) return;
      settled = true;
      req.off('end', onEnd);
      if (inflater) {
        inflater.removeAllListeners('data');
        inflater.on('error', () => {});
        if (err) inflater.destroy();
      }
      if (err) {
        chunks.length = 0;
        reject(err);
      } else {
        resolve(Buffer.concat(chunks, bodyBytes));
      }
    };
    const collect = (chunk: Buffer) => {
      if (settled) return;
      bodyBytes += chunk.length;
      if (bodyBytes > limitBytes) return settle(new PayloadTooLargeError(limitBytes));
      chunks.push(chunk);
    };
    const onData = (chunk: Buffer) => {
      // After settling, keep reading and discarding so the socket stays usable.
      if (settled) return;
      wireBytes += chunk.length;
      if (wireBytes > limitBytes) return settle(new PayloadTooLargeError(limitBytes));
      if (inflater) inflater.write(chunk);
      else collect(chunk);
    };
    const onEnd = () => {
      if (inflater) inflater.end();
      else settle(undefined);
    };

    if (inflater) {
      inflater.on('data', collect);
      inflater.on('end', () => settle(undefined));
      inflater.on('error', (err) => settle(new OtlpDecodeError(`invalid gzip body: ${err.message}`, '', { cause: err })));
    }
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', (err) => settle(new BodyAbortedError(err)));
    req.on('aborted', () => settle(new BodyAbortedError()));
    req.on('close', () => {
      if (!req.readableEnded) settle(new BodyAbortedError());
    });
  });
}
