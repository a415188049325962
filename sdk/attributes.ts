import type { Attributes, AttributeValue } from '@opentelemetry/api';
import { SPAN_KINDS } from '../core/model/ingest-body.js';

/**
 * The SPEC's attribute conventions by kind of span ("Span (stored fields)", "Attribute
 * conventions by kind of span"), as OpenTelemetry attributes. The collector reads exactly these
 * names (docs/conventions.md, "spec"): `span_type` says the kind, `model`, `input`, `output`,
 * `input_tokens`, `output_tokens` fill a generation, `tool_*` a tool call.
 */

/** The SDK's span kinds: the four stored span types and five component types stored as spans. */
export type SpanKind = (typeof SPAN_KINDS)[number];
export { SPAN_KINDS };

/** Token counts of one model call. Either spelling is accepted. */
export interface Usage {
  input_tokens?: number;
  output_tokens?: number;
  inputTokens?: number;
  outputTokens?: number;
}

/** A model call (kind `generation`). */
export interface GenerationFields {
  model?: string;
  input?: unknown;
  output?: unknown;
  usage?: Usage;
  temperature?: number;
  /** Why the model stopped (`stop`, `length`, `tool_calls`...). */
  stopReason?: string;
}

/** A tool call (kind `tool`). */
export interface ToolFields {
  /** The tool's name (`tool_name`). */
  name: string;
  input?: unknown;
  output?: unknown;
  status?: 'success' | 'error';
  /** Why the call failed (`error_message`); implies status `error`. */
  error?: string;
}

/** Skill or tool selection (SPEC: any span that chose among options, e.g. kind `routing`). */
export interface SelectionFields {
  category?: string;
  /** 0.0 to 1.0. */
  confidence?: number;
  reason?: string;
  alternatives?: string[];
}

/** Objects and arrays as JSON, text as is (attribute values are primitives or arrays of them). */
export function attributeText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  if (typeof value === 'bigint' || typeof value === 'symbol') return value.toString();
  try {
    // undefined for functions: nothing an attribute could show
    return JSON.stringify(value) ?? '';
  } catch {
    return '[unserializable]';
  }
}

function put(attrs: Attributes, key: string, value: AttributeValue | undefined): void {
  if (value !== undefined && !(typeof value === 'number' && !Number.isFinite(value))) attrs[key] = value;
}

export function usageAttributes(usage: Usage | undefined): Attributes {
  const attrs: Attributes = {};
  if (!usage) return attrs;
  put(attrs, 'input_tokens', usage.input_tokens ?? usage.inputTokens);
  put(attrs, 'output_tokens', usage.output_tokens ?? usage.outputTokens);
  return attrs;
}

export function generationAttributes(g: GenerationFields): Attributes {
  const attrs: Attributes = { ...usageAttributes(g.usage) };
  put(attrs, 'model', g.model);
  if (g.input !== undefined) attrs.input = attributeText(g.input);
  if (g.output !== undefined) attrs.output = attributeText(g.output);
  put(attrs, 'temperature', g.temperature);
  put(attrs, 'stop_reason', g.stopReason);
  return attrs;
}

export function toolAttributes(t: Partial<ToolFields>): Attributes {
  const attrs: Attributes = {};
  put(attrs, 'tool_name', t.name);
  if (t.input !== undefined) attrs.tool_input = attributeText(t.input);
  if (t.output !== undefined) attrs.tool_output = attributeText(t.output);
  const status = t.error !== undefined ? 'error' : t.status;
  put(attrs, 'tool_status', status);
  put(attrs, 'error_message', t.error);
  return attrs;
}

export function selectionAttributes(s: SelectionFields): Attributes {
  const attrs: Attributes = {};
  put(attrs, 'skill_category', s.category);
  if (s.confidence !== undefined) {
    if (!(s.confidence >= 0 && s.confidence <= 1)) throw new RangeError('selection confidence must be between 0.0 and 1.0');
    attrs.selection_confidence = s.confidence;
  }
  put(attrs, 'selection_reason', s.reason);
  if (s.alternatives !== undefined) attrs.alternatives_considered = [...s.alternatives];
  return attrs;
}

/** Free-form attributes made valid: objects become JSON text, null and undefined are left out. */
export function cleanAttributes(input: Record<string, unknown> | undefined): Attributes {
  const attrs: Attributes = {};
  for (const [key, value] of Object.entries(input ?? {})) {
    if (value === undefined || value === null) continue;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') attrs[key] = value;
    else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) attrs[key] = value;
    else if (Array.isArray(value) && value.every((v) => typeof v === 'number')) attrs[key] = value;
    else attrs[key] = attributeText(value);
  }
  return attrs;
}

export function isSpanKind(kind: string): kind is SpanKind {
  return (SPAN_KINDS as readonly string[]).includes(kind);
}
