import fc from 'fast-check';
import { expect } from 'vitest';
import type { ComponentType, Convention, SpanType } from '../../core/model/span.js';
import { SPAN_TEXT_CAP } from '../../core/model/span-page.js';
import type { SpanView, TraceDetail, TraceSpanView } from '../../core/model/trace.js';
import { SpanKind, SpanStatusCode, type RecordedTrace, type SpanSpec } from '../e2e/helpers/otel.js';
import { genaiTrace } from '../fixtures/corpus/traces/genai.js';
import { hostileJsonTrace, hostileOtelTrace } from '../fixtures/corpus/traces/hostile.js';
import { openinferenceTrace } from '../fixtures/corpus/traces/openinference.js';
import { openllmetryTrace } from '../fixtures/corpus/traces/openllmetry.js';
import { specTrace } from '../fixtures/corpus/traces/spec.js';
import { vercelAiTrace } from '../fixtures/corpus/traces/vercel-ai.js';
import { hostileStrings, longAnswer, texts } from '../fixtures/corpus/texts.js';
import type { TestService } from './server.js';

/**
 * The corpus of test/fixtures/corpus (README.md there): whole agent traces as the four real
 * instrumentation libraries emit them, the SPEC's own JSON ingest body, and traces made of the
 * hostile strings. This module types them, turns them into what each way in sends (SpanSpecs for
 * the real OpenTelemetry SDK, JSON bodies), and checks what the API reads back, field by field.
 */

// ---------------------------------------------------------------------------------------------
// The corpus' shapes

/** An attribute value as the OpenTelemetry API takes it. */
export type OtelValue = string | number | boolean | string[] | number[] | boolean[];

/** A text column's expected value: the exact text, or JSON text equal (parsed) to `json`. */
export type TextExpectation = string | { json: unknown };

/** What the service must store for a span, beyond the fields sent as they are. */
export interface SpanExpectation {
  type: SpanType;
  component_type: ComponentType | null;
  convention: Convention;
  model: string | null;
  input: TextExpectation;
  output: TextExpectation;
  input_tokens: number;
  output_tokens: number;
  status: 'ok' | 'error';
  status_message: string | null;
}

/** One span as an instrumentation records it with the OpenTelemetry SDK. */
export interface CorpusOtelSpan {
  key: string;
  parent?: string;
  name: string;
  kind: 'internal' | 'server' | 'client' | 'producer' | 'consumer';
  scope: { name: string; version: string };
  /** Offsets in ms from the trace's base time. */
  start: number;
  end: number;
  attributes: Record<string, OtelValue>;
  events?: Array<{ name: string; at: number; attributes: Record<string, OtelValue> }>;
  status?: { code: 'ok' | 'error'; message?: string };
  expect: SpanExpectation;
}

export interface CorpusOtelTrace {
  /** Short name of the trace in test titles. */
  name: string;
  description: string;
  resource: Record<string, OtelValue>;
  spans: CorpusOtelSpan[];
}

/** A span of the SPEC's JSON body (POST /api/traces/ingest, POST /api/spans). */
export interface CorpusJsonSpan {
  span_id: string;
  parent_span_id?: string;
  name: string;
  type: string;
  start_time: string;
  end_time: string;
  status?: 'ok' | 'error';
  status_message?: string;
  attributes: Record<string, unknown>;
  model?: string;
  input?: unknown;
  output?: unknown;
  input_tokens?: number;
  output_tokens?: number;
}

export interface CorpusJsonTrace {
  name: string;
  description: string;
  body: {
    trace_id: string;
    name: string;
    status: 'ok' | 'error';
    duration_ms: number;
    start_time: string;
    attributes: Record<string, string | number | boolean>;
    spans: CorpusJsonSpan[];
  };
  /** By span_id. */
  expect: Record<string, SpanExpectation>;
}

export interface Corpus {
  /** Recorded with the real OpenTelemetry SDK and sent over OTLP (HTTP protobuf or JSON, gRPC). */
  otel: CorpusOtelTrace[];
  /** Sent as the SPEC's JSON (POST /api/traces/ingest, POST /api/spans). */
  json: CorpusJsonTrace[];
}

/** The whole corpus; JSON traces start at `baseMs` (ISO times in their bodies). */
export function loadCorpus(baseMs = Date.now() - 120_000): Corpus {
  return {
    otel: [genaiTrace(), openinferenceTrace(), openllmetryTrace(), vercelAiTrace(), hostileOtelTrace()],
    json: [specTrace(baseMs), hostileJsonTrace(baseMs)],
  };
}

