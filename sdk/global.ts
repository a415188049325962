import { trace as otelTrace } from '@opentelemetry/api';
import type { GenerationFields, SpanKind, ToolFields } from './attributes.js';
import { SpanFactory, TRACER_NAME, Tracing, type SpanHandle, type SpanOptions, type TracingOptions } from './tracing.js';

/**
 * The two-line experience: `init()` once, then `trace()` / `span()` anywhere. These functions
 * use the tracing `init()` set up; before it (or after `shutdown()`), they use OpenTelemetry's
 * global tracer, so they still run `fn` (and record spans if the application registered its own
 * provider). `createTracing()` gives independent instances for code that wants no module state.
 */

let current: Tracing | undefined;
/** The span helpers behind the module-level functions. */
export const defaultSpanFactory = new SpanFactory(() => current?.provider.getTracer(TRACER_NAME) ?? otelTrace.getTracer(TRACER_NAME));

type Body<T> = (span: SpanHandle) => T;

/** Sets up tracing (see {@link TracingOptions}); a second call replaces the first, which is flushed and shut down. */
export function init(options: TracingOptions = {}): Tracing {
  const previous = current;
  current = new Tracing(options);
  if (previous) void previous.shutdown().catch(() => undefined);
  return current;
}

/** A tracing instance that the module-level functions do not use. */
export function createTracing(options: TracingOptions = {}): Tracing {
  return new Tracing(options);
}

/** The tracing `init()` set up, if any. */
export function getTracing(): Tracing | undefined {
  return current;
}

/** Runs `fn` in a span of kind `span`; the outermost one is the trace's root. */
export function trace<T>(name: string, fn: Body<T>): T;
export function trace<T>(name: string, options: SpanOptions, fn: Body<T>): T;
export function trace<T>(name: string, a: SpanOptions | Body<T>, b?: Body<T>): T {
  return typeof a === 'function' ? defaultSpanFactory.trace(name, a) : defaultSpanFactory.trace(name, a, b!);
}

/** Runs `fn` in a span of `kind` (span, generation, tool, retrieval, reasoning, planning, routing, memory, prompt). */
export function span<T>(kind: SpanKind, name: string, fn: Body<T>): T;
export function span<T>(kind: SpanKind, name: string, options: SpanOptions, fn: Body<T>): T;
export function span<T>(kind: SpanKind, name: string, a: SpanOptions | Body<T>, b?: Body<T>): T {
  return typeof a === 'function' ? defaultSpanFactory.span(kind, name, a) : defaultSpanFactory.span(kind, name, a, b!);
}

/** Records a finished model call: `generation({model, input, output, usage})`. */
export function generation(fields: GenerationFields & { name?: string; durationMs?: number; attributes?: Record<string, unknown> }): SpanHandle;
/** Runs a model call inside a generation span; set its output and usage on the handle. */
export function generation<T>(fields: GenerationFields & { name?: string; attributes?: Record<string, unknown> }, fn: Body<T>): T;
export function generation<T>(
  fields: GenerationFields & { name?: string; durationMs?: number; attributes?: Record<string, unknown> },
  fn?: Body<T>,
): T | SpanHandle {
  return defaultSpanFactory.generation(fields, fn);
}

/** Records a finished tool call: `tool({name, input, output, status})`. */
export function tool(fields: ToolFields & { durationMs?: number; attributes?: Record<string, unknown> }): SpanHandle;
/** Runs a tool call inside a tool span (a throw records `tool_status: error`). */
export function tool<T>(fields: ToolFields & { attributes?: Record<string, unknown> }, fn: Body<T>): T;
export function tool<T>(fields: ToolFields & { durationMs?: number; attributes?: Record<string, unknown> }, fn?: Body<T>): T | SpanHandle {
  return defaultSpanFactory.tool(fields, fn);
}

/** Sends every ended span of the tracing `init()` set up. */
export async function flush(): Promise<void> {
  await current?.flush();
}

/** Flushes and stops the tracing `init()` set up. */
export async function shutdown(): Promise<void> {
  const t = current;
  current = undefined;
  await t?.shutdown();
}
