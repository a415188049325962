import { z } from 'zod';
import type { AttrValue } from './raw-span.js';
import { isAcceptedTime, MAX_DURATION_MS, MAX_ID_LENGTH, MAX_TOKENS_PER_SPAN } from './limits.js';
import { idString } from './ids.js';
import { setDataKey } from './data-key.js';

/** The SPEC's span kinds: the four stored types and the SDK's component kinds. */
export const SPAN_KINDS = ['span', 'generation', 'tool', 'retrieval', 'reasoning', 'planning', 'routing', 'memory', 'prompt'] as const;

/** Most spans one request may carry (the SPEC leaves it open; see docs/api.md). */
export const MAX_SPANS_PER_REQUEST = 10_000;

const TIME_RANGE = 'must be between 1970-01-02 and 2200-01-01';

const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * Whether the calendar fields of an ISO 8601 text name a time that exists: the round trip
 * through a Date gives back the same year, month, day, hour, minute and second. Date.parse
 * rolls `2026-02-30` over to 2 March and `T24:00` to the next day; those are refused.
 */
function existsInCalendar(m: RegExpExecArray): boolean {
  const [y, mo, d, h = 0, mi = 0, s = 0] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((v) => (v === undefined ? undefined : Number(v)));
  const date = new Date(0);
  date.setUTCFullYear(y!, mo! - 1, d);
  date.setUTCHours(h, mi, s);
  return (
    date.getUTCFullYear() === y &&
    date.getUTCMonth() === mo! - 1 &&
    date.getUTCDate() === d &&
    date.getUTCHours() === h &&
    date.getUTCMinutes() === mi &&
    date.getUTCSeconds() === s
  );
}

/** Epoch milliseconds of ISO 8601 text, or why the text is not a time we accept. */
function parseIsoTime(v: string): number | string {
  const m = ISO_8601.exec(v);
  if (!m) return 'must be an ISO 8601 timestamp';
  const ms = Date.parse(v);
  if (Number.isNaN(ms)) return 'must be an ISO 8601 timestamp';
  if (!existsInCalendar(m)) return `must be a date and time that exist (${v} does not)`;
  return isAcceptedTime(ms) ? ms : TIME_RANGE;
}

/** A timestamp {@link Timestamp} accepts, as epoch milliseconds; undefined for anything it refuses (it says why). */
export function acceptedTimestamp(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isInteger(v) && isAcceptedTime(v) ? v : undefined;
  if (typeof v !== 'string') return undefined;
  const ms = parseIsoTime(v);
  return typeof ms === 'number' ? ms : undefined;
}

/**
 * ISO 8601 text or epoch milliseconds, to epoch milliseconds, within the accepted range. The one
 * parser of every timestamp the API reads (bodies and query filters). One schema for both forms,
 * so a refusal says why (a union would only say "Invalid input").
 */
export const Timestamp = z.union([z.string(), z.number()]).transform((v, ctx) => {
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 timestamp or whole epoch milliseconds' });
    else if (!isAcceptedTime(v)) ctx.addIssue({ code: 'custom', message: TIME_RANGE });
    return v;
  }
  const ms = parseIsoTime(v);
  if (typeof ms === 'string') {
    ctx.addIssue({ code: 'custom', message: ms });
    return NaN;
  }
  return ms;
});

/**
 * Attribute values are whatever JSON holds. The body comes from JSON.parse, so every value is
 * already JSON: checking it again value by value (z.json()) would cost more than the insert.
 */
const JsonValue = z.custom<AttrValue>((v) => v !== undefined, 'must be a JSON value');

const hasOwnProto = (v: unknown): v is { __proto__: unknown } => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.hasOwn(v, '__proto__');

/** What the preprocess step of {@link attributeRecord} saw: the `__proto__` value of the map zod is about to parse. */
let protoOfMapInParse: { value: unknown } | undefined;

/**
 * A map of attributes: `z.record(z.string(), value)`, except that a `__proto__` key stays a key
 * (zod's record drops it unchecked). OTLP keeps such a key as data (collector/otlp/any-value.ts);
 * the JSON bodies must store it too, byte for byte (issue 25). JSON.parse gives it as an own key.
 * The preprocess step notes the key's value; the record parses the rest; the last step checks the
 * noted value with `value` and defines the key on the parsed map. Zod runs the three in a row,
 * synchronously, with no other attribute map parsed in between (values are not maps); a record
 * that fails skips the last step, and the next preprocess overwrites the note.
 */
function attributeRecord<V extends z.ZodType>(value: V) {
  return z
    .preprocess(
      (v) => {
        protoOfMapInParse = hasOwnProto(v) ? { value: v.__proto__ } : undefined;
        return v;
      },
      z.record(z.string(), value),
    )
    .transform((map, ctx) => {
      const noted = protoOfMapInParse;
      protoOfMapInParse = undefined;
      if (!noted) return map;
      const parsed = value.safeParse(noted.value);
      if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: ['__proto__', ...issue.path] });
      else setDataKey(map, '__proto__', parsed.data);
      return map;
    });
}

const AttributeMap = attributeRecord(JsonValue);
/**
 * An id: it keys rows, so it must be well-formed text (a lone surrogate would be stored as U+FFFD
 * and collide) without control characters (core/model/ids.ts).
 */
export const Id = idString(MAX_ID_LENGTH);

const TokenCount = z.number().int().nonnegative().max(MAX_TOKENS_PER_SPAN, `must be at most ${MAX_TOKENS_PER_SPAN} (a whole number of tokens)`);

export const SpanInputSchema = z.object({
  span_id: Id,
  parent_span_id: Id.nullish(),
  name: z.string().min(1).max(1024),
  type: z.enum(SPAN_KINDS),
  start_time: Timestamp,
  end_time: Timestamp.optional(),
  status: z.enum(['ok', 'error']).optional(),
  status_message: z.string().optional(),
  attributes: AttributeMap.default({}),
  // Conveniences: the SPEC puts these in attributes; top-level values are merged there.
  model: z.string().optional(),
  input: JsonValue.optional(),
  output: JsonValue.optional(),
  input_tokens: TokenCount.optional(),
  output_tokens: TokenCount.optional(),
});
export type SpanInput = z.infer<typeof SpanInputSchema>;

/** POST /api/traces/ingest. */
export const IngestTraceSchema = z.object({
  trace_id: Id,
  name: z.string().min(1).max(1024),
  status: z.enum(['ok', 'error']),
  duration_ms: z.number().nonnegative().max(MAX_DURATION_MS, `must be at most ${MAX_DURATION_MS} (ten years)`),
  start_time: Timestamp.optional(),
  attributes: attributeRecord(z.union([z.string(), z.number(), z.boolean()])).default({}),
  spans: z.array(SpanInputSchema).max(MAX_SPANS_PER_REQUEST).default([]),
});
export type IngestTrace = z.infer<typeof IngestTraceSchema>;

/** POST /api/spans with several spans of one trace. */
export const ManySpansSchema = z.object({ trace_id: Id, spans: z.array(SpanInputSchema).min(1).max(MAX_SPANS_PER_REQUEST) });
/** POST /api/spans with one span and its trace_id. */
export const OneSpanSchema = SpanInputSchema.extend({ trace_id: Id });
