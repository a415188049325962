import type { ClickHouseClient } from '../core/store/clickhouse/client.js';
import { RECENT_SECONDS } from '../core/store/clickhouse/trace-state-rows.js';

/**
 * Millions of agent-shaped spans written by ClickHouse itself (issue 33: "reads at scale"): the
 * batch writer stores ~2,300 spans/s of this shape here, so 10M spans would take over an hour;
 * `INSERT ... SELECT FROM numbers()` writes them in minutes. Span rows go straight into `spans`,
 * and one summary row per trace into `trace_stats_input`, whose view folds it into `trace_stats`
 * exactly as the write path's summary rows do (core/store/clickhouse/trace-stats-rows.ts: the
 * same root, span flags, tokens, costs, session and user): the reads see what ingest would leave.
 * It returns a minute after the last write, when the reads take the seeded traces as settled.
 *
 * Trace t: `spansPerTrace` spans (a root `agent` span, then generation, tool and retrieval spans
 * in turn), ids that look like OpenTelemetry's (32 and 16 hex digits), starts spread evenly over
 * the `spreadMs` before now, models rotating over four, an error in 1 trace of 97, a session per
 * 8 traces and a user per 50, texts of `textBytes` with markdown, a code fence and emoji.
 */
export interface SqlSeedOptions {
  project: string;
  traces: number;
  spansPerTrace: number;
  textBytes: number;
  /** Traces start evenly over this many ms before `now`. */
  spreadMs: number;
  now: number;
  /** Traces per INSERT (each one statement; memory grows with it). */
  chunk?: number;
}

const TRACE_ID = `lower(concat(hex(cityHash64(t, 'a')), hex(cityHash64(t, 'b'))))`;
const SPAN_ID = (s: string) => `lower(hex(cityHash64(t, ${s})))`;
const START = `toInt64({now:Int64} - {spread:Int64} + intDiv(t * {spread:Int64}, {traces:UInt64}))`;
const SPAN_TYPE = `multiIf(s = 0, 'agent', s % 3 = 1, 'generation', s % 3 = 2, 'tool', 'retrieval')`;
const MODEL = `arrayElement(['gpt-4o', 'gpt-4o-mini', 'claude-sonnet-4', 'llama-3.1-70b'], (t % 4) + 1)`;
const TEXT = (kind: string) =>
  `leftPad(concat('## ${kind} ', toString(t), '.', toString(s), '\\n\\nThe agent looked up the order and found 🚀 a match.\\n\\n\`\`\`json\\n{"order": ', toString(t), '}\\n\`\`\`\\n'), {text:UInt64}, '.')`;

function spanInsert(): string {
  return `INSERT INTO agent_eval.spans (project_id, trace_id, span_id, parent_span_id, name, span_type, component_type, convention, status, status_message, start_time, end_time, duration_ms, model, input, output, input_tokens, output_tokens, attributes, resource_attributes, total_cost, cost_version)
SELECT {project:String}, ${TRACE_ID}, ${SPAN_ID('s')}, if(s = 0, '', ${SPAN_ID('toUInt64(0)')}),
  if(s = 0, concat('support-agent-', toString(t % 50)), concat(${SPAN_TYPE}, '-', toString(s))),
  if(s = 0, 'span', ${SPAN_TYPE}), if(s = 0, 'agent', ${SPAN_TYPE}), 'spec',
  if(t % 97 = 0 AND s = 1, 'error', 'ok'), if(t % 97 = 0 AND s = 1, 'rate limited', ''),
  fromUnixTimestamp64Milli(${START} + s, 'UTC'), fromUnixTimestamp64Milli(${START} + s + 20 + (t % 1000), 'UTC'), 20 + (t % 1000),
  if(s % 3 = 1, ${MODEL}, ''), ${TEXT('question')}, ${TEXT('answer')}, if(s % 3 = 1, 800 + t % 400, 0), if(s % 3 = 1, 200 + t % 100, 0),
  if(s = 0, map('session.id', concat('session-', toString(intDiv(t, 8))), 'user.id', concat('user-', toString(t % 50))), map()),
  map('service.name', 'support-agent'),
  if(s % 3 = 1, 0.0025 + (t % 10) / 10000, NULL), if(s % 3 = 1, 'bench', '')
FROM (SELECT number AS t FROM numbers({from:UInt64}, {count:UInt64})) ARRAY JOIN range({spans:UInt64}) AS s`;
}

