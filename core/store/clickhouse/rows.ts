import type { ComponentType, SpanRecord } from '../../model/span.js';
import type { SpanView, TraceSpanView } from '../../model/trace.js';
import type { Score } from '../../model/score.js';
import type { SpanCost } from '../../model/cost.js';
import { TSV_INSERT_SETTINGS, tsvFieldText, tsvTime, tsvValue } from './tsv.js';
import { fromClickHouseTime, toClickHouseTime } from './time.js';
import { originalBytes } from '../../model/truncation.js';
import { wellFormedJson } from '../../model/well-formed-json.js';

/**
 * The one converter each way between the model and ClickHouse rows (STYLE 4).
 * ClickHouse has no nulls in these columns: '' stands for null.
 */

const orNull = (v: string): string | null => (v === '' ? null : v);

/** The cost columns of a span (migrations/clickhouse/004): NULL costs where it was not priced. */
interface CostColumns {
  cached_input_tokens: number;
  input_cost: number | null;
  output_cost: number | null;
  cached_input_cost: number | null;
  total_cost: number | null;
  cost_version: string;
}

function baseRow(s: SpanRecord) {
  return {
    project_id: s.project_id,
    trace_id: s.trace_id,
    span_id: s.span_id,
    parent_span_id: s.parent_span_id ?? '',
    name: s.name,
    span_type: s.span_type,
    component_type: s.component_type ?? '',
    convention: s.convention,
    kind: s.kind,
    status: s.status,
    status_message: s.status_message,
    start_time: s.start_time,
    end_time: s.end_time,
    duration_ms: s.duration_ms,
    model: s.model ?? '',
    input: s.input,
    output: s.output,
    input_tokens: s.input_tokens,
    output_tokens: s.output_tokens,
    attributes: s.attributes,
    resource_attributes: s.resource_attributes,
    scope_name: s.scope_name,
    scope_version: s.scope_version,
    events: s.events,
  };
}

/** A span as a row of `spans`, keyed by column; times in ms since the epoch. Unpriced spans hold NULL costs. */
export function spanRow(s: SpanRecord): ReturnType<typeof baseRow> & CostColumns {
  const row: ReturnType<typeof baseRow> & Partial<CostColumns> = baseRow(s);
  const cost = s.pricing?.cost;
  row.cached_input_tokens = s.cached_input_tokens ?? 0;
  row.input_cost = cost ? cost.input : null;
  row.output_cost = cost ? cost.output : null;
  row.cached_input_cost = cost ? cost.cached_input : null;
  row.total_cost = cost ? cost.total : null;
  row.cost_version = cost ? cost.version : '';
  return row as ReturnType<typeof baseRow> & CostColumns;
}

/**
 * The columns of a `spans` row on the write path, in the order of its TabSeparated fields. Kafka
 * messages carry rows in this order (collector/kafka/envelope.ts, formats 3 and 4): a change to it
 * takes a new message format, and the ingester keeps reading the old one.
 */
export const SPAN_COLUMNS = [
  'project_id',
  'trace_id',
  'span_id',
  'parent_span_id',
  'name',
  'span_type',
  'component_type',
  'convention',
  'kind',
  'status',
  'status_message',
  'start_time',
  'end_time',
  'duration_ms',
  'model',
  'input',
  'output',
  'input_tokens',
  'output_tokens',
  'attributes',
  'resource_attributes',
  'scope_name',
  'scope_version',
  'events',
  'cached_input_tokens',
  'input_cost',
  'output_cost',
  'cached_input_cost',
  'total_cost',
  'cost_version',
] as const satisfies ReadonlyArray<keyof ReturnType<typeof spanRow>>;

export type SpanColumn = (typeof SPAN_COLUMNS)[number];

