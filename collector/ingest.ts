import type { RawSpan } from '../core/model/raw-span.js';
import type { RowBatch, SpanRecord, TraceHeader } from '../core/model/span.js';
import { isAcceptedTime, MAX_ID_LENGTH, MAX_TIME_MS, reportedTokensProblem, retentionProblem } from '../core/model/limits.js';
import { hasControlCharacter, NO_CONTROL_CHARACTERS } from '../core/model/ids.js';
import { spanRowCodec as codec } from '../core/store/clickhouse/row-codec.js';
import { toError, ValidationError } from '../core/errors.js';
import type { PriceTable } from '../core/cost/price-table.js';
import { priceSpan } from '../core/cost/span-cost.js';
import type { SpanSink } from './sink.js';
import { normalizeSpan } from './normalize/index.js';
import { truncateSpan } from './truncate.js';

export interface RejectedSpan {
  /** Position of the span in the request, for messages like `spans[2]`. */
  index: number;
  spanId: string;
  reason: string;
}

/**
 * The outcome of one ingest call, a tagged union as in OpenTelemetry JS's ExportResult:
 * everything stored (`ok`), or stored except the listed invalid spans (`partial`).
 * Backpressure and store failures are thrown (BackpressureError / ServiceUnavailableError),
 * since a receiver answers them with a retryable status and nothing was stored.
 */
export type IngestOutcome = { kind: 'ok'; accepted: number } | { kind: 'partial'; accepted: number; rejected: RejectedSpan[] };

/** Trace headers come without project; ingest stamps the caller's project on everything. */
export type TraceHeaderInput = Omit<TraceHeader, 'project_id'>;

export interface IngestOptions {
  /**
   * Refuse the whole request (422 naming each span) when any span cannot be stored, instead of
   * storing the rest: the JSON API's contract. OTLP stores the rest (partial_success).
   */
  atomic?: boolean;
}

export interface Ingest {
  (projectId: string, spans: RawSpan[], traces?: TraceHeaderInput[], options?: IngestOptions): Promise<IngestOutcome>;
  /** Throws a BackpressureError when the write path is full; call before reading a request body. */
  admit(): void;
}

export interface IngestLimits {
  /** Largest encoded span row (MAX_SPAN_BYTES): the same in every write path, so both accept the same spans. */
  maxSpanBytes: number;
  /** Prices generation spans (docs/costs.md); unpriced without it. */
  prices?: PriceTable;
  /** RETENTION_DAYS: spans that start before now minus this many days are refused (the tables' TTL would drop them). */
  retentionDays?: number;
}

const ALL_ZEROES = /^0+$/;

/**
 * Why a decoded span cannot be stored, or null when it can. `limits.retentionDays` and `now`
 * (the request's time) refuse spans older than the retention.
 */
function invalidSpanReason(span: RawSpan, limits: Pick<IngestLimits, 'retentionDays'> = {}, now = Date.now()): string | null {
  // A decoder's own finding (an OTLP id of the wrong size) comes first: the ids below may be its stand-ins.
  if (span.decodeProblem) return span.decodeProblem;
  if (!span.traceId) return 'trace_id is empty';
  if (!span.spanId) return 'span_id is empty';
  if (span.traceId.length > MAX_ID_LENGTH || span.spanId.length > MAX_ID_LENGTH) return `ids must be at most ${MAX_ID_LENGTH} characters`;
  if (ALL_ZEROES.test(span.traceId)) return 'trace_id is all zeroes';
  if (ALL_ZEROES.test(span.spanId)) return 'span_id is all zeroes';
  if (!span.traceId.isWellFormed() || !span.spanId.isWellFormed()) return 'ids must be well-formed Unicode';
  // The id rule (core/model/ids.ts): a NUL trace id, once stored, failed every metadata query that carried it.
  if (hasControlCharacter(span.traceId)) return `trace_id ${NO_CONTROL_CHARACTERS}`;
  if (hasControlCharacter(span.spanId)) return `span_id ${NO_CONTROL_CHARACTERS}`;
  if (typeof span.parentSpanId === 'string') {
    if (span.parentSpanId.length > MAX_ID_LENGTH) return `ids must be at most ${MAX_ID_LENGTH} characters`;
    if (!span.parentSpanId.isWellFormed()) return 'ids must be well-formed Unicode';
    if (hasControlCharacter(span.parentSpanId)) return `parent_span_id ${NO_CONTROL_CHARACTERS}`;
  }
  if (!isAcceptedTime(span.startTimeMs)) return 'start time is missing or out of range';
  // An end of 0 (OTLP's unset) or before the start is an instantaneous span (normalizeSpan).
  if (!Number.isFinite(span.endTimeMs) || span.endTimeMs > MAX_TIME_MS) return 'end time is out of range';
  const tooOld = retentionProblem(span.startTimeMs, limits.retentionDays, now);
  if (tooOld) return tooOld;
  // Token counts past MAX_TOKENS_PER_SPAN, negative or fractional, in any convention's attribute.
  return reportedTokensProblem(span.attributes, span.declaredFields);
}

