import type { SpanRecord } from '../core/model/span.js';
import type { AnalyticsStore } from '../core/store/analytics.js';
import { spanRecord } from '../test/helpers/span-record.js';
import { fillStore } from './fill-store.js';

/**
 * The spans of the export bench and of the export tests' volume case: traces of `SPANS_PER_TRACE`
 * spans whose inputs and outputs are ~1 KB of markdown with what CSV and JSON have to carry
 * (blank lines, CRLF, quotes, commas, a tab, emoji, Hebrew), written through the store's batch
 * writer (fill-store.ts). Deterministic: span `i` has the same texts on every run.
 */
export const SPANS_PER_TRACE = 10;
const TEXT = '## Step {i}\n\nThe "answer", with a comma\r\nand a\ttab 🚀 שלום.\n\n```ts\nconst x = {i};\n```\n';

export const exportTraceId = (t: number) => `ex-${String(t).padStart(7, '0')}`;

export function exportInput(t: number, s: number): string {
  return TEXT.replaceAll('{i}', `${t}.${s}`).repeat(8);
}

export function exportOutput(t: number, s: number): string {
  return `${exportInput(t, s).slice(0, 500)}\n\nDone ${t}.${s}`;
}

function spansOf(project: string, t: number, start: number): SpanRecord[] {
  const id = exportTraceId(t);
  return Array.from({ length: SPANS_PER_TRACE }, (_, s) =>
    spanRecord({
      project_id: project,
      trace_id: id,
      span_id: `${id}-${String(s).padStart(2, '0')}`,
      parent_span_id: s === 0 ? null : `${id}-00`,
      name: s === 0 ? 'agent run' : `step ${s}`,
      span_type: s % 3 === 1 ? 'tool' : 'generation',
      start_time: start + s,
      end_time: start + s + 20,
      duration_ms: 20,
      model: s % 3 === 1 ? null : 'gpt-4o',
      input: exportInput(t, s),
      output: exportOutput(t, s),
      input_tokens: 100 + s,
      output_tokens: 50 + s,
      attributes: { 'gen_ai.request.model': 'gpt-4o', step: String(s) },
      resource_attributes: { 'service.name': 'export-bench' },
    }),
  );
}

/** Writes `spans` spans (a multiple of SPANS_PER_TRACE) of `project` into the store, the last starting now. */
export async function fillExportSpans(store: AnalyticsStore, project: string, spans: number): Promise<void> {
  const traces = Math.ceil(spans / SPANS_PER_TRACE);
  await fillStore(store, project, { traces, now: Date.now(), spansOf: (t, start) => spansOf(project, t, start), scores: [] });
}