// ---------------------------------------------------------------------------------------------
// The corpus' texts for properties

/** Every text of the corpus: what agents send (texts/), the ~600 KB answer, every hostile string. */
export function corpusTexts(): string[] {
  return [...Object.values(texts), longAnswer(), ...hostileStrings().map((h) => h.text)];
}

/**
 * Text as agents send it, for fast-check properties of a write or read path: a text or hostile
 * string of the corpus, or any string (graphemes of every script, any code points, or UTF-16 units with lone
 * surrogates). `wellFormed: true` leaves out what holds a lone surrogate.
 */
/** The corpus' hostile strings but its long line (over 1,000 characters), so that property runs stay fast. */
export const shortHostileTexts = (): string[] =>
  hostileStrings()
    .filter((h) => h.text.length < 1000)
    .map((h) => h.text);

/**
 * Any text: grapheme clusters and any code points including lone surrogates (up to `maxLength`),
 * strings assembled from up to `maxPieces` of `pieces`, and each of `whole` as it is.
 */
export function textOf(pieces: string[], whole: string[], opts: { maxLength: number; maxPieces: number }): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: opts.maxLength }),
    fc.string({ unit: 'binary', maxLength: opts.maxLength }),
    fc.array(fc.constantFrom(...pieces), { maxLength: opts.maxPieces }).map((p) => p.join('')),
    fc.constantFrom(...whole),
  );
}

export function agentText(opts: { wellFormed?: boolean; maxLength?: number } = {}): fc.Arbitrary<string> {
  const maxLength = opts.maxLength ?? 300;
  const corpusText = fc.constantFrom(...corpusTexts().filter((t) => !opts.wellFormed || t.isWellFormed()));
  const graphemes = fc.string({ unit: 'grapheme', maxLength });
  const codePoints = fc.string({ unit: 'binary', maxLength });
  if (opts.wellFormed) return fc.oneof(corpusText, graphemes, codePoints);
  const utf16Units = fc.string({ unit: fc.nat(0xffff).map((c) => String.fromCharCode(c)), maxLength });
  return fc.oneof(corpusText, graphemes, codePoints, utf16Units);
}

// ---------------------------------------------------------------------------------------------
// What each way in sends

const KINDS = { internal: SpanKind.INTERNAL, server: SpanKind.SERVER, client: SpanKind.CLIENT, producer: SpanKind.PRODUCER, consumer: SpanKind.CONSUMER };

/** The trace's spans as SpanSpecs for recordTrace (test/e2e/helpers/otel.ts): the real SDK records them. */
export function toSpanSpecs(trace: CorpusOtelTrace): SpanSpec[] {
  return trace.spans.map((s) => ({
    key: s.key,
    parent: s.parent,
    name: s.name,
    kind: KINDS[s.kind],
    scope: s.scope,
    attributes: s.attributes,
    start: s.start,
    end: s.end,
    status: s.status && { code: s.status.code === 'ok' ? SpanStatusCode.OK : SpanStatusCode.ERROR, message: s.status.message },
    events: s.events?.map((e) => ({ name: e.name, at: e.at, attributes: e.attributes })),
  }));
}

/** POST /api/spans bodies of a JSON trace: all its spans but the last in one request, the last alone (the one-span form). */
export function toSpansBodies(trace: CorpusJsonTrace): unknown[] {
  const { trace_id, spans } = trace.body;
  return [
    { trace_id, spans: spans.slice(0, -1) },
    { trace_id, ...spans[spans.length - 1] },
  ];
}

// ---------------------------------------------------------------------------------------------
// What must be read back

/** A span as it was sent, and what the service must make of it. */
export interface SentSpan {
  span_id: string;
  trace_id: string;
  parent_span_id: string | null;
  name: string;
  kind: string | null;
  start_time: string;
  end_time: string;
  /** Attributes as text (stringifyAttributes), before a value moved to input/output leaves them. */
  attributes: Record<string, string>;
  resource_attributes: Record<string, string>;
  scope: { name: string; version: string };
  events: Array<{ name: string; time: number; attributes: Record<string, unknown> }>;
  expect: SpanExpectation;
}

