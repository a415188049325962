import fs from 'node:fs';
import type { Attributes } from '@opentelemetry/api';
import { expect } from 'vitest';
import type { SpanView } from '../../../core/model/trace.js';
import type { FixtureExpectation } from '../../helpers/convention-fixture.js';
import { SpanKind, SpanStatusCode, type SpanSpec } from './otel.js';

/** A file of test/fixtures/conventions: the attributes a real instrumentation emits, and what they must become. */
export interface ConventionFixture {
  name: string;
  kind?: string;
  startTimeMs: number;
  endTimeMs: number;
  attributes: Attributes;
  events: Array<{ name: string; timeMs: number; attributes: Attributes }>;
  status: { code: 'unset' | 'ok' | 'error'; message?: string };
  resource: Attributes;
  scope: { name: string; version: string };
  expected: FixtureExpectation;
}

const FIXTURES = new URL('../../fixtures/conventions/', import.meta.url);

/** `loadFixture('genai/execute-tool')`. */
export function loadFixture(name: string): ConventionFixture {
  return JSON.parse(fs.readFileSync(new URL(`${name}.json`, FIXTURES), 'utf8')) as ConventionFixture;
}

const KINDS: Record<string, SpanKind> = {
  internal: SpanKind.INTERNAL,
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
};
const STATUS: Record<string, SpanStatusCode> = { unset: SpanStatusCode.UNSET, ok: SpanStatusCode.OK, error: SpanStatusCode.ERROR };

/**
 * A SpanSpec sending the fixture's span as the SDK would: same name, kind, scope, attributes,
 * events (times kept relative to the span's start), status and duration, starting at `start`.
 */
export function specFromFixture(f: ConventionFixture, at: { key: string; parent?: string; start: number; attributes?: Attributes }): SpanSpec {
  const offset = at.start - f.startTimeMs;
  return {
    key: at.key,
    parent: at.parent,
    name: f.name,
    kind: f.kind ? KINDS[f.kind] : SpanKind.INTERNAL,
    scope: { name: f.scope.name, version: f.scope.version },
    attributes: { ...f.attributes, ...at.attributes },
    start: at.start,
    end: f.endTimeMs + offset,
    status: f.status.code === 'unset' ? undefined : { code: STATUS[f.status.code], message: f.status.message },
    events: f.events.map((e) => ({ name: e.name, attributes: e.attributes, at: e.timeMs + offset })),
  };
}

/** The stored span, read back through the API, carries what the fixture says the convention gives. */
export function expectLikeFixture(span: SpanView, f: ConventionFixture): void {
  const e = f.expected;
  expect(span, f.name).toMatchObject({
    name: f.name,
    type: e.span_type,
    component_type: e.component_type,
    convention: e.convention,
    status: e.status,
    status_message: e.status_message === '' ? null : e.status_message,
    duration_ms: e.duration_ms,
    kind: e.kind === '' ? null : e.kind,
    model: e.model,
    input_tokens: e.input_tokens,
    output_tokens: e.output_tokens,
    scope: { name: f.scope.name, version: f.scope.version },
  });
  if (e.input_json !== undefined) expect(JSON.parse(span.input), `${f.name} input`).toEqual(e.input_json);
  else expect(span.input, `${f.name} input`).toBe(e.input);
  if (e.output_json !== undefined) expect(JSON.parse(span.output), `${f.name} output`).toEqual(e.output_json);
  else expect(span.output, `${f.name} output`).toBe(e.output);
}

/** Attribute values as the API shows them: strings as-is, numbers and booleans via String(), arrays as JSON. */
export function asStoredText(attrs: Attributes): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(attrs)) out[k] = typeof v === 'string' ? v : Array.isArray(v) ? JSON.stringify(v) : String(v);
  return out;
}
