import type { Attributes, RawSpan } from '../../core/model/raw-span.js';
import type { ComponentType, Convention, SpanType } from '../../core/model/span.js';

/**
 * What one convention reads from a span. `null` means "this convention has nothing to say"
 * (as opposed to an explicit empty string or zero), so `normalizeSpan` can fill the gap from
 * another convention the span also carries.
 */
export interface Classification {
  span_type: SpanType;
  component_type: ComponentType | null;
  model: string | null;
  input: string | null;
  output: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
}

/** One instrumentation convention: a pure detector plus a pure classifier. */
export interface ConventionModule {
  name: Convention;
  /** True when the span carries this convention's markers strongly enough to classify it. */
  detect(raw: RawSpan): boolean;
  /** Only called when `detect` returned true. */
  classify(raw: RawSpan): Classification;
}

/** The span's attributes, or an empty map when a decoder handed over something else. */
export function attrsOf(raw: RawSpan): Attributes {
  const a: unknown = raw.attributes;
  return a !== null && typeof a === 'object' && !Array.isArray(a) ? (a as Attributes) : {};
}

/** How a convention's kind of span is stored: its span type and component. */
export type Kind = readonly [SpanType, ComponentType | null];

/** Span types that are also components: a span of such a component is stored as that type. */
const TYPED_COMPONENTS: ReadonlySet<string> = new Set<SpanType>(['generation', 'tool', 'retrieval']);

/**
 * A convention's names for kinds of span, listed under the component each is (`plain`: spans of
 * no component, such as the user's own functions around the calls). A generation, tool or
 * retrieval is stored as that span type too; any other component as a plain span.
 */
export function kindsByComponent(names: Partial<Record<ComponentType | 'plain', readonly string[]>>): ReadonlyMap<string, Kind> {
  const kinds = new Map<string, Kind>();
  for (const [component, list] of Object.entries(names) as Array<[ComponentType | 'plain', readonly string[]]>) {
    const kind: Kind = component === 'plain' ? ['span', null] : [TYPED_COMPONENTS.has(component) ? (component as SpanType) : 'span', component];
    for (const name of list) kinds.set(name, kind);
  }
  return kinds;
}
