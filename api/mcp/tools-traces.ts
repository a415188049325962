import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AgentEvalApi } from '../../sdk/endpoints.js';
import { TraceFilterFields } from '../../core/model/trace-filter.js';
import type { TraceSummary } from '../../core/model/trace.js';
import { buildSpanTree } from '../../core/scoring/trajectory/span-tree.js';
import { condenseTrajectory } from '../../core/judges/condensed-trajectory.js';
import { clip, readTool } from './tool-kit.js';

/** An id a tool takes: what the API's ids are, bounded (the API answers 404 or 400 for the rest). */
export const Id = z.string().min(1).max(512);
const Cursor = z.string().min(1).max(2_048).optional();

/** Spans read for one condensed trace: past them the answer says so and the model pages. */
const MAX_TRACE_SPANS = 2_000;

/** A trace in a list, in the fields a model acts on. */
const traceLine = (t: Omit<TraceSummary, 'attributes'>) => ({
  trace_id: t.trace_id,
  name: clip(t.name, 200),
  status: t.status,
  start_time: t.start_time,
  duration_ms: t.duration_ms,
  spans: t.span_count,
  errors: t.error_count,
  llm_calls: t.llm_call_count,
  tool_calls: t.tool_call_count,
  tokens: t.total_input_tokens + t.total_output_tokens,
  cost_usd: t.total_cost,
  session_id: t.session_id,
});

/** Tools over traces and sessions: search, a trace condensed, a span's whole text, sessions. */
export function traceTools(server: McpServer, api: () => AgentEvalApi): void {
  readTool(
    server,
    'search_traces',
    {
      title: 'Search traces',
      description:
        'Lists traces newest first with the filters of GET /api/traces (status, name, time range, model, component type, minimum duration, errors, a score below a value, text search, session, user, environment, tag, source: production, evaluation or online-judge). Pass next_cursor back as cursor for the next page.',
      inputSchema: { ...TraceFilterFields, limit: z.number().int().min(1).max(50).default(20), cursor: Cursor },
    },
    async (args) => {
      const page = await api().traces.list(args);
      return { traces: page.traces.map(traceLine), next_cursor: page.next_cursor ?? null };
    },
  );

  readTool(
    server,
    'get_trace',
    {
      title: 'Read a trace, condensed',
      description:
        'A trace for reading: its summary, then every span as a step (parents before children, [n] its place in start order), with tool calls, model calls and errors; long texts cut. span_ids[n-1] is the id of step [n]: read a whole input or output with get_span_text.',
      inputSchema: { trace_id: Id, max_chars: z.number().int().min(1_000).max(20_000).default(12_000) },
    },
    async ({ trace_id, max_chars }) => {
      const first = await api().traces.get(trace_id, { spans_limit: 1_000 });
      const spans = [...first.spans];
      for (let cursor = first.spans_next_cursor; cursor && spans.length < MAX_TRACE_SPANS;) {
        const page = await api().traces.get(trace_id, { spans_limit: 1_000, spans_cursor: cursor });
        spans.push(...page.spans);
        cursor = page.spans_next_cursor;
      }
      const tree = buildSpanTree(spans, trace_id);
      const more = first.spans_next_cursor;
      return {
        trace: traceLine(first),
        spans_read: spans.length,
        spans_not_read: more && spans.length < first.span_count ? first.span_count - spans.length : 0,
        condensed: condenseTrajectory(tree, max_chars),
        span_ids: tree.spans.map((n) => n.id),
      };
    },
  );

  readTool(
    server,
    'get_span_text',
    {
      title: "Read a span's whole input or output",
      description: "One span's input or output from `offset`, `max_chars` at a time (the condensed trace cuts them); `next_offset` is null at the end.",
      inputSchema: {
        span_id: Id,
        field: z.enum(['input', 'output', 'status_message']).default('output'),
        offset: z.number().int().min(0).default(0),
        max_chars: z.number().int().min(100).max(16_000).default(8_000),
      },
    },
    async ({ span_id, field, offset, max_chars }) => {
      const span = await api().spans.get(span_id);
      const text = span[field] ?? '';
      const end = Math.min(text.length, offset + max_chars);
      return {
        span_id,
        trace_id: span.trace_id,
        name: span.name,
        field,
        total_chars: text.length,
        offset,
        text: text.slice(offset, end),
        next_offset: end < text.length ? end : null,
      };
    },
  );

  readTool(
    server,
    'list_sessions',
    {
      title: 'List sessions',
      description: 'Conversations (traces sharing a session id), latest activity first; filter by user or errors. Pass next_cursor back as cursor.',
      inputSchema: {
        user_id: z.string().min(1).max(512).optional(),
        has_errors: z.boolean().optional(),
        limit: z.number().int().min(1).max(50).default(20),
        cursor: Cursor,
      },
    },
    async (args) => {
      const page = await api().sessions.list(args);
      return {
        sessions: page.sessions.map((s) => ({
          session_id: s.session_id,
          turns: s.trace_count,
          errors: s.error_count,
          start_time: s.start_time,
          end_time: s.end_time,
          first_trace_name: clip(s.first_trace_name, 200),
          user_ids: s.user_ids,
        })),
        next_cursor: page.next_cursor,
      };
    },
  );

  readTool(
    server,
    'get_session',
    {
      title: 'Read a session',
      description:
        "A session's turns oldest first: each trace's id, status and its root span's input and output (cut to text_chars; read more with get_trace).",
      inputSchema: { session_id: Id, text_chars: z.number().int().min(50).max(4_000).default(600) },
    },
    async ({ session_id, text_chars }) => {
      const s = await api().sessions.get(session_id);
      return {
        session_id: s.session_id,
        turns: s.traces.map((t) => ({
          ...traceLine(t),
          input: t.input === null ? null : clip(t.input, text_chars),
          output: t.output === null ? null : clip(t.output, text_chars),
        })),
      };
    },
  );
}
