import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { SessionList } from '../../core/model/trace-session.js';
import { sessionCountSql, sessionPageSql, type SessionFilter } from '../../core/store/clickhouse/trace-session-sql.js';
import { traceCountSql, tracePageSql } from '../../core/store/clickhouse/trace-page-sql.js';
import { TRACE_SUMMARIES, TRACE_SUMMARY, type TraceFilter } from '../../core/store/clickhouse/trace-stats-sql.js';
import type { TraceSort } from '../../core/model/trace-sort.js';
import { TRACE_SERIES } from '../../core/store/clickhouse/analytics-sql.js';
import { TOP_COSTS } from '../../core/store/clickhouse/cost-breakdown-sql.js';
import { toClickHouseTime } from '../../core/store/clickhouse/time.js';
import { TRACE_STATE_COLUMNS, traceStateRows, type TraceStateColumnName } from '../../core/store/clickhouse/trace-state-rows.js';
import { loadCorpus } from '../helpers/corpus.js';
import { childrenOf, ingestTrace } from '../helpers/ingest-trace.js';
import { expectJson, useTestApi } from '../helpers/test-service-hooks.js';

/**
 * The reads over every trace (the traces list in every order and filter, its count, the sessions
 * page) read a trace stored in one `trace_stats` row as stored and merge only the traces stored in
 * several rows or written in the last minute (core/store/clickhouse/trace-state-rows.ts). Here the
 * same store is read both ways: with
 * `recentSeconds` 0 (every one-row trace read as stored) and with years (every trace merged, as
 * before). The traces come through the real write path, with the corpus's texts, in one write or
 * streamed over several (the summary merges held back, so each write stays a row of its own), with
 * re-sent spans and a session named only by a later write. Both ways must give every trace once with
 * the same summary, and the same pages, counts and filters, before and after the table merges the rows.
 */
const svc = useTestApi();
const base = Math.floor(Date.now() / 60_000) * 60_000 - 3_600_000;
const texts = loadCorpus()
  .json.flatMap((t) => t.body.spans)
  .flatMap((s) => [s.input, s.output])
  .filter((v): v is string => typeof v === 'string' && v.length > 0);
const ALL_AS_STORED = 0;
const ALL_MERGED = 10 * 365 * 86_400;

beforeAll(async () => {
  await svc.clickhouse.command({ query: 'SYSTEM STOP MERGES agent_eval.trace_stats' });
});
afterAll(async () => {
  await svc.clickhouse.command({ query: 'SYSTEM START MERGES agent_eval.trace_stats' });
});

async function post(project: string, path: string, body: unknown): Promise<void> {
  await expectJson(await svc.api(path, { method: 'POST', json: body, project }), 201);
}

/** A turn's root span, naming its session and user as OpenTelemetry's conventions do (nothing when absent). */
function root(id: string, start: number, ms: number, who: { session?: string; user?: string }, text: number) {
  const attributes: Record<string, string> = {};
  if (who.session) attributes['session.id'] = who.session;
  if (who.user) attributes['user.id'] = who.user;
  return {
    span_id: `${id}-root`,
    name: 'support-agent',
    type: 'span',
    input: texts[text % texts.length],
    output: texts[(text + 1) % texts.length],
    attributes,
    ms,
  };
}

/** A generation under the root, `at` ms after `start`; an error when asked. */
function generation(id: string, suffix: string, start: number, at: number, error = false) {
  return childrenOf(id, start)(suffix, at, 400, {
    name: 'chat gpt-4o',
    type: 'generation',
    model: 'gpt-4o',
    input_tokens: 120,
    output_tokens: 30,
    input: texts[at % texts.length],
    output: texts[(at + 3) % texts.length],
    ...(error ? { status: 'error', status_message: 'rate limited\n\nretry in 20 s' } : {}),
  });
}

