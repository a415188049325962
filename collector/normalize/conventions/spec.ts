import type { Attributes, RawSpan } from '../../../core/model/raw-span.js';
import { COMPONENT_TYPES, type ComponentType, type SpanType } from '../../../core/model/span.js';
import { attrsOf, type Classification, type ConventionModule } from '../types.js';
import { firstIdent, firstText, firstTokens, get, ident, lowerOf } from '../values.js';

/**
 * The SPEC's own conventions: the JSON ingest body's span `type` (RawSpan.declaredType) and
 * the attribute names of "Attribute conventions by kind of span" (model, input_tokens,
 * tool_name, ...). Two modules share one classifier because they sit at opposite ends of the
 * precedence order: a declared type is the client's explicit word, while bare attribute names
 * like `model` or `input` are generic enough to appear on anyone's spans.
 */

type Kind = readonly [SpanType, ComponentType | null];

/** The SDK's span kinds: four stored types, and five components stored as plain spans. */
const KINDS: Record<string, Kind> = {
  span: ['span', null],
  generation: ['generation', 'generation'],
  tool: ['tool', 'tool'],
  retrieval: ['retrieval', 'retrieval'],
  reasoning: ['span', 'reasoning'],
  planning: ['span', 'planning'],
  routing: ['span', 'routing'],
  memory: ['span', 'memory'],
  prompt: ['span', 'prompt'],
};

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
  return k !== null && Object.prototype.hasOwnProperty.call(KINDS, k) ? KINDS[k] : null;
}

function declared(raw: RawSpan): Kind | null {
  return kindName(raw.declaredType);
}

/** `span_type` or `type` naming one of the SDK kinds (`type` only then: it is a common, unrelated key). */
function attributeKind(a: Attributes): Kind | null {
  return kindName(get(a, 'span_type')) ?? kindName(get(a, 'type'));
}

function componentOverride(a: Attributes): ComponentType | null {
  const c = lowerOf(get(a, 'component_type'));
  return (COMPONENT_TYPES as readonly string[]).includes(c ?? '') ? (c as ComponentType) : null;
}

function kindOf(raw: RawSpan, a: Attributes): Kind {
  const kind = declared(raw) ?? attributeKind(a);
  if (kind) return kind;
  if (ident(get(a, 'tool_name')) !== null) return ['tool', 'tool'];
  const hasModelCall = ident(get(a, 'model')) !== null || get(a, 'input_tokens') !== undefined || get(a, 'output_tokens') !== undefined;
  return hasModelCall ? ['generation', 'generation'] : ['span', null];
}

/**
 * The overlays built so far: both modules below read them, detect and classify each, so one span
 * would copy its attributes up to three times (a large share of normalizing a JSON span).
 */
const overlays = new WeakMap<RawSpan, Attributes>();

/** Attributes overlaid with the body's top-level fields (RawSpan.declaredFields). */
function specAttrs(raw: RawSpan): Attributes {
  if (!raw.declaredFields) return attrsOf(raw);
  let overlay = overlays.get(raw);
  if (!overlay) {
    overlay = { ...attrsOf(raw), ...raw.declaredFields };
    overlays.set(raw, overlay);
  }
  return overlay;
}

function classify(raw: RawSpan): Classification {
  const a = specAttrs(raw);
  const [span_type, kindComponent] = kindOf(raw, a);
  const tool = span_type === 'tool';
  return {
    span_type,
    component_type: componentOverride(a) ?? kindComponent,
    model: firstIdent(get(a, 'model')),
    // tool_input / tool_output are the tool's own fields; input / output are the general ones.
    input: tool ? firstText(get(a, 'tool_input'), get(a, 'input')) : firstText(get(a, 'input'), get(a, 'tool_input')),
    output: tool ? firstText(get(a, 'tool_output'), get(a, 'output')) : firstText(get(a, 'output'), get(a, 'tool_output')),
    input_tokens: firstTokens(a, ['input_tokens']),
    output_tokens: firstTokens(a, ['output_tokens']),
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
  detect(raw) {
    const a = specAttrs(raw);
    return attributeKind(a) !== null || SPEC_KEYS.some((k) => get(a, k) !== undefined);
  },
  classify,
};
