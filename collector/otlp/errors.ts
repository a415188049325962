import { AppError } from '../../core/errors.js';

/**
 * The payload cannot be decoded as an OTLP ExportTraceServiceRequest (bad protobuf, bad JSON,
 * bad gzip, a field of the wrong type). OTLP/HTTP answers 400 and OTLP/gRPC INVALID_ARGUMENT;
 * clients must not retry it (OTLP spec, "Failures": non-retryable).
 */
export class OtlpDecodeError extends AppError {
  constructor(
    /** What is wrong, without the location. */
    readonly reason: string,
    /** Where in the request, e.g. `resourceSpans[0].scopeSpans[1].spans[2].traceId`. */
    readonly path = '',
    options?: { cause?: unknown },
  ) {
    super(400, 'OTLP_DECODE_ERROR', path ? `${path}: ${reason}` : reason, undefined, options);
  }

  /** The same error one level further out: `spans[2]` + `traceId` -> `spans[2].traceId`. */
  within(prefix: string): OtlpDecodeError {
    const path = !this.path ? prefix : this.path.startsWith('[') ? prefix + this.path : `${prefix}.${this.path}`;
    return new OtlpDecodeError(this.reason, path, { cause: this.cause });
  }
}

/** Runs `fn`, prefixing the path of any decode error it throws with `prefix`. */
export function within<T>(prefix: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw err instanceof OtlpDecodeError ? err.within(prefix) : err;
  }
}