/**
 * A row keyed by column as one TabSeparated line of SPAN_COLUMNS (tsv.ts), the form every write
 * path carries for `spans` (batcher, Kafka messages) and ClickHouse parses. The line never holds a
 * raw line break: values escape theirs. A column the row leaves out
 * is NULL, read as the column's default; times given as numbers are ms since the epoch. The
 * fields are joined at once, so the line is one flat string: a line built by `+=` is a tree of as
 * many strings as it has parts, each an object the garbage collector copies while the row waits
 * for its insert.
 */
export function encodeSpanColumns(row: Partial<Record<SpanColumn, unknown>>): string {
  return SPAN_COLUMNS.map((column) => {
    const v = row[column];
    return typeof v === 'number' && (column === 'start_time' || column === 'end_time') ? tsvTime(v) : tsvValue(v);
  }).join('\t');
}

/** The key of a `spans` row as encodeSpanColumns writes it: its first three fields, (project_id, trace_id, span_id). */
export function spanRowKey(line: string): [string, string, string] {
  const [project, trace, span] = line.split('\t', 3);
  return [tsvFieldText(project), tsvFieldText(trace ?? ''), tsvFieldText(span ?? '')];
}

/** A span as its TabSeparated line (encodeSpanColumns). */
export const encodeSpanRow = (s: SpanRecord): string => encodeSpanColumns(spanRow(s));

/** How a table's rows are encoded on the write path, which the insert states. */
export interface RowFormat {
  format: 'TabSeparated' | 'JSONEachRow';
  /** The columns of each row, in order (TabSeparated). */
  columns?: readonly string[];
  settings: Readonly<Record<string, string | number>>;
}

/** `spans` rows: TabSeparated lines of SPAN_COLUMNS. */
export const SPAN_ROWS: RowFormat = { format: 'TabSeparated', columns: SPAN_COLUMNS, settings: TSV_INSERT_SETTINGS };
/** Rows as JSONEachRow lines, keyed by column. */
export const JSON_ROWS: RowFormat = { format: 'JSONEachRow', settings: {} };
/** `trace_stats_input` rows: JSONEachRow lines (trace-stats-rows.ts). */
export const STATS_ROWS = JSON_ROWS;

/**
 * The columns of a `write_rows` row (migrations/clickhouse/007): a span's (SPAN_COLUMNS), then
 * `stats`, a trace summary's JSON, empty in a span row. A write is one insert of these rows.
 */
export const WRITE_COLUMNS = [...SPAN_COLUMNS, 'stats'] as const;

/**
 * `write_rows` rows: TabSeparated lines of WRITE_COLUMNS. Both views of the table run at once
 * (`parallel_view_processing`): the span rows' part and the summaries' are written side by side.
 */
export const WRITE_ROWS: RowFormat = { format: 'TabSeparated', columns: WRITE_COLUMNS, settings: { ...TSV_INSERT_SETTINGS, parallel_view_processing: 1 } };

/**
 * A row as one JSONEachRow line, the form of `trace_stats_input` rows on every write path
 * (batcher, Kafka messages). Text that is not well-formed UTF-16 is stored with U+FFFD in place of a lone
 * surrogate, so no client's odd string can fail an insert shared with others.
 */
export function encodeRow(row: object): string {
  return wellFormedJson(row);
}

/** A span row as read back: times come as DateTime64 text, 64-bit integers maybe as strings. */
export type SpanRow = Omit<ReturnType<typeof baseRow>, 'start_time' | 'end_time'> & {
  start_time: string;
  end_time: string;
  duration_ms: number | string;
  input_tokens: number | string;
  output_tokens: number | string;
  /** Absent in rows read before migration 003 ran (never in practice: reads follow migrations). */
  cached_input_tokens?: number | string;
  input_cost?: number | null;
  output_cost?: number | null;
  cached_input_cost?: number | null;
  total_cost?: number | null;
  cost_version?: string;
};