/** The first write of a trace: the JSON body with its root span (`who` names the session) and `spans`. */
function firstWrite(id: string, start: number, who: { session?: string; user?: string }, spans: Array<Record<string, unknown>>, status: 'ok' | 'error' = 'ok') {
  const r = root(id, start, 2_000, who, start / 60_000);
  const { ms, ...fields } = r;
  return ingestTrace(id, { name: `turn ${id}`, start, durationMs: ms, status, root: fields, spans });
}

/** The store's id of `project` (the header names it): checked to hold the traces the API lists. */
async function projectId(project: string): Promise<string> {
  const list = await expectJson<{ traces: Array<{ trace_id: string }> }>(await svc.api('/api/traces?limit=200', { project }));
  expect(Object.keys(await storedRows(project)).sort()).toEqual(list.traces.map((t) => t.trace_id).sort());
  return project;
}

/** Rows of each trace in trace_stats, by trace id. */
async function storedRows(id: string): Promise<Record<string, number>> {
  const rs = await svc.clickhouse.query({
    query: 'SELECT trace_id, count() AS n FROM agent_eval.trace_stats WHERE project_id = {p:String} GROUP BY trace_id',
    query_params: { p: id },
    format: 'JSONEachRow',
  });
  return Object.fromEntries((await rs.json<{ trace_id: string; n: string | number }>()).map((r) => [r.trace_id, Number(r.n)]));
}

interface PageFilters {
  userId?: string;
  hasErrors?: 0 | 1;
  startTime?: number;
  endTime?: number;
}

/** The sessions page and the count as the store asks for them, with `recentSeconds` chosen. */
async function readBothWays(id: string, f: PageFilters = {}) {
  const filters = (['userId', 'hasErrors', 'startTime', 'endTime'] as const).filter((k) => f[k] !== undefined) as SessionFilter[];
  const params = {
    project: id,
    limit: 100,
    userId: f.userId,
    hasErrors: f.hasErrors,
    startTime: f.startTime === undefined ? undefined : toClickHouseTime(f.startTime),
    endTime: f.endTime === undefined ? undefined : toClickHouseTime(f.endTime),
  };
  const read = async (recentSeconds: number) => {
    const page = await svc.clickhouse.query({ query: sessionPageSql(filters, false), query_params: { ...params, recentSeconds }, format: 'JSONEachRow' });
    const count = await svc.clickhouse.query({ query: sessionCountSql(filters), query_params: { ...params, recentSeconds }, format: 'JSONEachRow' });
    return {
      page: (await page.json<{ session_id: string; end_ms: string | number; total: string | number }>()).map((r) => [
        r.session_id,
        Number(r.end_ms),
        Number(r.total),
      ]),
      count: Number((await count.json<{ total: string | number }>())[0]?.total ?? 0),
    };
  };
  const asStored = await read(ALL_AS_STORED);
  const merged = await read(ALL_MERGED);
  return { asStored, merged };
}

type TraceRow = Record<'trace_id' | TraceStateColumnName, unknown>;

/** Every trace's summary columns as traceStateRows gives them (all of them), with `recentSeconds` chosen: one row per trace. */
async function traceRows(id: string, recentSeconds: number): Promise<TraceRow[]> {
  const columns = Object.keys(TRACE_STATE_COLUMNS) as TraceStateColumnName[];
  const rs = await svc.clickhouse.query({
    query: `SELECT trace_id, ${columns.join(', ')} FROM ${traceStateRows(columns)} ORDER BY trace_id`,
    query_params: { project: id, recentSeconds },
    format: 'JSONEachRow',
  });
  return rs.json<TraceRow>();
}