/** The trace summary GET /api/traces/{id} must show. */
export interface SummaryExpectation {
  trace_id: string;
  name: string;
  status: 'ok' | 'error';
  span_count: number;
  error_count: number;
  llm_call_count: number;
  tool_call_count: number;
  total_input_tokens: number;
  total_output_tokens: number;
  attributes: Record<string, string>;
}

export interface SentTrace {
  /** Short name for messages. */
  name: string;
  trace_id: string;
  spans: SentSpan[];
  summary: SummaryExpectation;
}

/** An attribute value as the store holds it: strings as they are, scalars via String(), structures as JSON. */
function storedText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

const storedMap = (m: Record<string, unknown>): Record<string, string> => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, storedText(v)]));

const iso = (ms: number): string => new Date(ms).toISOString();

/** Longest JSON of the root's resource attributes a trace summary keeps whole (core/store/clickhouse/trace-stats-rows.ts). */
const SUMMARY_RESOURCE_MAX = 4096;

/**
 * The root's resource attributes as the trace summary holds them: whole when their JSON is at
 * most SUMMARY_RESOURCE_MAX characters, else only those that name the service (service.*,
 * deployment.*, telemetry.sdk.*, values of at most 256 characters). The spans keep theirs whole.
 */
function summaryResource(resource: Record<string, string>): Record<string, string> {
  if (JSON.stringify(resource).length <= SUMMARY_RESOURCE_MAX) return resource;
  const naming = Object.entries(resource).filter(([k, v]) => /^(service\.|deployment\.|telemetry\.sdk\.)/.test(k) && v.length <= 256);
  return JSON.stringify(Object.fromEntries(naming)).length <= SUMMARY_RESOURCE_MAX ? Object.fromEntries(naming) : {};
}

/** The summary of the sent spans: counts of distinct spans, tokens of generation spans (docs/architecture.md). */
function summaryOf(
  traceId: string,
  spans: SentSpan[],
  header?: { name: string; status: 'ok' | 'error'; attributes: Record<string, string> },
): SummaryExpectation {
  const roots = spans.filter((s) => s.parent_span_id === null).sort((a, b) => a.start_time.localeCompare(b.start_time) || a.span_id.localeCompare(b.span_id));
  const errors = spans.filter((s) => s.expect.status === 'error').length;
  const generations = spans.filter((s) => s.expect.type === 'generation');
  return {
    trace_id: traceId,
    name: header?.name ?? roots[0].name,
    status: errors > 0 || header?.status === 'error' ? 'error' : 'ok',
    span_count: spans.length,
    error_count: errors,
    llm_call_count: generations.length,
    tool_call_count: spans.filter((s) => s.expect.type === 'tool').length,
    total_input_tokens: generations.reduce((n, s) => n + s.expect.input_tokens, 0),
    total_output_tokens: generations.reduce((n, s) => n + s.expect.output_tokens, 0),
    // The root span's resource, updated by the explicit header's attributes.
    attributes: { ...summaryResource(roots[0].resource_attributes), ...header?.attributes },
  };
}

/**
 * What the real SDK recorded for an OpenTelemetry corpus trace, as SentSpans. Asserts first that
 * the SDK recorded the corpus unchanged (no attribute dropped by its limits), so the expectations
 * are about what went over the wire.
 */
export function sentFromRecorded(trace: CorpusOtelTrace, rec: RecordedTrace): SentTrace {
  const spans = trace.spans.map((s): SentSpan => {
    const readable = rec.byKey[s.key];
    expect(readable.attributes, `${trace.name}/${s.key}: the SDK recorded every attribute`).toEqual(s.attributes);
    expect(readable.droppedAttributesCount + readable.droppedEventsCount, `${trace.name}/${s.key}: nothing dropped by the SDK`).toBe(0);
    return {
      span_id: rec.ids[s.key],
      trace_id: rec.traceId,
      parent_span_id: s.parent ? rec.ids[s.parent] : null,
      name: s.name,
      kind: s.kind,
      start_time: iso(rec.baseMs + s.start),
      end_time: iso(rec.baseMs + s.end),
      attributes: storedMap(s.attributes),
      resource_attributes: storedMap(readable.resource.attributes),
      scope: s.scope,
      events: (s.events ?? []).map((e) => ({ name: e.name, time: rec.baseMs + e.at, attributes: e.attributes })),
      expect: s.expect,
    };
  });
  return { name: trace.name, trace_id: rec.traceId, spans, summary: summaryOf(rec.traceId, spans) };
}