/** The stored cost of a span row, or null when it was not priced. */
function costOf(r: SpanRow): SpanCost | null {
  if (r.total_cost === null || r.total_cost === undefined) return null;
  return {
    input: Number(r.input_cost ?? 0),
    output: Number(r.output_cost ?? 0),
    cached_input: Number(r.cached_input_cost ?? 0),
    total: Number(r.total_cost),
    version: r.cost_version ?? '',
  };
}

function parseEvents(json: string): SpanView['events'] {
  try {
    const parsed: unknown = JSON.parse(json || '[]');
    return Array.isArray(parsed) ? (parsed as SpanView['events']) : [];
  } catch {
    return [];
  }
}

export function spanView(r: SpanRow): SpanView {
  return {
    span_id: r.span_id,
    trace_id: r.trace_id,
    parent_span_id: orNull(r.parent_span_id),
    name: r.name,
    type: r.span_type,
    component_type: orNull(r.component_type) as ComponentType | null,
    convention: r.convention,
    kind: orNull(r.kind),
    status: r.status,
    status_message: orNull(r.status_message),
    start_time: fromClickHouseTime(r.start_time),
    end_time: fromClickHouseTime(r.end_time),
    duration_ms: Number(r.duration_ms),
    model: orNull(r.model),
    input: r.input,
    output: r.output,
    input_tokens: Number(r.input_tokens),
    output_tokens: Number(r.output_tokens),
    cached_input_tokens: Number(r.cached_input_tokens ?? 0),
    cost: costOf(r),
    attributes: r.attributes,
    resource_attributes: r.resource_attributes,
    scope: { name: r.scope_name, version: r.scope_version },
    events: parseEvents(r.events),
  };
}

/** A span row of the trace view: input and output already cut in SQL, with flags saying whether they were. */
export type TraceSpanRow = SpanRow & { input_truncated: number | boolean; output_truncated: number | boolean };

export function traceSpanView(r: TraceSpanRow): TraceSpanView {
  const view = spanView(r);
  // Cut for the view (ClickHouse returns the comparison as UInt8: 0 or 1), or stored cut (collector/truncate.ts).
  return {
    ...view,
    input_truncated: Number(r.input_truncated) === 1 || originalBytes(r.attributes, 'input') !== null,
    output_truncated: Number(r.output_truncated) === 1 || originalBytes(r.attributes, 'output') !== null,
  };
}

export interface ScoreRow {
  score_id: string;
  trace_id: string;
  span_id: string;
  name: string;
  value: number;
  score_type: string;
  source: string;
  scorer_name: string;
  reason: string;
  evidence: string[];
  created_at: string;
  attributes?: Record<string, string>;
  session_id?: string;
}

export function scoreView(r: ScoreRow): Score {
  const attributes = r.attributes && Object.keys(r.attributes).length > 0 ? { attributes: r.attributes } : {};
  return {
    id: r.score_id,
    trace_id: r.trace_id,
    span_id: orNull(r.span_id),
    name: r.name,
    value: Number(r.value),
    score_type: r.score_type as Score['score_type'],
    source: r.source as Score['source'],
    scorer_name: orNull(r.scorer_name),
    reason: orNull(r.reason),
    evidence: r.evidence,
    created_at: fromClickHouseTime(r.created_at),
    ...attributes,
    ...(r.session_id ? { session_id: r.session_id } : {}),
  };
}

/** A score as its row of `agent_eval.scores` (scoreView reads it back): what it lacks as the column's empty value. */
export function scoreRow(projectId: string, score: Score): ScoreRow & { project_id: string } {
  const { id, trace_id, span_id, name, value, score_type, source, scorer_name, reason, evidence, created_at, attributes, session_id } = score;
  return {
    project_id: projectId,
    score_id: id,
    trace_id,
    span_id: span_id ?? '',
    name,
    value,
    score_type,
    source,
    scorer_name: scorer_name ?? '',
    reason: reason ?? '',
    evidence,
    created_at: toClickHouseTime(Date.parse(created_at)),
    attributes: attributes ?? {},
    session_id: session_id ?? '',
  };
}
