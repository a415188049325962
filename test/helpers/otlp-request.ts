/**
 * An OTLP trace export request as proto3 JSON names it (`resourceSpans`, `scopeSpans`): one
 * resource, named by its `service.name`, with one instrumentation scope holding these spans.
 */
export const otlpRequest = (service: string, scope: { name: string; version: string }, ...spans: Array<Record<string, unknown>>) => ({
  resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] }, scopeSpans: [{ scope, spans }] }],
});

/** The same value with every object key in snake_case (`startTimeUnixNano` → `start_time_unix_nano`), as proto field names are. */
export function snakeCaseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeCaseKeys);
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snakeCaseKeys(v)]));
}
