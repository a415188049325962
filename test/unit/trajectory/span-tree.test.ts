import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SpanRecord } from '../../../core/model/span.js';
import { spanTreeOf } from '../../../core/scoring/trace-view.js';
import { parseArguments } from '../../../core/scoring/trajectory/json-value.js';
import { attribute, buildSpanTree, type SpanNode, type SpanTree } from '../../../core/scoring/trajectory/span-tree.js';
import { hostileStrings } from '../../fixtures/corpus/texts.js';
import { loadCorpus } from '../../helpers/corpus.js';
import { corpusJsonTree, corpusOtelTree, useOtlpReceiver } from './traces.js';
import { cpuClock } from '../../helpers/cpu-clock.js';

// The span tree the trajectory scorers read (core/scoring/trajectory/span-tree.ts), built from the
// corpus' agent traces as the real instrumentations emit them (real SDK -> OTLP -> receiver ->
// normalizer -> price table), and from hostile shapes: cycles, missing parents, 5,000 spans,
// huge and non-JSON arguments.

const corpus = loadCorpus();
const otel = (name: string) => corpus.otel.find((t) => t.name === name)!;
const json = (name: string) => corpus.json.find((t) => t.name === name)!;

const receiver = useOtlpReceiver();

/** What must hold of any tree: every span once, parents before children, depths consistent, links terminate. */
function expectWellFormed(tree: SpanTree): void {
  const walked = tree.walk();
  expect(walked).toHaveLength(tree.spans.length);
  expect(new Set(walked).size).toBe(tree.spans.length);
  const position = new Map(walked.map((n, i) => [n, i]));
  for (const node of tree.spans) {
    if (node.parent) {
      expect(node.depth).toBe(node.parent.depth + 1);
      expect(position.get(node.parent)!).toBeLessThan(position.get(node)!);
      expect(node.parent.children).toContain(node);
      expect(node.link).toBe('child');
    } else {
      expect(node.depth).toBe(0);
      expect(tree.roots).toContain(node);
    }
    expect(tree.ancestors(node)).toHaveLength(node.depth);
  }
  tree.spans.forEach((n, i) => {
    expect(n.order).toBe(i);
    if (i > 0) expect(n.startMs).toBeGreaterThanOrEqual(tree.spans[i - 1].startMs);
  });
}

