import { describe, expect, it } from 'vitest';
import { ScorerRefListSchema } from '../../../core/model/eval-case.js';
import { defaultScorerRegistry } from '../../../core/scoring/index.js';
import { selectionConfidenceScorer } from '../../../core/scoring/trajectory/selection-confidence.js';
import { spanMatchScorer } from '../../../core/scoring/trajectory/span-match.js';
import { buildSpanTree, type SpanTree } from '../../../core/scoring/trajectory/span-tree.js';
import { selectionAttributes, type SelectionFields } from '../../../sdk/attributes.js';
import { loadCorpus } from '../../helpers/corpus.js';
import { scoreTree } from './score.js';
import { AGENT_RESOURCE, agentRun, corpusJsonTree, useOtlpReceiver, type AgentStep } from './traces.js';

// The SPEC's skill or tool selection attributes (skill_category, selection_confidence,
// selection_reason, alternatives_considered) read into the span tree, picked by selectors, and
// scored by selectionConfidence: agent runs whose tool spans carry the attributes as the SDK's
// selectionAttributes() writes them, recorded by the real OpenTelemetry SDK, exported over OTLP
// and normalized; and the SPEC JSON corpus trace's routing span.

const corpus = loadCorpus();

const receiver = useOtlpReceiver();

/** An agent run whose steps may record a selection (on the step's own span). */
async function selectingRun(steps: Array<AgentStep & { selection?: SelectionFields }>): Promise<SpanTree> {
  const specs = agentRun(steps);
  steps.forEach((step, i) => {
    const spec = specs.find((s) => s.key === `s${i}`)!;
    if (step.selection) spec.attributes = { ...spec.attributes, ...selectionAttributes(step.selection) };
  });
  const { traceId, records } = await receiver.records(AGENT_RESOURCE, specs);
  return buildSpanTree(records, traceId);
}

const messages = (config: Record<string, unknown>) =>
  defaultScorerRegistry()
    .check(ScorerRefListSchema.parse([{ name: 'selectionConfidence', config }]))
    .map((i) => i.message);

describe('selection attributes in the span tree', () => {
  it('are read from spans exported over OTLP, the alternatives from the OTLP list', async () => {
    const tree = await selectingRun([
      { llm: 'plan' },
      {
        tool: 'get_weather',
        args: { city: 'Kyōto' },
        result: '{"temp": 12}',
        selection: { category: 'weather', confidence: 0.92, reason: 'asks about the weather\nin one city', alternatives: ['search_web', 'get_forecast'] },
      },
    ]);
    const tool = tree.toolCalls()[0].span;
    expect(tool.selection).toEqual({
      category: 'weather',
      confidence: 0.92,
      confidenceText: '0.92',
      reason: 'asks about the weather\nin one city',
      alternatives: ['search_web', 'get_forecast'],
    });
    expect(tree.llmCalls()[0].selection).toBeNull();
  });

  it('are read from the SPEC JSON body (a routing span), and from text values of any shape', () => {
    const { tree } = corpusJsonTree(corpus.json.find((t) => t.name === 'spec')!);
    const route = tree.spans.find((n) => n.component === 'routing')!;
    expect(route.selection).toMatchObject({ category: 'travel', confidence: 0.92, alternatives: ['refunds_agent', 'booking_agent'] });
    expect(route.selection!.reason).toBe('Itinerary request.\n\nNot a booking, not a refund.');

    const odd = buildSpanTree([
      { span_id: 'a', name: 'route', start_ms: 0, attributes: { selection_confidence: 'high', alternatives_considered: 'billing, refunds ,' } },
      { span_id: 'b', name: 'route', start_ms: 1, attributes: { selection_confidence: '1.5', skill_category: '' } },
      { span_id: 'c', name: 'route', start_ms: 2, attributes: { selection_reason: 'only a reason' } },
    ]);
    expect(odd.get('a')!.selection).toEqual({ category: null, confidence: null, confidenceText: 'high', reason: null, alternatives: ['billing', 'refunds'] });
    expect(odd.get('b')!.selection).toMatchObject({ category: null, confidence: null, confidenceText: '1.5' });
    expect(odd.get('c')!.selection).toMatchObject({ reason: 'only a reason', confidence: null, alternatives: [] });
  });

  it('are picked by spanMatch selectors (selection: category, confidence, reason, alternatives)', async () => {
    const { tree } = corpusJsonTree(corpus.json.find((t) => t.name === 'spec')!);
    const d = await scoreTree(spanMatchScorer, tree, {
      checks: [
        { select: { selection: { confidence: { gte: 0.9 }, category: 'travel' } }, count: 1 },
        { select: { selection: { alternatives: { regex: 'booking_agent' } } } },
        { select: { selection: { confidence: { lt: 0.5 } } }, exists: false },
        { select: { component: 'routing' }, every: { selection: { confidence: { gte: 0.95 } } } },
      ],
    });
    expect(d.score).toBe(0.75);
    expect(d.reason).toContain(
      'check 4 failed: 1 span matches {component routing}, and route (span 8, +7410 ms) does not satisfy {selection confidence >= 0.95}: selection confidence: 0.92 is not >= 0.95',
    );
  });
});