/**
 * A JSON corpus trace as SentSpans. `route`: `ingest` sends the header too (its name, status and
 * attributes make the summary's); `spans` (POST /api/spans) sends spans only, so the root span names the trace.
 */
export function sentFromJson(trace: CorpusJsonTrace, route: 'ingest' | 'spans'): SentTrace {
  const { body } = trace;
  const spans = body.spans.map((s): SentSpan => ({
    span_id: s.span_id,
    trace_id: body.trace_id,
    parent_span_id: s.parent_span_id ?? null,
    name: s.name,
    kind: null,
    start_time: iso(Date.parse(s.start_time)),
    end_time: iso(Date.parse(s.end_time)),
    attributes: storedMap(s.attributes),
    resource_attributes: {},
    scope: { name: 'agent-eval.json-ingest', version: '' },
    events: [],
    expect: trace.expect[s.span_id],
  }));
  const header = route === 'ingest' ? { name: body.name, status: body.status, attributes: storedMap(body.attributes) } : undefined;
  return { name: `${trace.name} (${route})`, trace_id: body.trace_id, spans, summary: summaryOf(body.trace_id, spans, header) };
}

/** A GET against the API under the test's project, as the caller has it (svc.api, apiFetch, ...). */
export type ApiGet = (pathname: string) => Promise<Response>;

/** GETs through `svc`'s API as project `project`. */
export const projectReader =
  (svc: Pick<TestService, 'api'>, project: string): ApiGet =>
  (pathname) =>
    svc.api(pathname, { project });

/** Every page of GET /api/traces/{id}, `pageSize` spans a page; undefined while the trace is not found. */
export async function readWholeTrace(
  get: ApiGet,
  traceId: string,
  pageSize: number,
): Promise<{ detail: TraceDetail; spans: TraceSpanView[]; pages: number } | undefined> {
  let cursor: string | null = null;
  let first: TraceDetail | undefined;
  const spans: TraceSpanView[] = [];
  let pages = 0;
  do {
    const query = `?spans_limit=${pageSize}${cursor ? `&spans_cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await get(`/api/traces/${encodeURIComponent(traceId)}${query}`);
    const text = await res.text();
    if (res.status === 404 && !first) return undefined;
    expect(res.status, `GET trace ${traceId} page ${pages + 1}: ${text.slice(0, 500)}`).toBe(200);
    const page = JSON.parse(text) as TraceDetail;
    first ??= page;
    spans.push(...page.spans);
    cursor = page.spans_next_cursor;
    pages++;
  } while (cursor !== null);
  return { detail: first, spans, pages };
}

/** GET /api/spans/{id}: the span whole. */
export async function readSpan(get: ApiGet, spanId: string): Promise<SpanView> {
  const res = await get(`/api/spans/${encodeURIComponent(spanId)}`);
  const text = await res.text();
  expect(res.status, `GET span ${JSON.stringify(spanId)}: ${text.slice(0, 500)}`).toBe(200);
  return JSON.parse(text) as SpanView;
}

/** Text as the store gives it back: a lone UTF-16 surrogate becomes U+FFFD, nothing else changes. */
export const wellFormed = (s: string): string => s.toWellFormed();

const wellFormedMap = (m: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(m).map(([k, v]) => [wellFormed(k), wellFormed(v)]));

/**
 * Equal texts, or a failure that says where they part (a 600 KB text's diff would drown the
 * report): both lengths, the first differing index and the text around it on both sides.
 */
export function expectSameText(got: string, want: string, label: string): void {
  if (got === want) return;
  let i = 0;
  while (i < got.length && i < want.length && got[i] === want[i]) i++;
  const around = (s: string) => JSON.stringify(s.slice(Math.max(0, i - 40), i + 40));
  expect.fail(`${label}: got ${got.length} UTF-16 units, want ${want.length}; first difference at ${i}: got ${around(got)}, want ${around(want)}`);
}

/** A text shortened for a failure message. */
const brief = (s: string): string => JSON.stringify(s.length > 80 ? `${s.slice(0, 60)}…(${s.length} units)` : s);

/**
 * Equal string maps, or a failure that names the keys missing, unexpected and different (maps
 * holding the 60,000-character line would drown a plain diff).
 */
