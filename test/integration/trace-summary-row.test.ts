import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { TraceDetail, TraceList, TraceSummary } from '../../core/model/trace.js';
import { TRACE_SUMMARIES, TRACE_SUMMARY, traceSummariesSql } from '../../core/store/clickhouse/trace-stats-sql.js';
import { traceSummary, type TraceRow } from '../../core/store/clickhouse/trace-summary-row.js';
import { fromClickHouseTime } from '../../core/store/clickhouse/time.js';
import { exportVia, recordTrace } from '../e2e/helpers/otel.js';
import { agentText, loadCorpus, toSpanSpecs } from '../helpers/corpus.js';
import { childrenOf, ingestTrace } from '../helpers/ingest-trace.js';
import { expectJson, useTestApi } from '../helpers/test-service-hooks.js';

/**
 * A trace's summary is derived twice: in TypeScript from its merged states, for every read of the
 * API (core/store/clickhouse/trace-summary-row.ts), and in SQL for the bulk export, which
 * ClickHouse formats itself (trace-stats-sql.ts `traceSummariesSql`). Both must give every field
 * the same for every trace: the corpus (the four instrumentations over OTLP with their resources,
 * the SPEC's JSON body, the hostile traces) and traces of any shape (priced and unpriced
 * generations, tools, errors, a header's name, status and attributes, streamed writes, re-sent
 * spans). The API's trace page and list must show the same summary.
 */
// Without credentials: OTLP exporters send no key (what is under test is the read, not the keys: auth.test.ts).
const svc = useTestApi({ AUTH_MODE: 'none' });

type SqlSummary = Record<string, unknown> & { trace_id: string };

/** The export's SQL summary under the API's types. */
function fromSql(r: SqlSummary): TraceSummary {
  return {
    trace_id: r.trace_id,
    name: r.name as string,
    status: r.status as TraceSummary['status'],
    start_time: fromClickHouseTime(r.start_time as string),
    end_time: fromClickHouseTime(r.end_time as string),
    duration_ms: Number(r.duration_ms),
    span_count: Number(r.span_count),
    error_count: Number(r.error_count),
    total_input_tokens: Number(r.total_input_tokens),
    total_output_tokens: Number(r.total_output_tokens),
    tool_call_count: Number(r.tool_call_count),
    llm_call_count: Number(r.llm_call_count),
    total_cost: r.total_cost === null ? null : Number(r.total_cost),
    unpriced_llm_call_count: Number(r.unpriced_llm_call_count),
    attributes: r.attributes as Record<string, string>,
    session_id: r.session_id === '' ? null : (r.session_id as string),
    user_id: r.user_id === '' ? null : (r.user_id as string),
  };
}

async function query<T>(sql: string, params: Record<string, unknown>): Promise<T[]> {
  return (await svc.clickhouse.query({ query: sql, query_params: params, format: 'JSONEachRow' })).json<T>();
}

/** What the API shows of a trace (its page, a list item) holds `want`'s summary: times as the same instants, every other field equal. */
function expectShown(shown: Record<string, unknown>, want: TraceSummary, label: string): void {
  const { start_time, end_time, ...rest } = want;
  expect(Date.parse(shown.start_time as string), label).toBe(Date.parse(start_time));
  expect(Date.parse(shown.end_time as string), label).toBe(Date.parse(end_time));
  for (const [k, v] of Object.entries(rest)) expect(shown[k], `${label} ${k}`).toEqual(v);
}

/** Every trace of `project`: the TypeScript summaries (by GROUP BY and by FINAL) and the API's equal the SQL ones; the summaries. */
async function expectSameSummaries(project: string): Promise<TraceSummary[]> {
  const ids = (await query<{ trace_id: string }>('SELECT DISTINCT trace_id FROM agent_eval.trace_stats WHERE project_id = {project:String}', { project })).map(
    (r) => r.trace_id,
  );
  const bySql = new Map((await query<SqlSummary>(traceSummariesSql('{traces:Array(String)}'), { project, traces: ids })).map((r) => [r.trace_id, fromSql(r)]));
  const grouped = (await query<TraceRow>(TRACE_SUMMARIES, { project, traces: ids })).map(traceSummary);
  expect(grouped.length).toBe(ids.length);
  for (const t of grouped) expect(t, t.trace_id).toEqual(bySql.get(t.trace_id));
  const list = await expectJson<TraceList>(await svc.api('/api/traces?limit=200', { project }));
  expect(list.traces.length).toBe(ids.length);
  for (const item of list.traces) {
    const want = bySql.get(item.trace_id)!;
    const [final] = (await query<TraceRow>(TRACE_SUMMARY, { project, traces: [item.trace_id] })).map(traceSummary);
    expect(final, item.trace_id).toEqual(want);
    const detail = await expectJson<TraceDetail>(await svc.api(`/api/traces/${encodeURIComponent(item.trace_id)}`, { project }));
    expectShown(detail as unknown as Record<string, unknown>, want, `page of ${item.trace_id}`);
    expectShown(item as unknown as Record<string, unknown>, want, `list item ${item.trace_id}`);
  }
  return grouped;
}

