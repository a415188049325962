import { describe, expect, it } from 'vitest';
import { judgeTraceBody } from '../../../core/online/judge-trace.js';
import { scoreInputFromTrace } from '../../../core/online/trace-input.js';
import { spanTreeOf } from '../../../core/scoring/trace-view.js';
import type { ScoredSpan, TraceForScoring } from '../../../core/store/online-traces.js';
import { scoredSpan } from '../../helpers/span-record.js';

const span = scoredSpan;

function trace(spans: ScoredSpan[]): TraceForScoring {
  return {
    trace_id: 't1',
    name: 'agent',
    status: 'ok',
    start_ms: 1000,
    end_ms: 3000,
    duration_ms: 2000,
    total_input_tokens: 12,
    total_output_tokens: 7,
    span_count: spans.length,
    attributes: {},
    spans,
  };
}

describe('what a rule scorer sees of a stored trace', () => {
  it('takes input and output from the root, tool calls from tool spans, usage and latency from the summary', () => {
    const input = scoreInputFromTrace(
      trace([
        span('root', { input: 'weather in Oslo?', output: 'It is snowing' }),
        span('llm', { parent_span_id: 'root', type: 'generation', start_ms: 1100, input: 'prompt', output: 'draft' }),
        span('tool', {
          parent_span_id: 'root',
          type: 'tool',
          start_ms: 1200,
          name: 'call',
          attributes: { tool_name: 'get_forecast' },
          input: '{"city":"Oslo"}',
          output: 'snow',
        }),
      ]),
      { outputContains: ['snow'] },
    );
    expect(input).toMatchObject({
      input: 'weather in Oslo?',
      output: 'It is snowing',
      expected: { outputContains: ['snow'] },
      toolCalls: [{ name: 'get_forecast', input: '{"city":"Oslo"}', output: 'snow' }],
      usage: { input_tokens: 12, output_tokens: 7 },
      latencyMs: 2000,
    });
    expect(input.trace?.trace_id).toBe('t1');
    expect(input.trace?.spans.map((s) => s.span_id)).toEqual(['root', 'llm', 'tool']);
  });

  it('falls back to the first input and the last-ending output when the root has none', () => {
    const input = scoreInputFromTrace(
      trace([
        span('root'),
        span('a', { parent_span_id: 'root', input: 'first question', output: 'early', end_ms: 1500 }),
        span('b', { parent_span_id: 'root', output: 'final answer', end_ms: 2900 }),
      ]),
      {},
    );
    expect(input).toMatchObject({ input: 'first question', output: 'final answer', toolCalls: [] });
  });

  it('gives the trajectory scorers the stored spans as a span tree: tool names of every convention, errors, tokens, costs', () => {
    const input = scoreInputFromTrace(
      trace([
        span('root', { input: 'q', output: 'a' }),
        span('llm', { parent_span_id: 'root', type: 'generation', start_ms: 1100, model: 'gpt-4o', input_tokens: 900, output_tokens: 40, cost_usd: 0.0027 }),
        span('free', { parent_span_id: 'root', type: 'generation', start_ms: 1150, model: 'local-llm', input_tokens: 10, output_tokens: 5, cost_usd: null }),
        span('tool', {
          parent_span_id: 'root',
          type: 'tool',
          start_ms: 1200,
          name: 'search',
          attributes: { 'traceloop.entity.name': 'search_web', tool_status: 'error' },
        }),
      ]),
      {},
    );
    expect(input.toolCalls.map((c) => c.name)).toEqual(['search_web']);
    const tree = spanTreeOf(input)!;
    expect(tree.toolCalls().map((c) => [c.name, c.error])).toEqual([['search_web', true]]);
    expect(tree.get('tool')!.depth).toBe(1);
    expect(tree.stats()).toMatchObject({ spans: 4, llmCalls: 2, inputTokens: 910, outputTokens: 45, costUsd: 0.0027, pricedLlmCalls: 1, unpricedLlmCalls: 1 });
  });

  it('treats a span whose parent is not in the trace as a root', () => {
    const input = scoreInputFromTrace(trace([span('orphan', { parent_span_id: 'elsewhere', input: 'q', output: 'a' })]), {});
    expect(input).toMatchObject({ input: 'q', output: 'a' });
  });
});

describe("a judge's trace", () => {
  it('holds the verdict at its root and one generation span per call, named after the rule and kept out of scans', () => {
    const body = judgeTraceBody({
      ruleId: 'r1',
      ruleName: 'quality',
      traceId: 't1',
      scorer: 'helpfulness_judge',
      scoreId: 's1',
      attempt: 1,
      startedAt: 1000,
      endedAt: 1500,
      verdict: { score: 0.8, reason: 'ok', evidence: [] },
      calls: [
        {
          scorer: 'helpfulness_judge',
          provider: 'openai',
          model: 'gpt-test',
          attempt: 1,
          input: { system: 's', messages: [] },
          output: { score: 0.8 },
          usage: { input_tokens: 100, output_tokens: 20, cached_input_tokens: 0 },
          startedAt: 1100,
          endedAt: 1400,
          status: 'ok',
          cost: { cost_usd: 0.001, price_version: 'v1' },
        },
      ],
    }) as { name: string; attributes: Record<string, unknown>; spans: Array<Record<string, unknown>> };
    expect(body.name).toBe('online eval: quality / helpfulness_judge');
    expect(body.attributes).toMatchObject({ 'agent_eval.online_rule_id': 'r1', 'agent_eval.scored_trace_id': 't1', 'agent_eval.score_id': 's1' });
    expect(body.spans).toHaveLength(2);
    expect(body.spans[1]).toMatchObject({ type: 'generation', model: 'gpt-test', input_tokens: 100, output_tokens: 20, parent_span_id: body.spans[0].span_id });
    expect(body.spans[1].attributes).toMatchObject({ 'gen_ai.provider.name': 'openai', 'agent_eval.cost_usd': 0.001, 'agent_eval.price_version': 'v1' });
  });
});
