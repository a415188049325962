import { SpanStatusCode, type Attributes, type Span } from '@opentelemetry/api';
import {
  attributeText,
  cleanAttributes,
  generationAttributes,
  selectionAttributes,
  toolAttributes,
  usageAttributes,
  type GenerationFields,
  type SelectionFields,
  type SpanKind,
  type ToolFields,
  type Usage,
} from './attributes.js';
import { noteToolCall, noteUsage } from './case-recorder.js';

/** Options of a span: its attributes and what it started with. */
export interface SpanOptions {
  attributes?: Record<string, unknown>;
  input?: unknown;
  /** Start a new trace even when a span is active. */
  root?: boolean;
  /** Start time (epoch ms or Date), for spans recorded after the fact. */
  startTime?: number | Date;
}

/** A running span, with setters for the SPEC's attributes. */
export class SpanHandle {
  /** What an eval case reads of this span when it ends: a tool call, a model's token usage. */
  private noted: { tool?: string; input?: unknown; output?: unknown; inputTokens: number; outputTokens: number } = { inputTokens: 0, outputTokens: 0 };
  private ended = false;

  constructor(
    /** The OpenTelemetry span underneath (for anything the setters do not cover). */
    readonly span: Span,
    readonly kind: SpanKind,
    initial: { name?: string; input?: unknown; attributes?: Attributes } = {},
  ) {
    if (kind === 'tool') this.noted.tool = typeof initial.attributes?.tool_name === 'string' ? initial.attributes.tool_name : initial.name;
    this.noted.input = initial.input;
    this.noteTokens(initial.attributes ?? {});
  }

  private noteTokens(attrs: Attributes): void {
    if (typeof attrs.input_tokens === 'number') this.noted.inputTokens = attrs.input_tokens;
    if (typeof attrs.output_tokens === 'number') this.noted.outputTokens = attrs.output_tokens;
  }

  /**
   * Ends the span (once) and tells a running eval case what it did: a tool call's name, input
   * and output, a generation's tokens.
   */
  end(endTime?: number): void {
    if (this.ended) return;
    this.ended = true;
    this.span.end(endTime);
    if (this.kind === 'tool' && this.noted.tool) noteToolCall({ name: this.noted.tool, input: this.noted.input, output: this.noted.output });
    if (this.kind === 'generation') noteUsage(this.noted.inputTokens, this.noted.outputTokens);
  }

  /** W3C trace id (32 hex digits). */
  get traceId(): string {
    return this.span.spanContext().traceId;
  }

  /** W3C span id (16 hex digits). */
  get spanId(): string {
    return this.span.spanContext().spanId;
  }

  /** `traceparent` of this span, for a call made on its behalf. */
  get traceparent(): string {
    const c = this.span.spanContext();
    return `00-${c.traceId}-${c.spanId}-${(c.traceFlags & 1).toString(16).padStart(2, '0')}`;
  }

  setAttributes(attributes: Record<string, unknown>): this {
    this.span.setAttributes(cleanAttributes(attributes));
    return this;
  }

  setInput(input: unknown): this {
    this.noted.input = input;
    this.span.setAttribute(this.kind === 'tool' ? 'tool_input' : 'input', attributeText(input));
    return this;
  }

  setOutput(output: unknown): this {
    this.noted.output = output;
    this.span.setAttribute(this.kind === 'tool' ? 'tool_output' : 'output', attributeText(output));
    return this;
  }

  setModel(model: string): this {
    this.span.setAttribute('model', model);
    return this;
  }

  setUsage(usage: Usage): this {
    const attrs = usageAttributes(usage);
    this.noteTokens(attrs);
    this.span.setAttributes(attrs);
    return this;
  }

  /** Generation fields (model, input, output, usage, temperature, stop reason). */
  setGeneration(fields: GenerationFields): this {
    const attrs = generationAttributes(fields);
    this.noteTokens(attrs);
    if (fields.output !== undefined) this.noted.output = fields.output;
    this.span.setAttributes(attrs);
    return this;
  }

  /** Tool fields (name, input, output, status, error). */
  setTool(fields: Partial<ToolFields>): this {
    if (fields.name !== undefined) this.noted.tool = fields.name;
    if (fields.input !== undefined) this.noted.input = fields.input;
    if (fields.output !== undefined) this.noted.output = fields.output;
    this.span.setAttributes(toolAttributes(fields));
    if (fields.error !== undefined) this.span.setStatus({ code: SpanStatusCode.ERROR, message: fields.error });
    return this;
  }

  /** Skill or tool selection: category, confidence (0..1), reason, alternatives considered. */
  setSelection(fields: SelectionFields): this {
    this.span.setAttributes(selectionAttributes(fields));
    return this;
  }

  /** Marks the span failed with `err` (status error, an exception event; tool spans get `tool_status: error`). */
  recordError(err: unknown): this {
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof Error) this.span.recordException(err);
    else this.span.recordException(message);
    this.span.setStatus({ code: SpanStatusCode.ERROR, message });
    if (this.kind === 'tool') this.span.setAttributes({ tool_status: 'error', error_message: message });
    return this;
  }
}
