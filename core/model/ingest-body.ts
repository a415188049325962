import { z } from 'zod';
import type { AttrValue } from './raw-span.js';
import { isAcceptedTime, MAX_DURATION_MS, MAX_ID_LENGTH } from './limits.js';

/** The SPEC's span kinds: the four stored types and the SDK's component kinds. */
export const SPAN_KINDS = ['span', 'generation', 'tool', 'retrieval', 'reasoning', 'planning', 'routing', 'memory', 'prompt'] as const;

/** Most spans one request may carry (the SPEC leaves it open; see docs/api.md). */
export const MAX_SPANS_PER_REQUEST = 10_000;

const TIME_RANGE = 'must be between 1970-01-02 and 2200-01-01';

/** ISO 8601 text or epoch milliseconds, to epoch milliseconds, within the accepted range. */
export const Timestamp = z.union([
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/, 'must be an ISO 8601 timestamp')
    .transform((v, ctx) => {
      const ms = Date.parse(v);
      if (Number.isNaN(ms)) ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 timestamp' });
      else if (!isAcceptedTime(ms)) ctx.addIssue({ code: 'custom', message: TIME_RANGE });
      return ms;
    }),
  z.number().int().refine(isAcceptedTime, TIME_RANGE),
]);

/**
 * Attribute values are whatever JSON holds. The body comes from JSON.parse, so every value is
 * already JSON: checking it again value by value (z.json()) would cost more than the insert.
 */
const JsonValue = z.custom<AttrValue>((v) => v !== undefined, 'must be a JSON value');
const AttributeMap = z.record(z.string(), JsonValue);
/** An id: it keys rows, so it must be well-formed text (a lone surrogate would be stored as U+FFFD and collide). */
export const Id = z
  .string()
  .min(1)
  .max(MAX_ID_LENGTH)
  .refine((v) => v.isWellFormed(), 'must be well-formed Unicode (no unpaired surrogates)');

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
  input_tokens: z.number().int().nonnegative().optional(),
  output_tokens: z.number().int().nonnegative().optional(),
});
export type SpanInput = z.infer<typeof SpanInputSchema>;

/** POST /api/traces/ingest. */
export const IngestTraceSchema = z.object({
  trace_id: Id,
  name: z.string().min(1).max(1024),
  status: z.enum(['ok', 'error']),
  duration_ms: z.number().nonnegative().max(MAX_DURATION_MS, `must be at most ${MAX_DURATION_MS} (ten years)`),
  start_time: Timestamp.optional(),
  attributes: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}),
  spans: z.array(SpanInputSchema).max(MAX_SPANS_PER_REQUEST).default([]),
});
export type IngestTrace = z.infer<typeof IngestTraceSchema>;

/** POST /api/spans with several spans of one trace. */
export const ManySpansSchema = z.object({ trace_id: Id, spans: z.array(SpanInputSchema).min(1).max(MAX_SPANS_PER_REQUEST) });
/** POST /api/spans with one span and its trace_id. */
export const OneSpanSchema = SpanInputSchema.extend({ trace_id: Id });