describe('selectionConfidence', () => {
  it('scores 1 when no selection is confident but wrong or low, and gives the mean confidence', async () => {
    const tree = await selectingRun([
      { tool: 'search_flights', args: { to: 'KIX' }, selection: { category: 'travel', confidence: 0.9 } },
      { tool: 'get_weather', args: { city: 'Kyōto' }, selection: { category: 'weather', confidence: 0.7 } },
      { llm: 'answer' },
    ]);
    const d = await scoreTree(selectionConfidenceScorer, tree, {}, { expected: { toolCalls: ['search_flights', 'get_weather'] } });
    expect(d.score).toBe(1);
    expect(d.reason).toBe('2 selections, none confident but wrong or low (confident >= 0.8, low < 0.5); mean confidence 0.8');
    expect(d.evidence[0]).toMatch(/^execute_tool search_flights|^search_flights/);
    expect(d.evidence[0]).toContain('[travel] chose "search_flights" at confidence 0.9: ok');
  });

  it('scores 0 for a confident selection of a tool that failed, naming it and the alternatives it considered', async () => {
    const tree = await selectingRun([
      { tool: 'search_flights', args: { to: 'KIX' }, selection: { confidence: 0.85 } },
      {
        tool: 'book_hotel',
        args: { city: 'Kyōto' },
        error: 'HTTP 503 from the booking API',
        selection: { category: 'booking', confidence: 0.95, alternatives: ['search_hotels', 'ask_user'] },
      },
      { llm: 'answer' },
    ]);
    const d = await scoreTree(selectionConfidenceScorer, tree);
    expect(d.score).toBe(0);
    expect(d.reason).toMatch(
      /^1 of 2 selections flagged \(confident >= 0\.8, low < 0\.5\): 1 confident but wrong \(at most 0 allowed\), 0 low confidence; book_hotel \(span 3, \+\d+ ms\) \[booking\] chose "book_hotel" at confidence 0\.95, but it failed \("HTTP 503 from the booking API"\); alternatives considered: search_hotels, ask_user$/,
    );
    expect(d.evidence[1]).toContain('confident but wrong');
    // Allowed once: the score counts it.
    expect((await scoreTree(selectionConfidenceScorer, tree, { maxConfidentWrong: 1 })).score).toBe(0.5);
  });

  it('flags a confident choice of a tool the case did not expect, and a low-confidence one', async () => {
    const tree = await selectingRun([
      { tool: 'search_web', args: { q: 'weather Kyoto' }, selection: { confidence: 0.88 } },
      { tool: 'get_weather', args: { city: 'Kyōto' }, selection: { confidence: 0.3 } },
      { tool: 'get_weather', args: { city: 'Osaka' }, selection: { confidence: 0.8 } },
      { tool: 'get_weather', args: { city: 'Nara' }, selection: { confidence: 0.75 } },
    ]);
    const expected = { toolCalls: ['get_weather'] };
    const d = await scoreTree(selectionConfidenceScorer, tree, { maxConfidentWrong: 1 }, { expected });
    expect(d.score).toBe(0.5);
    expect(d.reason).toContain('2 of 4 selections flagged');
    expect(d.reason).toContain('1 confident but wrong (at most 1 allowed), 1 low confidence');
    expect(d.reason).toContain('chose "search_web" at confidence 0.88, but "search_web" is not an expected choice (expected: get_weather)');
    expect(d.evidence[1]).toContain('at confidence 0.3: low confidence');

    // Only low confidence: the reason names the least confident selection.
    const low = await scoreTree(selectionConfidenceScorer, tree, { select: { tool: 'get_weather' } }, { expected });
    expect(low.score).toBeCloseTo(2 / 3, 10);
    expect(low.reason).toMatch(
      /^1 of 3 selections among the spans matching \{tool = "get_weather"\} flagged .*get_weather \(span 3, .*at confidence 0\.3: low confidence$/,
    );
  });

  it("reads the right tools from the case's expected.trajectory: its calls, and its forbidden tools", async () => {
    const tree = await selectingRun([
      { tool: 'get_weather', args: { city: 'Kyōto' }, selection: { confidence: 0.9 } },
      { tool: 'cancel_booking', args: { id: 'b-1' }, selection: { confidence: 0.93, alternatives: ['ask_user'] } },
    ]);
    const expected = { trajectory: { calls: [{ name: 'get_weather' }, { name: 'cancel_booking' }], forbidden: ['cancel_booking'] }, toolCalls: ['search_web'] };
    const d = await scoreTree(selectionConfidenceScorer, tree, {}, { expected });
    expect(d.score).toBe(0);
    expect(d.reason).toMatch(
      /; cancel_booking \(span 3, \+\d+ ms\) chose "cancel_booking" at confidence 0\.93, but "cancel_booking" is a forbidden tool \(expected\.trajectory\.forbidden\); alternatives considered: ask_user$/,
    );
    // get_weather is right by expected.trajectory.calls, which win over expected.toolCalls.
    expect(d.evidence[0]).toContain('chose "get_weather" at confidence 0.9: ok');
  });

  it('checks a routing span by its output against config.expected', async () => {
    const { tree } = corpusJsonTree(corpus.json.find((t) => t.name === 'spec')!);
    const right = await scoreTree(selectionConfidenceScorer, tree, { expected: ['itinerary_writer'] });
    expect(right.score).toBe(1);
    const wrong = await scoreTree(selectionConfidenceScorer, tree, { expected: ['booking_agent'] });
    expect(wrong.score).toBe(0);
    expect(wrong.reason).toContain(
      'route (span 8, +7410 ms) [travel] chose "itinerary_writer" at confidence 0.92, but "itinerary_writer" is not an expected choice',
    );
    expect(wrong.reason).toContain('alternatives considered: refunds_agent, booking_agent');
  });

  it('says when there is nothing to score, and names confidences it cannot read', async () => {
    const none = await scoreTree(selectionConfidenceScorer, await selectingRun([{ tool: 'search_web', args: { q: 'x' } }]));
    expect(none).toEqual({ score: 1, reason: 'no span records a selection_confidence: nothing to score', evidence: [] });
    const unreadable = buildSpanTree([{ span_id: 'r', name: 'route', start_ms: 0, attributes: { selection_confidence: 'very', skill_category: 'x' } }]);
    const d = await scoreTree(selectionConfidenceScorer, unreadable);
    expect(d.reason).toBe('no span records a selection_confidence that is a number from 0 to 1 (1 span record other selection attributes): nothing to score');
    expect(d.evidence).toEqual(['route (span 1, +0 ms): selection_confidence "very" is not a number from 0 to 1; not scored']);
  });

  it('refuses thresholds out of order when the suite or run is created', () => {
    expect(messages({ low: 0.9, confident: 0.8 })).toEqual(["scorer 'selectionConfidence': config.low low must not be above confident"]);
    expect(messages({ confident: 1.2 })).toEqual(["scorer 'selectionConfidence': config.confident Too big: expected number to be <=1"]);
  });
});
