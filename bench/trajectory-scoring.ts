import { ExpectedSchema } from '../core/model/eval-case.js';
import { containsScorer } from '../core/scoring/rules/contains.js';
import type { ScoreInput, Scorer } from '../core/scoring/scorer.js';
import {
  buildSpanTree,
  loopsScorer,
  spanMatchScorer,
  stepsScorer,
  toolCallsScorer,
  toolErrorsScorer,
  type SpanTree,
} from '../core/scoring/trajectory/index.js';
import { texts } from '../test/fixtures/corpus/texts.js';
import { spanAt } from '../test/helpers/ingest-trace.js';
import { median, round } from './lib.js';

/**
 * Issue 29, "Measure": what a trajectory scorer costs per case, in process, on a realistic
 * 200-span trace (an agent of 22 steps: each a step span, a planning generation, three tool calls
 * with JSON arguments (one failing every fifth step), a retrieval, a reasoning and a memory span
 * and an answering generation; the corpus's real texts as inputs and outputs), against the plain
 * `contains` scorer. Per scorer: `rounds` rounds of `iterations` evaluations each, the median of
 * the rounds' µs per evaluation. The tree is built once per case (spanTreeOf caches it on the
 * trace: every trajectory scorer of the case shares it), so it is timed on its own.
 * Run: `npm run bench -- trajectory-scoring [--runs N] [--quick]`.
 */
export interface TrajectoryScoringOptions {
  iterations: number;
  rounds: number;
}

const TOOLS = [
  {
    name: 'search_flights',
    args: (i: number) => ({ origin: 'TLV', destination: 'KIX', date: `2026-04-${String((i % 28) + 1).padStart(2, '0')}`, passengers: 2 }),
  },
  { name: 'get_weather', args: (i: number) => ({ city: i % 2 ? 'Kyōto' : 'Ōsaka', units: 'metric', days: 3 }) },
  { name: 'lookup_order', args: (i: number) => ({ order_id: `ORD-${1000 + i}`, include: ['items', 'shipping'] }) },
];
const STEPS = 22;

/** The trace as a case holds it (the ingest shape the scorers read), 200 spans. */
export function realisticTrace(start = Date.parse('2026-04-01T10:00:00Z')): {
  spans: Array<Record<string, unknown>>;
  calls: Array<{ name: string; args: unknown }>;
} {
  const spans: Array<Record<string, unknown>> = [];
  const calls: Array<{ name: string; args: unknown }> = [];
  const span = (s: Record<string, unknown>) => spans.push({ status: 'ok', attributes: {}, ...s });
  /** A gpt-4o call's fields. */
  const chat = (input: string, output: string, input_tokens: number, output_tokens: number, attributes: Record<string, unknown> = {}) => ({
    name: 'chat gpt-4o',
    type: 'generation',
    model: 'gpt-4o',
    input,
    output,
    input_tokens,
    output_tokens,
    attributes,
  });
  span(spanAt(start, 0, STEPS * 1000 + 500, { span_id: 'root', name: 'travel-agent', type: 'span', input: texts.travelQuestion, output: texts.travelAnswer }));
  for (let s = 0; s < STEPS; s++) {
    const t = start + s * 1000;
    const step = `step-${s}`;
    const child = (part: string, at: number, ms: number, fields: { name: string; type: string } & Record<string, unknown>) =>
      span(spanAt(t, at, ms, { span_id: `${step}-${part}`, parent_span_id: step, ...fields }));
    span(spanAt(t, 0, 950, { span_id: step, parent_span_id: 'root', name: `agent step ${s + 1}`, type: 'span' }));
    const plan = JSON.stringify({ tool_calls: TOOLS.map((tool) => ({ name: tool.name, arguments: tool.args(s) })) });
    child('plan', 10, 190, chat(texts.travelSystemPrompt, plan, 1200 + s * 40, 90, { 'gen_ai.request.temperature': 0.2 }));
    TOOLS.forEach((tool, k) => {
      const failed = k === 1 && s % 5 === 0;
      const args = tool.args(s);
      calls.push({ name: tool.name, args });
      child(`tool-${k}`, 210 + k * 120, 110, {
        name: tool.name,
        type: 'tool',
        input: JSON.stringify(args),
        output: failed ? '' : k === 2 ? texts.orderLookupResult : texts.searchResults,
        status: failed ? 'error' : 'ok',
        attributes: { tool_name: tool.name, tool_status: failed ? 'error' : 'success', ...(failed ? { error_message: texts.travelStacktrace } : {}) },
      });
    });
    child('retrieve', 600, 50, { name: 'vector search', type: 'retrieval', input: 'refund policy for cancelled flights', output: texts.policyRefunds });
    child('reason', 660, 40, { name: 'reflect', type: 'reasoning', output: texts.researchAnswer.slice(0, 800) });
    child('memory', 702, 6, { name: 'remember preferences', type: 'memory', input: '{"seat":"aisle"}' });
    child('answer', 710, 230, chat(texts.policyRefunds, texts.travelAnswer, 2400, 310, { 'gen_ai.request.temperature': 0.2 }));
  }
  span(spanAt(start, STEPS * 1000, 400, { span_id: 'final', parent_span_id: 'root', ...chat(texts.travelQuestion, texts.travelAnswer, 3000, 420) }));
  return { spans, calls };
}

