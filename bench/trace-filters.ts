import type { Score } from '../core/model/score.js';
import type { ComponentType, SpanRecord } from '../core/model/span.js';
import type { TraceListQuery } from '../core/model/trace.js';
import { openMigratedClickHouse } from '../test/helpers/clickhouse-store.js';
import { numericScore } from '../test/helpers/score-record.js';
import { spanRecord } from '../test/helpers/span-record.js';
import { fillStore } from './fill-store.js';
import { flatTreeSpanIds, round, spreadTraceId, summarize } from './lib.js';

/**
 * GET /api/traces' filters at scale, in the store (chDB in-process, no HTTP): `traces` traces of
 * `spansPerTrace` spans (400-byte inputs and outputs; models and component types rotating; a span
 * error in 1 trace of 97; a `quality` score on every 10th trace), written through the store's
 * own batch writer. Then each filter's first page (limit 50) `reads` times, and its second page by
 * cursor once. Run: `npm run bench -- trace-filters [--traces N] [--spans-per-trace N] [--runs N]`.
 */
export interface TraceFiltersBenchOptions {
  traces: number;
  spansPerTrace: number;
  reads: number;
}

const PROJECT = 'bench-filters';
const MODELS = ['gpt-4o', 'gpt-4o-mini', 'claude-3', 'llama'];
const COMPONENTS: ComponentType[] = ['generation', 'tool', 'retrieval', 'planning', 'memory'];
const TEXT_BYTES = 400;

function spansOf(t: number, spansPerTrace: number, start: number): SpanRecord[] {
  const id = spreadTraceId(t);
  const out: SpanRecord[] = [];
  for (let s = 0; s < spansPerTrace; s++) {
    const comp = s === 0 ? null : COMPONENTS[(t + s) % COMPONENTS.length];
    const gen = comp === 'generation';
    out.push(
      spanRecord({
        ...flatTreeSpanIds(PROJECT, id, s),
        name: s === 0 ? `run-${t % 50}` : `${comp}-${s}`,
        span_type: gen ? 'generation' : comp === 'tool' ? 'tool' : comp === 'retrieval' ? 'retrieval' : 'span',
        component_type: comp,
        convention: 'spec',
        status: t % 97 === 0 && s === 1 ? 'error' : 'ok',
        start_time: start + s,
        end_time: start + s + (t % 1000) * 10,
        duration_ms: (t % 1000) * 10,
        model: gen ? MODELS[t % MODELS.length] : null,
        input: `question ${t} ${s} `.padEnd(TEXT_BYTES, 'lorem ipsum dolor sit amet '),
        output: `answer ${t} ${s} `.padEnd(TEXT_BYTES, 'consectetur adipiscing elit '),
        input_tokens: gen ? 10 : 0,
        output_tokens: gen ? 5 : 0,
        resource_attributes: { 'service.name': 'bench' },
      }),
    );
  }
  return out;
}

export async function benchTraceFilters(opts: TraceFiltersBenchOptions) {
  const { ch, store } = await openMigratedClickHouse();
  try {
    const now = Date.now();
    const t0 = performance.now();
    const scores: Score[] = [];
    for (let t = 0; t < opts.traces; t += 10) {
      scores.push(
        numericScore({ id: `s-${t}`, traceId: spreadTraceId(t), name: 'quality', value: (t % 100) / 100, source: 'api', scorer: null, createdAt: Date.now() }),
      );
    }
    await fillStore(store, PROJECT, { traces: opts.traces, now, spansOf: (t, start) => spansOf(t, opts.spansPerTrace, start), scores });
    const fill = { traces: opts.traces, spans: opts.traces * opts.spansPerTrace, seconds: round((performance.now() - t0) / 1000, 1) };
    console.log(JSON.stringify({ phase: 'fill', ...fill }));

    const cases: Record<string, Partial<TraceListQuery>> = {
      none: {},
      status_error: { status: 'error' },
      name: { name: 'run-7' },
      model: { model: 'claude-3' },
      component_type: { componentType: 'retrieval' },
      model_and_component_type: { model: 'claude-3', componentType: 'tool' },
      model_last_24h: { model: 'claude-3', startTime: new Date(now - 86_400_000) },
      min_duration_ms: { minDurationMs: 9000 },
      has_errors: { hasErrors: true },
      score_below: { scoreBelow: { name: 'quality', value: 0.05 } },
      search_name: { search: 'run-7' },
      search_span_content: { search: `question ${opts.traces - 10} 1 ` },
      search_no_match: { search: 'zzzz-nothing' },
    };
    const filters: Record<string, unknown> = {};
    for (const [label, q] of Object.entries(cases)) {
      const ms: number[] = [];
      let page = await store.listTraces(PROJECT, { limit: 50, offset: 0, ...q });
      for (let i = 0; i < opts.reads; i++) {
        const start = performance.now();
        page = await store.listTraces(PROJECT, { limit: 50, offset: 0, ...q });
        ms.push(performance.now() - start);
      }
      let nextMs: number | null = null;
      if (page.next_cursor) {
        const [startMs, id] = JSON.parse(Buffer.from(page.next_cursor, 'base64url').toString()) as [number, string];
        const start = performance.now();
        await store.listTraces(PROJECT, { limit: 50, offset: 0, ...q, cursor: { startMs, traceId: id } });
        nextMs = round(performance.now() - start, 1);
      }
      filters[label] = {
        first_page_ms: summarize(ms),
        next_page_ms: nextMs,
        total: page.total,
        rows: page.traces.length,
        search_truncated: page.search_truncated ?? null,
      };
      console.log(JSON.stringify({ phase: 'filter', filter: label, ...(filters[label] as object) }));
    }
    return { fill, filters };
  } finally {
    await ch.close();
  }
}
