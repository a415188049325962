import { z } from 'zod';
import type { IHeaders, KafkaMessage } from 'kafkajs';
import { COMPONENT_TYPES, CONVENTIONS, SPAN_TYPES, type RowBatch, type SpanRecord, type TraceHeader } from '../../core/model/span.js';
import { spanRowCodec as codec } from '../../core/store/clickhouse/row-codec.js';
import { spanCallShape } from '../../core/model/span-fields.js';

/**
 * The Kafka message format of the write path (format 4): a message is one write of the collector
 * (collector/ingest.ts), its span rows and the trace summary rows of exactly those spans, exactly as
 * ingest encoded them (core/store/clickhouse/rows.ts: TabSeparated lines of SPAN_COLUMNS for
 * `spans`, JSONEachRow lines for `trace_stats_input`). The value is the span rows, an empty line,
 * then the summary rows: neither form ever holds an empty line (both escape line breaks inside
 * values), so the first one divides them. The ingester inserts both parts of a message together
 * or, when the store refuses it, neither (the message goes to the dead-letter topic), so a
 * summary never counts spans that were not stored. Headers name the format and the rows of each
 * part. Trace summaries are order-independent states (migrations/clickhouse/002), so messages need
 * no per-trace key: they spread over partitions round-robin.
 *
 * Older formats are still read, so messages produced before an upgrade are not lost:
 * - format 3 (rows of one table per message; span rows as CSV lines) is converted to TabSeparated
 *   (core/store/clickhouse/legacy-span-rows.ts): CSV values with a blank line could not be inserted in-process;
 * - format 2 (span rows as JSONEachRow lines) is re-encoded row by row;
 * - format 1 (a JSON envelope `{v: 1, spans, traces}` of model objects, one message per trace)
 *   is validated and encoded.
 */
export const ROWS_FORMAT = '4';
const CSV_ROWS_FORMAT = '3';
const JSON_ROWS_FORMAT = '2';
export const MESSAGE_HEADERS = {
  format: 'agent-eval-format',
  table: 'agent-eval-table',
  rows: 'agent-eval-rows',
  spanRows: 'agent-eval-span-rows',
  statsRows: 'agent-eval-stats-rows',
} as const;
/** What divides a format-4 value's span rows from its summary rows. */
const PART_SEPARATOR = '\n\n';

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
  ...spanCallShape,
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
  value: string;
  /** UTF-8 size of `value`, what the broker's message size limit is checked against (before compression). */
  bytes: number;
  spanRows: number;
  statsRows: number;
}

/** The headers of a format-4 message. */
export function rowHeaders(message: RowMessage): IHeaders {
  return {
    [MESSAGE_HEADERS.format]: ROWS_FORMAT,
    [MESSAGE_HEADERS.spanRows]: String(message.spanRows),
    [MESSAGE_HEADERS.statsRows]: String(message.statsRows),
  };
}

/** A line and its UTF-8 size, measured once. */
interface SizedLine {
  line: string;
  bytes: number;
}

const sized = (lines: string[]): SizedLine[] => lines.map((line) => ({ line, bytes: Buffer.byteLength(line) }));

/** UTF-8 size of lines joined by newlines. */
const partBytes = (lines: SizedLine[]): number => lines.reduce((n, l) => n + l.bytes, 0) + Math.max(0, lines.length - 1);

/** A message of the two parts: its value is their lines joined by newlines, the parts by PART_SEPARATOR; `bytes` its exact UTF-8 size. */
function message(spans: SizedLine[], stats: SizedLine[]): RowMessage {
  const text = (lines: SizedLine[]) => lines.map((l) => l.line).join('\n');
  return {
    value: `${text(spans)}${PART_SEPARATOR}${text(stats)}`,
    bytes: partBytes(spans) + PART_SEPARATOR.length + partBytes(stats),
    spanRows: spans.length,
    statsRows: stats.length,
  };
}

/** Lines in messages of one part each, at most `maxMessageBytes`. */
function packPart(lines: SizedLine[], part: 'spans' | 'stats', maxMessageBytes: number, out: RowMessage[]): void {
  let taken: SizedLine[] = [];
  const emit = () => {
    out.push(part === 'spans' ? message(taken, []) : message([], taken));
    taken = [];
  };
  let bytes = PART_SEPARATOR.length;
  for (const l of lines) {
    // Its newline too, unless it is the message's first line.
    const size = l.bytes + (taken.length > 0 ? 1 : 0);
    if (taken.length > 0 && bytes + size > maxMessageBytes) {
      emit();
      bytes = PART_SEPARATOR.length + l.bytes;
    } else bytes += size;
    taken.push(l);
  }
  if (taken.length > 0) emit();
}

