import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../core/config.js';
import { judgeCallPricer } from '../../../core/cost/judge-pricing.js';
import { loadPriceTable } from '../../../core/cost/price-table.js';
import type { JudgeGeneration } from '../../../core/judges/judge.js';
import { runJudge, type JudgeCallCost } from '../../../core/judges/run-judge.js';
import { ExpectedSchema, ScorerRefListSchema, type ScoreDetail } from '../../../core/model/eval-case.js';
import { createProviders } from '../../../core/providers/index.js';
import { condenseTrajectory } from '../../../core/judges/condensed-trajectory.js';
import { defaultScorerRegistry } from '../../../core/scoring/index.js';
import type { ScoreInput, ScorerRegistry } from '../../../core/scoring/scorer.js';
import type { SpanTree } from '../../../core/scoring/trajectory/span-tree.js';
import { loadCorpus } from '../../helpers/corpus.js';
import { sent } from '../../helpers/judge-prompt.js';
import { startFakeProvider, fakeProviderEnv, type FakeProvider, type FakeRequest } from '../../helpers/fake-providers.js';
import { plainTree } from '../trajectory/score.js';
import { agentTree, corpusJsonTree, corpusOtelTree, otlpReceiver, type OtlpReceiver } from '../trajectory/traces.js';

// trajectoryJudge and spanJudge through the one judge path (core/judges/run-judge.ts, as a run's
// judge activity and online rules call it) against a loopback Anthropic Messages server answered
// by the real Anthropic SDK client: what the judge is shown of the trace (condensed, bounded),
// the verdicts, per-span aggregation, the cap on spans, the budget gate and the call records with
// their price. Traces are agent runs recorded by the real OpenTelemetry SDK, exported over OTLP
// and normalized, and the corpus' traces.

const corpus = loadCorpus();
let fake: FakeProvider;
let registry: ScorerRegistry;
let receiver: OtlpReceiver;
const priceJudgeCall = judgeCallPricer(loadPriceTable());

beforeAll(async () => {
  fake = await startFakeProvider('anthropic');
  receiver = await otlpReceiver();
  const config = loadConfig(fakeProviderEnv({ anthropic: fake }));
  registry = defaultScorerRegistry({ judges: { providers: createProviders(config.llm), maxAnswerAttempts: 2, maxOutputTokens: 512 } });
});
afterAll(async () => {
  await Promise.all([fake.close(), receiver.close()]);
});

function caseInput(tree: SpanTree | undefined, output = 'Your hotel in Kyōto is booked.'): Omit<ScoreInput, 'config'> {
  return {
    input: 'Book me a hotel in Kyōto for March 18-21',
    output,
    expected: ExpectedSchema.parse({}),
    toolCalls: [],
    latencyMs: 900,
    ...(tree ? { spanTree: tree } : {}),
  };
}

interface Judged {
  detail: ScoreDetail;
  calls: Array<{ generation: JudgeGeneration; cost: JudgeCallCost | null }>;
}

/** One judge through run-judge.ts, every call recorded with its price; `budgetTokens` gates calls as a run's judge budget does. */
async function judge(name: string, config: Record<string, unknown>, input: Omit<ScoreInput, 'config'>, budgetTokens?: number): Promise<Judged> {
  fake.requests.length = 0;
  const calls: Judged['calls'] = [];
  const used = () => calls.reduce((sum, c) => sum + (c.generation.usage?.input_tokens ?? 0) + (c.generation.usage?.output_tokens ?? 0), 0);
  const detail = await runJudge(registry, { name, config }, input, {
    priceJudgeCall,
    beforeCall:
      budgetTokens === undefined
        ? undefined
        : () =>
            Promise.resolve(
              used() >= budgetTokens ? `judge budget reached: this run's judges used ${used()} tokens of judge_budget.max_tokens ${budgetTokens}` : undefined,
            ),
    onGeneration: (generation, cost) => Promise.resolve(void calls.push({ generation, cost })),
    rethrow: () => false,
  });
  return { detail, calls };
}

const refusals = (name: string, config: Record<string, unknown>) => registry.check(ScorerRefListSchema.parse([{ name, config }])).map((i) => i.message);