/** Each scorer with the config a suite would give it on this trace. */
function cases(calls: Array<{ name: string; args: unknown }>): Array<{ scorer: Scorer; config: Record<string, unknown> }> {
  return [
    { scorer: containsScorer, config: {} },
    { scorer: toolCallsScorer, config: { calls, mode: 'strict', argsMatch: 'subset' } },
    { scorer: stepsScorer, config: { maxLlmCalls: 30, maxToolCalls: 80, maxSpans: 150, maxTokens: 100_000, maxWallMs: 60_000 } },
    { scorer: loopsScorer, config: {} },
    { scorer: toolErrorsScorer, config: {} },
    {
      scorer: spanMatchScorer,
      config: {
        checks: [
          { before: { component: 'retrieval' }, after: { type: 'generation' } },
          { select: { type: 'tool', status: 'error' }, count: { max: 10 } },
          { select: { type: 'generation' }, every: { attributes: { 'gen_ai.request.temperature': { lte: 0.5 } } } },
        ],
      },
    },
  ];
}

async function timeRound(iterations: number, fn: () => unknown): Promise<number> {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) await fn();
  return Number(process.hrtime.bigint() - t0) / 1000 / iterations;
}

export async function benchTrajectoryScoring(o: TrajectoryScoringOptions) {
  const { spans, calls } = realisticTrace();
  const trace = { spans };
  const tree: SpanTree = buildSpanTree(spans);
  const input = (config: Record<string, unknown>): ScoreInput => ({
    input: texts.travelQuestion,
    output: texts.travelAnswer,
    expected: ExpectedSchema.parse({ outputContains: ['Kyoto', 'umbrella', 'refund'] }),
    toolCalls: [],
    latencyMs: 22_500,
    trace,
    spanTree: tree,
    config,
  });
  const list = cases(calls).map((c) => ({ ...c, input: input(c.scorer.configSchema.parse(c.config)) }));
  // Every scorer must score this trace without throwing (a throw would time the error path).
  const verdicts: Record<string, number> = {};
  for (const c of list) verdicts[c.scorer.name] = round((await c.scorer.evaluate(c.input)).score, 3);
  const timings: Record<string, number[]> = { tree: [] };
  for (const c of list) timings[c.scorer.name] = [];
  for (let r = 0; r < o.rounds; r++) {
    timings.tree.push(await timeRound(o.iterations, () => buildSpanTree(spans)));
    for (const c of list) timings[c.scorer.name].push(await timeRound(o.iterations, () => c.scorer.evaluate(c.input)));
  }
  const us: Record<string, number> = {};
  for (const [k, v] of Object.entries(timings)) us[k] = round(median(v), 1);
  const contains = us.contains;
  const trajectory = list.filter((c) => c.scorer.name !== 'contains').map((c) => c.scorer.name);
  return {
    spans: spans.length,
    tool_calls: calls.length,
    iterations: o.iterations,
    rounds: o.rounds,
    scores: verdicts,
    median_us_per_evaluation: us,
    ratio_to_contains: Object.fromEntries(trajectory.map((n) => [n, round(us[n] / contains, 1)])),
    /** A case scored by all five trajectory scorers: the tree once, then each. */
    per_case_all_five_us: round(us.tree + trajectory.reduce((a, n) => a + us[n], 0), 1),
  };
}
