import { context, defaultTextMapGetter, defaultTextMapSetter, trace as otelTrace, type Attributes, type Context, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { attributeText, cleanAttributes, isSpanKind, type GenerationFields, type SpanKind, type ToolFields } from './attributes.js';
import { AsyncLocalStorageContext } from './context-manager.js';
import { DEFAULT_URL, readEnvironment } from './env.js';
import { SpanHandle, type SpanOptions } from './span-handle.js';

export { SpanHandle, type SpanOptions };

/**
 * Tracing for agents: spans of the SPEC's kinds with its attribute conventions, on the
 * OpenTelemetry API, exported over OTLP (protobuf over HTTP) to the service's `/v1/traces`.
 *
 * The SDK never takes over OpenTelemetry's global tracer provider: it has its own provider and
 * exporter, so an application's own OpenTelemetry setup (NodeSDK, other instrumentations) keeps
 * exporting where it did. Spans of both share one context: the SDK installs an
 * AsyncLocalStorage context manager only when none is registered, and otherwise uses the one
 * there, so a span of either kind nests under the active span of the other.
 */

export const TRACER_NAME = 'agent-eval-sdk';

export interface TracingOptions {
  /** The service's base URL; spans go to `{url}/v1/traces`. Default: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_ENDPOINT`, `AGENT_EVAL_URL`, http://localhost:3000. */
  url?: string;
  /** The whole OTLP traces URL, when it is not `{url}/v1/traces` (a collector port, a proxy). */
  endpoint?: string;
  /** Sent as `x-api-key` (default: `AGENT_EVAL_API_KEY`, or `OTEL_EXPORTER_OTLP_HEADERS`). */
  apiKey?: string;
  /** Sent as `x-project-id`; a key's own project when absent (default: `AGENT_EVAL_PROJECT`). */
  project?: string;
  /** `service.name` of the spans' resource (default: `OTEL_SERVICE_NAME`, else `agent`). */
  serviceName?: string;
  /** More resource attributes (`deployment.environment`, `service.version`...). */
  resourceAttributes?: Record<string, string | number | boolean>;
  /** More headers for the exporter. */
  headers?: Record<string, string>;
  /** Another exporter (tests: an in-memory one); replaces the OTLP exporter. */
  exporter?: SpanExporter;
  /** Span processors instead of the batching one over the exporter. */
  spanProcessors?: SpanProcessor[];
  /** How long a span may wait before its batch is sent, in ms (default 1,000). */
  scheduledDelayMillis?: number;
  /** Flush when the process is about to exit (`beforeExit`); default true. */
  flushOnExit?: boolean;
  /**
   * Told when spans could not be exported (the service unreachable, a refused key). Tracing
   * never throws into the application: `flush()` and `shutdown()` resolve either way. Default:
   * a process warning (`process.emitWarning`), once per distinct message.
   */
  onExportError?: (err: Error) => void;
}

type Body<T> = (span: SpanHandle) => T;

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/** A tracer of the SDK's span kinds over any OpenTelemetry tracer (the SDK's own, or the global one before init()). */
export class SpanFactory {
  constructor(private readonly tracer: () => Tracer) {}

  /**
   * Runs `fn` inside a new span of `kind` (the active span's child, or a new trace's root) and
   * ends it when `fn` returns or its promise settles. A throw or rejection marks the span
   * failed and is passed on.
   */
  span<T>(kind: SpanKind, name: string, fn: Body<T>): T;
  span<T>(kind: SpanKind, name: string, options: SpanOptions, fn: Body<T>): T;
  span<T>(kind: SpanKind, name: string, a: SpanOptions | Body<T>, b?: Body<T>): T {
    const [options, fn] = typeof a === 'function' ? [{}, a] : [a, b!];
    if (!isSpanKind(kind)) throw new TypeError(`unknown span kind '${String(kind)}'`);
    const handle = this.start(kind, name, options);
    const run = () => {
      let result: T;
      try {
        result = fn(handle);
      } catch (err) {
        handle.recordError(err);
        handle.end();
        throw err;
      }
      if (!isThenable(result)) {
        handle.end();
        return result;
      }
      return Promise.resolve(result).then(
        (value) => {
          handle.end();
          return value;
        },
        (err: unknown) => {
          handle.recordError(err);
          handle.end();
          throw err;
        },
      ) as T;
    };
    return context.with(otelTrace.setSpan(this.parentContext(options), handle.span), run);
  }

  /** Starts a span without making it active; end it with `handle.end()`. */
  start(kind: SpanKind, name: string, options: SpanOptions = {}): SpanHandle {
    const attributes: Attributes = { ...cleanAttributes(options.attributes), span_type: kind };
    if (options.input !== undefined) attributes[kind === 'tool' ? 'tool_input' : 'input'] = attributeText(options.input);
    const span = this.tracer().startSpan(name, { attributes, startTime: options.startTime }, this.parentContext(options));
    return new SpanHandle(span, kind, { name, input: options.input, attributes });
  }

  private parentContext(options: SpanOptions): Context {
    return options.root ? otelTrace.deleteSpan(context.active()) : context.active();
  }

  /** A `span` span: the outermost one is the trace's root (its name names the trace). */
  trace<T>(name: string, fn: Body<T>): T;
  trace<T>(name: string, options: SpanOptions, fn: Body<T>): T;
  trace<T>(name: string, a: SpanOptions | Body<T>, b?: Body<T>): T {
    return typeof a === 'function' ? this.span('span', name, a) : this.span('span', name, a, b!);
  }

  /**
   * A model call. With `fn`, the call runs inside the span (set its output and usage on the
   * handle); without, the call is recorded as done (`durationMs` long, ending now).
   */
  generation<T>(fields: GenerationFields & { name?: string; durationMs?: number; attributes?: Record<string, unknown> }, fn?: Body<T>): T | SpanHandle {
    const name = fields.name ?? (fields.model ? `generation ${fields.model}` : 'generation');
    return this.recordOrRun('generation', name, fields, (h) => h.setGeneration(fields), fn);
  }

  /** A tool call, recorded as done or run inside the span (`tool_status` success, or error when `fn` throws). */
  tool<T>(fields: ToolFields & { durationMs?: number; attributes?: Record<string, unknown> }, fn?: Body<T>): T | SpanHandle {
    return this.recordOrRun(
      'tool',
      fields.name,
      fields,
      (h) => h.setTool({ ...fields, status: fields.status ?? (fields.error === undefined ? 'success' : 'error') }),
      fn,
    );
  }

  private recordOrRun<T>(
    kind: SpanKind,
    name: string,
    fields: { durationMs?: number; attributes?: Record<string, unknown> },
    describe: (h: SpanHandle) => void,
    fn?: Body<T>,
  ): T | SpanHandle {
    const attributes = fields.attributes;
    if (fn) {
      return this.span(kind, name, { attributes }, (handle) => {
        describe(handle);
        return fn(handle);
      });
    }
    const end = Date.now();
    const handle = this.start(kind, name, { attributes, startTime: end - (fields.durationMs ?? 0) });
    describe(handle);
    handle.end(end);
    return handle;
  }
}

/** A configured tracer: its own provider, exporter and span factory. */
export class Tracing extends SpanFactory {
  readonly provider: BasicTracerProvider;
  /** Where spans are exported (undefined with a custom exporter or processors). */
  readonly endpoint: string | undefined;
  private readonly exitHook: (() => void) | undefined;
  private readonly onExportError: (err: Error) => void;

  constructor(options: TracingOptions = {}) {
    const env = readEnvironment();
    const endpoint =
      options.endpoint ??
      (options.url ? `${options.url.replace(/\/+$/, '')}/v1/traces` : undefined) ??
      env.otlpTracesEndpoint ??
      (env.otlpEndpoint ? `${env.otlpEndpoint.replace(/\/+$/, '')}/v1/traces` : undefined) ??
      `${(env.url ?? DEFAULT_URL).replace(/\/+$/, '')}/v1/traces`;
    const apiKey = options.apiKey ?? env.apiKey;
    const project = options.project ?? env.project;
    const headers = { ...env.otlpHeaders, ...(apiKey ? { 'x-api-key': apiKey } : {}), ...(project ? { 'x-project-id': project } : {}), ...options.headers };
    const processors = options.spanProcessors ?? [
      new BatchSpanProcessor(options.exporter ?? new OTLPTraceExporter({ url: endpoint, headers }), {
        scheduledDelayMillis: options.scheduledDelayMillis ?? 1000,
      }),
    ];
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({
        'service.name': options.serviceName ?? env.serviceName ?? 'agent',
        'telemetry.sdk.name': TRACER_NAME,
        ...options.resourceAttributes,
      }),
      spanProcessors: processors,
    });
    super(() => provider.getTracer(TRACER_NAME));
    this.provider = provider;
    this.endpoint = options.exporter || options.spanProcessors ? undefined : endpoint;
    const warned = new Set<string>();
    this.onExportError =
      options.onExportError ??
      ((err) => {
        if (warned.has(err.message)) return;
        warned.add(err.message);
        process.emitWarning(`agent-eval: spans could not be exported to ${this.endpoint ?? 'the exporter'}: ${err.message}`, 'AgentEvalTracingWarning');
      });
    ensureContextManager();
    if (options.flushOnExit ?? true) {
      this.exitHook = () => void this.flush();
      process.once('beforeExit', this.exitHook);
    }
  }

  /** Sends every ended span now; resolves when the exporter answered (a failure goes to `onExportError`). */
  async flush(): Promise<void> {
    await this.provider.forceFlush().catch((err: unknown) => this.onExportError(err instanceof Error ? err : new Error(String(err))));
  }

  /** Flushes and stops exporting; spans started later are not recorded. */
  async shutdown(): Promise<void> {
    if (this.exitHook) process.off('beforeExit', this.exitHook);
    await this.provider.shutdown().catch((err: unknown) => this.onExportError(err instanceof Error ? err : new Error(String(err))));
  }
}

