import { idProblem } from './id-rules.js';
import { setDataKey } from './data-key.js';
import { acceptedTimestamp, MAX_SPANS_PER_REQUEST, SPAN_KINDS, type IngestTrace, type SpanInput } from './ingest-body.js';
import { MAX_DURATION_MS, MAX_ID_LENGTH, MAX_TOKENS_PER_SPAN } from './limits.js';

/**
 * The JSON write bodies checked by hand, for the bodies that are well formed (issue 33: zod was
 * ~9% of the main thread's CPU on small ingest requests). Each function gives exactly what the
 * zod schema of core/model/ingest-body.ts parses the body to, or undefined when anything is off
 * or unusual; then the schema parses it and names every problem (the SPEC's 422). So the schemas
 * stay the one definition of what is accepted and of every message; this only answers "yes,
 * and here is the value" sooner. test/unit/validation/ingest-body-check.test.ts holds the two to
 * the same answers over arbitrary bodies (fast-check).
 */

type Obj = Record<string, unknown>;

const KINDS: ReadonlySet<unknown> = new Set(SPAN_KINDS);
const STATUSES: ReadonlySet<unknown> = new Set(['ok', 'error']);
const SPAN_KEYS: ReadonlySet<string> = new Set([
  'span_id',
  'parent_span_id',
  'name',
  'type',
  'start_time',
  'end_time',
  'status',
  'status_message',
  'attributes',
  'model',
  'input',
  'output',
  'input_tokens',
  'output_tokens',
]);

/** A JSON object (not an array, not null). */
const isMap = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
/** A body or span object with no `__proto__` key of its own (zod copies such a key its own way: let it). */
const isObject = (v: unknown): v is Obj => isMap(v) && !Object.hasOwn(v, '__proto__');

const isId = (v: unknown): v is string => typeof v === 'string' && v.length >= 1 && v.length <= MAX_ID_LENGTH && idProblem(v) === null;
const isName = (v: unknown): v is string => typeof v === 'string' && v.length >= 1 && v.length <= 1024;
const isTokens = (v: unknown) => v === undefined || (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_TOKENS_PER_SPAN);
const isOptionalString = (v: unknown) => v === undefined || typeof v === 'string';

/**
 * Attributes as the schemas copy them: a new object with the same entries, `{}` when absent;
 * undefined when not an object. A `__proto__` key stays a key, as the schemas' attribute maps keep it.
 */
function copyAttributes(v: unknown, valueOk: (value: unknown) => boolean): Obj | undefined {
  if (v === undefined) return {};
  if (!isMap(v)) return undefined;
  const out: Obj = {};
  for (const key in v) {
    const value = v[key];
    if (!valueOk(value)) return undefined;
    setDataKey(out, key, value);
  }
  return out;
}

const isJsonValue = (v: unknown) => v !== undefined;
const isTraceAttribute = (v: unknown) => typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

/** One span of a body as SpanInputSchema parses it (keys it does not know left out, as zod strips them). */
function checkedSpan(v: unknown): SpanInput | undefined {
  if (!isObject(v)) return undefined;
  const start = acceptedTimestamp(v.start_time);
  if (start === undefined) return undefined;
  const end = v.end_time === undefined ? undefined : acceptedTimestamp(v.end_time);
  if (v.end_time !== undefined && end === undefined) return undefined;
  if (!isId(v.span_id) || !isName(v.name) || !KINDS.has(v.type)) return undefined;
  if (v.parent_span_id !== undefined && v.parent_span_id !== null && !isId(v.parent_span_id)) return undefined;
  if ((v.status !== undefined && !STATUSES.has(v.status)) || !isOptionalString(v.status_message) || !isOptionalString(v.model)) return undefined;
  if (!isTokens(v.input_tokens) || !isTokens(v.output_tokens)) return undefined;
  const attributes = copyAttributes(v.attributes, isJsonValue);
  if (!attributes) return undefined;
  const span: Obj = {};
  // The schema's key order: what it parses is built key by key in the order of its shape.
  for (const key of SPAN_KEYS) {
    if (key === 'attributes') span.attributes = attributes;
    else if (key === 'start_time') span.start_time = start;
    else if (key === 'end_time') {
      if (end !== undefined) span.end_time = end;
    } else if (Object.hasOwn(v, key)) span[key] = v[key];
  }
  return span as unknown as SpanInput;
}

function checkedSpans(v: unknown, min: number): SpanInput[] | undefined {
  if (v === undefined && min === 0) return [];
  if (!Array.isArray(v) || v.length < min || v.length > MAX_SPANS_PER_REQUEST) return undefined;
  const spans: SpanInput[] = [];
  for (const item of v) {
    const span = checkedSpan(item);
    if (!span) return undefined;
    spans.push(span);
  }
  return spans;
}

/** POST /api/traces/ingest's body as IngestTraceSchema parses it, or undefined (then the schema speaks). */
export function checkedIngestTrace(body: unknown): IngestTrace | undefined {
  if (!isObject(body)) return undefined;
  if (!isId(body.trace_id) || !isName(body.name) || !STATUSES.has(body.status)) return undefined;
  const duration = body.duration_ms;
  if (typeof duration !== 'number' || !(duration >= 0 && duration <= MAX_DURATION_MS)) return undefined;
  const start = body.start_time === undefined ? undefined : acceptedTimestamp(body.start_time);
  if (body.start_time !== undefined && start === undefined) return undefined;
  const attributes = copyAttributes(body.attributes, isTraceAttribute);
  const spans = checkedSpans(body.spans, 0);
  if (!attributes || !spans) return undefined;
  return {
    trace_id: body.trace_id,
    name: body.name,
    status: body.status as IngestTrace['status'],
    duration_ms: duration,
    ...(start === undefined ? {} : { start_time: start }),
    attributes: attributes as IngestTrace['attributes'],
    spans,
  };
}

/** POST /api/spans with several spans, as ManySpansSchema parses it, or undefined. */
export function checkedManySpans(body: unknown): { trace_id: string; spans: SpanInput[] } | undefined {
  if (!isObject(body)) return undefined;
  const spans = checkedSpans(body.spans, 1);
  return isId(body.trace_id) && spans ? { trace_id: body.trace_id, spans } : undefined;
}

/** POST /api/spans with one span, as OneSpanSchema parses it, or undefined. */
export function checkedOneSpan(body: unknown): (SpanInput & { trace_id: string }) | undefined {
  const span = isObject(body) && isId(body.trace_id) ? checkedSpan(body) : undefined;
  return span ? { ...span, trace_id: (body as Obj).trace_id as string } : undefined;
}
