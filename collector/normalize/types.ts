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