let contextReady = false;

/**
 * Context propagation across `await` needs a context manager. Ours is registered only when no
 * other is (OpenTelemetry's API refuses a second one and keeps the first), so an application's
 * own setup is never replaced.
 */
function ensureContextManager(): void {
  if (contextReady) return;
  contextReady = true;
  const manager = new AsyncLocalStorageContext();
  if (!context.setGlobalContextManager(manager)) manager.disable();
}

const w3c = new W3CTraceContextPropagator();

/** The `traceparent` (and `tracestate`) headers of the active span, for an outgoing call; `{}` outside any span. */
export function traceHeaders(ctx: Context = context.active()): Record<string, string> {
  const carrier: Record<string, string> = {};
  w3c.inject(ctx, carrier, defaultTextMapSetter);
  return carrier;
}

/** The active span's `traceparent` header value, or undefined outside any span. */
export function traceparent(ctx: Context = context.active()): string | undefined {
  return traceHeaders(ctx).traceparent;
}

/**
 * Runs `fn` as a continuation of an incoming call's trace (its `traceparent` header, e.g. the
 * one a managed run sends an agent): spans started inside join that trace.
 */
export function withTraceparent<T>(header: string | undefined | null, fn: () => T): T {
  if (!header) return fn();
  const ctx = w3c.extract(context.active(), { traceparent: header }, defaultTextMapGetter);
  return context.with(ctx, fn);
}
