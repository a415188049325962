import type { SpanRecord } from '../core/model/span.js';
import type { SessionListQuery } from '../core/model/trace-session.js';
import type { Score } from '../core/model/score.js';
import { openMigratedClickHouse } from '../test/helpers/clickhouse-store.js';
import { numericScore } from '../test/helpers/score-record.js';
import { spanRecord } from '../test/helpers/span-record.js';
import { fillStore } from './fill-store.js';
import { flatTreeSpanIds, round, spreadTraceId, summarize } from './lib.js';

/**
 * Issue 29, "Measure": the sessions reads at scale, in the store (chDB in-process, no HTTP: what
 * GET /api/sessions and GET /api/sessions/{id} run), as trace-filters does for the traces list.
 * `traces` traces of `spansPerTrace` spans in conversations of 1-9 turns (a session every ~5
 * traces, 2,000 users), written through the store's own batch writer: each trace a root span naming
 * its session and user (`session.id`, `user.id`) with the turn's input and output, then
 * generations (model, tokens), tool calls and retrievals, 400-byte texts; a span error in 1 trace
 * of 97; a `helpfulness` score on every 3rd trace. Then `reads` times each: the first page (limit
 * 50), filtered pages (user, with errors, mean score below), the second page by cursor, one
 * session's view, and GET /api/analytics/tools over the last 24 hours (a toolCalls score on every
 * 6th trace, half naming lookup_order's arguments). Run: `npm run bench -- session-list [--traces N] [--spans-per-trace N] [--runs N]`.
 */
export interface SessionListBenchOptions {
  traces: number;
  spansPerTrace: number;
  reads: number;
}

const PROJECT = 'bench-sessions';
const TEXT_BYTES = 400;
const USERS = 2000;

/** Sessions of 1-9 turns, consecutive traces: trace t belongs to session sessionOf[t]. */
function sessions(traces: number): number[] {
  const of: number[] = [];
  for (let s = 0, t = 0; t < traces; s++) {
    const turns = 1 + ((s * 7) % 9);
    for (let k = 0; k < turns && t < traces; k++, t++) of.push(s);
  }
  return of;
}

function spansOf(t: number, session: number, spansPerTrace: number, start: number): SpanRecord[] {
  const id = spreadTraceId(t);
  const out: SpanRecord[] = [];
  for (let s = 0; s < spansPerTrace; s++) {
    const kind = s === 0 ? 'root' : s % 3 === 1 ? 'generation' : s % 3 === 2 ? 'tool' : 'retrieval';
    out.push(
      spanRecord({
        ...flatTreeSpanIds(PROJECT, id, s),
        name: kind === 'root' ? `support-agent` : kind === 'generation' ? 'chat gpt-4o' : kind === 'tool' ? 'lookup_order' : 'vector search',
        span_type: kind === 'root' ? 'span' : kind,
        component_type: kind === 'root' ? null : kind,
        convention: 'spec',
        status: t % 97 === 0 && s === 1 ? 'error' : 'ok',
        start_time: start + s * 10,
        end_time: start + s * 10 + 200,
        duration_ms: 200,
        model: kind === 'generation' ? 'gpt-4o' : null,
        input: `turn ${t} question ${s} `.padEnd(TEXT_BYTES, 'where is my order, it was due on monday '),
        output: `turn ${t} answer ${s} `.padEnd(TEXT_BYTES, 'your order ships tomorrow from the warehouse '),
        input_tokens: kind === 'generation' ? 900 : 0,
        output_tokens: kind === 'generation' ? 120 : 0,
        attributes:
          kind === 'root'
            ? { 'session.id': `sess-${session}`, 'user.id': `user-${session % USERS}` }
            : kind === 'tool'
              ? { tool_name: 'lookup_order', tool_input: `{"order_id":"ORD-${t}"}` }
              : {},
        resource_attributes: { 'service.name': 'support-bot', 'deployment.environment.name': 'prod' },
      }),
    );
  }
  return out;
}