/** Each trace once, with the same values both ways; the rows. */
async function expectSameTraces(id: string): Promise<TraceRow[]> {
  const asStored = await traceRows(id, ALL_AS_STORED);
  expect(asStored).toEqual(await traceRows(id, ALL_MERGED));
  const ids = asStored.map((r) => r.trace_id);
  expect(new Set(ids).size).toBe(ids.length);
  // A trace's summary by FINAL (the trace page's read) is its summary by GROUP BY (the lists').
  const summaries = async (query: string, traces: unknown[]) =>
    (await svc.clickhouse.query({ query, query_params: { project: id, traces }, format: 'JSONEachRow' })).json<{ trace_id: string }>();
  const grouped = new Map((await summaries(TRACE_SUMMARIES, ids)).map((r) => [r.trace_id, r]));
  for (const trace of ids) expect(await summaries(TRACE_SUMMARY, [trace])).toEqual([grouped.get(trace as string)]);
  return asStored;
}

/** `v` with every number to 12 significant digits. */
function rounded(v: unknown): unknown {
  if (typeof v === 'number') return Number(v.toPrecision(12));
  if (Array.isArray(v)) return v.map(rounded);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rounded(x)]));
  return v;
}

/** A page of the traces list (every order, a few filters) and its count, both ways. */
async function expectSameLists(id: string): Promise<void> {
  const cases: Array<{ filters: TraceFilter[]; sort: TraceSort; params?: Record<string, unknown> }> = [
    { filters: [], sort: { by: 'time', order: 'desc' } },
    { filters: [], sort: { by: 'cost', order: 'desc' } },
    { filters: [], sort: { by: 'tokens', order: 'asc' } },
    { filters: [], sort: { by: 'duration', order: 'desc' } },
    { filters: ['status'], sort: { by: 'time', order: 'desc' }, params: { status: 'error' } },
    { filters: ['minDurationMs', 'hasErrors'], sort: { by: 'time', order: 'asc' }, params: { minDurationMs: 1_000, hasErrors: 0 } },
    { filters: ['name'], sort: { by: 'tokens', order: 'desc' }, params: { name: 'TURN' } },
    { filters: ['sessionId'], sort: { by: 'time', order: 'desc' }, params: { sessionId: 'conv-α' } },
    {
      filters: ['sessionId', 'startTime'],
      sort: { by: 'time', order: 'desc' },
      params: { sessionId: 'conv-α', startTime: toClickHouseTime(base + 2 * 60_000) },
    },
    // A start bound reads only the traces with a row since then (trace-state-rows.ts `since`).
    { filters: ['startTime'], sort: { by: 'time', order: 'desc' }, params: { startTime: toClickHouseTime(base + 2 * 60_000) } },
    { filters: ['startTime', 'status'], sort: { by: 'cost', order: 'desc' }, params: { startTime: toClickHouseTime(base + 11 * 60_000), status: 'ok' } },
  ];
  for (const c of cases) {
    const read = async (recentSeconds: number) => {
      const query_params = { project: id, limit: 100, offset: 0, recentSeconds, ...c.params };
      const page = await svc.clickhouse.query({ query: tracePageSql(c.filters, false, c.sort), query_params, format: 'JSONCompactEachRow' });
      const count = await svc.clickhouse.query({ query: traceCountSql(c.filters), query_params, format: 'JSONEachRow' });
      return { page: await page.json(), count: await count.json() };
    };
    expect(await read(ALL_AS_STORED), JSON.stringify(c)).toEqual(await read(ALL_MERGED));
  }
  // The analytics' trace series and costliest traces over windows that start mid-way (a window's `since`).
  for (const from of [base, base + 2 * 60_000, base + 11 * 60_000]) {
    const read = async (recentSeconds: number) => {
      const query_params = {
        project: id,
        from: toClickHouseTime(from),
        to: toClickHouseTime(base + 3_600_000),
        step: 600,
        status: 'error',
        top: 10,
        recentSeconds,
      };
      const series = await svc.clickhouse.query({ query: TRACE_SERIES, query_params, format: 'JSONEachRow' });
      const top = await svc.clickhouse.query({ query: TOP_COSTS, query_params, format: 'JSONEachRow' });
      // Sums of costs in another order differ in the last bits of a double.
      return rounded({ series: await series.json(), top: await top.json() });
    };
    expect(await read(ALL_AS_STORED), `from ${from - base} ms`).toEqual(await read(ALL_MERGED));
  }
}

