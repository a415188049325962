import { describe, expect, it } from 'vitest';
import { openApiMismatch } from '../../helpers/openapi-responses.js';

/**
 * The check every in-process API test's answers go through (test/helpers/openapi-responses.ts):
 * it finds the route of a request path, refuses a status the document does not list for it and
 * a JSON body that does not match the schema of that status, and leaves undocumented paths to the
 * coverage test.
 */

const span = {
  span_id: 's1',
  trace_id: 't1',
  parent_span_id: null,
  name: 'agent',
  type: 'span',
  component_type: null,
  convention: 'spec',
  kind: null,
  status: 'ok',
  status_message: null,
  start_time: '2026-11-28T10:00:00.000Z',
  end_time: '2026-11-28T10:00:01.000Z',
  duration_ms: 1000,
  model: null,
  input: '## Résumé\n\n```ts\nconst x = 1;\n```\n\n🙂 مرحبا',
  output: 'ok',
  input_tokens: 0,
  output_tokens: 0,
  cached_input_tokens: 0,
  cost: null,
  attributes: { 'session.id': 's' },
  resource_attributes: {},
  scope: { name: 'agent-eval', version: '1' },
  events: [],
  llm: null,
};

describe('answers against the OpenAPI document', () => {
  it('takes an answer that matches its route and status', () => {
    expect(openApiMismatch('GET', '/api/spans/s1', 200, span)).toBeUndefined();
    expect(
      openApiMismatch('GET', '/api/spans/s1', 404, { error: 'Span not found', message: 'Span not found', code: 'SPAN_NOT_FOUND', status: 404 }),
    ).toBeUndefined();
  });

  it('refuses a field of the wrong type, a missing field and a field the schema does not have', () => {
    expect(openApiMismatch('GET', '/api/spans/s1', 200, { ...span, duration_ms: '1000' })).toMatch(
      /GET \/api\/spans\/\{spanId\} 200.*\/duration_ms must be number/,
    );
    const noTrace: Record<string, unknown> = { ...span };
    delete noTrace.trace_id;
    expect(openApiMismatch('GET', '/api/spans/s1', 200, noTrace)).toMatch(/must have required property 'trace_id'/);
    expect(openApiMismatch('GET', '/api/spans/s1', 200, { ...span, secret: 'x' })).toMatch(/must NOT have additional properties.*secret/);
  });

  it("refuses an error body that is not the SPEC's and a status the route does not list", () => {
    expect(openApiMismatch('GET', '/api/spans/s1', 404, { message: 'no error field' })).toMatch(/required property 'error'/);
    expect(openApiMismatch('GET', '/api/spans/s1', 409, { error: 'x', status: 409 })).toMatch(/answered 409, which the document does not list/);
  });

  it('picks the static route over a parameter, and leaves paths the document does not have alone', () => {
    expect(openApiMismatch('GET', '/api/runs/r1/status', 200, { nope: true })).toMatch(/GET \/api\/runs\/\{id\}\/status 200/);
    expect(openApiMismatch('GET', '/api/no-such-route', 404, { anything: true })).toBeUndefined();
  });
});
