/**
 * SQL of bulk exports (core/store/exports.ts): each kind's rows in its key order, the newest
 * version of each row, written by ClickHouse in the asked format. Values are always bound
 * ({name:Type}); the only text spliced in is from the fixed fragments below.
 */
import type { ExportFormat, ExportKind, ScoreExportFilters, SpanExportFilters, TraceExportFilters } from '../../model/export.js';
import { TRACE_STATE_PARAMS } from './trace-state-rows.js';
import { filteredTraces, TRACE_FILTER_NAMES, traceSummariesSql, type TraceFilter } from './trace-stats-sql.js';

/** How a column is written: as it is, a time, a map or array (JSON text in CSV, where ClickHouse would write its own literal). */
type ColumnKind = 'plain' | 'time' | 'nested';
type Columns = ReadonlyArray<readonly [name: string, kind: ColumnKind, source?: string]>;

const SPAN_COLUMNS: Columns = [
  ['trace_id', 'plain'],
  ['span_id', 'plain'],
  ['parent_span_id', 'plain'],
  ['name', 'plain'],
  ['type', 'plain', 'span_type'],
  ['component_type', 'plain'],
  ['convention', 'plain'],
  ['kind', 'plain'],
  ['status', 'plain'],
  ['status_message', 'plain'],
  ['start_time', 'time'],
  ['end_time', 'time'],
  ['duration_ms', 'plain'],
  ['model', 'plain'],
  ['input', 'plain'],
  ['output', 'plain'],
  ['input_tokens', 'plain'],
  ['output_tokens', 'plain'],
  ['cached_input_tokens', 'plain'],
  ['input_cost', 'plain'],
  ['output_cost', 'plain'],
  ['cached_input_cost', 'plain'],
  ['total_cost', 'plain'],
  ['cost_version', 'plain'],
  ['attributes', 'nested'],
  ['resource_attributes', 'nested'],
  ['scope_name', 'plain'],
  ['scope_version', 'plain'],
  ['events', 'plain'],
];

const SCORE_COLUMNS: Columns = [
  ['score_id', 'plain'],
  ['trace_id', 'plain'],
  ['span_id', 'plain'],
  ['name', 'plain'],
  ['value', 'plain'],
  ['score_type', 'plain'],
  ['source', 'plain'],
  ['scorer_name', 'plain'],
  ['reason', 'plain'],
  ['evidence', 'nested'],
  ['created_at', 'time'],
  ['attributes', 'nested'],
  ['session_id', 'plain'],
];

const TRACE_COLUMNS: Columns = [
  ['trace_id', 'plain'],
  ['name', 'plain'],
  ['status', 'plain'],
  ['start_time', 'time'],
  ['end_time', 'time'],
  ['duration_ms', 'plain'],
  ['span_count', 'plain'],
  ['error_count', 'plain'],
  ['total_input_tokens', 'plain'],
  ['total_output_tokens', 'plain'],
  ['tool_call_count', 'plain'],
  ['llm_call_count', 'plain'],
  ['total_cost', 'plain'],
  ['unpriced_llm_call_count', 'plain'],
  ['attributes', 'nested'],
  ['session_id', 'plain'],
  ['user_id', 'plain'],
];

export const EXPORT_COLUMNS: Record<ExportKind, Columns> = { traces: TRACE_COLUMNS, spans: SPAN_COLUMNS, scores: SCORE_COLUMNS };

/** The select list: times as ISO 8601 text in JSON Lines and CSV (Parquet keeps them timestamps), maps and arrays as JSON text in CSV. */
function selectList(kind: ExportKind, format: ExportFormat): string {
  return EXPORT_COLUMNS[kind]
    .map(([name, type, source = name]) => {
      if (type === 'time' && format !== 'parquet') return `concat(replaceOne(toString(${source}), ' ', 'T'), 'Z') AS ${name}`;
      if (type === 'nested' && format === 'csv') return `toJSONString(${source}) AS ${name}`;
      return source === name ? name : `${source} AS ${name}`;
    })
    .join(', ');
}

/** ClickHouse's format for each export format; CSV's header row only at the start of a file or response. */
export function clickhouseFormat(format: ExportFormat, header: boolean): string {
  if (format === 'jsonl') return 'JSONEachRow';
  if (format === 'csv') return header ? 'CSVWithNames' : 'CSV';
  return 'Parquet';
}

/**
 * Output settings, in the query's SETTINGS clause (not the client's, which chDB and the gateway
 * apply with SET to a shared connection): 64-bit numbers as JSON numbers; RFC 4180's CRLF row
 * ends (values keep their own line breaks, quoted); a NULL cost as an empty CSV field; Parquet row
 * groups small enough that the writer's buffer stays bounded, strings as UTF-8 strings.
 */