describe('traces and sessions over every trace: one-row traces read as stored', () => {
  const project = 'state-rows-fixed';
  const t = (minute: number) => base + minute * 60_000;

  it('gives the page, the count and each filter of the all-merged read, before and after the rows merge', async () => {
    // a1: one write. a2: streamed in three writes, the last one an error ending the session at minute 9.
    await post(project, '/api/traces/ingest', firstWrite('a1', t(1), { session: 'conv-α', user: 'alice' }, [generation('a1', 'llm', t(1), 200)]));
    await post(project, '/api/traces/ingest', firstWrite('a2', t(2), { session: 'conv-α', user: 'alice' }, []));
    await post(project, '/api/spans', { trace_id: 'a2', spans: [generation('a2', 'llm-1', t(2), 60_000)] });
    await post(project, '/api/spans', { trace_id: 'a2', spans: [generation('a2', 'llm-2', t(2), 7 * 60_000, true)] });
    // b1: one write whose header says error. b2: a child span first; the root naming the session comes later.
    await post(project, '/api/traces/ingest', firstWrite('b1', t(10), { session: 'sess-β 会话', user: 'bob' }, [], 'error'));
    await post(project, '/api/spans', { trace_id: 'b2', spans: [{ ...generation('b2', 'llm', t(11), 100), parent_span_id: 'b2-root' }] });
    await post(project, '/api/traces/ingest', firstWrite('b2', t(11), { session: 'sess-β 会话', user: 'bob' }, []));
    // c1: the same spans sent twice. lone: no session at all.
    const c1 = firstWrite('c1', t(15), { session: 'conv-γ' }, [generation('c1', 'llm', t(15), 300)]);
    await post(project, '/api/traces/ingest', c1);
    await post(project, '/api/traces/ingest', c1);
    await post(project, '/api/traces/ingest', firstWrite('lone', t(20), {}, []));

    const id = await projectId(project);
    expect(await storedRows(id)).toEqual({ a1: 1, a2: 3, b1: 1, b2: 2, c1: 2, lone: 1 });

    const expected = [
      ['conv-γ', t(15) + 2_000, 3],
      ['sess-β 会话', t(11) + 2_000, 3],
      ['conv-α', t(2) + 7 * 60_000 + 400, 3],
    ];
    const check = async () => {
      const rows = await expectSameTraces(id);
      expect(rows.map((r) => r.trace_id)).toEqual(['a1', 'a2', 'b1', 'b2', 'c1', 'lone']);
      const of = (trace: string) => rows.find((r) => r.trace_id === trace)!;
      // b2's session came with its second write; a2's error and its three calls' tokens over three writes; c1's re-sent call once.
      expect(of('b2').session_id).toBe('sess-β 会话');
      expect(of('a2').span_error).toBe(1);
      expect(Number(of('a2').tokens)).toBe(2 * 150);
      expect(Number(of('c1').tokens)).toBe(150);
      expect(of('b1').header_status).toBe('error');
      expect(of('lone').session_id).toBe('');
      await expectSameLists(id);
      // A session's traces since minute 2 (picked by id, then bounded by start): a2 alone.
      const picked = await svc.clickhouse.query({
        query: tracePageSql(['sessionId', 'startTime'], false),
        query_params: { project: id, limit: 10, offset: 0, recentSeconds: 60, sessionId: 'conv-α', startTime: toClickHouseTime(t(2)) },
        format: 'JSONEachRow',
      });
      expect((await picked.json<{ trace_id: string }>()).map((r) => r.trace_id)).toEqual(['a2']);
      const all = await readBothWays(id);
      expect(all.asStored).toEqual(all.merged);
      expect(all.asStored.page).toEqual(expected);
      expect(all.asStored.count).toBe(3);
      for (const f of [
        { userId: 'alice' },
        { userId: 'bob' },
        { hasErrors: 1 as const },
        { hasErrors: 0 as const },
        { startTime: t(12) },
        { endTime: t(10) },
        { startTime: t(5), endTime: t(12), hasErrors: 1 as const },
      ]) {
        const r = await readBothWays(id, f);
        expect(r.asStored, JSON.stringify(f)).toEqual(r.merged);
      }
      expect((await readBothWays(id, { userId: 'alice' })).asStored.page.map((r) => r[0])).toEqual(['conv-α']);
      expect((await readBothWays(id, { hasErrors: 1 })).asStored.page.map((r) => r[0])).toEqual(['sess-β 会话', 'conv-α']);
      // Through the API (its reads bind the real minute: every trace here is that recent, so merged).
      const api = await expectJson<SessionList>(await svc.api('/api/sessions?limit=10', { project }));
      expect(api.sessions.map((s) => [s.session_id, s.trace_count])).toEqual([
        ['conv-γ', 1],
        ['sess-β 会话', 2],
        ['conv-α', 2],
      ]);
    };
    await check();

    await svc.clickhouse.command({ query: 'SYSTEM START MERGES agent_eval.trace_stats' });
    try {
      await svc.clickhouse.command({ query: 'OPTIMIZE TABLE agent_eval.trace_stats FINAL' });
      expect(await storedRows(id)).toEqual({ a1: 1, a2: 1, b1: 1, b2: 1, c1: 1, lone: 1 });
      await check();
    } finally {
      await svc.clickhouse.command({ query: 'SYSTEM STOP MERGES agent_eval.trace_stats' });
    }
  });
});