export function expectSameMap(got: Record<string, string>, want: Record<string, string>, label: string): void {
  const problems: string[] = [];
  for (const [k, v] of Object.entries(want)) {
    if (!Object.prototype.hasOwnProperty.call(got, k)) problems.push(`missing ${brief(k)}`);
    else if (got[k] !== v) problems.push(`${brief(k)}: got ${brief(got[k])}, want ${brief(v)}`);
  }
  for (const k of Object.keys(got)) if (!Object.prototype.hasOwnProperty.call(want, k)) problems.push(`unexpected ${brief(k)} = ${brief(got[k])}`);
  if (problems.length > 0) expect.fail(`${label}: ${problems.length} of ${Object.keys(want).length} keys differ:\n  ${problems.join('\n  ')}`);
}

/**
 * Deep equality whose failure stays readable with 600 KB texts: strings are compared by
 * expectSameText, objects key by key (missing and unexpected keys named), arrays item by item.
 */
export function expectSame(got: unknown, want: unknown, label: string): void {
  if (typeof want === 'string') {
    if (typeof got !== 'string') expect.fail(`${label}: got ${JSON.stringify(got)?.slice(0, 200)}, want the text ${brief(want)}`);
    return expectSameText(got, want, label);
  }
  if (Array.isArray(want)) {
    if (!Array.isArray(got) || got.length !== want.length)
      expect.fail(`${label}: got ${Array.isArray(got) ? `${got.length} items` : typeof got}, want ${want.length} items`);
    want.forEach((w, i) => expectSame((got as unknown[])[i], w, `${label}[${i}]`));
    return;
  }
  if (want !== null && typeof want === 'object') {
    if (got === null || typeof got !== 'object' || Array.isArray(got)) expect.fail(`${label}: got ${JSON.stringify(got)?.slice(0, 200)}, want an object`);
    const g = got as Record<string, unknown>;
    const w = want as Record<string, unknown>;
    const missing = Object.keys(w).filter((k) => !Object.prototype.hasOwnProperty.call(g, k));
    const extra = Object.keys(g).filter((k) => !Object.prototype.hasOwnProperty.call(w, k));
    if (missing.length + extra.length > 0)
      expect.fail(`${label}: missing keys ${missing.map(brief).join(', ') || 'none'}; unexpected keys ${extra.map(brief).join(', ') || 'none'}`);
    for (const k of Object.keys(w)) expectSame(g[k], w[k], `${label}.${brief(k)}`);
    return;
  }
  expect(got, label).toEqual(want);
}

/** Attributes of at least this many characters that became the input or output are stored once (collector/normalize MOVED_VALUE_MIN_LENGTH). */
const MOVED_MIN = 256;

/**
 * The attributes as stored: a value of MOVED_MIN characters or more that the span's input or
 * output is verbatim is dropped and named by `agent_eval.input_source` / `agent_eval.output_source`
 * (docs/architecture.md: a prompt is stored once).
 */
function storedAttributes(sent: Record<string, string>, input: string, output: string): Record<string, string> {
  const out = { ...sent };
  if (input.length < MOVED_MIN && output.length < MOVED_MIN) return out;
  for (const key of Object.keys(out)) {
    const value = out[key];
    if (value.length < MOVED_MIN) continue;
    if (value === input) {
      delete out[key];
      out['agent_eval.input_source'] = key;
    } else if (value === output) {
      delete out[key];
      out['agent_eval.output_source'] = key;
    }
  }
  return out;
}

/** A text column read back whole: exactly the expected text, or JSON equal to it. */
function expectColumn(got: string, want: TextExpectation, label: string): void {
  if (typeof want === 'string') return expectSameText(got, wellFormed(want), label);
  let parsed: unknown;
  try {
    parsed = JSON.parse(got);
  } catch {
    expect.fail(`${label} is not JSON: ${JSON.stringify(got.slice(0, 200))}`);
  }
  expectSame(parsed, want.json, label);
}