describe('the span tree of the corpus traces', () => {
  it('GenAI (OpenTelemetry conventions): the agent span over its model and tool calls, arguments parsed, the failing tool an error, tokens and cost', async () => {
    const { tree, ids } = await corpusOtelTree(receiver, otel('genai'));
    expectWellFormed(tree);
    expect(tree.roots.map((r) => r.name)).toEqual(['invoke_agent Wayfarer']);
    expect(tree.get(ids.flights)!.parent).toBe(tree.get(ids.agent));
    expect(tree.get(ids.flights)!.depth).toBe(1);
    const calls = tree.toolCalls();
    expect(calls.map((c) => c.name)).toEqual(['search_flights', 'get_weather']);
    expect(calls[1].arguments).toEqual({ kind: 'json', value: { city: 'Kyōto', country: 'JP', dates: ['2026-03-18', '2026-03-21'], units: 'metric' } });
    expect(calls.map((c) => c.error)).toEqual([false, true]);
    expect(calls[1].span.statusMessage).toContain('ToolError');
    expect(calls[0].result).toContain('\n');
    expect(tree.llmCalls().map((n) => n.name)).toEqual(['chat gpt-4o', 'embeddings text-embedding-3-small', 'chat gpt-4o']);
    expect(tree.errors().map((n) => n.id)).toEqual([ids.weather]);
    const stats = tree.stats();
    expect(stats).toMatchObject({
      spans: 6,
      llmCalls: 3,
      toolCalls: 2,
      errors: 1,
      inputTokens: 1864 + 42 + 2950,
      outputTokens: 96 + 610,
      wallMs: 9400,
      maxDepth: 1,
    });
    // gpt-4o is in the shipped price table (the embedding model may not be).
    expect(stats.pricedLlmCalls).toBeGreaterThanOrEqual(2);
    expect(stats.pricedLlmCalls + stats.unpricedLlmCalls).toBe(3);
    expect(stats.costUsd).toBeGreaterThan(0);
    expect(tree.anomalies).toEqual({ withoutId: 0, duplicates: 0, orphans: 0, cycles: 0 });
  });

  it('OpenInference (LangChain): TOOL, RETRIEVER and the failing CHAIN under the AGENT', async () => {
    const { tree, ids } = await corpusOtelTree(receiver, otel('openinference'));
    expectWellFormed(tree);
    expect(tree.toolCalls().map((c) => [c.name, c.arguments.kind])).toEqual([['lookup_order', 'json']]);
    expect(tree.spans.filter((n) => n.component === 'retrieval').map((n) => n.name)).toEqual(['VectorStoreRetriever']);
    expect(tree.errors().map((n) => n.id)).toEqual([ids.format]);
    expect(tree.llmCalls()).toHaveLength(2);
  });

  it('OpenLLMetry: the @tool span named by traceloop.entity.name; a plain span stays a span', async () => {
    const { tree, ids } = await corpusOtelTree(receiver, otel('openllmetry'));
    expectWellFormed(tree);
    expect(tree.toolCalls().map((c) => c.name)).toEqual(['search_web']);
    expect(tree.get(ids.chroma)!.type).toBe('span');
    expect(tree.get(ids.chroma)!.toolName).toBeNull();
  });

  it('Vercel AI SDK: ai.toolCall spans by ai.toolCall.name, the ~600 KB answer kept whole, attributes moved to the output readable again', async () => {
    const { tree, ids } = await corpusOtelTree(receiver, otel('vercel-ai'));
    expectWellFormed(tree);
    const calls = tree.toolCalls();
    expect(calls.map((c) => c.name)).toEqual(['searchDocs', 'getChangelog']);
    expect(calls[1].arguments).toEqual({ kind: 'json', value: { from: '2.9.4', to: '3.0.0' } });
    const wrapper = tree.get(ids.generate)!;
    expect(wrapper.output.length).toBeGreaterThan(500_000);
    // Ingest stores ai.response.text once, as the output; attribute() reads it back under its name.
    expect(wrapper.attributes['ai.response.text']).toBeUndefined();
    expect(attribute(wrapper, 'ai.response.text')).toBe(wrapper.output);
    expect(tree.get(ids.step1)!.parent).toBe(wrapper);
  });

  it('the SPEC JSON body: every kind as its component, tool_status error an error, SPEC selection attributes readable', () => {
    const { tree } = corpusJsonTree(json('spec'));
    expectWellFormed(tree);
    expect(tree.toolCalls().map((c) => [c.name, c.error])).toEqual([
      ['search_flights', false],
      ['get_weather', true],
    ]);
    expect(tree.toolCalls()[1].span.statusMessage).toContain('Weather API timed out');
    const components = new Set(tree.spans.map((n) => n.component));
    for (const c of ['planning', 'generation', 'tool', 'retrieval', 'reasoning', 'routing', 'memory']) expect(components, c).toContain(c);
    expect(tree.spans.find((n) => n.component === 'routing')!.attributes).toHaveProperty('selection_confidence');
  });

  it('the hostile traces (every hostile string as every text, key and value) build whole', async () => {
    const { tree: fromOtel, records } = await corpusOtelTree(receiver, otel('hostile (OTLP)'));
    expectWellFormed(fromOtel);
    expect(fromOtel.spans).toHaveLength(records.length);
    const { tree: fromJson, records: jsonRecords } = corpusJsonTree(json('hostile (JSON)'));
    expectWellFormed(fromJson);
    expect(fromJson.spans).toHaveLength(jsonRecords.length);
    for (const call of [...fromOtel.toolCalls(), ...fromJson.toolCalls()]) expect(['json', 'text']).toContain(call.arguments.kind);
  });
});