describe('traces and sessions over every trace, any writes (property)', () => {
  const SESSIONS = ['conv-1', 'جلسة-2', '🚀-3'];
  const USERS = ['alice', 'bob', 'carol'];
  const write = fc.record({
    /** Which of the trace's spans this write carries (0 = the root, which names the session). */
    spans: fc.uniqueArray(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 4 }),
    error: fc.boolean(),
  });
  const traceSpec = fc.record({
    minute: fc.integer({ min: 0, max: 50 }),
    session: fc.option(fc.integer({ min: 0, max: SESSIONS.length - 1 }), { nil: undefined }),
    user: fc.option(fc.integer({ min: 0, max: USERS.length - 1 }), { nil: undefined }),
    writes: fc.array(write, { minLength: 1, maxLength: 3 }),
  });
  let run = 0;

  it('reads the same page, count and filters both ways', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(traceSpec, { minLength: 1, maxLength: 8 }), async (specs) => {
        const project = `state-rows-${++run}`;
        for (const [i, s] of specs.entries()) {
          const id = `t${i}`;
          const start = base + s.minute * 60_000;
          const who = { session: s.session === undefined ? undefined : SESSIONS[s.session], user: s.user === undefined ? undefined : USERS[s.user] };
          for (const w of s.writes) {
            const children = w.spans.filter((n) => n > 0).map((n) => generation(id, `llm-${n}`, start, n * 1_000, w.error && n === 1));
            if (w.spans.includes(0)) await post(project, '/api/traces/ingest', firstWrite(id, start, who, children));
            else await post(project, '/api/spans', { trace_id: id, spans: children.map((c) => ({ ...c })) });
          }
        }
        const id = await projectId(project);
        expect((await expectSameTraces(id)).length).toBe(specs.length);
        await expectSameLists(id);
        for (const f of [
          {},
          { userId: 'alice' },
          { hasErrors: 1 as const },
          { hasErrors: 0 as const },
          { startTime: base + 20 * 60_000 },
          { endTime: base + 30 * 60_000 },
        ]) {
          const r = await readBothWays(id, f);
          expect(r.asStored, JSON.stringify(f)).toEqual(r.merged);
        }
      }),
      { numRuns: 12, timeout: 60_000, endOnFailure: true },
    );
  }, 300_000);
});
