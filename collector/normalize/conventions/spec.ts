import type { AttrValue, RawSpan } from '../../../core/model/raw-span.js';
import { COMPONENT_TYPES, type ComponentType } from '../../../core/model/span.js';
import { attrsOf, kindsByComponent, type Classification, type ConventionModule, type Kind } from '../types.js';
import { firstIdent, firstText, get, ident, lowerOf, tokenCount } from '../values.js';

/**
 * The SPEC's own conventions: the JSON ingest body's span `type` (RawSpan.declaredType) and
 * the attribute names of "Attribute conventions by kind of span" (model, input_tokens,
 * tool_name, ...). Two modules share one classifier because they sit at opposite ends of the
 * precedence order: a declared type is the client's explicit word, while bare attribute names
 * like `model` or `input` are generic enough to appear on anyone's spans.
 */

/** The SDK's span kinds, each named after its component (`span`: none): four stored types, and five components stored as plain spans. */
const KINDS = kindsByComponent({
  plain: ['span'],
  ...Object.fromEntries(['generation', 'tool', 'retrieval', 'reasoning', 'planning', 'routing', 'memory', 'prompt'].map((c) => [c, [c]])),
});

/** Attribute names from the SPEC's table; any of them marks a span as using the SPEC's conventions. */
const SPEC_KEYS = [
  'model',
  'input',
  'output',
  'input_tokens',
  'output_tokens',
  'temperature',
  'stop_reason',
  'tool_name',
  'tool_input',
  'tool_output',
  'tool_status',
  'error_message',
  'skill_category',
  'selection_confidence',
  'selection_reason',
  'alternatives_considered',
  'span_type',
  'component_type',
];

function kindName(v: unknown): Kind | null {
  const k = lowerOf(v);
  return k === null ? null : (KINDS.get(k) ?? null);
}

function declared(raw: RawSpan): Kind | null {
  return kindName(raw.declaredType);
}

/**
 * A field as the SPEC's conventions read it: the body's top-level field (RawSpan.declaredFields)
 * over the attribute of the same name. Read in place: building the overlaid attributes as an
 * object, once per span, was a large share of normalizing a JSON span (issue 33).
 */
function field(raw: RawSpan, key: string): AttrValue | undefined {
  const fields = raw.declaredFields;
  if (fields && Object.prototype.hasOwnProperty.call(fields, key)) return fields[key];
  return get(attrsOf(raw), key);
}

/** `span_type` or `type` naming one of the SDK kinds (`type` only then: it is a common, unrelated key). */
function attributeKind(raw: RawSpan): Kind | null {
  return kindName(field(raw, 'span_type')) ?? kindName(field(raw, 'type'));
}

function componentOverride(raw: RawSpan): ComponentType | null {
  const c = lowerOf(field(raw, 'component_type'));
  return (COMPONENT_TYPES as readonly string[]).includes(c ?? '') ? (c as ComponentType) : null;
}

function kindOf(raw: RawSpan): Kind {
  const kind = declared(raw) ?? attributeKind(raw);
  if (kind) return kind;
  if (ident(field(raw, 'tool_name')) !== null) return ['tool', 'tool'];
  const hasModelCall = ident(field(raw, 'model')) !== null || field(raw, 'input_tokens') !== undefined || field(raw, 'output_tokens') !== undefined;
  return hasModelCall ? ['generation', 'generation'] : ['span', null];
}

function classify(raw: RawSpan): Classification {
  const [span_type, kindComponent] = kindOf(raw);
  const tool = span_type === 'tool';
  const input = field(raw, 'input');
  const output = field(raw, 'output');
  const toolInput = field(raw, 'tool_input');
  const toolOutput = field(raw, 'tool_output');
  return {
    span_type,
    component_type: componentOverride(raw) ?? kindComponent,
    model: firstIdent(field(raw, 'model')),
    // tool_input / tool_output are the tool's own fields; input / output are the general ones.
    input: tool ? firstText(toolInput, input) : firstText(input, toolInput),
    output: tool ? firstText(toolOutput, output) : firstText(output, toolOutput),
    input_tokens: tokenCount(field(raw, 'input_tokens')),
    output_tokens: tokenCount(field(raw, 'output_tokens')),
  };
}

/** A span whose type the JSON ingest body declared. */
export const specDeclared: ConventionModule = {
  name: 'spec',
  detect: (raw) => declared(raw) !== null,
  classify,
};

/** A span that uses the SPEC's attribute names without a declared type (OTLP, POST /api/spans). */
export const specAttributes: ConventionModule = {
  name: 'spec',
  detect: (raw) => attributeKind(raw) !== null || SPEC_KEYS.some((k) => field(raw, k) !== undefined),
  classify,
};
