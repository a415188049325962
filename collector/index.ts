/**
 * The collector's public surface: what the API and the runtime may use. Everything else under
 * collector/ is internal to it (docs/architecture.md).
 */
export { createCollector, type Collector, type CollectorDeps, type IngestedSpans, type IngestedTrace } from './collector.js';
export type { IngestOutcome } from './ingest.js';
export type { SinkStats, SpanSink } from './sink.js';
export { createOtlpHttpRouter, startOtlpGrpcServer, type OtlpGrpcServer } from './otlp/index.js';
export { exportGate, type ExportGate } from './otlp/project.js';
