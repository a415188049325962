import type { SpanRecord } from '../../core/model/span.js';
import { loadCorpus } from './corpus.js';
import { spanRecord } from './span-record.js';

/** The corpus's span inputs and outputs that are texts (multi-paragraph answers, prompts, hostile strings). */
export const corpusSpanTexts: readonly string[] = loadCorpus()
  .json.flatMap((t) => t.body.spans)
  .flatMap((s) => [s.input, s.output])
  .filter((v): v is string => typeof v === 'string' && v.length > 0);

/** Who runs the trace: the root span's name and the service's. */
export interface AgentOf {
  agent: string;
  service: string;
}

/**
 * Span `i` of agent trace `traceId` in project `p`: the root `s0` (i = 0, named after the agent),
 * else an LLM call under it, started `i` seconds after a minute ago and `500 + i` ms long, with
 * tokens growing with `i` and the corpus's texts as input and output; `over` replaces any field.
 */
export function agentStepSpan(traceId: string, spanId: string, i: number, of: AgentOf, over: Partial<SpanRecord> = {}): SpanRecord {
  const start = Date.now() - 60_000 + i * 1_000;
  return spanRecord({
    trace_id: traceId,
    span_id: spanId,
    parent_span_id: i === 0 ? null : 's0',
    name: i === 0 ? of.agent : `step ${i}`,
    span_type: i === 0 ? 'span' : 'generation',
    component_type: i === 0 ? null : 'generation',
    kind: 'client',
    start_time: start,
    end_time: start + 500 + i,
    duration_ms: 500 + i,
    model: 'gpt-4o',
    input: corpusSpanTexts[(2 * i) % corpusSpanTexts.length],
    output: corpusSpanTexts[(2 * i + 1) % corpusSpanTexts.length],
    input_tokens: 100 * (i + 1),
    output_tokens: 10 * (i + 1),
    attributes: { 'gen_ai.request.model': 'gpt-4o', 'user.id': 'u-1' },
    resource_attributes: { 'service.name': of.service },
    scope_name: 'otel',
    scope_version: '1',
    ...over,
  });
}
