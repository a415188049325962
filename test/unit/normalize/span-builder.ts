import type { Attributes, RawSpan } from '../../../core/model/raw-span.js';

/** A minimal OTLP-decoded span with the given attributes; `over` replaces any other field. */
export function rawSpan(attributes: Attributes, over: Partial<RawSpan> = {}): RawSpan {
  return {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    parentSpanId: null,
    name: 'span',
    kind: 'internal',
    startTimeMs: 1_735_732_800_000,
    endTimeMs: 1_735_732_801_000,
    attributes,
    events: [],
    status: { code: 'unset' },
    resource: {},
    scope: { name: 'test', version: '' },
    ...over,
  };
}