describe('the same trace under the names it travels by', () => {
  /** A SpanRecord as the API shows it (SpanView: `type`, ISO times, `cost`). */
  const asView = (r: SpanRecord) => ({
    span_id: r.span_id,
    parent_span_id: r.parent_span_id,
    name: r.name,
    type: r.span_type,
    component_type: r.component_type,
    convention: r.convention,
    status: r.status,
    status_message: r.status_message || null,
    start_time: new Date(r.start_time).toISOString(),
    end_time: new Date(r.end_time).toISOString(),
    duration_ms: r.duration_ms,
    model: r.model,
    input: r.input,
    output: r.output,
    input_tokens: r.input_tokens,
    output_tokens: r.output_tokens,
    cost: r.pricing?.cost ?? null,
    attributes: r.attributes,
  });
  /** A SpanRecord as the online store hands it to scorers (ScoredSpan: `start_ms`, no convention, no cost). */
  const asScored = (r: SpanRecord) => ({
    span_id: r.span_id,
    parent_span_id: r.parent_span_id,
    name: r.name,
    type: r.span_type,
    component_type: r.component_type,
    status: r.status,
    status_message: r.status_message || null,
    start_ms: r.start_time,
    end_ms: r.end_time,
    model: r.model,
    input: r.input,
    output: r.output,
    input_tokens: r.input_tokens,
    output_tokens: r.output_tokens,
    attributes: r.attributes,
  });
  const shape = (t: SpanTree) => ({
    walk: t.walk().map((n) => [n.id, n.depth, n.type, n.component, n.status, n.isError, n.toolName, n.startMs, n.endMs]),
    calls: t.toolCalls().map((c) => [c.name, c.arguments, c.error]),
    tokens: [t.stats().inputTokens, t.stats().outputTokens, t.stats().wallMs],
  });

  it('SpanRecord, SpanView and ScoredSpan give the same tree (cost where the shape carries it)', async () => {
    const { tree, records } = await corpusOtelTree(receiver, otel('genai'));
    const view = buildSpanTree(records.map(asView));
    const scored = buildSpanTree(records.map(asScored));
    expect(shape(view)).toEqual(shape(tree));
    expect(shape(scored)).toEqual(shape(tree));
    expect(view.stats().costUsd).toBeCloseTo(tree.stats().costUsd, 12);
    expect(scored.stats().pricedLlmCalls).toBe(0);
  });

  it("the agent's own spans in the SPEC ingest shape (what spanTreeOf reads from trace.spans) read like their normalized form", () => {
    const body = json('spec').body;
    const normalized = corpusJsonTree(json('spec')).tree;
    const lenient = spanTreeOf({ trace: { trace_id: body.trace_id, spans: body.spans as unknown as Array<Record<string, unknown>> } })!;
    expect(lenient.toolCalls().map((c) => [c.name, c.arguments, c.error])).toEqual(normalized.toolCalls().map((c) => [c.name, c.arguments, c.error]));
    expect(lenient.walk().map((n) => [n.id, n.depth, n.type, n.component, n.isError])).toEqual(
      normalized.walk().map((n) => [n.id, n.depth, n.type, n.component, n.isError]),
    );
    expect(lenient.stats().inputTokens).toBe(normalized.stats().inputTokens);
  });

  it('spanTreeOf prefers the tree the input carries, builds one per trace otherwise, and has none without a trace', () => {
    const tree = buildSpanTree([]);
    expect(spanTreeOf({ spanTree: tree, trace: { spans: [{ span_id: 'x' }] } })).toBe(tree);
    const trace = { spans: [{ span_id: 'x', name: 'root' }] };
    expect(spanTreeOf({ trace })).toBe(spanTreeOf({ trace }));
    expect(spanTreeOf({})).toBeUndefined();
  });
});

/** A span of the ingest shape with just what the tree needs. */
const span = (id: string, parent: string | null, start = 0, extra: Record<string, unknown> = {}) => ({
  span_id: id,
  parent_span_id: parent,
  name: id,
  type: 'span',
  start_time: start,
  end_time: start + 1,
  ...extra,
});