/** UTF-8 size of a row, without scanning it when it is clearly small (UTF-8 needs at most 3 bytes per UTF-16 unit). */
function rowBytesOver(line: string, max: number): number | null {
  if (line.length * 3 <= max) return null;
  const bytes = Buffer.byteLength(line);
  return bytes > max ? bytes : null;
}

const tooLarge = (bytes: number, max: number) => `span is ${bytes} bytes once stored with every text cut; the limit is ${max} (MAX_SPAN_BYTES)`;

/** A request's rows, encoded as the writes the sink takes, and the spans refused. */
interface Encoded {
  writes: RowBatch[];
  rejected: RejectedSpan[];
}

/**
 * The rows of one write being built: span rows and, built beside them, their traces' summary
 * contributions, so a write always carries the summaries of exactly its own spans. A bounded write
 * also keeps its spans and headers, to build the summaries of each half should it be cut in two.
 */
function openWrite() {
  return { spans: [] as string[], stats: codec.summaries(), bytes: 0, records: [] as SpanRecord[], headers: [] as TraceHeader[] };
}

type OpenWrite = ReturnType<typeof openWrite>;

/** Bytes of rows as the sink counts them: each line's UTF-8 size and its line break. */
const linesBytes = (lines: string[]): number => lines.reduce((n, line) => n + Buffer.byteLength(line) + 1, 0);

/**
 * The one ingest path: validate -> normalize -> price -> encode -> sink. Every receiver (OTLP gRPC, OTLP
 * HTTP protobuf and JSON, the JSON ingest body, POST /api/spans) calls the function this returns.
 * Every value is validated and every row encoded before it joins a write shared with other
 * requests, so one client's data can never fail another's.
 *
 * A span over MAX_SPAN_BYTES is stored with its largest texts cut (collector/truncate.ts), not
 * refused. A request is one write, its spans with their summaries, which the store takes whole or
 * not at all; a sink that bounds its writes (Kafka: one message each, `maxWriteBytes`) gets the
 * request as several writes, each with the summaries of its own spans only.
 *
 * Encoding is synchronous and apart from the wait for the sink: the decoded spans are garbage as
 * soon as their rows exist. An async function would keep its arguments alive until it returns,
 * and a request's decoded spans (~2 MB for 500 agent spans) would survive every young-generation
 * collection while the write waits for its insert, each one copying them.
 */