describe('trajectoryJudge', () => {
  it('shows the judge the condensed trajectory, with the failed booking, and returns its verdict', async () => {
    const tree = await agentTree(receiver, [
      { llm: 'plan', inputTokens: 420, outputTokens: 60, output: 'I will search hotels, then book one.' },
      { tool: 'search_hotels', args: { city: 'Kyōto', from: '2026-03-18', to: '2026-03-21' }, result: '[{"id":"h-17","name":"Ryokan Sakura"}]' },
      { tool: 'book_hotel', args: { hotel_id: 'h-17' }, error: 'HTTP 503 from the booking API' },
      { llm: 'answer', inputTokens: 900, outputTokens: 40, output: 'Your hotel in Kyōto is booked.' },
    ]);
    fake.queue({
      verdict: { score: 0.2, reason: 'Step [4] book_hotel failed with HTTP 503, yet the answer claims a booking.', evidence: ['ERROR "HTTP 503'] },
      usage: { input: 1500, output: 60 },
      model: 'claude-sonnet-4-6',
    });
    const { detail, calls } = await judge('trajectoryJudge', {}, caseInput(tree));
    expect(detail).toEqual({ score: 0.2, reason: 'Step [4] book_hotel failed with HTTP 503, yet the answer claims a booking.', evidence: ['ERROR "HTTP 503'] });

    const { user } = sent(fake.requests[0], [
      'Goal success: the agent achieved what the input asked.',
      'Efficiency: it got there without waste.',
      'Reasoning quality: its decisions were sound.',
      'fails the goal, or claims success that the steps do not support.',
    ]);
    expect(user).toContain('<input>\nBook me a hotel in Kyōto for March 18-21\n</input>');
    expect(user).toContain('5 spans, 2 model calls (1320 input / 100 output tokens, $');
    expect(user).toMatch(/\[1\] \+0 ms \(\d+ ms\) span invoke_agent Planner/);
    expect(user).toMatch(/\n {2}\[2\] \+10 ms \(100 ms\) model chat gpt-4o \| model gpt-4o \(420 in \/ 60 out tokens, \$0\.\d+\)/);
    expect(user).toContain('args: {"city":"Kyōto","from":"2026-03-18","to":"2026-03-21"}\n    result: [{"id":"h-17","name":"Ryokan Sakura"}]');
    expect(user).toMatch(/\[4\] \+220 ms \(100 ms\) tool book_hotel \| ERROR "HTTP 503 from the booking API"/);
    expect(user).toContain('<output>\nYour hotel in Kyōto is booked.\n</output>');

    // The call is recorded like every judge's, priced from the price table.
    expect(calls).toHaveLength(1);
    expect(calls[0].generation).toMatchObject({ scorer: 'trajectoryJudge', status: 'ok', usage: { input_tokens: 1500, output_tokens: 60 } });
    expect(calls[0].cost?.cost_usd).toBeGreaterThan(0);
  });

  it('judges only the aspects asked for, with the criteria added', async () => {
    const tree = await agentTree(receiver, [{ tool: 'search_hotels', args: { city: 'Kyōto' } }]);
    await judge('trajectoryJudge', { aspects: ['efficiency'], criteria: 'Searching more than twice is waste.' }, caseInput(tree));
    const { system } = sent(fake.requests[0]);
    expect(system).toContain('Efficiency: it got there without waste.');
    expect(system).not.toContain('Goal success');
    expect(system).toContain('Also: Searching more than twice is waste.');
  });

  it('keeps a 200-step trajectory within maxChars: the failed step, the start and the end, and says what it left out', async () => {
    const calls = Array.from({ length: 200 }, (_, i) => ({
      name: i % 2 ? 'search_web' : 'fetch_page',
      args: { q: `query ${i} ${'x'.repeat(300)}` },
      error: i === 101,
    }));
    const tree = plainTree(calls);
    await judge('trajectoryJudge', { maxChars: 6000 }, caseInput(tree));
    const trajectory = /<trajectory>\n([\s\S]*)\n<\/trajectory>/.exec(sent(fake.requests[0]).user)![1];
    expect(trajectory.length).toBeLessThanOrEqual(6000);
    expect(trajectory).toContain('201 spans, 0 model calls (0 input / 0 output tokens), 200 tool calls, 1 errors');
    expect(trajectory).toMatch(/\[1\] \+0 ms \(2010 ms\) span agent/);
    expect(trajectory).toMatch(/\[103\] .* search_web \| ERROR/);
    expect(trajectory).toMatch(/\[201\] .* search_web/);
    expect(trajectory).toMatch(/\[… \d+ steps not shown: 0 model calls, \d+ tool calls …\]/);
  });

  it('stays within maxChars on hostile traces and on traces of many failures, at every budget', async () => {
    const { tree: hostileOtel } = await corpusOtelTree(
      receiver,
      corpus.otel.find((t) => t.name === 'hostile (OTLP)')!,
    );
    const { tree: hostileJson } = corpusJsonTree(corpus.json.find((t) => t.name === 'hostile (JSON)')!);
    const failures = plainTree(Array.from({ length: 500 }, (_, i) => ({ name: `tool_${i}`, args: { q: 'y'.repeat(500) }, error: i % 3 === 0 })));
    for (const tree of [hostileOtel, hostileJson, failures]) {
      for (const maxChars of [2000, 6000, 24_000]) {
        const text = condenseTrajectory(tree, maxChars);
        expect(text.length, `${tree.spans.length} spans in ${maxChars}`).toBeLessThanOrEqual(maxChars);
        expect(text.split('\n')[0]).toMatch(/^\d+ spans, /);
      }
    }
    // Failed steps are kept first (up to 20), then the start and the end.
    const condensed = condenseTrajectory(failures, 24_000);
    expect(condensed.match(/\| ERROR/g)!.length).toBeGreaterThanOrEqual(20);
    expect(condensed).toMatch(/\[… \d+ steps not shown/);
    expect(condensed).toContain('tool tool_0 | ERROR');
    expect(condensed).toContain('tool tool_499');
  });

  it('scores 0 with a scorer error when the execution has no trace; bad config is refused at creation', async () => {
    const { detail } = await judge('trajectoryJudge', {}, caseInput(undefined));
    expect(detail.score).toBe(0);
    expect(detail.reason).toBe("scorer error: trajectoryJudge needs the case's trace (its spans), and this execution has none");
    expect(fake.requests).toHaveLength(0);
    expect(refusals('trajectoryJudge', { aspects: ['speed'] })[0]).toMatch(/^scorer 'trajectoryJudge': config\.aspects\.0 Invalid option/);
    expect(refusals('trajectoryJudge', { maxChars: 100 })).toEqual(["scorer 'trajectoryJudge': config.maxChars Too small: expected number to be >=2000"]);
  });
});

describe('trajectory judges without a provider', () => {
  it('are refused when the suite or run is created, as every judge', () => {
    const refs = ScorerRefListSchema.parse([
      'trajectoryJudge',
      { name: 'spanJudge:relevance', config: { select: { type: 'retrieval' }, criteria: 'Relevant?' } },
    ]);
    const none = defaultScorerRegistry();
    expect(none.check(refs)).toEqual([]);
    expect(none.unavailable(refs).map((i) => i.message)).toEqual([
      "LLM judge 'trajectoryJudge' needs an LLM provider and none is configured: set ANTHROPIC_API_KEY, OPENAI_API_KEY or GOOGLE_CLOUD_PROJECT (Vertex AI); see docs/judges.md",
      "LLM judge 'spanJudge' needs an LLM provider and none is configured: set ANTHROPIC_API_KEY, OPENAI_API_KEY or GOOGLE_CLOUD_PROJECT (Vertex AI); see docs/judges.md",
    ]);
  });
});

describe('spanJudge', () => {
  /** Answers each span's judging by what the span holds: retrievals about Kyōto are relevant. */
  const byRelevance = (req: FakeRequest) => {
    const span = /<span>\n([\s\S]*)\n<\/span>/.exec(sent(req).user)?.[1] ?? '';
    return { verdict: /Ky[oō]to/i.test(span) ? { score: 0.9, reason: 'about Kyōto', evidence: [] } : { score: 0.1, reason: 'not about Kyōto', evidence: [] } };
  };

  it('judges every selected span, aggregates by mean or min, and names the worst span', async () => {
    const tree = await agentTree(receiver, [
      { tool: 'search_docs', args: { q: 'Kyōto ryokan' }, result: 'Ryokan Sakura, Kyōto: 4.6 stars' },
      { tool: 'search_docs', args: { q: 'hotels' }, result: 'Hilton Osaka Bay, Osaka' },
      { llm: 'answer' },
    ]);
    fake.setDefault(byRelevance);
    const config = { select: { type: 'tool' }, criteria: 'Is the retrieved content relevant to the question?' };
    const mean = await judge('spanJudge', config, caseInput(tree));
    expect(fake.requests).toHaveLength(2);
    expect(mean.detail.score).toBeCloseTo(0.5, 10);
    expect(mean.detail.reason).toMatch(
      /^mean 0\.5 over 2 spans matching \{type tool\} judged; the worst, search_docs \(span 3, \+\d+ ms\), scored 0\.1: not about Kyōto$/,
    );
    expect(mean.detail.evidence).toEqual([
      expect.stringMatching(/^search_docs \(span 2.*: 0\.9, about Kyōto$/),
      expect.stringMatching(/: 0\.1, not about Kyōto$/),
    ]);
    expect(mean.calls.map((c) => c.generation.scorer)).toEqual(['spanJudge', 'spanJudge']);
    const { system, user } = sent(fake.requests[1]);
    expect(system).toContain('Judge that span alone.\nIs the retrieved content relevant to the question?');
    expect(user).toMatch(/<span>\n\[3\] \+\d+ ms \(100 ms\) tool search_docs\nattributes:\n/);
    expect(user).toContain('output:\nHilton Osaka Bay, Osaka\n</span>');

    const min = await judge('spanJudge', { ...config, aggregate: 'min' }, caseInput(tree));
    expect(min.detail.score).toBe(0.1);
    fake.setDefault({ verdict: { score: 0.8, reason: 'mostly right', evidence: [] } });
  });

  it('judges retrievals of an OpenInference trace with a prompt naming {{span}}', async () => {
    const { tree } = await corpusOtelTree(
      receiver,
      corpus.otel.find((t) => t.name === 'openinference')!,
    );
    const { detail } = await judge(
      'spanJudge',
      { select: { component: 'retrieval' }, prompt: 'Question: {{input}}\nRetrieved:\n{{span}}\nRelevant?' },
      caseInput(tree),
    );
    expect(fake.requests).toHaveLength(1);
    const { user } = sent(fake.requests[0]);
    expect(user).toMatch(/^Question: Book me a hotel in Kyōto for March 18-21\nRetrieved:\n\[\d+\] .* retrieval VectorStoreRetriever/);
    expect(detail.reason).toMatch(/^mean 0\.8 over 1 span matching \{component retrieval\} judged; the worst, VectorStoreRetriever/);
  });

  it('judges at most maxSpans spans, the first ones, and says how many it left out', async () => {
    const tree = plainTree(Array.from({ length: 5 }, (_, i) => ({ name: 'lookup', args: { i } })));
    const { detail } = await judge('spanJudge', { select: { tool: 'lookup' }, criteria: 'Useful?', maxSpans: 2 }, caseInput(tree));
    expect(fake.requests).toHaveLength(2);
    expect(detail.reason).toContain('over 2 spans matching {tool = "lookup"} judged (the first 2 of 5: maxSpans 2)');
  });

  it("stops at the run's judge budget, scoring 0 and saying how far it got", async () => {
    const tree = plainTree(Array.from({ length: 3 }, (_, i) => ({ name: 'lookup', args: { i } })));
    fake.queue({ verdict: { score: 1, reason: 'useful', evidence: [] }, usage: { input: 400, output: 20 } });
    const { detail, calls } = await judge('spanJudge', { select: { tool: 'lookup' }, criteria: 'Useful?' }, caseInput(tree), 300);
    expect(fake.requests).toHaveLength(1);
    expect(calls).toHaveLength(1);
    expect(detail).toEqual({
      score: 0,
      reason: "judge budget reached: this run's judges used 420 tokens of judge_budget.max_tokens 300; 1 span of 3 had been judged",
      evidence: [],
    });
  });

  it('scores 0 when no span is selected (whenNone: pass scores 1); config without criteria or prompt is refused', async () => {
    const { tree } = corpusJsonTree(corpus.json.find((t) => t.name === 'spec')!);
    const none = await judge('spanJudge', { select: { tool: 'delete_user' }, criteria: 'Safe?' }, caseInput(tree));
    expect(none.detail).toEqual({ score: 0, reason: 'no span matches {tool = "delete_user"}: nothing to judge (whenNone: fail)', evidence: [] });
    expect(fake.requests).toHaveLength(0);
    expect((await judge('spanJudge', { select: { tool: 'delete_user' }, criteria: 'Safe?', whenNone: 'pass' }, caseInput(tree))).detail.score).toBe(1);
    expect(refusals('spanJudge', { select: { type: 'retrieval' } })).toEqual(["scorer 'spanJudge': config.criteria spanJudge requires criteria or a prompt"]);
    expect(refusals('spanJudge', { criteria: 'x' })[0]).toMatch(/^scorer 'spanJudge': config\.select /);
    expect(refusals('spanJudge', { select: {}, criteria: 'x', maxSpans: 51 })).toEqual([
      "scorer 'spanJudge': config.maxSpans Too big: expected number to be <=50",
    ]);
  });
});