/** GET /api/spans/{id} shows the span as it was sent: every field, every attribute key and value, whole texts. */
export function expectSpanAsSent(got: SpanView, sent: SentSpan, label: string): void {
  const e = sent.expect;
  expectSame(
    {
      span_id: got.span_id,
      trace_id: got.trace_id,
      parent_span_id: got.parent_span_id,
      name: got.name,
      kind: got.kind,
      type: got.type,
      component_type: got.component_type,
      convention: got.convention,
      status: got.status,
      status_message: got.status_message,
      start_time: got.start_time,
      end_time: got.end_time,
      duration_ms: got.duration_ms,
      model: got.model,
      input_tokens: got.input_tokens,
      output_tokens: got.output_tokens,
      scope: got.scope,
    },
    {
      span_id: sent.span_id,
      trace_id: sent.trace_id,
      parent_span_id: sent.parent_span_id,
      name: wellFormed(sent.name),
      kind: sent.kind,
      type: e.type,
      component_type: e.component_type,
      convention: e.convention,
      status: e.status,
      status_message: e.status_message === null ? null : wellFormed(e.status_message),
      start_time: sent.start_time,
      end_time: sent.end_time,
      duration_ms: Date.parse(sent.end_time) - Date.parse(sent.start_time),
      model: e.model === null ? null : wellFormed(e.model),
      input_tokens: e.input_tokens,
      output_tokens: e.output_tokens,
      scope: { name: wellFormed(sent.scope.name), version: wellFormed(sent.scope.version) },
    },
    label,
  );
  expectColumn(got.input, e.input, `${label} input`);
  expectColumn(got.output, e.output, `${label} output`);
  expectSameMap(got.attributes, storedAttributes(wellFormedMap(sent.attributes), got.input, got.output), `${label} attributes`);
  expectSameMap(got.resource_attributes, wellFormedMap(sent.resource_attributes), `${label} resource attributes`);
  expectSame(got.events, sent.events, `${label} events`);
}

/** The first SPAN_TEXT_CAP code points of a text, as the trace view cuts it. */
function cut(s: string): string {
  const points = [...s];
  return points.length > SPAN_TEXT_CAP ? points.slice(0, SPAN_TEXT_CAP).join('') : s;
}

/** A span of the trace view is the whole span, with input and output cut to SPAN_TEXT_CAP code points and flagged when cut. */
export function expectTraceViewSpan(view: TraceSpanView, whole: SpanView, label: string): void {
  const { input, output, input_truncated, output_truncated, ...rest } = view;
  const { input: wholeInput, output: wholeOutput, ...wholeRest } = whole;
  // `llm` (the conversation the API reads from input and output) is built from the cut texts in the view.
  delete rest.llm;
  delete wholeRest.llm;
  expectSame(rest, wholeRest, `${label} in the trace view`);
  expectSameText(input, cut(wholeInput), `${label} input in the trace view`);
  expectSameText(output, cut(wholeOutput), `${label} output in the trace view`);
  expect({ input_truncated, output_truncated }, label).toEqual({
    input_truncated: [...wholeInput].length > SPAN_TEXT_CAP,
    output_truncated: [...wholeOutput].length > SPAN_TEXT_CAP,
  });
}

/** The trace summary of GET /api/traces/{id} counts exactly the spans sent, and names and labels the trace as sent. */
export function expectSummary(detail: TraceDetail, want: SummaryExpectation, label: string): void {
  const { attributes, ...counts } = want;
  expectSame(
    {
      trace_id: detail.trace_id,
      name: detail.name,
      status: detail.status,
      span_count: detail.span_count,
      error_count: detail.error_count,
      llm_call_count: detail.llm_call_count,
      tool_call_count: detail.tool_call_count,
      total_input_tokens: detail.total_input_tokens,
      total_output_tokens: detail.total_output_tokens,
    },
    { ...counts, name: wellFormed(counts.name) },
    `${label} summary`,
  );
  expectSameMap(detail.attributes, wellFormedMap(attributes), `${label} trace attributes`);
}

/**
 * Reads the trace back through the API and checks all of it: the summary, every page of the trace
 * view (exactly the sent span ids, once each), and every span whole through GET /api/spans/{id}.
 */
export async function expectTraceStoredAsSent(get: ApiGet, sent: SentTrace, pageSize = 4): Promise<void> {
  const read = await readWholeTrace(get, sent.trace_id, pageSize);
  expect(read, `${sent.name}: trace ${sent.trace_id} found`).toBeDefined();
  const { detail, spans } = read!;
  expectSummary(detail, sent.summary, sent.name);
  expect(spans.map((s) => s.span_id).sort(), `${sent.name}: span ids of every page`).toEqual(sent.spans.map((s) => s.span_id).sort());
  for (const s of sent.spans) {
    const label = `${sent.name}/${JSON.stringify(s.name.slice(0, 60))}`;
    const whole = await readSpan(get, s.span_id);
    expectSpanAsSent(whole, s, label);
    expectTraceViewSpan(
      spans.find((v) => v.span_id === s.span_id)!,
      whole,
      label,
    );
  }
}
