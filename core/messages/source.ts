import type { Convention, SpanType } from '../model/span.js';
import type { LlmMessage, LlmParameters, LlmToolDefinition } from '../model/messages.js';
import { isRecord } from './json.js';

/** What the conversation is read from: the fields of a span view (GET /api/traces/{id}, GET /api/spans/{id}). */
export interface LlmSpanSource {
  type: SpanType;
  convention: Convention;
  attributes: Record<string, string>;
  input: string;
  output: string;
  events: ReadonlyArray<{ name: string; attributes?: Record<string, unknown> }>;
  /** Trace view only: `input` / `output` were cut to SPAN_TEXT_CAP. */
  input_truncated?: boolean;
  output_truncated?: boolean;
}

/**
 * Attribute reads over a stored span. Ingest stores a large attribute that became the span's
 * `input` or `output` only there (docs/conventions.md "Large values are stored once") and names it
 * in `agent_eval.input_source` / `agent_eval.output_source`: `get` puts it back, and notes when it
 * came from a field the trace view cut.
 */
export class SpanReader {
  readonly attrs: Record<string, string>;
  /** Set when a value read came from a cut `input` / `output`. */
  truncated = false;

  constructor(readonly span: LlmSpanSource) {
    this.attrs = isRecord(span.attributes) ? span.attributes : {};
  }

  /** The attribute's text, or undefined when the span does not have it. */
  get(key: string): string | undefined {
    if (Object.prototype.hasOwnProperty.call(this.attrs, key)) return this.attrs[key];
    if (this.attrs['agent_eval.input_source'] === key) return this.field('input');
    if (this.attrs['agent_eval.output_source'] === key) return this.field('output');
    return undefined;
  }

  /** The span's `input` or `output` field ('' when absent), noting a cut. */
  field(which: 'input' | 'output'): string {
    if (this.span[`${which}_truncated`] === true) this.truncated = true;
    const v = this.span[which];
    return typeof v === 'string' ? v : '';
  }

  /** Events with this name (or matching this pattern), with their attributes as an object. */
  events(name: string | RegExp): Array<{ name: string; attributes: Record<string, unknown> }> {
    const out: Array<{ name: string; attributes: Record<string, unknown> }> = [];
    for (const e of Array.isArray(this.span.events) ? (this.span.events as readonly unknown[]) : []) {
      if (!isRecord(e) || typeof e.name !== 'string') continue;
      if (typeof name === 'string' ? e.name !== name : !name.test(e.name)) continue;
      out.push({ name: e.name, attributes: isRecord(e.attributes) ? e.attributes : {} });
    }
    return out;
  }
}

/** The prompt and the response one convention found; null: it holds none of that side. */
export interface Turns {
  messages: LlmMessage[] | null;
  output_messages: LlmMessage[] | null;
}

/**
 * One convention's reader: pure, total over attribute shapes. Its parts are asked for only as
 * needed (a span's messages come from the first convention that has some), so each is separate.
 */
export interface MessageConvention {
  name: Exclude<Convention, 'none'>;
  turns(r: SpanReader): Turns;
  tools(r: SpanReader): LlmToolDefinition[] | null;
  parameters(r: SpanReader): LlmParameters;
  finishReasons(r: SpanReader): string[] | null;
}
