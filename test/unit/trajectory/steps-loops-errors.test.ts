import { describe, expect, it } from 'vitest';
import { ScorerRefListSchema } from '../../../core/model/eval-case.js';
import { defaultScorerRegistry } from '../../../core/scoring/index.js';
import { loopsScorer } from '../../../core/scoring/trajectory/loops.js';
import { buildSpanTree } from '../../../core/scoring/trajectory/span-tree.js';
import { stepsScorer } from '../../../core/scoring/trajectory/steps.js';
import { toolErrorsScorer } from '../../../core/scoring/trajectory/tool-errors.js';
import { loadCorpus } from '../../helpers/corpus.js';
import { plainTree, scoreTree } from './score.js';
import { agentTree, corpusJsonTree, corpusOtelTree, useOtlpReceiver } from './traces.js';
import { cpuClock } from '../../helpers/cpu-clock.js';

// steps, loops and toolErrors on agent runs recorded by the real OpenTelemetry SDK and sent
// through OTLP and the normalizer, with planted behaviour: a blown budget, a loop, an oscillation,
// a tool error recovered or not; and on the corpus traces.

const receiver = useOtlpReceiver();

const messages = (name: string, config: Record<string, unknown>) =>
  defaultScorerRegistry()
    .check(ScorerRefListSchema.parse([{ name, config }]))
    .map((i) => i.message);

describe('steps', () => {
  it('scores 1 within every budget and says what was used', async () => {
    const tree = await agentTree(receiver, [
      { llm: 'plan', inputTokens: 300, outputTokens: 50 },
      { tool: 'search', args: { q: 'x' } },
      { llm: 'answer', inputTokens: 400, outputTokens: 100 },
    ]);
    const d = await scoreTree(stepsScorer, tree, { maxLlmCalls: 2, maxToolCalls: 1, maxSpans: 4, maxTokens: 850, maxWallMs: 1000 });
    expect(d.score).toBe(1);
    expect(d.reason).toBe('within every budget: LLM calls 2 <= 2, tool calls 1 <= 1, spans 4 <= 4, tokens 850 <= 850, wall time 330 ms <= 1000 ms');
  });

  it('degrades past a budget as budget / used, the worst budget deciding; or to 0 with overBudget: zero', async () => {
    const tree = await agentTree(receiver, [
      { llm: 'plan', inputTokens: 1000, outputTokens: 200 },
      { tool: 'search', args: { q: 'a' } },
      { tool: 'search', args: { q: 'b' } },
      { tool: 'search', args: { q: 'c' } },
      { tool: 'search', args: { q: 'd' } },
      { llm: 'answer', inputTokens: 1500, outputTokens: 300 },
    ]);
    const d = await scoreTree(stepsScorer, tree, { maxToolCalls: 2, maxTokens: 2000, maxLlmCalls: 5 });
    expect(d.score).toBe(0.5);
    expect(d.reason).toBe('over budget: tool calls 4 > 2, tokens 3000 > 2000');
    expect(d.evidence).toEqual(['LLM calls: 2 of 5', 'tool calls: 4 of 2 (2x the budget)', 'tokens: 3000 of 2000 (1.5x the budget)']);
    expect((await scoreTree(stepsScorer, tree, { maxToolCalls: 2, overBudget: 'zero' })).score).toBe(0);
    expect((await scoreTree(stepsScorer, tree, { maxToolCalls: 0 })).evidence).toEqual(['tool calls: 4 of 0 (none allowed)']);
  });

  it('budgets cost from the price table, and says when model calls were not priced', async () => {
    const { tree } = await corpusOtelTree(
      receiver,
      loadCorpus().otel.find((t) => t.name === 'genai')!,
    );
    const cost = tree.stats().costUsd;
    expect(cost).toBeGreaterThan(0);
    expect((await scoreTree(stepsScorer, tree, { maxCostUsd: cost * 2 })).score).toBe(1);
    const over = await scoreTree(stepsScorer, tree, { maxCostUsd: cost / 4 });
    expect(over.score).toBeCloseTo(0.25, 9);
    const unpriced = await agentTree(receiver, [{ llm: 'plan', model: 'in-house-llm-7' }]);
    const d = await scoreTree(stepsScorer, unpriced, { maxCostUsd: 0.01 });
    expect(d.score).toBe(1);
    expect(d.reason).toBe('within every budget: cost $0 <= $0.01; 1 LLM call unpriced, not in the cost');
  });

  it('needs a budget and a trace; refuses bad budgets at creation', async () => {
    await expect(scoreTree(stepsScorer, buildSpanTree([]), {})).rejects.toThrow('steps needs at least one budget: config.maxLlmCalls, config.maxToolCalls');
    await expect(scoreTree(stepsScorer, undefined, { maxSpans: 3 })).rejects.toThrow("steps needs the case's trace (its spans), and this execution has none");
    // An empty trace says nothing of what the agent did: it passes no budget.
    await expect(scoreTree(stepsScorer, buildSpanTree([]), { maxSpans: 3 })).rejects.toThrow(
      "steps needs the case's trace (its spans), and this execution's trace has no span",
    );
    expect(messages('steps', { maxSpans: -1 })[0]).toContain("scorer 'steps': config.maxSpans");
    expect(messages('steps', { maxWallMs: 'fast' })[0]).toContain('config.maxWallMs');
    expect(messages('steps', { maxToolCall: 3 })[0]).toContain('maxToolCall');
  });
});

