import protobuf from 'protobufjs';
import type { Attributes, AttrValue, RawSpan, RawSpanEvent, RawSpanStatus } from '../../core/model/raw-span.js';
import { OtlpDecodeError } from './errors.js';
import { setDataKey } from '../../core/model/data-key.js';
import { MAX_DEPTH } from './any-value.js';
import { idLengthProblem, nanosToMs, SPAN_ID_BYTES, toDouble, toInt64, TRACE_ID_BYTES } from './scalars.js';

/**
 * OTLP/protobuf ExportTraceServiceRequest -> RawSpan[] in one pass over the wire format, with
 * protobufjs' Reader (field numbers from opentelemetry/proto trace.proto and common.proto).
 * Only what a RawSpan holds is read; everything else (trace_state, flags, links, dropped
 * counts, schema URLs, fields added by later OTLP versions) is skipped by wire type, as any
 * protobuf decoder skips unknown fields. Decoding the whole message with protobufjs first built
 * a message object per span, attribute and value, only to walk and drop them: 12 µs per 2 KB
 * agent span (docs/benchmarks.md). The result is the same as the message walk of decode.ts,
 * which OTLP/JSON takes; test/unit/otlp/decode-protobuf.test.ts holds the two to each other.
 *
 * Strings are read without UTF-8 validation. proto3 requires UTF-8, but OTel JS SDKs encode a JS
 * string's lone surrogate (a truncated emoji in an LLM answer) as invalid UTF-8: refusing would
 * lose the whole export for one character. Such bytes decode to U+FFFD.
 */

const SPAN_KINDS = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'] as const;

type Reader = protobuf.Reader;

/** Where the decoder is, for an error's path: `resourceSpans[0].scopeSpans[1].spans[2]`. */
class Position {
  rs = -1;
  ss = -1;
  span = -1;
  toString(): string {
    let p = `resourceSpans[${this.rs}]`;
    if (this.ss >= 0) p += `.scopeSpans[${this.ss}]`;
    if (this.span >= 0) p += `.spans[${this.span}]`;
    return p;
  }
}

/** A length-delimited field's end offset. */
function end(r: Reader): number {
  const length = r.uint32();
  const to = r.pos + length;
  if (to > r.len) throw new RangeError(`index out of range: ${r.pos} + ${length} > ${r.len}`);
  return to;
}

/** A bytes field as text: ids as hex, AnyValue bytes as base64. */
function bytesAs(r: Reader, encoding: 'hex' | 'base64'): string {
  const to = end(r);
  const text = (r.buf as Buffer).toString(encoding, r.pos, to);
  r.pos = to;
  return text;
}

/**
 * One AnyValue. Its value is a oneof; should a sender set several of its fields anyway, the one
 * of the lowest field number wins (string, bool, int, double, array, kvlist, bytes), as in the
 * message walk, and a repeated field's last occurrence.
 */
function anyValue(r: Reader, to: number, depth: number): AttrValue {
  if (depth > MAX_DEPTH) throw new OtlpDecodeError(`AnyValue is nested deeper than ${MAX_DEPTH} levels`);
  let value: AttrValue = null;
  let chosen = 8;
  while (r.pos < to) {
    const tag = r.uint32();
    const field = tag >>> 3;
    if (field > chosen || field < 1 || field > 7) {
      r.skipType(tag & 7);
      continue;
    }
    chosen = field;
    switch (field) {
      case 1:
        value = r.string();
        break;
      case 2:
        value = r.bool();
        break;
      case 3:
        value = toInt64(r.int64(), 'intValue');
        break;
      case 4:
        value = toDouble(r.double(), 'doubleValue');
        break;
      case 5: {
        const list: AttrValue[] = [];
        const listEnd = end(r);
        while (r.pos < listEnd) {
          const t = r.uint32();
          if (t >>> 3 === 1) list.push(anyValue(r, end(r), depth + 1));
          else r.skipType(t & 7);
        }
        value = list;
        break;
      }
      case 6:
        value = keyValues(r, end(r), depth + 1);
        break;
      case 7:
        value = bytesAs(r, 'base64');
        break;
    }
  }
  return value;
}

/** The KeyValues of field 1 up to `to` (a KeyValueList's values, a Resource's attributes), as an object. */
function keyValues(r: Reader, to: number, depth: number, out: Attributes = {}): Attributes {
  while (r.pos < to) {
    const tag = r.uint32();
    if (tag >>> 3 === 1) keyValue(r, end(r), depth, out);
    else r.skipType(tag & 7);
  }
  return out;
}

/** One KeyValue into `out`; the last of a repeated key wins. */
function keyValue(r: Reader, to: number, depth: number, out: Attributes): void {
  let key = '';
  let value: AttrValue = null;
  while (r.pos < to) {
    const tag = r.uint32();
    switch (tag >>> 3) {
      case 1:
        key = r.string();
        break;
      case 2:
        value = anyValue(r, end(r), depth);
        break;
      default:
        r.skipType(tag & 7);
    }
  }
  setDataKey(out, key, value);
}

function status(r: Reader, to: number): RawSpanStatus {
  let code = 0;
  let message = '';
  while (r.pos < to) {
    const tag = r.uint32();
    if (tag >>> 3 === 2) message = r.string();
    else if (tag >>> 3 === 3) code = r.int32();
    else r.skipType(tag & 7);
  }
  const s: RawSpanStatus = { code: code === 1 ? 'ok' : code === 2 ? 'error' : 'unset' };
  if (message) s.message = message;
  return s;
}

