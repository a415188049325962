import { IngestTraceSchema, ManySpansSchema, OneSpanSchema } from '../core/model/ingest-body.js';
import { checkedIngestTrace, checkedManySpans, checkedOneSpan } from '../core/model/ingest-body-check.js';
import type { z } from 'zod';
import type { RawSpan } from '../core/model/raw-span.js';
import { validate } from '../core/validate.js';
import { toError, ValidationError } from '../core/errors.js';
import { retentionProblem } from '../core/model/limits.js';
import { createIngest, type Ingest, type IngestOutcome } from './ingest.js';
import { decodeIngestBody, spanInputToRaw } from './json/ingest-body.js';
import { decodeJsonRequest } from './otlp/decode.js';
import { decodeProtobufRequest } from './otlp/decode-protobuf.js';
import type { OtlpEncoding } from './otlp/response.js';
import type { SpanSink } from './sink.js';
import { loadPriceTable, type PriceTable } from '../core/cost/price-table.js';

export interface CollectorDeps {
  sink: SpanSink;
  /** MAX_SPAN_BYTES: the largest span row any write path accepts. */
  maxSpanBytes: number;
  /** The price table generation spans are priced from at ingest (docs/costs.md); the shipped one when absent. */
  prices?: PriceTable;
  /** RETENTION_DAYS: data starting longer ago than this is refused, not acknowledged and then dropped by the TTL. */
  retentionDays?: number;
}

/** What POST /api/traces/ingest answers with 201. */
export interface IngestedTrace {
  trace_id: string;
  ingested: true;
  spans_accepted: number;
}

/** What POST /api/spans answers with 201. */
export interface IngestedSpans {
  trace_id: string;
  span_ids: string[];
  ingested: true;
}

/**
 * The collector's one surface (STYLE 3): every way spans come in ends in the same ingest path.
 * The API's JSON routes call `ingestTrace` / `ingestSpans` with the parsed body; the OTLP
 * receivers call `ingestOtlp` with the request bytes. Everyone calls `admit()` before reading a
 * body, so a full write path refuses a request before spending CPU on it.
 */
export interface Collector {
  admit(): void;
  /** An OTLP ExportTraceServiceRequest (protobuf or OTLP/JSON bytes); spans that cannot be stored are left out (partial success). */
  ingestOtlp(projectId: string, body: Uint8Array, encoding: OtlpEncoding): Promise<IngestOutcome | undefined>;
  /** The SPEC's JSON ingest body, validated (422) and stored all or nothing. */
  ingestTrace(projectId: string, body: unknown): Promise<IngestedTrace>;
  /** `{trace_id, spans: [...]}` or one span with its `trace_id`, validated and stored all or nothing. */
  ingestSpans(projectId: string, body: unknown): Promise<IngestedSpans>;
}

const oneSpan = (span: z.output<typeof OneSpanSchema>) => ({ trace_id: span.trace_id, spans: [span] });

export function createCollector(deps: CollectorDeps): Collector {
  const ingest: Ingest = createIngest(deps.sink, {
    maxSpanBytes: deps.maxSpanBytes,
    prices: deps.prices ?? loadPriceTable(),
    retentionDays: deps.retentionDays,
  });
  function storeTrace(projectId: string, body: unknown): Promise<IngestedTrace> {
    // Well-formed bodies are checked by hand; the schema parses the rest and names each problem.
    const trace = checkedIngestTrace(body) ?? validate(IngestTraceSchema, body);
    const now = Date.now();
    const { spans, header } = decodeIngestBody(trace, now);
    // Ingest checks the spans; the header's own start is the body's start_time, or now - duration_ms without spans.
    const tooOld = trace.start_time !== undefined || spans.length === 0 ? retentionProblem(header.start_time, deps.retentionDays, now) : null;
    if (tooOld) throw new ValidationError([{ field: trace.start_time !== undefined ? 'start_time' : 'duration_ms', message: tooOld }]);
    const traceId = trace.trace_id;
    return ingest(projectId, spans, [header], { atomic: true }).then((outcome) => ({ trace_id: traceId, ingested: true, spans_accepted: outcome.accepted }));
  }

  function storeSpans(projectId: string, body: unknown): Promise<IngestedSpans> {
    // The body's shape picks the schema, so errors name the fields of the form the client meant.
    const many = body !== null && typeof body === 'object' && 'spans' in body;
    const { trace_id: traceId, spans } = many
      ? (checkedManySpans(body) ?? validate(ManySpansSchema, body))
      : oneSpan(checkedOneSpan(body) ?? validate(OneSpanSchema, body));
    const spanIds = spans.map((s) => s.span_id);
    return ingest(
      projectId,
      spans.map((s) => spanInputToRaw(traceId, s)),
      [],
      { atomic: true },
    ).then(() => ({ trace_id: traceId, span_ids: spanIds, ingested: true }));
  }

  return {
    admit: () => ingest.admit(),

    async ingestOtlp(projectId, body, encoding) {
      const spans: RawSpan[] = encoding === 'json' ? decodeJsonRequest(body) : decodeProtobufRequest(body);
      return spans.length > 0 ? ingest(projectId, spans) : undefined;
    },

    // Neither is an async function: one would keep its argument, the whole parsed body, alive
    // until the insert is acknowledged (~100 ms under load), so every request's body would survive
    // young-generation collections (issue 33). Only the answer's ids wait for the insert.
    ingestTrace(projectId, body) {
      try {
        return storeTrace(projectId, body);
      } catch (err) {
        return Promise.reject(toError(err));
      }
    },

    ingestSpans(projectId, body) {
      try {
        return storeSpans(projectId, body);
      } catch (err) {
        return Promise.reject(toError(err));
      }
    },
  };
}