describe('loops', () => {
  it('finds the same tool call repeated past maxRepeats, arguments compared as JSON (key order aside)', async () => {
    const tree = await agentTree(receiver, [
      { llm: 'plan' },
      { tool: 'get_weather', args: { city: 'Kyoto', days: 3 } },
      { tool: 'get_weather', args: { days: 3, city: 'Kyoto' } },
      { tool: 'get_weather', args: { city: 'Kyoto', days: 3 } },
      { tool: 'get_weather', args: { city: 'Osaka', days: 3 } },
      { tool: 'get_weather', args: { city: 'Kyoto', days: 3 } },
      { llm: 'answer' },
    ]);
    const d = await scoreTree(loopsScorer, tree, {});
    expect(d.score).toBe(0.5);
    expect(d.reason).toMatch(
      /^the same call get_weather \{"city":"Kyoto","days":3\} was made 4 times \(at most 2 allowed\), first at get_weather \(span 3, \+\d+ ms\)$/,
    );
    expect(d.evidence).toEqual(['4x get_weather {"city":"Kyoto","days":3}: spans 3, 4, 5, 7']);
    expect((await scoreTree(loopsScorer, tree, { maxRepeats: 4 })).score).toBe(1);
  });

  it('finds the same LLM input sent again and again', async () => {
    const tree = await agentTree(receiver, [{ llm: 'same question' }, { llm: 'same question' }, { llm: 'same question' }, { llm: 'other' }]);
    const d = await scoreTree(loopsScorer, tree, {});
    expect(d.score).toBeCloseTo(2 / 3, 12);
    expect(d.reason).toMatch(/^the same LLM input was sent 3 times to gpt-4o \(at most 2 allowed\), first at chat gpt-4o \(span 2/);
    // Another model is another input.
    const mixed = await agentTree(receiver, [{ llm: 'q' }, { llm: 'q', model: 'gpt-4o-mini' }, { llm: 'q' }]);
    expect((await scoreTree(loopsScorer, mixed, {})).score).toBe(1);
  });

  it('finds an oscillation between two states (A, B, A, B...), by call or by tool', async () => {
    const steps = [
      { tool: 'search', args: { q: 'kyoto hotels' } },
      { tool: 'open_page', args: { url: 'a' } },
      { tool: 'search', args: { q: 'kyoto hotels' } },
      { tool: 'open_page', args: { url: 'a' } },
      { tool: 'search', args: { q: 'kyoto hotels' } },
      { tool: 'open_page', args: { url: 'a' } },
    ];
    const tree = await agentTree(receiver, steps);
    const d = await scoreTree(loopsScorer, tree, { maxRepeats: 10 });
    expect(d.score).toBeCloseTo(2 / 3, 12);
    expect(d.reason).toMatch(
      /^the calls alternated between search \{"q":"kyoto hotels"\} and open_page \{"url":"a"\} for 6 calls in a row \(3 rounds; at most 2 allowed\), from search \(span 2/,
    );
    // Different arguments each time: no oscillation of calls, but one of tools.
    const varied = plainTree(steps.map((s, i) => ({ name: s.tool, args: { i } })));
    expect((await scoreTree(loopsScorer, varied, {})).score).toBe(1);
    expect((await scoreTree(loopsScorer, varied, { stateBy: 'tool' })).score).toBeCloseTo(2 / 3, 12);
    expect((await scoreTree(loopsScorer, varied, { stateBy: 'tool', maxAlternations: 3 })).score).toBe(1);
  });

  it('scores 1 on the corpus traces, which do not loop', async () => {
    for (const t of loadCorpus().otel.filter((x) => x.name !== 'hostile (OTLP)')) {
      const { tree } = await corpusOtelTree(receiver, t);
      const d = await scoreTree(loopsScorer, tree, {});
      expect(d.score, t.name).toBe(1);
      expect(d.reason).toMatch(/^no loops in \d+ tool calls and \d+ LLM calls/);
    }
  });

  it('handles 5,000 calls and 5 MB arguments quickly; arguments that are not JSON compare as text', async () => {
    const huge = { blob: 'x'.repeat(5_000_000) };
    const many = plainTree([
      ...Array.from({ length: 5000 }, (_, i) => ({ name: 'fetch', args: { page: i % 2500 } })),
      { name: 'upload', args: huge },
      { name: 'upload', args: huge },
      { name: 'upload', args: huge },
    ]);
    const started = cpuClock();
    const d = await scoreTree(loopsScorer, many, {});
    expect(started.ms()).toBeLessThan(3000);
    expect(d.score).toBeCloseTo(2 / 3, 12);
    expect(d.reason).toMatch(/^the same call upload \{"blob":"xxxx/);
    const text = plainTree([
      { name: 'lookup', args: 'id=1' },
      { name: 'lookup', args: 'id=1' },
      { name: 'lookup', args: 'id=1' },
      { name: 'lookup', args: 'id=2' },
    ]);
    expect((await scoreTree(loopsScorer, text, {})).reason).toMatch(/^the same call lookup id=1 was made 3 times/);
  });

  it('refuses bad limits', () => {
    expect(messages('loops', { maxRepeats: 0 })[0]).toContain("scorer 'loops': config.maxRepeats");
    expect(messages('loops', { stateBy: 'name' })[0]).toContain('config.stateBy');
  });
});

describe('toolErrors', () => {
  it('a failed tool retried successfully is recovered (score 1 by default, less with recoveredPenalty)', async () => {
    const tree = await agentTree(receiver, [
      { llm: 'plan' },
      { tool: 'get_weather', args: { city: 'Kyoto' }, error: 'upstream timed out' },
      { tool: 'get_weather', args: { city: 'Kyoto' }, result: '{"temp":14}' },
      { tool: 'search', args: { q: 'x' } },
    ]);
    const d = await scoreTree(toolErrorsScorer, tree, { recovery: 'retry' });
    expect(d.score).toBe(1);
    expect(d.reason).toMatch(
      /^1 of 3 tool calls failed: 1 recovered, 0 not \(at most 0 allowed\); get_weather \(span 3, \+\d+ ms\) failed \("upstream timed out"\), recovered by a later successful call, get_weather \(span 4/,
    );
    expect((await scoreTree(toolErrorsScorer, tree, { recoveredPenalty: 0.6 })).score).toBeCloseTo(1 - 0.6 / 3, 12);
  });

  it('a failed tool with no retry and no answer after it is not recovered: 0', async () => {
    const tree = await agentTree(receiver, [{ llm: 'plan' }, { tool: 'book_hotel', args: { id: 7 }, error: 'payment declined' }]);
    const d = await scoreTree(toolErrorsScorer, tree, {});
    expect(d.score).toBe(0);
    expect(d.reason).toMatch(
      /book_hotel \(span 3, \+\d+ ms\) failed \("payment declined"\) and was not recovered: no later successful book_hotel call and no final answer after it$/,
    );
    expect((await scoreTree(toolErrorsScorer, tree, { maxUnrecovered: 1 })).score).toBe(0);
    const twoCalls = await agentTree(receiver, [
      { tool: 'a', args: {} },
      { tool: 'b', args: {}, error: 'boom' },
    ]);
    expect((await scoreTree(toolErrorsScorer, twoCalls, { maxUnrecovered: 1 })).score).toBe(0.5);
  });

  it('the GenAI corpus: get_weather failed, the agent answered after it (recovered by answer, not by retry)', async () => {
    const { tree } = await corpusOtelTree(
      receiver,
      loadCorpus().otel.find((t) => t.name === 'genai')!,
    );
    const either = await scoreTree(toolErrorsScorer, tree, {});
    expect(either.score).toBe(1);
    expect(either.reason).toMatch(/recovered by the final answer after it, chat gpt-4o \(span 6/);
    const retry = await scoreTree(toolErrorsScorer, tree, { recovery: 'retry' });
    expect(retry.score).toBe(0);
    expect(retry.reason).toContain('not recovered: no later successful get_weather call');
  });

  it('the SPEC body: tool_status error counts; a later answer recovers it; tools narrows the calls', async () => {
    const { tree } = corpusJsonTree(loadCorpus().json.find((t) => t.name === 'spec')!);
    expect((await scoreTree(toolErrorsScorer, tree, {})).score).toBe(1);
    expect((await scoreTree(toolErrorsScorer, tree, { recovery: 'retry' })).score).toBe(0);
    expect((await scoreTree(toolErrorsScorer, tree, { tools: ['search_flights'], recovery: 'retry' })).reason).toBe(
      'none of the 1 tool call of search_flights failed',
    );
  });

  it('a trace without tool calls or model calls: the root answer recovers', async () => {
    expect((await scoreTree(toolErrorsScorer, plainTree([]), {})).reason).toBe('no tool calls in the trace');
    const rooted = buildSpanTree([
      { span_id: 'r', name: 'agent', type: 'span', start_time: 0, end_time: 100, output: 'Here is your plan.' },
      { span_id: 't', parent_span_id: 'r', name: 'lookup', type: 'tool', status: 'error', start_time: 10, end_time: 20 },
    ]);
    expect((await scoreTree(toolErrorsScorer, rooted, {})).score).toBe(1);
  });

  it('refuses bad configs', () => {
    expect(messages('toolErrors', { recoveredPenalty: 2 })[0]).toContain("scorer 'toolErrors': config.recoveredPenalty");
    expect(messages('toolErrors', { recovery: 'later' })[0]).toContain('config.recovery');
    expect(messages('toolErrors', { tools: [] })[0]).toContain('config.tools');
  });
});