function event(r: Reader, to: number): RawSpanEvent {
  let name = '';
  let time: unknown = 0;
  const attributes: Attributes = {};
  while (r.pos < to) {
    const tag = r.uint32();
    switch (tag >>> 3) {
      case 1:
        time = r.fixed64();
        break;
      case 2:
        name = r.string();
        break;
      case 3:
        keyValue(r, end(r), 0, attributes);
        break;
      default:
        r.skipType(tag & 7);
    }
  }
  return { name, timeMs: nanosToMs(time, 'timeUnixNano'), attributes };
}

function span(r: Reader, to: number, resource: Attributes, scope: RawSpan['scope']): RawSpan {
  const s: RawSpan = {
    traceId: '',
    spanId: '',
    parentSpanId: null,
    name: '',
    startTimeMs: 0,
    endTimeMs: 0,
    attributes: {},
    events: [],
    status: { code: 'unset' },
    resource,
    scope,
  };
  let kind = 0;
  while (r.pos < to) {
    const tag = r.uint32();
    switch (tag >>> 3) {
      case 1:
        s.traceId = bytesAs(r, 'hex');
        break;
      case 2:
        s.spanId = bytesAs(r, 'hex');
        break;
      case 4: {
        // A root span has an empty parent_span_id (trace.proto).
        const parent = bytesAs(r, 'hex');
        s.parentSpanId = parent === '' ? null : parent;
        break;
      }
      case 5:
        s.name = r.string();
        break;
      case 6:
        kind = r.int32();
        break;
      case 7:
        s.startTimeMs = nanosToMs(r.fixed64(), 'startTimeUnixNano');
        break;
      case 8:
        s.endTimeMs = nanosToMs(r.fixed64(), 'endTimeUnixNano');
        break;
      case 9:
        keyValue(r, end(r), 0, s.attributes);
        break;
      case 11:
        s.events.push(event(r, end(r)));
        break;
      case 15:
        s.status = status(r, end(r));
        break;
      default:
        r.skipType(tag & 7);
    }
  }
  // Kind 0 is SPAN_KIND_UNSPECIFIED: the API has no such kind, so it decodes to "not given".
  if (kind > 0 && kind < SPAN_KINDS.length) s.kind = SPAN_KINDS[kind];
  // An id of the wrong size refuses this span only, as in the message walk of OTLP/JSON (decode.ts).
  const problem =
    idLengthProblem(s.traceId, 'traceId', TRACE_ID_BYTES) ??
    idLengthProblem(s.spanId, 'spanId', SPAN_ID_BYTES) ??
    (s.parentSpanId === null ? undefined : idLengthProblem(s.parentSpanId, 'parentSpanId', SPAN_ID_BYTES));
  if (problem) s.decodeProblem = problem;
  return s;
}

function scope(r: Reader, to: number): RawSpan['scope'] {
  const sc = { name: '', version: '' };
  while (r.pos < to) {
    const tag = r.uint32();
    if (tag >>> 3 === 1) sc.name = r.string();
    else if (tag >>> 3 === 2) sc.version = r.string();
    else r.skipType(tag & 7);
  }
  return sc;
}

/**
 * The spans of one ScopeSpans. Its scope may follow its spans on the wire (fields may come in
 * any order), so the spans are read where they are and given the scope at the end.
 */
function scopeSpans(r: Reader, to: number, res: Attributes, at: Position, out: RawSpan[]): void {
  let sc: RawSpan['scope'] = { name: '', version: '' };
  const first = out.length;
  at.span = -1;
  while (r.pos < to) {
    const tag = r.uint32();
    if (tag >>> 3 === 2) {
      at.span++;
      out.push(span(r, end(r), res, sc));
    } else if (tag >>> 3 === 1) {
      sc = scope(r, end(r));
      for (let i = first; i < out.length; i++) out[i].scope = sc;
    } else r.skipType(tag & 7);
  }
  at.span = -1;
}

/**
 * A ResourceSpans. Its resource may follow its scope spans on the wire, so the spans read before
 * it get it afterwards.
 */
function resourceSpans(r: Reader, to: number, at: Position, out: RawSpan[]): void {
  let res: Attributes = {};
  const first = out.length;
  at.ss = -1;
  while (r.pos < to) {
    const tag = r.uint32();
    if (tag >>> 3 === 2) {
      at.ss++;
      scopeSpans(r, end(r), res, at, out);
    } else if (tag >>> 3 === 1) {
      // An error in the resource names the ResourceSpans, not the last ScopeSpans read.
      const ss = at.ss;
      at.ss = -1;
      res = keyValues(r, end(r), 0);
      at.ss = ss;
      for (let i = first; i < out.length; i++) out[i].resource = res;
    } else r.skipType(tag & 7);
  }
  at.ss = -1;
}

/** Binary protobuf ExportTraceServiceRequest (OTLP/gRPC, OTLP/HTTP `application/x-protobuf`) -> spans. */
export function decodeProtobufRequest(body: Uint8Array): RawSpan[] {
  const buffer = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const r = protobuf.Reader.create(buffer);
  const out: RawSpan[] = [];
  const at = new Position();
  try {
    while (r.pos < r.len) {
      const tag = r.uint32();
      if (tag >>> 3 === 1) {
        at.rs++;
        resourceSpans(r, end(r), at, out);
      } else r.skipType(tag & 7);
    }
  } catch (err) {
    if (err instanceof OtlpDecodeError) throw err.within(String(at));
    throw new OtlpDecodeError(`invalid protobuf ExportTraceServiceRequest: ${(err as Error).message}`, '', { cause: err });
  }
  return out;
}
