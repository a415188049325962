import { z } from 'zod';
import type { IHeaders, KafkaMessage } from 'kafkajs';
import {
  COMPONENT_TYPES,
  CONVENTIONS,
  SPAN_TYPES,
  type RowBatch,
  type SpanRecord,
  type TraceHeader,
} from '../../core/model/span.js';
import { encodeSpanColumns } from '../../core/store/clickhouse/rows.js';
import { encodeRowBatch } from '../../core/store/clickhouse/trace-stats-rows.js';

/**
 * The Kafka message format of the write path (format 3): a message's value is rows of one table,
 * exactly as the collector encoded them at ingest (core/store/clickhouse/rows.ts: CSV lines of
 * SPAN_COLUMNS for `spans`, JSONEachRow lines for `trace_stats_input`), and its headers name the
 * format, the table and the number of rows. The ingester inserts values as they are, without
 * parsing them in JS. Trace summaries are order-independent states (migrations/clickhouse/002),
 * so messages need no per-trace key: they spread over partitions round-robin.
 *
 * Older formats are still read, so messages produced before an upgrade are not lost:
 * - format 2 (span rows as JSONEachRow lines) is re-encoded row by row;
 * - format 1 (a JSON envelope `{v: 1, spans, traces}` of model objects, one message per trace)
 *   is validated and encoded.
 */
export const ROWS_FORMAT = '3';
const JSON_ROWS_FORMAT = '2';
export const MESSAGE_HEADERS = { format: 'agent-eval-format', table: 'agent-eval-table', rows: 'agent-eval-rows' } as const;
export type RowTable = 'spans' | 'trace_stats_input';

const ENVELOPE_V1 = 1;

/** Format 1, typed against the model's interfaces: the compiler rejects any drift between the two. */
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
  v: z.literal(ENVELOPE_V1),
  spans: z.array(spanSchema),
  traces: z.array(traceHeaderSchema),
});

/** One Kafka message of encoded rows: its value and what it carries. */
export interface RowMessage {
  table: RowTable;
  value: string;
  /** UTF-8 size of `value`, what the broker's message size limit is checked against (before compression). */
  bytes: number;
  rows: number;
}

/** The headers of a format-3 message. */
export function rowHeaders(message: RowMessage): IHeaders {
  return { [MESSAGE_HEADERS.format]: ROWS_FORMAT, [MESSAGE_HEADERS.table]: message.table, [MESSAGE_HEADERS.rows]: String(message.rows) };
}

function pack(table: RowTable, lines: string[], maxMessageBytes: number, out: RowMessage[]): void {
  let value: string[] = [];
  let bytes = 0;
  const emit = () => {
    out.push({ table, value: value.join('\n'), bytes: Math.max(0, bytes - 1), rows: value.length });
    value = [];
    bytes = 0;
  };
  for (const line of lines) {
    const size = Buffer.byteLength(line) + 1;
    if (value.length > 0 && bytes + size > maxMessageBytes) emit();
    value.push(line);
    bytes += size;
  }
  if (value.length > 0) emit();
}

/**
 * Packs a batch's rows into messages of at most `maxMessageBytes`. Every row already passed the
 * span size limit at ingest (MAX_SPAN_BYTES, below the message limit), so every row fits.
 */
export function packRowMessages(rows: RowBatch, maxMessageBytes: number): RowMessage[] {
  const out: RowMessage[] = [];
  pack('spans', rows.spans, maxMessageBytes, out);
  pack('trace_stats_input', rows.stats, maxMessageBytes, out);
  return out;
}

/** Why a message can never be written: it goes to the dead-letter topic with this reason. */
export class EnvelopeError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'EnvelopeError';
  }
}

function header(message: KafkaMessage, name: string): string | undefined {
  const v = message.headers?.[name];
  const first = Array.isArray(v) ? v[0] : v;
  return first === undefined ? undefined : first.toString();
}

/** A consumed message as rows to insert, and how many rows it holds. */
export interface DecodedMessage {
  batch: RowBatch;
  rows: number;
}

/**
 * A consumed message as rows to insert: a format-3 value is one chunk of rows, passed on as is
 * (a malformed row fails its insert and is isolated then); a format-2 value's span rows are
 * re-encoded; a format-1 envelope is validated and encoded. Throws EnvelopeError for anything else.
 */
export function decodeMessage(message: KafkaMessage): DecodedMessage {
  const value = message.value;
  if (!value || value.length === 0) throw new EnvelopeError('empty message value');
  const format = header(message, MESSAGE_HEADERS.format);
  if (format === ROWS_FORMAT || format === JSON_ROWS_FORMAT) {
    const table = header(message, MESSAGE_HEADERS.table);
    const chunk = value.toString('utf8');
    if (table === 'trace_stats_input') return { batch: { spans: [], stats: [chunk] }, rows: rowCount(message, value) };
    if (table !== 'spans') throw new EnvelopeError(`unknown table ${JSON.stringify(table ?? null)} in a format ${format} message`);
    if (format === ROWS_FORMAT) return { batch: { spans: [chunk], stats: [] }, rows: rowCount(message, value) };
    const spans = spanRowsOfJson(chunk);
    return { batch: { spans, stats: [] }, rows: spans.length };
  }
  if (format !== undefined) throw new EnvelopeError(`unsupported message format: ${JSON.stringify(format)}`);
  const v1 = decodeEnvelopeV1(value);
  const batch = encodeRowBatch(v1.spans, v1.traces);
  return { batch, rows: batch.spans.length + batch.stats.length };
}

/** Rows in a format-2/3 message: its rows header, else its lines (a native scan for newlines; CSV values may hold more). */
function rowCount(message: KafkaMessage, value: Buffer): number {
  const stated = Number(header(message, MESSAGE_HEADERS.rows));
  if (Number.isSafeInteger(stated) && stated > 0) return stated;
  let lines = 1;
  for (let at = value.indexOf(10); at !== -1; at = value.indexOf(10, at + 1)) lines++;
  return lines;
}

/** Format-2 span rows (JSONEachRow lines, keyed by column) as the CSV rows of today. */
function spanRowsOfJson(chunk: string): string[] {
  const rows: string[] = [];
  for (const line of chunk.split('\n')) {
    if (line.trim() === '') continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (err) {
      throw new EnvelopeError(`undecodable format ${JSON_ROWS_FORMAT} span row: ${(err as Error).message}`);
    }
    if (row === null || typeof row !== 'object' || Array.isArray(row)) throw new EnvelopeError(`format ${JSON_ROWS_FORMAT} span row is not an object`);
    rows.push(encodeSpanColumns(row));
  }
  return rows;
}

/** Parses and validates a format-1 envelope; throws EnvelopeError when it is not one. */
function decodeEnvelopeV1(value: Buffer): { spans: SpanRecord[]; traces: TraceHeader[] } {
  let json: unknown;
  try {
    json = JSON.parse(value.toString('utf8'));
  } catch (err) {
    throw new EnvelopeError(`undecodable JSON: ${(err as Error).message}`);
  }
  const version = (json as { v?: unknown } | null)?.v;
  if (version !== ENVELOPE_V1) {
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
  return parsed.data;
}