export function createIngest(sink: SpanSink, limits: IngestLimits): Ingest {
  const { prices } = limits;
  const maxWriteBytes = sink.maxWriteBytes;
  // Half of a bounded write for its span rows leaves the rest for their summaries, mostly far smaller.
  const writeSpanBytes = maxWriteBytes === undefined ? Infinity : Math.floor(maxWriteBytes / 2);

  /** The rows of spans `from` to `to` of a bounded write, with their own summaries (and its headers, for the last part). */
  function part(w: OpenWrite, from: number, to: number, withHeaders: boolean): OpenWrite {
    const p = openWrite();
    for (let i = from; i < to; i++) {
      p.spans.push(w.spans[i]);
      p.records.push(w.records[i]);
      p.stats.add(w.records[i]);
      p.bytes += Buffer.byteLength(w.spans[i]) + 1;
    }
    if (withHeaders) for (const h of w.headers) p.stats.addHeader(h);
    if (withHeaders) p.headers.push(...w.headers);
    return p;
  }

  /**
   * A finished write's rows. A bounded write whose summary rows outgrow the room its span rows left
   * them (many traces of a span or two each: a summary row per trace, larger than a short span's
   * row) is cut in halves, each with the summaries of its own spans, until each fits, so the sink
   * never has to send its span rows and their summaries apart. Only a write of one span or none
   * can stay over (that span and its summary next to trace headers as large as spans).
   */
  function finish(w: OpenWrite, out: RowBatch[]): void {
    const stats = w.stats.rows();
    if (maxWriteBytes === undefined || w.spans.length < 2 || w.bytes + linesBytes(stats) <= maxWriteBytes) {
      out.push({ spans: w.spans, stats });
      return;
    }
    const half = Math.ceil(w.spans.length / 2);
    finish(part(w, 0, half, false), out);
    finish(part(w, half, w.spans.length, true), out);
  }

  function encode(projectId: string, rawSpans: RawSpan[], traces: TraceHeaderInput[], options: IngestOptions): Encoded {
    const writes: RowBatch[] = [];
    let write = openWrite();
    const close = () => {
      finish(write, writes);
      write = openWrite();
    };
    const rejected: RejectedSpan[] = [];
    const pricedAt = Date.now();
    for (let index = 0; index < rawSpans.length; index++) {
      const raw = rawSpans[index];
      let reason = invalidSpanReason(raw, limits, pricedAt);
      if (!reason) {
        const span = normalizeSpan(raw, projectId);
        if (prices) priceSpan(span, prices, pricedAt);
        let line: string | undefined = codec.encodeSpan(span);
        const over = rowBytesOver(line, limits.maxSpanBytes);
        if (over !== null) line = truncateSpan(span, limits.maxSpanBytes, codec.encodeSpan)?.line;
        if (line !== undefined) {
          if (writeSpanBytes !== Infinity) {
            const size = Buffer.byteLength(line) + 1;
            if (write.spans.length > 0 && write.bytes + size > writeSpanBytes) close();
            write.bytes += size;
            write.records.push(span);
          }
          write.spans.push(line);
          write.stats.add(span);
          continue;
        }
        reason = tooLarge(over ?? 0, limits.maxSpanBytes);
      }
      rejected.push({ index, spanId: raw.spanId, reason });
    }
    for (const t of traces) {
      const header = { ...t, project_id: projectId };
      if (writeSpanBytes !== Infinity) write.headers.push(header);
      const over = rowBytesOver(write.stats.addHeader(header), limits.maxSpanBytes);
      // Nothing was written yet: refusing here refuses the whole request.
      if (over !== null)
        throw new ValidationError([
          { field: 'attributes', message: `trace header is ${over} bytes once stored; the limit is ${limits.maxSpanBytes} (MAX_SPAN_BYTES)` },
        ]);
    }
    if (options.atomic && rejected.length > 0) {
      throw new ValidationError(rejected.map((r) => ({ field: `spans[${r.index}]`, message: r.reason })));
    }
    close();
    return { writes: writes.filter((w) => w.spans.length > 0 || w.stats.length > 0), rejected };
  }

  async function write({ writes, rejected }: Encoded): Promise<IngestOutcome> {
    await Promise.all(writes.map((w) => sink.write(w)));
    let accepted = 0;
    for (const w of writes) accepted += w.spans.length;
    if (rejected.length === 0) return { kind: 'ok', accepted };
    return { kind: 'partial', accepted, rejected };
  }

  const ingest = function ingest(projectId: string, rawSpans: RawSpan[], traces: TraceHeaderInput[] = [], options: IngestOptions = {}): Promise<IngestOutcome> {
    let encoded: Encoded;
    try {
      encoded = encode(projectId, rawSpans, traces, options);
    } catch (err) {
      return Promise.reject(toError(err));
    }
    return write(encoded);
  } as Ingest;
  ingest.admit = () => sink.admit();
  return ingest;
}
