import { context, trace as otelTrace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTracing, SPAN_KINDS, traceparent, withTraceparent, type Tracing } from '../../sdk/index.js';
import { agentText } from '../helpers/corpus.js';

/**
 * The SDK's spans in process, with an in-memory exporter: the SPEC's kinds and attributes,
 * parents across awaits, and the SDK beside an application's own OpenTelemetry provider.
 */

let exporter: InMemorySpanExporter;
let tracing: Tracing;

beforeAll(() => {
  exporter = new InMemorySpanExporter();
  tracing = createTracing({ spanProcessors: [new SimpleSpanProcessor(exporter)], serviceName: 'unit', flushOnExit: false });
});
afterAll(() => tracing.shutdown());

const byName = (name: string): ReadableSpan => {
  const span = exporter.getFinishedSpans().find((s) => s.name === name);
  if (!span)
    throw new Error(
      `no span ${name}: ${exporter
        .getFinishedSpans()
        .map((s) => s.name)
        .join(', ')}`,
    );
  return span;
};
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

describe('spans of the SPEC kinds', () => {
  it('nests spans across awaits and timers, with span_type and the kind attributes', async () => {
    exporter.reset();
    const result = await tracing.trace('agent run', { input: { q: 'weather in Paris?' } }, async (root) => {
      await new Promise((r) => setTimeout(r, 5));
      for (const kind of SPAN_KINDS) if (kind !== 'span') await tracing.span(kind, `a ${kind}`, async () => new Promise((r) => setImmediate(r)));
      tracing.generation({
        model: 'gpt-4o',
        input: [{ role: 'user', content: 'hi' }],
        output: 'hello',
        usage: { input_tokens: 12, output_tokens: 3 },
        temperature: 0.2,
        stopReason: 'stop',
      });
      tracing.tool({ name: 'get_forecast', input: { city: 'Paris' }, output: { sky: 'sunny' }, status: 'success' });
      tracing.span('routing', 'pick tool', (s) =>
        s.setSelection({ category: 'weather', confidence: 0.9, reason: 'asks about weather', alternatives: ['search'] }),
      );
      await expect(tracing.tool({ name: 'broken' }, () => Promise.reject(new Error('tool exploded')))).rejects.toThrow('tool exploded');
      return root.traceId;
    });
    const root = byName('agent run');
    expect(root.spanContext().traceId).toBe(result);
    expect(root.attributes).toMatchObject({ span_type: 'span', input: '{"q":"weather in Paris?"}' });
    expect(parentOf(root)).toBeUndefined();
    for (const kind of SPAN_KINDS.filter((k) => k !== 'span')) {
      const s = byName(`a ${kind}`);
      expect(s.attributes.span_type).toBe(kind);
      expect(parentOf(s)).toBe(root.spanContext().spanId);
    }
    expect(byName('generation gpt-4o').attributes).toMatchObject({
      span_type: 'generation',
      model: 'gpt-4o',
      input: '[{"role":"user","content":"hi"}]',
      output: 'hello',
      input_tokens: 12,
      output_tokens: 3,
      temperature: 0.2,
      stop_reason: 'stop',
    });
    expect(byName('get_forecast').attributes).toMatchObject({
      span_type: 'tool',
      tool_name: 'get_forecast',
      tool_input: '{"city":"Paris"}',
      tool_output: '{"sky":"sunny"}',
      tool_status: 'success',
    });
    expect(byName('pick tool').attributes).toMatchObject({
      span_type: 'routing',
      skill_category: 'weather',
      selection_confidence: 0.9,
      selection_reason: 'asks about weather',
      alternatives_considered: ['search'],
    });
    const broken = byName('broken');
    expect(broken.attributes).toMatchObject({ tool_name: 'broken', tool_status: 'error', error_message: 'tool exploded' });
    expect(broken.status.code).toBe(2);
    expect(broken.events.map((e) => e.name)).toContain('exception');
  });

  it('records the texts of a model call and a tool call as given, for any text agents send (corpus, fast-check)', () => {
    fc.assert(
      fc.property(agentText(), agentText(), agentText(), (input, output, toolOutput) => {
        exporter.reset();
        tracing.trace('property run', () => {
          tracing.generation({ model: 'm', input, output });
          tracing.tool({ name: 'lookup', input: { query: input }, output: toolOutput });
        });
        expect(byName('generation m').attributes).toMatchObject({ input, output });
        expect(byName('lookup').attributes).toMatchObject({ tool_input: JSON.stringify({ query: input }), tool_output: toolOutput });
      }),
      { numRuns: 50 },
    );
  });

  it('gives the traceparent of the active span and continues an incoming one', () => {
    expect(traceparent()).toBeUndefined();
    tracing.trace('outer', (s) => expect(traceparent()).toBe(`00-${s.traceId}-${s.spanId}-01`));
    const incoming = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    exporter.reset();
    withTraceparent(incoming, () => tracing.span('tool', 'continued', () => undefined));
    const s = byName('continued');
    expect(s.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(parentOf(s)).toBe('b7ad6b7169203331');
  });

  it('refuses an unknown kind and selection confidence outside 0..1', () => {
    expect(() => tracing.span('thinking' as never, 'x', () => 1)).toThrow("unknown span kind 'thinking'");
    expect(() => tracing.span('routing', 'x', (s) => s.setSelection({ confidence: 1.5 }))).toThrow('between 0.0 and 1.0');
  });
});

describe('beside an application that has its own OpenTelemetry provider', () => {
  it('leaves the global provider alone, and both export spans of one trace', async () => {
    const theirs = new InMemorySpanExporter();
    const appProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(theirs)] });
    expect(otelTrace.setGlobalTracerProvider(appProvider)).toBe(true);
    try {
      const ours = new InMemorySpanExporter();
      const sdk = createTracing({ spanProcessors: [new SimpleSpanProcessor(ours)], flushOnExit: false });
      const appTracer = otelTrace.getTracer('app');
      await appTracer.startActiveSpan('http request', async (appSpan) => {
        await sdk.trace('agent', async () => {
          await new Promise((r) => setTimeout(r, 2));
          // e.g. an HTTP client instrumentation's span inside the SDK's generation
          await sdk.span('generation', 'llm', () => Promise.resolve(appTracer.startActiveSpan('POST /v1/chat', (s) => s.end())));
        });
        appSpan.end();
      });
      // The SDK did not replace the application's provider.
      expect(otelTrace.getTracerProvider()).not.toBe(sdk.provider);
      const ourSpans = ours.getFinishedSpans();
      const theirSpans = theirs.getFinishedSpans();
      expect(ourSpans.map((s) => s.name).sort()).toEqual(['agent', 'llm']);
      expect(theirSpans.map((s) => s.name).sort()).toEqual(['POST /v1/chat', 'http request']);
      const traceIds = new Set([...ourSpans, ...theirSpans].map((s) => s.spanContext().traceId));
      expect(traceIds.size).toBe(1);
      const span = (list: ReadableSpan[], name: string) => list.find((s) => s.name === name)!;
      expect(parentOf(span(ourSpans, 'agent'))).toBe(span(theirSpans, 'http request').spanContext().spanId);
      expect(parentOf(span(theirSpans, 'POST /v1/chat'))).toBe(span(ourSpans, 'llm').spanContext().spanId);
      await sdk.shutdown();
    } finally {
      otelTrace.disable();
      // The SDK's context manager stays; other tests in this file only need it.
      expect(context.active()).toBeDefined();
    }
  });
});
