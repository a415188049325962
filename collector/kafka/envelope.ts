import { z } from 'zod';
import {
  COMPONENT_TYPES,
  CONVENTIONS,
  SPAN_TYPES,
  type SpanRecord,
  type TraceHeader,
  type WriteBatch,
} from '../../core/model/span.js';
import { PayloadTooLargeError } from '../../core/errors.js';

/**
 * The Kafka message format of the write path: one message per (project, trace), keyed
 * `${project_id}/${trace_id}` so every span of a trace lands in one partition and keeps its
 * order, valued with a versioned JSON envelope `{v, spans, traces}`.
 */
export const ENVELOPE_VERSION = 1;

/** Typed against the model's interfaces: the compiler rejects any drift between the two. */
const stringMap = z.record(z.string(), z.string());
const spanSchema: z.ZodType<SpanRecord> = z.object({
  project_id: z.string().min(1),
  trace_id: z.string().min(1),
  span_id: z.string().min(1),
  parent_span_id: z.string().nullable(),
  name: z.string(),
  span_type: z.enum(SPAN_TYPES),
  component_type: z.enum(COMPONENT_TYPES).nullable(),
  convention: z.enum(CONVENTIONS),
  kind: z.string(),
  status: z.enum(['ok', 'error']),
  status_message: z.string(),
  start_time: z.number(),
  end_time: z.number(),
  duration_ms: z.number(),
  model: z.string().nullable(),
  input: z.string(),
  output: z.string(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  attributes: stringMap,
  resource_attributes: stringMap,
  scope_name: z.string(),
  scope_version: z.string(),
  events: z.string(),
});
const traceHeaderSchema: z.ZodType<TraceHeader> = z.object({
  project_id: z.string().min(1),
  trace_id: z.string().min(1),
  name: z.string(),
  status: z.enum(['ok', 'error']),
  start_time: z.number(),
  duration_ms: z.number(),
  attributes: stringMap,
});
const envelopeSchema = z.object({
  v: z.literal(ENVELOPE_VERSION),
  spans: z.array(spanSchema),
  traces: z.array(traceHeaderSchema),
});

/** One encoded Kafka message: its key, JSON value, and what it carries. */
export interface TraceMessage {
  key: string;
  value: string;
  /** UTF-8 size of `value`, what the broker's message size limit is checked against (before compression). */
  bytes: number;
  spans: number;
}

/** The partition key: a trace never spans partitions, so its spans arrive in order. */
export function traceKey(projectId: string, traceId: string): string {
  return `${projectId}/${traceId}`;
}

interface TraceGroup {
  spans: string[];
  traces: string[];
}

// `{"v":1,"spans":[],"traces":[]}` plus a margin for the version digits.
const ENVELOPE_OVERHEAD = 40;

/**
 * Splits a batch into one message per (project_id, trace_id). A trace larger than
 * `maxMessageBytes` becomes several messages with the same key, so it still stays in one
 * partition; a single span above the limit can never be produced and is refused with 413.
 */
export function encodeTraceMessages(batch: WriteBatch, maxMessageBytes: number): TraceMessage[] {
  const groups = new Map<string, TraceGroup>();
  const groupOf = (projectId: string, traceId: string): TraceGroup => {
    const key = traceKey(projectId, traceId);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { spans: [], traces: [] }));
    return group;
  };
  for (const t of batch.traces) groupOf(t.project_id, t.trace_id).traces.push(JSON.stringify(t));
  for (const s of batch.spans) groupOf(s.project_id, s.trace_id).spans.push(JSON.stringify(s));

  const messages: TraceMessage[] = [];
  for (const [key, group] of groups) {
    // Trace headers are small and ride in the first message of their trace.
    let traces = group.traces;
    let spans: string[] = [];
    let bytes = ENVELOPE_OVERHEAD + traces.reduce((n, t) => n + Buffer.byteLength(t) + 1, 0);
    const emit = (): void => {
      const value = `{"v":${ENVELOPE_VERSION},"spans":[${spans.join(',')}],"traces":[${traces.join(',')}]}`;
      messages.push({ key, value, bytes: Buffer.byteLength(value), spans: spans.length });
      traces = [];
      spans = [];
      bytes = ENVELOPE_OVERHEAD;
    };
    for (const span of group.spans) {
      const size = Buffer.byteLength(span) + 1;
      if (ENVELOPE_OVERHEAD + size > maxMessageBytes) throw new PayloadTooLargeError(maxMessageBytes);
      if (bytes + size > maxMessageBytes && (spans.length > 0 || traces.length > 0)) emit();
      spans.push(span);
      bytes += size;
    }
    if (spans.length > 0 || traces.length > 0) emit();
  }
  return messages;
}

/** Why a message can never be written: it goes to the dead-letter topic with this reason. */
export class EnvelopeError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'EnvelopeError';
  }
}

/** Parses and validates one message value; throws EnvelopeError when it is not a valid envelope. */
export function decodeEnvelope(value: Buffer | null): WriteBatch {
  if (!value || value.length === 0) throw new EnvelopeError('empty message value');
  let json: unknown;
  try {
    json = JSON.parse(value.toString('utf8'));
  } catch (err) {
    throw new EnvelopeError(`undecodable JSON: ${(err as Error).message}`);
  }
  const version = (json as { v?: unknown } | null)?.v;
  if (version !== ENVELOPE_VERSION) {
    throw new EnvelopeError(`unsupported envelope version: ${JSON.stringify(version) ?? 'missing'}`);
  }
  const parsed = envelopeSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
      .join('; ');
    throw new EnvelopeError(`schema-invalid envelope: ${issues}`);
  }
  return { spans: parsed.data.spans, traces: parsed.data.traces };
}
