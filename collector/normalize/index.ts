import type { RawSpan } from '../../core/model/raw-span.js';
import type { Convention, SpanRecord } from '../../core/model/span.js';
import { genai } from './conventions/genai.js';
import { openinference } from './conventions/openinference.js';
import { openllmetry } from './conventions/openllmetry.js';
import { specAttributes, specDeclared } from './conventions/spec.js';
import { vercelAi } from './conventions/vercel-ai.js';
import { eventsJson, statusOf, stringifyAttributes } from './span-fields.js';
import { attrsOf, type Classification, type ConventionModule } from './types.js';

export type { Classification, ConventionModule } from './types.js';

/**
 * Which convention classifies a span that carries several (docs/conventions.md explains each):
 * 1. spec (declared type): the client stated the type in the SPEC's JSON body.
 * 2. openinference: `openinference.span.kind` is an explicit per-span verdict, also added by
 *    OpenInference processors on top of other SDKs' spans.
 * 3. vercel-ai: `ai.operationId` tells the wrapper from the provider call, which gen_ai.* alone
 *    cannot (the SDK copies gen_ai.* onto its calls, and AI SDK 7 onto its wrappers).
 * 4. openllmetry: `traceloop.span.kind` / `llm.request.type` mark spans that also carry gen_ai.*.
 * 5. genai: the OpenTelemetry standard, the common denominator of the SDKs above.
 * 6. spec (attributes): bare names such as `model` or `tool_name` are generic, so they decide
 *    only when nothing more specific is present.
 */
export const PRECEDENCE: readonly ConventionModule[] = [specDeclared, openinference, vercelAi, openllmetry, genai, specAttributes];

/** What a detector and classifier said, or null; a convention that throws simply does not apply. */
function tryModule(m: ConventionModule, raw: RawSpan): Classification | null {
  try {
    return m.detect(raw) ? m.classify(raw) : null;
  } catch {
    return null;
  }
}

export interface SpanClassification extends Classification {
  convention: Convention;
}

/**
 * The first detecting convention decides span_type, component_type and `convention`; fields it
 * left unknown (null) are filled from the other conventions the span carries, in precedence order.
 * Tokens are kept only on generations: they mean "tokens this span's own model call used", so
 * wrappers that report their children's totals cannot be double counted by any sum over spans.
 */
export function classifySpan(raw: RawSpan): SpanClassification {
  let merged: SpanClassification | null = null;
  for (const m of PRECEDENCE) {
    // The SPEC's two modules share one classifier: when the declared type decided, the second adds nothing.
    if (m === specAttributes && merged?.convention === 'spec') continue;
    const c = tryModule(m, raw);
    if (!c) continue;
    if (merged === null) {
      // Field by field: a spread with an added field costs more than the classification itself.
      merged = {
        convention: m.name,
        span_type: c.span_type,
        component_type: c.component_type,
        model: c.model,
        input: c.input,
        output: c.output,
        input_tokens: c.input_tokens,
        output_tokens: c.output_tokens,
      };
      continue;
    }
    merged.model ??= c.model;
    merged.input ??= c.input;
    merged.output ??= c.output;
    merged.input_tokens ??= c.input_tokens;
    merged.output_tokens ??= c.output_tokens;
  }
  if (merged === null) {
    return { convention: 'none', span_type: 'span', component_type: null, model: null, input: null, output: null, input_tokens: 0, output_tokens: 0 };
  }
  const generation = merged.span_type === 'generation';
  merged.input_tokens = generation ? (merged.input_tokens ?? 0) : 0;
  merged.output_tokens = generation ? (merged.output_tokens ?? 0) : 0;
  return merged;
}

/** Attribute values at least this long that became the span's input or output are stored once. */
export const MOVED_VALUE_MIN_LENGTH = 256;

/**
 * Drops a large attribute whose value was taken verbatim as the span's input or output (e.g.
 * `gen_ai.input.messages`, `input.value`): it is stored once, in that column, and
 * `agent_eval.input_source` / `agent_eval.output_source` name the attribute it came from.
 * Prompts are the bulk of agent spans; storing them twice doubled insert and merge work.
 */
function withoutMovedValues(attributes: Record<string, string>, input: string, output: string): Record<string, string> {
  if (input.length < MOVED_VALUE_MIN_LENGTH && output.length < MOVED_VALUE_MIN_LENGTH) return attributes;
  for (const key of Object.keys(attributes)) {
    const value = attributes[key];
    if (value.length < MOVED_VALUE_MIN_LENGTH) continue;
    const source = value === input ? 'agent_eval.input_source' : value === output ? 'agent_eval.output_source' : null;
    if (source === null) continue;
    delete attributes[key];
    attributes[source] = key;
  }
  return attributes;
}

/** The scope's name or version, or '' when a decoder handed over something else. */
function scopeField(scope: unknown, k: 'name' | 'version'): string {
  const v = scope !== null && typeof scope === 'object' ? (scope as Record<string, unknown>)[k] : undefined;
  return typeof v === 'string' ? v : '';
}

const finiteOr = (v: unknown, fallback: number): number => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);

/**
 * A decoded span as the stored SpanRecord. Pure, and total over attribute shapes: odd values
 * degrade to empty fields rather than errors, because one bad attribute must not lose a batch.
 */
export function normalizeSpan(raw: RawSpan, projectId: string): SpanRecord {
  const c = classifySpan(raw);
  const input = c.input ?? '';
  const output = c.output ?? '';
  const start = finiteOr(raw.startTimeMs, 0);
  // A missing end (OTLP sends 0) or one before the start means an instantaneous span.
  const end = Math.max(start, finiteOr(raw.endTimeMs, start));
  const { status, status_message } = statusOf(raw, attrsOf(raw));
  return {
    project_id: projectId,
    trace_id: raw.traceId,
    span_id: raw.spanId,
    parent_span_id: typeof raw.parentSpanId === 'string' && raw.parentSpanId !== '' ? raw.parentSpanId : null,
    name: typeof raw.name === 'string' ? raw.name : '',
    span_type: c.span_type,
    component_type: c.component_type,
    convention: c.convention,
    kind: typeof raw.kind === 'string' ? raw.kind : '',
    status,
    status_message,
    start_time: start,
    end_time: end,
    duration_ms: Math.max(0, Math.round(end - start)),
    model: c.model,
    input,
    output,
    input_tokens: c.input_tokens ?? 0,
    output_tokens: c.output_tokens ?? 0,
    attributes: withoutMovedValues(stringifyAttributes(raw.attributes), input, output),
    resource_attributes: stringifyAttributes(raw.resource),
    scope_name: scopeField(raw.scope, 'name'),
    scope_version: scopeField(raw.scope, 'version'),
    events: eventsJson(raw),
  };
}