function summaryInsert(): string {
  const spans = `range({spans:UInt64})`;
  return `INSERT INTO agent_eval.trace_stats_input (project_id, trace_id, min_start, max_end, has_error, root, span_stats, span_costs, stored, session_id, user_id)
SELECT {project:String}, ${TRACE_ID},
  fromUnixTimestamp64Milli(${START}, 'UTC'), fromUnixTimestamp64Milli(${START} + {spans:UInt64} - 1 + 20 + (t % 1000), 'UTC'),
  if(t % 97 = 0 AND {spans:UInt64} > 1, 1, 0),
  (0, fromUnixTimestamp64Milli(${START}, 'UTC'), ${SPAN_ID('toUInt64(0)')}, concat('support-agent-', toString(t % 50)), '{"service.name":"support-agent"}'),
  (arrayMap(s -> ${SPAN_ID('s')}, ${spans}),
   arrayMap(s -> toUInt8(1 + if(t % 97 = 0 AND s = 1, 2, 0) + if(s % 3 = 2, 4, 0) + if(s % 3 = 1, 8, 0)), ${spans}),
   arrayMap(s -> toUInt64(if(s % 3 = 1, 800 + t % 400, 0)), ${spans}),
   arrayMap(s -> toUInt64(if(s % 3 = 1, 200 + t % 100, 0)), ${spans})),
  (arrayMap(s -> ${SPAN_ID('s')}, arrayFilter(s -> s % 3 = 1, ${spans})),
   arrayMap(s -> (toUInt64({now:Int64}), 0.0025 + (t % 10) / 10000, toUInt8(1)), arrayFilter(s -> s % 3 = 1, ${spans}))),
  1, concat('session-', toString(intDiv(t, 8))), concat('user-', toString(t % 50))
FROM (SELECT number AS t FROM numbers({from:UInt64}, {count:UInt64}))`;
}

/** The trace id of trace t, as the seed writes it (for reads by id). */
export function seededTraceIdSql(t: number): string {
  return `SELECT lower(concat(hex(cityHash64(toUInt64(${t}), 'a')), hex(cityHash64(toUInt64(${t}), 'b')))) AS id`;
}

/** Writes the traces in chunks; calls `progress` after each with the traces written so far. */
export async function seedBySql(client: ClickHouseClient, o: SqlSeedOptions, progress?: (written: number) => void): Promise<void> {
  const chunk = o.chunk ?? Math.max(1, Math.floor(500_000 / o.spansPerTrace));
  for (let from = 0; from < o.traces; from += chunk) {
    const count = Math.min(chunk, o.traces - from);
    const query_params = { project: o.project, now: o.now, spread: o.spreadMs, traces: o.traces, spans: o.spansPerTrace, text: o.textBytes, from, count };
    await client.command({ query: spanInsert(), query_params });
    await client.command({ query: summaryInsert(), query_params });
    progress?.(from + count);
  }
  // The view stamped every summary row as written now, and the reads merge the traces written in
  // the last RECENT_SECONDS (core/store/clickhouse/trace-state-rows.ts): every seeded trace, at
  // first. A store that took these traces over the week would hold almost none so. Waiting that
  // long lets the seeded traces be read as stored, as such a store's are. (Stamping each as
  // written at its end, by a mutation of every summary part, left the store slower to read for
  // minutes after: a model's traces 540-550 against 250-275 ms; docs/benchmarks.md.)
  await new Promise((r) => setTimeout(r, (RECENT_SECONDS + 1) * 1000));
}
