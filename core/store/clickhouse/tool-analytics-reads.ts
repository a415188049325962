import { MAX_TOOLS, type ToolAnalytics, type ToolAnalyticsQuery } from '../../model/analytics.js';
import { toClickHouseTime } from './time.js';
import { MISMATCH_PATTERN, TOOL_CALLS_SQL, TOOL_MISMATCH_SQL, TOOL_SCORES_SQL } from './tool-analytics-sql.js';

type Rows = <T>(query: string, params: Record<string, unknown>) => Promise<T[]>;

interface CallRow {
  tool: string;
  calls: unknown;
  errors: unknown;
  latency: unknown;
  traces: unknown;
  tools: unknown;
  all_calls: unknown;
}

/** ClickHouse answers 64-bit numbers as text and NaN where nothing was aggregated. */
function num(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}
const count = (v: unknown): number => num(v) ?? 0;

/** Per tool of the window: calls, errors, latency, and the argument mismatches the runs' toolCalls scores found (tool-analytics-sql.ts). */
export async function readToolAnalytics(rows: Rows, projectId: string, q: ToolAnalyticsQuery): Promise<ToolAnalytics> {
  const window = { project: projectId, from: toClickHouseTime(q.fromMs), to: toClickHouseTime(q.toMs) };
  const [calls, [scores]] = await Promise.all([rows<CallRow>(TOOL_CALLS_SQL, { ...window, limit: MAX_TOOLS }), rows<{ n: unknown }>(TOOL_SCORES_SQL, window)]);
  const names = calls.map((c) => c.tool);
  const mismatches =
    names.length && count(scores?.n) > 0
      ? await rows<{ tool: string; scored: unknown; mismatched: unknown }>(TOOL_MISMATCH_SQL, { ...window, pattern: MISMATCH_PATTERN, tools: names })
      : [];
  const byTool = new Map(mismatches.map((m) => [m.tool, m]));
  return {
    start_time: new Date(q.fromMs).toISOString(),
    end_time: new Date(q.toMs).toISOString(),
    tool_call_count: count(calls[0]?.all_calls),
    scored_count: count(scores?.n),
    tools: calls.map((c) => {
      const callCount = count(c.calls);
      const errors = count(c.errors);
      const latency = Array.isArray(c.latency) ? c.latency : [];
      const m = byTool.get(c.tool);
      const scored = count(m?.scored);
      const mismatched = count(m?.mismatched);
      return {
        tool_name: c.tool,
        call_count: callCount,
        error_count: errors,
        error_rate: callCount === 0 ? 0 : errors / callCount,
        latency_ms: { p50: num(latency[0]), p95: num(latency[1]) },
        trace_count: count(c.traces),
        scored_count: scored,
        argument_mismatch_count: mismatched,
        argument_mismatch_rate: scored === 0 ? null : mismatched / scored,
      };
    }),
    tools_truncated: count(calls[0]?.tools) > MAX_TOOLS,
  };
}
