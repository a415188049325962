import { describe, expect, it } from 'vitest';
import { deriveTrace, type SpanAggregate } from '../../core/model/trace-derivation.js';

const key = { project_id: 'p', trace_id: 't' };
const spans: SpanAggregate = {
  start_ms: 1_000,
  end_ms: 1_800,
  root_name: 'agent.run',
  first_name: 'agent.run',
  root_resource: { 'service.name': 'bot', env: 'prod' },
  input_tokens: 120,
  output_tokens: 30,
  tool_calls: 2,
  llm_calls: 3,
  spans: 6,
  errors: 0,
};

describe('deriveTrace', () => {
  it('takes everything from spans when there is no explicit header', () => {
    expect(deriveTrace(key, spans, undefined)).toEqual({
      ...key,
      name: 'agent.run',
      status: 'ok',
      start_ms: 1_000,
      end_ms: 1_800,
      duration_ms: 800,
      total_input_tokens: 120,
      total_output_tokens: 30,
      tool_call_count: 2,
      llm_call_count: 3,
      span_count: 6,
      error_count: 0,
      attributes: { 'service.name': 'bot', env: 'prod' },
    });
  });

  it('names a trace whose root has not arrived after its earliest span', () => {
    expect(deriveTrace(key, { ...spans, root_name: '' , first_name: 'llm.call' }, undefined).name).toBe('llm.call');
  });

  it('is errored when any span errored, or when the header says so', () => {
    expect(deriveTrace(key, { ...spans, errors: 1 }, undefined).status).toBe('error');
    expect(deriveTrace(key, spans, { name: 'n', status: 'error', start_time: 1_000, duration_ms: 10, attributes: {} }).status).toBe('error');
  });

  it('lets the header name win, widens the time range, and overlays header attributes', () => {
    const t = deriveTrace(key, spans, { name: 'checkout', status: 'ok', start_time: 500, duration_ms: 2_000, attributes: { env: 'staging', user: 'u1' } });
    expect(t).toMatchObject({ name: 'checkout', start_ms: 500, end_ms: 2_500, duration_ms: 2_000, attributes: { 'service.name': 'bot', env: 'staging', user: 'u1' } });
    const narrow = deriveTrace(key, spans, { name: 'x', status: 'ok', start_time: 1_100, duration_ms: 100, attributes: {} });
    expect(narrow).toMatchObject({ start_ms: 1_000, end_ms: 1_800, duration_ms: 800 });
  });

  it('derives a header-only trace', () => {
    expect(deriveTrace(key, undefined, { name: 'n', status: 'ok', start_time: 7_000, duration_ms: 250, attributes: { a: 'b' } })).toMatchObject({
      name: 'n',
      start_ms: 7_000,
      duration_ms: 250,
      span_count: 0,
      llm_call_count: 0,
      attributes: { a: 'b' },
    });
  });
});
