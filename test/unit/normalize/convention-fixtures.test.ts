import { describe, expect, it } from 'vitest';
import { normalizeSpan } from '../../../collector/normalize/index.js';
import { CONVENTIONS } from '../../../core/model/span.js';
import { loadFixtures } from './load-fixtures.js';

const fixtures = loadFixtures();

describe('fixtures', () => {
  it('cover every convention with at least three real spans', () => {
    for (const convention of CONVENTIONS.filter((c) => c !== 'none')) {
      expect(fixtures.filter((f) => f.id.startsWith(`${convention}/`)).length, convention).toBeGreaterThanOrEqual(3);
    }
  });
});

describe.each(fixtures)('$id', ({ raw, expected, description }) => {
  const record = normalizeSpan(raw, 'project-1');

  it(`classifies: ${description}`, () => {
    expect({
      convention: record.convention,
      span_type: record.span_type,
      component_type: record.component_type,
      model: record.model,
      input_tokens: record.input_tokens,
      output_tokens: record.output_tokens,
      status: record.status,
      status_message: record.status_message,
      duration_ms: record.duration_ms,
      kind: record.kind,
    }).toEqual({
      convention: expected.convention,
      span_type: expected.span_type,
      component_type: expected.component_type,
      model: expected.model,
      input_tokens: expected.input_tokens,
      output_tokens: expected.output_tokens,
      status: expected.status,
      status_message: expected.status_message,
      duration_ms: expected.duration_ms,
      kind: expected.kind,
    });
  });

  it('extracts input and output', () => {
    if (expected.input !== undefined) expect(record.input).toBe(expected.input);
    if (expected.input_json !== undefined) expect(JSON.parse(record.input)).toEqual(expected.input_json);
    if (expected.output !== undefined) expect(record.output).toBe(expected.output);
    if (expected.output_json !== undefined) expect(JSON.parse(record.output)).toEqual(expected.output_json);
    expect(expected.input !== undefined || expected.input_json !== undefined).toBe(true);
    expect(expected.output !== undefined || expected.output_json !== undefined).toBe(true);
  });

  it('keeps identity, every attribute as text, resource, scope and events', () => {
    expect(record).toMatchObject({
      project_id: 'project-1',
      trace_id: raw.traceId,
      span_id: raw.spanId,
      parent_span_id: raw.parentSpanId,
      name: raw.name,
      start_time: raw.startTimeMs,
      end_time: raw.endTimeMs,
      scope_name: raw.scope.name,
      scope_version: raw.scope.version,
    });
    // A large attribute taken as the input or output is stored there only, its key named instead (moved-values.test.ts).
    const moved = { 'agent_eval.input_source': record.input, 'agent_eval.output_source': record.output };
    const movedKeys = Object.keys(moved).filter((k) => record.attributes[k] !== undefined);
    expect(Object.keys(record.attributes).sort()).toEqual(
      [...Object.keys(raw.attributes).filter((k) => !movedKeys.some((m) => record.attributes[m] === k)), ...movedKeys].sort(),
    );
    for (const [k, v] of Object.entries(raw.attributes)) {
      const source = movedKeys.find((m) => record.attributes[m] === k);
      const stored = source === undefined ? record.attributes[k] : moved[source as keyof typeof moved];
      expect(stored).toBe(typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v));
    }
    expect(Object.keys(record.resource_attributes).sort()).toEqual(Object.keys(raw.resource).sort());
    expect(JSON.parse(record.events)).toEqual(raw.events.map((e) => ({ name: e.name, time: e.timeMs, attributes: e.attributes })));
  });
});
