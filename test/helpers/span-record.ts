import type { SpanRecord } from '../../core/model/span.js';
import type { ScoredSpan } from '../../core/store/online-traces.js';

/**
 * A stored span (what the write path encodes as a row) with neutral values: a root generation
 * span of trace `t` in project `p`, no model, no text, no tokens, no attributes. Tests name what
 * they depend on in `fields`.
 */
export function spanRecord(fields: Partial<SpanRecord> = {}): SpanRecord {
  return {
    project_id: 'p',
    trace_id: 't',
    span_id: 's',
    parent_span_id: null,
    name: 'chat',
    span_type: 'generation',
    component_type: 'generation',
    convention: 'genai',
    kind: '',
    status: 'ok',
    status_message: '',
    start_time: 0,
    end_time: 1,
    duration_ms: 1,
    model: null,
    input: '',
    output: '',
    input_tokens: 0,
    output_tokens: 0,
    attributes: {},
    resource_attributes: {},
    scope_name: '',
    scope_version: '',
    events: '[]',
    ...fields,
  };
}

/**
 * A client generation of gpt-4o 50 ms long from `start`, asked 'hi' (3 tokens) and answering
 * 'hello' (5 tokens), recorded by scope otel 1: spanRecord with what a chat call carries.
 */
export function chatSpan(start: number, fields: Partial<SpanRecord> = {}): SpanRecord {
  return spanRecord({
    kind: 'client',
    start_time: start,
    end_time: start + 50,
    duration_ms: 50,
    model: 'gpt-4o',
    input: 'hi',
    output: 'hello',
    input_tokens: 3,
    output_tokens: 5,
    scope_name: 'otel',
    scope_version: '1',
    ...fields,
  });
}

/**
 * A span as the online store hands it to scorers (ScoredSpan) with neutral values: an ok span
 * named `id`, 1000 to 2000 ms, no parent, model, text, tokens or attributes.
 */
export function scoredSpan(id: string, extra: Partial<ScoredSpan> = {}): ScoredSpan {
  const none = { parent_span_id: null, component_type: null, status_message: null, model: null };
  return {
    span_id: id,
    name: id,
    type: 'span',
    status: 'ok',
    start_ms: 1000,
    end_ms: 2000,
    ...none,
    input: '',
    input_tokens: 0,
    output: '',
    output_tokens: 0,
    attributes: {},
    ...extra,
  };
}
