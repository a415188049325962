/**
 * The convention-agnostic span every ingress decodes into before normalization.
 * OTLP (protobuf and JSON) and the JSON `/api/traces/ingest` body both produce it;
 * `collector/normalize` turns it into a {@link SpanRecord}.
 */

/** An attribute value as OTLP's AnyValue allows it, decoded to plain JS. */
export type AttrValue = string | number | boolean | null | AttrValue[] | { [key: string]: AttrValue };

export type Attributes = Record<string, AttrValue>;

export interface RawSpanEvent {
  name: string;
  timeMs: number;
  attributes: Attributes;
}

/** OTel span status; `unset` is the OTLP default. */
export interface RawSpanStatus {
  code: 'unset' | 'ok' | 'error';
  message?: string;
}

export interface RawSpan {
  traceId: string;
  spanId: string;
  /** null for a root span. */
  parentSpanId: string | null;
  name: string;
  /** OTel span kind in lower case (internal, server, client, producer, consumer), or undefined when not given. */
  kind?: string;
  startTimeMs: number;
  endTimeMs: number;
  attributes: Attributes;
  events: RawSpanEvent[];
  status: RawSpanStatus;
  /** Resource attributes (service.name ...). */
  resource: Attributes;
  scope: { name: string; version: string };
  /** The SPEC's own span `type` / kind, when the JSON ingest body declared one. */
  declaredType?: string;
  /**
   * Fields the JSON body gave at the span's top level (model, input, output, input_tokens,
   * output_tokens). The `spec` convention reads them before attributes; they are not copied
   * into the stored attributes, so a large input is stored once, in the input column.
   */
  declaredFields?: Attributes;
  /**
   * Why the decoder found this span unstorable while the rest of its request is fine (an OTLP id
   * that is not a 16- or 8-byte id): ingest refuses the span alone with this reason.
   */
  decodeProblem?: string;
}