describe('hostile shapes', () => {
  it('breaks every cycle in parent ids at its earliest span, and keeps every span', () => {
    const tree = buildSpanTree([
      span('a', 'c', 0),
      span('b', 'a', 1),
      span('c', 'b', 2),
      span('d', 'a', 3),
      span('self', 'self', 4),
      span('x', 'y', 5),
      span('y', 'x', 6),
    ]);
    expectWellFormed(tree);
    expect(tree.anomalies.cycles).toBe(3);
    expect(tree.roots.map((r) => [r.id, r.link])).toEqual([
      ['a', 'cycle'],
      ['self', 'cycle'],
      ['x', 'cycle'],
    ]);
    expect(tree.get('c')!.depth).toBe(2);
    expect(tree.get('d')!.parent!.id).toBe('a');
    expect(tree.get('y')!.parent!.id).toBe('x');
  });

  it('makes a span whose parent is missing a root (an orphan), and counts spans without ids and duplicates', () => {
    const tree = buildSpanTree([
      span('a', null, 0),
      span('b', 'gone', 1),
      span('c', 'b', 2),
      span('a', null, 9),
      { name: 'no id' },
      // What a decoder should never hand over, but a caller's bug might.
      ...([null, 'text'] as unknown as object[]),
      span('', null),
    ]);
    expectWellFormed(tree);
    expect(tree.roots.map((r) => [r.id, r.link])).toEqual([
      ['a', 'root'],
      ['b', 'orphan'],
    ]);
    expect(tree.get('c')!.depth).toBe(1);
    expect(tree.get('a')!.startMs).toBe(0);
    expect(tree.anomalies).toEqual({ withoutId: 4, duplicates: 1, orphans: 1, cycles: 0 });
  });

  it('builds 5,000 spans in a chain (depth 4,999) or wide, in well under a second, without recursion', () => {
    const chain = Array.from({ length: 5000 }, (_, i) => span(`s${i}`, i === 0 ? null : `s${i - 1}`, i));
    const started = cpuClock();
    const deep = buildSpanTree(chain.reverse());
    const wide = buildSpanTree(Array.from({ length: 5000 }, (_, i) => span(`w${i}`, i === 0 ? null : 'w0', 5000 - i)));
    const elapsed = started.ms();
    expect(deep.stats().maxDepth).toBe(4999);
    expect(deep.walk()[4999].id).toBe('s4999');
    expect(deep.ancestors(deep.get('s4999')!)).toHaveLength(4999);
    expect(wide.roots).toHaveLength(1);
    expect(
      wide
        .get('w0')!
        .children.map((n) => n.id)
        .slice(0, 2),
    ).toEqual(['w4999', 'w4998']);
    expect(elapsed).toBeLessThan(1000);
    // A 5,000-span cycle.
    const ring = buildSpanTree(Array.from({ length: 5000 }, (_, i) => span(`r${i}`, `r${(i + 1) % 5000}`, i)));
    expect(ring.anomalies.cycles).toBe(1);
    expect(ring.roots.map((r) => r.id)).toEqual(['r0']);
    expect(ring.stats().maxDepth).toBe(4999);
  });

  it('reads arguments that are not JSON as text, huge ones whole, deep ones as text, double-encoded ones once more', () => {
    expect(parseArguments('city=Kyoto&days=3')).toEqual({ kind: 'text', why: 'not JSON' });
    expect(parseArguments('')).toEqual({ kind: 'json', value: {} });
    expect(parseArguments(JSON.stringify(JSON.stringify({ a: 1 })))).toEqual({ kind: 'json', value: { a: 1 } });
    expect(parseArguments('"{not json"')).toEqual({ kind: 'json', value: '{not json' });
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    expect(parseArguments(deep).kind).toBe('text');
    const huge = JSON.stringify({ text: 'x'.repeat(5_000_000) });
    const tree = buildSpanTree([span('t', null, 0, { type: 'tool', attributes: { tool_name: 'ingest' }, input: huge, output: 'y'.repeat(5_000_000) })]);
    const call = tree.toolCalls()[0];
    expect(call.name).toBe('ingest');
    expect((call.arguments as { kind: 'json'; value: { text: string } }).value.text).toHaveLength(5_000_000);
  });

  it('keeps the hostile strings as names, tool names and arguments', () => {
    const strings = hostileStrings().map((h) => h.text);
    const tree = buildSpanTree(strings.map((s, i) => span(`h${i}`, null, i, { name: s, type: 'tool', attributes: { tool_name: s }, input: s })));
    expect(tree.toolCalls().map((c) => c.name)).toEqual(strings);
    for (const call of tree.toolCalls()) expect(['json', 'text']).toContain(call.arguments.kind);
  });

  it('holds its invariants over any parent links (random forests, cycles, dangling and duplicate ids)', () => {
    const ids = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h');
    const arbSpans = fc.array(
      fc.record({ id: ids, parent: fc.option(fc.oneof(ids, fc.constant('missing')), { nil: null }), start: fc.integer({ min: 0, max: 5 }) }),
      { maxLength: 12 },
    );
    fc.assert(
      fc.property(arbSpans, (list) => {
        const tree = buildSpanTree(list.map((s) => span(s.id, s.parent, s.start)));
        expectWellFormed(tree);
        const distinct = new Set(list.map((s) => s.id)).size;
        expect(tree.spans).toHaveLength(distinct);
        expect(tree.anomalies.duplicates).toBe(list.length - distinct);
        const roots = tree.spans.filter((n: SpanNode) => n.parent === null);
        expect(roots.length).toBe(tree.roots.length);
        expect(tree.roots.filter((r) => r.link === 'cycle')).toHaveLength(tree.anomalies.cycles);
        expect(tree.roots.filter((r) => r.link === 'orphan')).toHaveLength(tree.anomalies.orphans);
      }),
      { numRuns: 300 },
    );
  });
});
