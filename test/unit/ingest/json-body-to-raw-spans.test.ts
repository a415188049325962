import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeIngestBody } from '../../../collector/json/ingest-body.js';
import { IngestTraceSchema } from '../../../core/model/ingest-body.js';
import { agentText } from '../../helpers/corpus.js';

// Times must lie in the accepted range (1970-01-02 .. 2200): T is a recent instant.
const T = 1_700_000_000_000;

describe('decodeIngestBody', () => {
  const parse = (body: unknown) => IngestTraceSchema.parse(body);

  it('turns spans into RawSpans carrying the declared type and the convenience fields as attributes', () => {
    const { spans, header } = decodeIngestBody(
      parse({
        trace_id: 't1',
        name: 'run',
        status: 'error',
        duration_ms: 1200,
        attributes: { user: 'u1', retries: 2 },
        spans: [
          {
            span_id: 's1',
            name: 'llm',
            type: 'generation',
            start_time: T + 1000,
            end_time: T + 1500,
            model: 'gpt',
            input_tokens: 3,
            attributes: { temperature: 0.2 },
          },
        ],
      }),
    );
    expect(spans[0]).toMatchObject({
      traceId: 't1',
      spanId: 's1',
      parentSpanId: null,
      declaredType: 'generation',
      startTimeMs: T + 1000,
      endTimeMs: T + 1500,
      attributes: { temperature: 0.2 },
      declaredFields: { model: 'gpt', input_tokens: 3 },
      status: { code: 'unset' },
    });
    expect(header).toEqual({ trace_id: 't1', name: 'run', status: 'error', start_time: T + 1000, duration_ms: 1200, attributes: { user: 'u1', retries: '2' } });
  });

  it('carries every text as sent, for any text agents send (corpus, fast-check)', () => {
    fc.assert(
      fc.property(agentText(), agentText(), agentText(), (name, input, output) => {
        fc.pre(name !== '' && name.length <= 1024); // a trace's and a span's name: 1 to 1024 characters
        const body = {
          trace_id: 't1',
          name,
          status: 'ok',
          duration_ms: 10,
          spans: [{ span_id: 's1', name, type: 'generation', start_time: T, input, output, attributes: { note: output } }],
        };
        const { spans, header } = decodeIngestBody(parse(JSON.parse(JSON.stringify(body))));
        expect(spans[0]).toMatchObject({ name, attributes: { note: output }, declaredFields: { input, output } });
        expect(header.name).toBe(name);
      }),
      { numRuns: 60 },
    );
  });

  it('starts a span-less trace so that it ends now', () => {
    const { header } = decodeIngestBody(parse({ trace_id: 't', name: 'n', status: 'ok', duration_ms: 250 }), 10_000);
    expect(header.start_time).toBe(9_750);
  });

  it('never lets a span end before it starts', () => {
    const { spans } = decodeIngestBody(
      parse({
        trace_id: 't',
        name: 'n',
        status: 'ok',
        duration_ms: 1,
        spans: [{ span_id: 's', name: 'n', type: 'span', start_time: T + 2000, end_time: T + 1000 }],
      }),
    );
    expect(spans[0].endTimeMs).toBe(T + 2000);
  });
});
