import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '../core/logger.js';
import type { ComponentType, SpanRecord } from '../core/model/span.js';
import type { TraceListQuery } from '../core/model/trace.js';
import { createAnalyticsStore } from '../core/store/clickhouse/analytics-store.js';
import { connectClickHouse } from '../core/store/clickhouse/client.js';
import { clickhouseMigrationTarget } from '../core/store/clickhouse/migration-target.js';
import { encodeRowBatch } from '../core/store/clickhouse/trace-stats-rows.js';
import { migrate } from '../core/store/migrations.js';
import { round, summarize } from './lib.js';

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

const traceId = (t: number) => `tr-${t.toString(36)}-${((t * 2654435761) % 4294967296).toString(16)}`;

function spansOf(t: number, spansPerTrace: number, start: number): SpanRecord[] {
  const id = traceId(t);
  const out: SpanRecord[] = [];
  for (let s = 0; s < spansPerTrace; s++) {
    const comp = s === 0 ? null : COMPONENTS[(t + s) % COMPONENTS.length];
    const gen = comp === 'generation';
    out.push({
      project_id: PROJECT,
      trace_id: id,
      span_id: `${id}-${s}`,
      parent_span_id: s === 0 ? null : `${id}-0`,
      name: s === 0 ? `run-${t % 50}` : `${comp}-${s}`,
      span_type: gen ? 'generation' : comp === 'tool' ? 'tool' : comp === 'retrieval' ? 'retrieval' : 'span',
      component_type: comp,
      convention: 'spec',
      kind: '',
      status: t % 97 === 0 && s === 1 ? 'error' : 'ok',
      status_message: '',
      start_time: start + s,
      end_time: start + s + (t % 1000) * 10,
      duration_ms: (t % 1000) * 10,
      model: gen ? MODELS[t % MODELS.length] : null,
      input: `question ${t} ${s} `.padEnd(TEXT_BYTES, 'lorem ipsum dolor sit amet '),
      output: `answer ${t} ${s} `.padEnd(TEXT_BYTES, 'consectetur adipiscing elit '),
      input_tokens: gen ? 10 : 0,
      output_tokens: gen ? 5 : 0,
      attributes: {},
      resource_attributes: { 'service.name': 'bench' },
      scope_name: '',
      scope_version: '',
      events: '[]',
    });
  }
  return out;
}

export async function benchTraceFilters(opts: TraceFiltersBenchOptions) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-eval-bench-filters-'));
  const ch = await connectClickHouse({ dataDir: dir });
  try {
    await migrate(clickhouseMigrationTarget(ch.client), createLogger('silent'));
    const store = createAnalyticsStore(ch);
    const now = Date.now();
    const t0 = performance.now();
    let batch: SpanRecord[] = [];
    for (let t = 0; t < opts.traces; t++) {
      batch.push(...spansOf(t, opts.spansPerTrace, now - (opts.traces - t) * 1000));
      if (batch.length >= 20_000) {
        await store.writeRows(encodeRowBatch(batch));
        batch = [];
      }
    }
    if (batch.length) await store.writeRows(encodeRowBatch(batch));
    const scores = [];
    for (let t = 0; t < opts.traces; t += 10) {
      scores.push({
        id: `s-${t}`,
        trace_id: traceId(t),
        span_id: null,
        name: 'quality',
        value: (t % 100) / 100,
        score_type: 'numeric' as const,
        source: 'api' as const,
        scorer_name: null,
        reason: null,
        evidence: [],
        created_at: new Date().toISOString(),
      });
    }
    for (let i = 0; i < scores.length; i += 5000) await store.writeScores(PROJECT, scores.slice(i, i + 5000));
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
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