const OUTPUT_SETTINGS = [
  'output_format_json_quote_64bit_integers = 0',
  'output_format_json_quote_decimals = 0',
  'output_format_json_escape_forward_slashes = 0',
  'output_format_csv_crlf_end_of_line = 1',
  "format_csv_null_representation = ''",
  'output_format_parquet_row_group_size = 10000',
  'output_format_parquet_row_group_size_bytes = 16777216',
  'output_format_parquet_string_as_string = 1',
  "output_format_parquet_compression_method = 'zstd'",
  // Read in key order, the newest rows of every part merge: without these each part's stream
  // buffered blocks of 65,536 rows of texts, and a 1M-span job's process reached 1 GB.
  'max_block_size = 4096',
  'read_in_order_use_buffering = 0',
].join(', ');

export const outputClause = (format: ExportFormat, header: boolean, outfile?: string): string =>
  `SETTINGS ${OUTPUT_SETTINGS}${outfile ? ` INTO OUTFILE ${quoted(outfile)} TRUNCATE` : ''} FORMAT ${clickhouseFormat(format, header)}`;

/** A SQL string literal (a file path this service chose: escaped all the same). */
function quoted(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** A key range of a page or response: after `after` (exclusive), through `through` (inclusive). */
export interface KeyRange {
  after: boolean;
  through: boolean;
}

/** Conditions and parameters of each kind's filters. */
export interface Filtered {
  where: string[];
  params: Record<string, unknown>;
  /** Traces only: the trace list's filters (trace-stats-sql.ts). */
  traceFilters?: TraceFilter[];
}

const TIME = "DateTime64(3, 'UTC')";

/** Conditions on bound parameters: `add` keeps a condition only when its value is given. */
function conditions(): Filtered & { add: (cond: string, name: string, value: unknown) => void } {
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  return {
    where,
    params,
    add: (cond, name, value) => {
      if (value === undefined) return;
      where.push(cond);
      params[name] = value;
    },
  };
}

/**
 * A kind's filters: its time range over `timeColumn`, then an equality per field of `columns`
 * (field: the column it compares), each kept only when given and bound as the field's camelCase.
 */
function keptFilters<F extends { start_time?: number; end_time?: number }>(
  f: F,
  time: (ms: number) => string,
  timeColumn: string,
  columns: Partial<Record<keyof F & string, string>>,
): Filtered {
  const { where, params, add } = conditions();
  add(`${timeColumn} >= {startTime:${TIME}}`, 'startTime', f.start_time === undefined ? undefined : time(f.start_time));
  add(`${timeColumn} <= {endTime:${TIME}}`, 'endTime', f.end_time === undefined ? undefined : time(f.end_time));
  for (const [field, column] of Object.entries(columns) as Array<[keyof F & string, string]>) {
    const param = field.replace(/_(.)/g, (_, c: string) => c.toUpperCase());
    add(`${column} = {${param}:String}`, param, f[field]);
  }
  return { where, params };
}

export const spanFilters = (f: SpanExportFilters, time: (ms: number) => string): Filtered =>
  keptFilters(f, time, 'start_time', { trace_id: 'trace_id', type: 'span_type', status: 'status', model: 'model', component_type: 'component_type' });

export const scoreFilters = (f: ScoreExportFilters, time: (ms: number) => string): Filtered =>
  keptFilters(f, time, 'created_at', { trace_id: 'trace_id', name: 'name', source: 'source', score_type: 'score_type', session_id: 'session_id' });

/** The trace list's filters (GET /api/traces, trace-stats-sql.ts) by their parameters, plus a trace id. */
export function traceFilters(f: TraceExportFilters, time: (ms: number) => string): Filtered {
  const params: Record<string, unknown> = {
    // The traces are read one row each (trace-state-rows.ts).
    ...TRACE_STATE_PARAMS,
    status: f.status,
    name: f.name,
    startTime: f.start_time === undefined ? undefined : time(f.start_time),
    endTime: f.end_time === undefined ? undefined : time(f.end_time),
    minDurationMs: f.min_duration_ms,
    hasErrors: f.has_errors === undefined ? undefined : f.has_errors ? 1 : 0,
    model: f.model,
    componentType: f.component_type,
    sessionId: f.session_id,
    userId: f.user_id,
    environment: f.environment,
    tag: f.tag,
    traceId: f.trace_id,
  };
  const traceFilterList = TRACE_FILTER_NAMES.filter((n) => params[n] !== undefined);
  return { where: f.trace_id === undefined ? [] : ['trace_id = {traceId:String}'], params, traceFilters: traceFilterList };
}

/** Key of each kind, in its export order, as a tuple; how "after" compares. */
const KEY = {
  traces: { tuple: '(start_time, trace_id)', after: '<', through: '>=', order: 'start_time DESC, trace_id DESC' },
  spans: { tuple: '(trace_id, span_id)', after: '>', through: '<=', order: 'trace_id, span_id' },
  scores: { tuple: '(trace_id, score_id)', after: '>', through: '<=', order: 'trace_id, score_id' },
} as const;

/**
 * A range's conditions. Spans and scores also bound `trace_id` alone: ClickHouse's primary key
 * analysis does not read a tuple comparison, and without these a page would scan every granule
 * of the project (measured: 1M spans exported at a tenth of the speed of 100,000).
 */
function rangeConditions(kind: ExportKind, range: KeyRange): string[] {
  const k = KEY[kind];
  const [a, b] = kind === 'traces' ? [`{afterStart:${TIME}}`, '{afterTrace:String}'] : ['{afterTrace:String}', '{afterId:String}'];
  const [c, d] = kind === 'traces' ? [`{throughStart:${TIME}}`, '{throughTrace:String}'] : ['{throughTrace:String}', '{throughId:String}'];
  const index = kind !== 'traces';
  return [
    ...(range.after ? [...(index ? [`trace_id >= ${a}`] : []), `${k.tuple} ${k.after} (${a}, ${b})`] : []),
    ...(range.through ? [...(index ? [`trace_id <= ${c}`] : []), `${k.tuple} ${k.through} (${c}, ${d})`] : []),
  ];
}

const and = (conds: string[]) => conds.map((c) => ` AND ${c}`).join('');

/** The newest version of each row of the kind in range, filtered, in key order: every column the export writes from (or `columns`). */
function newestRows(kind: ExportKind, f: Filtered, range: KeyRange, limited: boolean, columns = '*'): string {
  const limit = limited ? '\n  LIMIT {limit:UInt64}' : '';
  if (kind === 'traces') {
    const ids = `(
    SELECT trace_id FROM (SELECT trace_id, start_time FROM ${filteredTraces(f.traceFilters ?? [])})
    WHERE 1${and([...f.where, ...rangeConditions(kind, range)])}
    ORDER BY ${KEY.traces.order}${limit}
  )`;
    return `(SELECT * FROM (${traceSummariesSql(ids)}) ORDER BY ${KEY.traces.order})`;
  }
  const [table, id, version] = kind === 'spans' ? ['spans', 'span_id', 'ingested_at'] : ['scores', 'score_id', 'created_at'];
  return `(
  SELECT ${columns} FROM agent_eval.${table}
  WHERE project_id = {project:String}${and([...f.where, ...rangeConditions(kind, range)])}
  ORDER BY trace_id, ${id}, ${version} DESC
  LIMIT 1 BY trace_id, ${id}${limit}
)`;
}

/** The rows of a page or a job, formatted: `limited` caps them at {limit} (a job), a page is bounded by its key range. */
export function exportRowsSql(kind: ExportKind, format: ExportFormat, f: Filtered, range: KeyRange, limited: boolean): string {
  return `SELECT ${selectList(kind, format)}\nFROM ${newestRows(kind, f, range, limited)}`;
}

/** Bytes a row is counted for beside its large texts: bounds a page's rows (pageBytes / ROW_COST at most). */
export const ROW_COST = 1024;

/** The size a row of the kind adds to a page: its large texts' lengths (read as sizes only), plus ROW_COST. */
const ROW_SIZE = {
  traces: `${ROW_COST}`,
  spans: `${ROW_COST} + length(input) + length(output) + length(events)`,
  scores: `${ROW_COST} + length(reason) + arraySum(arrayMap(e -> length(e), evidence))`,
} as const;

/**
 * A response's plan: its next `limit` rows' keys cut into pages of at most {pageBytes} (plus one
 * row), numbered from 0, each with its row count and last key. Rows cost their size plus
 * ROW_COST, so a page also holds at most pageBytes / ROW_COST + 1 rows. Only keys and sizes are
 * read here; the rows themselves page by page ({@link exportRowsSql}).
 */
export function exportPlanSql(kind: ExportKind, f: Filtered, after: boolean): string {
  const k = KEY[kind];
  const range = { after, through: false };
  const keys =
    kind === 'traces'
      ? `SELECT start_time AS k1, trace_id AS k2, ${ROW_SIZE.traces} AS size FROM (SELECT trace_id, start_time FROM ${filteredTraces(f.traceFilters ?? [])})
    WHERE 1${and([...f.where, ...rangeConditions(kind, range)])}
    ORDER BY ${k.order} LIMIT {limit:UInt64}`
      : // Sizes computed on the table's columns, where ClickHouse reads a text's length without the text.
        `SELECT trace_id AS k1, ${kind === 'spans' ? 'span_id' : 'score_id'} AS k2, size FROM ${newestRows(kind, f, range, true, `trace_id, ${kind === 'spans' ? 'span_id' : 'score_id'}, ${ROW_SIZE[kind]} AS size`)}`;
  const order = kind === 'traces' ? 'k1 DESC, k2 DESC' : 'k1, k2';
  return `
SELECT page, count() AS rows, argMax(k1, n) AS last1, argMax(k2, n) AS last2
FROM (
  SELECT k1, k2, row_number() OVER w AS n, intDiv(sum(size) OVER w - size, {pageBytes:UInt64}) AS page
  FROM (${keys})
  WINDOW w AS (ORDER BY ${order} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
)
GROUP BY page
ORDER BY page`;
}
