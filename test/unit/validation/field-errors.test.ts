import { describe, expect, it } from 'vitest';
import { IngestTraceSchema } from '../../../core/model/ingest-body.js';
import { CreateScoreSchema } from '../../../core/model/score.js';
import { fieldName, validate } from '../../../core/validate.js';
import { validationIssues } from '../../helpers/thrown.js';

describe('validate()', () => {
  it('names nested fields like spans[2].type', () => {
    expect(fieldName(['spans', 2, 'type'])).toBe('spans[2].type');
    expect(fieldName(['attributes', 'a.b'])).toBe('attributes.a.b');
    expect(fieldName([])).toBe('(body)');
  });

  it('reports missing fields, wrong types and bad enums, one entry each', () => {
    const issues = validationIssues(() =>
      validate(IngestTraceSchema, {
        trace_id: 't',
        status: 'meh',
        duration_ms: '12',
        spans: [{ span_id: 's', name: 'n', type: 'span', start_time: 'yesterday' }],
      }),
    );
    expect(issues).toEqual(
      expect.arrayContaining([
        { field: 'name', message: 'is required' },
        { field: 'status', message: 'must be one of: ok, error' },
        expect.objectContaining({ field: 'duration_ms' }),
        expect.objectContaining({ field: 'spans[0].start_time' }),
      ]),
    );
    expect(issues).toHaveLength(4);
  });

  it('accepts ISO 8601 and epoch-millisecond timestamps and fills defaults', () => {
    const body = validate(IngestTraceSchema, {
      trace_id: 't',
      name: 'n',
      status: 'ok',
      duration_ms: 5,
      spans: [{ span_id: 's', name: 'n', type: 'reasoning', start_time: '2026-01-02T03:04:05.678Z', end_time: 1767323045700 }],
    });
    expect(body.spans[0].start_time).toBe(Date.parse('2026-01-02T03:04:05.678Z'));
    expect(body.spans[0].end_time).toBe(1767323045700);
    expect(body.attributes).toEqual({});
  });

  it('keeps score values within 0..1', () => {
    expect(validationIssues(() => validate(CreateScoreSchema, { trace_id: 't', name: 'n', value: -0.1 }))).toEqual([
      { field: 'value', message: 'must be between 0 and 1' },
    ]);
    expect(validate(CreateScoreSchema, { trace_id: 't', name: 'n', value: 1 })).toMatchObject({ source: 'api', score_type: 'numeric', evidence: [] });
  });
});