/**
 * A write's rows as messages of at most `maxMessageBytes`: one message holding both parts, as
 * ingest sizes its writes for this sink (SpanSink.maxWriteBytes). A write that does not fit (a
 * trace header as large as a span beside its spans) is sent as messages of span rows, then of
 * summary rows, all acknowledged before the write is. Every row passed the span size limit at
 * ingest (MAX_SPAN_BYTES, below the message limit), so every row fits a message.
 */
export function packRowMessages(rows: RowBatch, maxMessageBytes: number): RowMessage[] {
  if (rows.spans.length === 0 && rows.stats.length === 0) return [];
  const spans = sized(rows.spans);
  const stats = sized(rows.stats);
  if (partBytes(spans) + PART_SEPARATOR.length + partBytes(stats) <= maxMessageBytes) return [message(spans, stats)];
  const out: RowMessage[] = [];
  packPart(spans, 'spans', maxMessageBytes, out);
  packPart(stats, 'stats', maxMessageBytes, out);
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

/** A format-4 value as the rows of one write: its two parts, each as one chunk of lines (none when empty). */
function writeOfValue(value: string): RowBatch {
  const at = value.indexOf(PART_SEPARATOR);
  if (at === -1) throw new EnvelopeError(`format ${ROWS_FORMAT} message without the empty line that ends its span rows`);
  const spans = value.slice(0, at);
  const stats = value.slice(at + PART_SEPARATOR.length);
  return { spans: spans ? [spans] : [], stats: stats ? [stats] : [] };
}

/**
 * A consumed message as rows to insert: a format-4 value is one write, passed on as it is (a
 * malformed row fails its insert and is isolated then); format-3 span rows are converted from CSV,
 * format-2 span rows re-encoded, a format-1 envelope validated and encoded. Throws EnvelopeError
 * for anything else.
 */
export function decodeMessage(message: KafkaMessage): DecodedMessage {
  const value = message.value;
  if (!value || value.length === 0) throw new EnvelopeError('empty message value');
  const format = header(message, MESSAGE_HEADERS.format);
  if (format === ROWS_FORMAT) {
    const batch = writeOfValue(value.toString('utf8'));
    const stated = Number(header(message, MESSAGE_HEADERS.spanRows)) + Number(header(message, MESSAGE_HEADERS.statsRows));
    return { batch, rows: Number.isSafeInteger(stated) && stated > 0 ? stated : lineCount(batch) };
  }
  if (format === CSV_ROWS_FORMAT || format === JSON_ROWS_FORMAT) {
    const table = header(message, MESSAGE_HEADERS.table);
    const chunk = value.toString('utf8');
    if (table === 'trace_stats_input') return { batch: { spans: [], stats: [chunk] }, rows: rowCount(message, value) };
    if (table !== 'spans') throw new EnvelopeError(`unknown table ${JSON.stringify(table ?? null)} in a format ${format} message`);
    const spans = format === CSV_ROWS_FORMAT ? spanRowsOfCsv(chunk) : spanRowsOfJson(chunk);
    return { batch: { spans, stats: [] }, rows: spans.length };
  }
  if (format !== undefined) throw new EnvelopeError(`unsupported message format: ${JSON.stringify(format)}`);
  const v1 = decodeEnvelopeV1(value);
  const batch = codec.encodeBatch(v1.spans, v1.traces);
  return { batch, rows: batch.spans.length + batch.stats.length };
}

/** Lines of a write whose headers do not say (a native scan for newlines). */
function lineCount(batch: RowBatch): number {
  let lines = 0;
  for (const chunk of [...batch.spans, ...batch.stats]) lines += chunk.split('\n').length;
  return lines;
}

/** Rows in a format-2/3 message: its rows header, else its lines (CSV values may hold more). */
function rowCount(message: KafkaMessage, value: Buffer): number {
  const stated = Number(header(message, MESSAGE_HEADERS.rows));
  if (Number.isSafeInteger(stated) && stated > 0) return stated;
  let lines = 1;
  for (let at = value.indexOf(10); at !== -1; at = value.indexOf(10, at + 1)) lines++;
  return lines;
}

/** Format-3 span rows (CSV lines of SPAN_COLUMNS) as the TabSeparated rows of today. */
function spanRowsOfCsv(chunk: string): string[] {
  try {
    return codec.spanRowsOfCsv(chunk);
  } catch (err) {
    throw new EnvelopeError(`undecodable format ${CSV_ROWS_FORMAT} span rows: ${(err as Error).message}`);
  }
}

/** Format-2 span rows (JSONEachRow lines, keyed by column) as the TabSeparated rows of today. */
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
    rows.push(codec.spanRowOfColumns(row));
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
