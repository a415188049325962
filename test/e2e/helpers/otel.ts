import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { expect } from 'vitest';
import type { TraceDetail, SpanView } from '../../../core/model/trace.js';
import type { TestService } from '../../helpers/server.js';
import { exportSpans, makeExporter, type ExporterKind } from '../../fixtures/otlp/sdk.js';

export type { ExporterKind };

export { SpanKind, SpanStatusCode };

/** One span of an agent trace to record with the real OpenTelemetry JS SDK. */
export interface SpanSpec {
  /** Local handle, used for `parent` and to find the span afterwards. */
  key: string;
  name: string;
  /** Key of the parent span (declared earlier in the list); none for the root. */
  parent?: string;
  /** Instrumentation scope (the tracer's name and version), as the real instrumentation names it. */
  scope: { name: string; version?: string };
  kind?: SpanKind;
  attributes?: Attributes;
  /** Offsets in ms from the trace's base time. */
  start: number;
  end: number;
  status?: { code: SpanStatusCode; message?: string };
  /** Recorded with span.recordException (an `exception` event), as instrumentations do on failure. */
  exception?: Error;
  events?: Array<{ name: string; attributes?: Attributes; at: number }>;
}

export interface RecordedTrace {
  traceId: string;
  /** Finished spans in the order the SDK finished them (children first, as a span processor sees them). */
  spans: ReadableSpan[];
  byKey: Record<string, ReadableSpan>;
  /** Span id (hex) of each key. */
  ids: Record<string, string>;
  baseMs: number;
}

/**
 * Records one trace with the real SDK (BasicTracerProvider + an in-memory exporter), with the
 * given resource, one tracer per scope, explicit parents and times. Nothing is exported yet.
 */
export async function recordTrace(resource: Attributes, specs: SpanSpec[], baseMs = Date.now() - 60_000): Promise<RecordedTrace> {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes(resource), spanProcessors: [new SimpleSpanProcessor(memory)] });
  const live = new Map<string, Span>();
  for (const s of specs) {
    const tracer = provider.getTracer(s.scope.name, s.scope.version);
    const parent = s.parent ? live.get(s.parent) : undefined;
    if (s.parent && !parent) throw new Error(`parent ${s.parent} of ${s.key} not declared before it`);
    const ctx = parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
    const span = tracer.startSpan(s.name, { kind: s.kind ?? SpanKind.INTERNAL, attributes: s.attributes, startTime: new Date(baseMs + s.start) }, ctx);
    for (const e of s.events ?? []) span.addEvent(e.name, e.attributes ?? {}, new Date(baseMs + e.at));
    if (s.exception) span.recordException(s.exception, new Date(baseMs + s.end - 1));
    if (s.status) span.setStatus(s.status);
    live.set(s.key, span);
  }
  // End children before parents, as a real run does.
  for (const s of [...specs].reverse()) live.get(s.key)!.end(new Date(baseMs + s.end));
  await provider.forceFlush();
  const spans = memory.getFinishedSpans();
  await provider.shutdown();
  const byKey: Record<string, ReadableSpan> = {};
  const ids: Record<string, string> = {};
  const finished = new Map(spans.map((r) => [r.spanContext().spanId, r]));
  for (const s of specs) {
    ids[s.key] = live.get(s.key)!.spanContext().spanId;
    byKey[s.key] = finished.get(ids[s.key])!;
  }
  const traceIds = new Set(spans.map((s) => s.spanContext().traceId));
  if (traceIds.size !== 1) throw new Error(`expected one trace, got ${traceIds.size}`);
  return { traceId: [...traceIds][0], spans, byKey, ids, baseMs };
}

/** GET /api/traces/{id} under `project` (with `query`, e.g. `?spans_limit=10000`); asserts 200. */
export async function getTrace(svc: TestService, traceId: string, project: string | null, query = ''): Promise<TraceDetail> {
  const res = await svc.api(`/api/traces/${traceId}${query}`, { project });
  const text = await res.text();
  expect(res.status, text.slice(0, 500)).toBe(200);
  return JSON.parse(text) as TraceDetail;
}

/** GET /api/spans/{id} under `project`: the span whole (the trace view folds long text). */
export async function getSpan(svc: TestService, spanId: string, project: string | null): Promise<SpanView> {
  const res = await svc.api(`/api/spans/${spanId}`, { project });
  const text = await res.text();
  expect(res.status, text.slice(0, 500)).toBe(200);
  return JSON.parse(text) as SpanView;
}

/** The span of `trace` with this id; fails the test when absent. */
export function spanOf(detail: TraceDetail, spanId: string): SpanView {
  const span = detail.spans.find((s) => s.span_id === spanId);
  expect(span, `span ${spanId} in trace ${detail.trace_id}`).toBeDefined();
  return span!;
}

/** Number of traces the project holds (GET /api/traces total). */
export async function traceCount(svc: TestService, project: string): Promise<number> {
  const res = await svc.api('/api/traces?limit=1', { project });
  expect(res.status).toBe(200);
  return ((await res.json()) as { total: number }).total;
}

/**
 * Exports `spans` once with a fresh real exporter of `kind` under the `x-project-id` header, shuts
 * it down, and asserts the export succeeded (ExportResultCode.SUCCESS).
 */
export async function exportVia(kind: ExporterKind, target: string, project: string, spans: ReadableSpan[], gzip = false): Promise<void> {
  const exporter = makeExporter(kind, kind === 'grpc' ? `http://${target.replace(/^http:\/\//, '')}` : target, project, gzip);
  try {
    const result = await exportSpans(exporter, spans);
    expect(result.error?.message ?? '', `${kind} export to ${target}`).toBe('');
    expect(result.code).toBe(0);
  } finally {
    await exporter.shutdown();
  }
}