describe('a trace summary derived in TypeScript and in SQL', () => {
  it('agrees for every trace of the corpus, over OTLP with their resources and as JSON', async () => {
    const project = 'summary-row-corpus';
    const corpus = loadCorpus();
    for (const t of corpus.otel) await exportVia('http/protobuf', svc.apiUrl!, project, (await recordTrace(t.resource, toSpanSpecs(t))).spans);
    for (const t of corpus.json) expect((await svc.api('/api/traces/ingest', { method: 'POST', json: t.body, project })).status).toBe(201);
    // A resource whose attribute keys are an object's own names (a trace's attributes start from its
    // root's resource), as OTLP JSON: the OpenTelemetry SDK would drop them before sending.
    const str = (v: string) => ({ stringValue: v });
    const hostileKeys: unknown = JSON.parse(`{"resourceSpans": [{
      "resource": {"attributes": [
        {"key": "__proto__", "value": ${JSON.stringify(str('proto-as-key'))}},
        {"key": "constructor", "value": ${JSON.stringify(str('ctor'))}},
        {"key": "service.name", "value": ${JSON.stringify(str('hostile-keys'))}}]},
      "scopeSpans": [{"scope": {"name": "agent"}, "spans": [{
        "traceId": "7f000000000000000000000000000042", "spanId": "7f00000000000042", "name": "answer",
        "startTimeUnixNano": "${(Date.now() - 60_000) * 1e6}", "endTimeUnixNano": "${(Date.now() - 59_000) * 1e6}",
        "attributes": [{"key": "gen_ai.completion.0.content", "value": ${JSON.stringify(str('Done.\n\n```json\n{"ok": true}\n```'))}}]}]}]}]}`);
    expect((await svc.api('/v1/traces', { method: 'POST', json: hostileKeys, project })).status).toBe(200);
    const summaries = await expectSameSummaries(project);
    expect(summaries.length).toBe(corpus.otel.length + corpus.json.length + 1);
    const named = summaries.find((s) => s.attributes['service.name'] === 'hostile-keys');
    expect(Object.entries(named?.attributes ?? {})).toEqual(
      expect.arrayContaining([
        ['__proto__', 'proto-as-key'],
        ['constructor', 'ctor'],
      ]),
    );
    // What the corpus holds, so the comparison covers it: resources, tools, generations, errors.
    expect(summaries.some((s) => s.attributes['service.name'] !== undefined)).toBe(true);
    expect(summaries.some((s) => s.tool_call_count > 0)).toBe(true);
    expect(summaries.some((s) => s.llm_call_count > 0 && s.total_input_tokens > 0)).toBe(true);
    expect(summaries.some((s) => s.error_count > 0 && s.status === 'error')).toBe(true);
  });

  it('agrees for traces of any shape, written in one write or several (property)', async () => {
    const base = Date.now() - 3_600_000;
    const spanSpec = fc.record({
      kind: fc.constantFrom('priced', 'unpriced', 'tool', 'step'),
      error: fc.boolean(),
      tokens: fc.integer({ min: 0, max: 50_000 }),
      text: agentText({ maxLength: 400 }),
      write: fc.integer({ min: 0, max: 2 }),
      resent: fc.boolean(),
    });
    const traceSpec = fc.record({
      spans: fc.array(spanSpec, { maxLength: 6 }),
      name: fc.constantFrom('triage ticket 🎫', 'تلخيص', 'support-agent'),
      status: fc.constantFrom('ok', 'error'),
      attributes: fc.option(fc.dictionary(fc.constantFrom('env', 'service.name', 'tags', 'الفريق'), fc.string({ maxLength: 20 })), { nil: undefined }),
      durationMs: fc.integer({ min: 0, max: 120_000 }),
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(traceSpec, { minLength: 1, maxLength: 4 }), async (traces) => {
        const project = `summary-row-${++run}`;
        for (const [i, t] of traces.entries()) {
          const id = `trace-${i}`;
          const start = base + i * 60_000;
          const child = childrenOf(id, start);
          const spans = t.spans.map((s, n) =>
            child(`s${n}`, n * 100, 50 + n, {
              name: s.kind === 'tool' ? 'search_orders' : s.kind === 'step' ? 'plan' : 'chat',
              type: s.kind === 'tool' ? 'tool' : s.kind === 'step' ? 'span' : 'generation',
              input: s.text,
              output: s.text.slice(0, 100),
              ...(s.kind === 'priced' || s.kind === 'unpriced'
                ? { model: s.kind === 'priced' ? 'gpt-4o' : 'house-model-v0', input_tokens: s.tokens, output_tokens: Math.floor(s.tokens / 3) }
                : {}),
              ...(s.error ? { status: 'error', status_message: 'tool failed:\n\n```\nTimeoutError\n```' } : {}),
            }),
          );
          const first = ingestTrace(id, {
            name: t.name,
            start,
            durationMs: t.durationMs,
            status: t.status,
            ...(t.attributes ? { attributes: t.attributes } : {}),
            root: { span_id: `${id}-root`, name: 'support-agent', type: 'span' },
            spans: spans.filter((_, n) => t.spans[n].write === 0),
          });
          const post = async (path: string, body: unknown) => {
            const res = await svc.api(path, { method: 'POST', json: body, project });
            expect(res.status, await res.clone().text()).toBe(201);
          };
          await post('/api/traces/ingest', first);
          for (const w of [1, 2]) {
            const later = spans.filter((_, n) => t.spans[n].write === w || (t.spans[n].resent && w === 2));
            if (later.length) await post('/api/spans', { trace_id: id, spans: later });
          }
        }
        expect((await expectSameSummaries(project)).length).toBe(traces.length);
      }),
      { numRuns: 10, timeout: 60_000, endOnFailure: true },
    );
  }, 300_000);
});