export async function benchSessionList(opts: SessionListBenchOptions) {
  const { ch, store } = await openMigratedClickHouse();
  try {
    const now = Date.now();
    const of = sessions(opts.traces);
    const t0 = performance.now();
    const scores: Score[] = [];
    for (let t = 0; t < opts.traces; t += 3) {
      scores.push(
        numericScore({
          id: `s-${t}`,
          traceId: spreadTraceId(t),
          name: 'helpfulness',
          value: (t % 100) / 100,
          source: 'eval',
          scorer: 'helpfulness',
          createdAt: Date.now(),
        }),
      );
    }
    // A run's toolCalls score on every 6th trace, every other one naming lookup_order's arguments (tool analytics).
    for (let t = 0; t < opts.traces; t += 6) {
      const wrong = t % 12 === 0;
      scores.push({
        id: `tc-${t}`,
        trace_id: spreadTraceId(t),
        span_id: null,
        name: 'toolCalls',
        value: wrong ? 0.5 : 1,
        score_type: 'numeric',
        source: 'eval',
        scorer_name: 'toolCalls',
        reason: wrong
          ? 'strict: call 1 (lookup_order) differs: $.order_id: expected "ORD-1", got "ORD-2"; 2 of 3 line up in order'
          : 'strict: the 3 calls expected were made in order, and no other',
        evidence: [],
        created_at: new Date().toISOString(),
      });
    }
    await fillStore(store, PROJECT, { traces: opts.traces, now, spansOf: (t, start) => spansOf(t, of[t], opts.spansPerTrace, start), scores });
    const sessionCount = of[of.length - 1] + 1;
    const fill = { traces: opts.traces, spans: opts.traces * opts.spansPerTrace, sessions: sessionCount, seconds: round((performance.now() - t0) / 1000, 1) };
    console.log(JSON.stringify({ phase: 'fill', ...fill }));

    const timed = async <T>(label: string, read: () => Promise<T>, describe: (r: T) => Record<string, unknown>) => {
      let last = await read();
      const ms: number[] = [];
      for (let i = 0; i < opts.reads; i++) {
        const start = performance.now();
        last = await read();
        ms.push(performance.now() - start);
      }
      const row = { ms: summarize(ms), ...describe(last) };
      console.log(JSON.stringify({ phase: 'read', read: label, ...row }));
      return row;
    };
    const list = (q: Partial<SessionListQuery>) => () => store.sessions.listSessions(PROJECT, { limit: 50, ...q });
    const pageOf = (r: Awaited<ReturnType<ReturnType<typeof list>>>) => ({ total: r.total, rows: r.sessions.length });
    const reads: Record<string, unknown> = {};
    reads.first_page = await timed('first_page', list({}), pageOf);
    reads.user = await timed('user', list({ userId: 'user-7' }), pageOf);
    reads.has_errors = await timed('has_errors', list({ hasErrors: true }), pageOf);
    reads.score_below = await timed('score_below', list({ scoreBelow: { name: 'helpfulness', value: 0.1 } }), pageOf);
    const first = await store.sessions.listSessions(PROJECT, { limit: 50 });
    const [endMs, id] = JSON.parse(Buffer.from(first.next_cursor!, 'base64url').toString()) as [number, string];
    reads.second_page = await timed('second_page', list({ cursor: { endMs, sessionId: id } }), pageOf);
    // A 9-turn session from the middle of the data.
    const middle = `sess-${Math.floor(sessionCount / 2)}`;
    reads.session_view = await timed(
      'session_view',
      () => store.sessions.getSession(PROJECT, middle),
      (s) => ({ turns: s?.traces.length ?? 0 }),
    );
    // GET /api/analytics/tools over the last 24 hours (most of the data).
    reads.tools_24h = await timed(
      'tools_24h',
      () => store.aggregates.tools(PROJECT, { fromMs: Date.now() - 86_400_000, toMs: Date.now() }),
      (a) => ({ tool_calls: a.tool_call_count, scored: a.scored_count, mismatch_rate: a.tools[0]?.argument_mismatch_rate ?? null }),
    );
    return { fill, reads };
  } finally {
    await ch.close();
  }
}
