import { BackpressureError } from '../core/errors.js';

/**
 * The write path's one admission mechanism: a budget of bytes accepted but not yet durable,
 * shared by the batcher and the Kafka sink. Beyond it writes get 429 + Retry-After, which OTel
 * exporters retry; while shutting down, 503.
 */
export interface ByteBudget {
  /** Throws when the budget is already spent or the sink is closing; cheap, call before reading a body. */
  admit(): void;
  /** Reserves `bytes` for one write, or throws; the returned function gives them back once. */
  take(bytes: number): () => void;
  /** Refuse everything from now on. */
  close(): void;
  readonly used: number;
}

export function createByteBudget(maxBytes: number, retryAfterSeconds = { full: 1, closing: 5 }): ByteBudget {
  let used = 0;
  let closing = false;
  const full = () => new BackpressureError(retryAfterSeconds.full, 429, 'Ingestion buffer is full, retry later');
  const closed = () => new BackpressureError(retryAfterSeconds.closing, 503, 'Server is shutting down, retry later');
  return {
    admit() {
      if (closing) throw closed();
      if (used >= maxBytes) throw full();
    },
    take(bytes) {
      if (closing) throw closed();
      // One write larger than the whole budget is still taken when nothing else is pending,
      // otherwise it could never be written; the request body limit caps its size.
      if (used > 0 && used + bytes > maxBytes) throw full();
      used += bytes;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        used -= bytes;
      };
    },
    close() {
      closing = true;
    },
    get used() {
      return used;
    },
  };
}

/** The budget a batch of encoded rows takes: its UTF-16 length, close to its UTF-8 size for the mostly-ASCII text of spans. */
export function rowBytes(lines: readonly string[]): number {
  let n = 0;
  for (const line of lines) n += line.length + 1;
  return n;
}
