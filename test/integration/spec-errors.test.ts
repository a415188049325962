import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/server.js';

/**
 * Conformance with the SPEC's Errors section: every 400 message verbatim on its endpoint, the
 * 401 and 403 bodies, every 404 text, and the body shapes (general, reference, validation), on
 * the real service as it ships (credentials required).
 */

let svc: TestApi;
const MISSING_UUID = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  svc = await startTestApi();
});

afterAll(async () => {
  await svc?.stop();
});

type Call = [method: string, path: string, body?: unknown];

async function call([method, path, body]: Call, init: { key?: string | null; project?: string | null } = {}) {
  const res = await svc.api(path, { method, ...(body === undefined ? {} : { json: body }), ...init });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

/** SPEC "400 messages": message, endpoint, a request that must produce it. */
const BAD_REQUESTS: Array<[message: string, request: Call]> = [
  ['name is required', ['POST', '/api/suites', { cases: [] }]],
  ['name is required', ['POST', '/api/prompts', { type: 'text', template: 'hi' }]],
  ['type must be "text" or "chat"', ['POST', '/api/prompts', { name: 'p', type: 'image', template: 'x' }]],
  ['template is required for text prompts', ['POST', '/api/prompts', { name: 'p', type: 'text' }]],
  ['messages are required for chat prompts', ['POST', '/api/prompts', { name: 'p', type: 'chat' }]],
  ['Prompt is required', ['POST', '/api/feedback/comparisons', { output_a: 'a', output_b: 'b' }]],
  ['Feedback type is required', ['POST', '/api/feedback', { trace_id: 't' }]],
  ['Preference data is required for preference feedback', ['POST', '/api/feedback', { type: 'preference' }]],
  ['Correction data is required for correction feedback', ['POST', '/api/feedback', { type: 'correction' }]],
  ['trace_id is required', ['POST', '/api/scores', { name: 'x', value: 1 }]],
  ['baseline_run_id is required', ['POST', '/api/compare', { candidate_run_id: MISSING_UUID }]],
  ['candidate_run_id is required', ['POST', '/api/compare', { baseline_run_id: MISSING_UUID }]],
  ['baseline_run_id and candidate_run_id must be different', ['POST', '/api/compare', { baseline_run_id: MISSING_UUID, candidate_run_id: MISSING_UUID }]],
  ['agentId is required', ['POST', '/api/runs', { dataset: { items: [{ input: 'x' }] }, scorers: ['contains'] }]],
  ['dataset.items is required and must not be empty', ['POST', '/api/runs', { agentId: 'a', dataset: { items: [] }, scorers: ['contains'] }]],
  ['scorers is required and must not be empty', ['POST', '/api/runs', { agentId: 'a', dataset: { items: [{ input: 'x' }] }, scorers: [] }]],
  ['Invalid suite ID format', ['GET', '/api/suites/not-a-uuid']],
  ['Invalid action (must be one of pause, resume, cancel)', ['POST', `/api/runs/${MISSING_UUID}/control`, { action: 'explode' }]],
  ['name is required', ['POST', '/api/alerts/rules', { metric: 'error_rate', threshold: 1, operator: 'gt', severity: 'info' }]],
  ['metric is required', ['POST', '/api/alerts/rules', { name: 'r', threshold: 1, operator: 'gt', severity: 'info' }]],
  ['threshold is required', ['POST', '/api/alerts/rules', { name: 'r', metric: 'error_rate', operator: 'gt', severity: 'info' }]],
  ['operator is required', ['POST', '/api/alerts/rules', { name: 'r', metric: 'error_rate', threshold: 1, severity: 'info' }]],
  [
    'operator must be one of: gt, gte, lt, lte, eq',
    ['POST', '/api/alerts/rules', { name: 'r', metric: 'error_rate', threshold: 1, operator: 'gtx', severity: 'info' }],
  ],
  [
    'severity must be one of: critical, warning, info',
    ['POST', '/api/alerts/rules', { name: 'r', metric: 'error_rate', threshold: 1, operator: 'gt', severity: 'meh' }],
  ],
  ['id query parameter is required', ['DELETE', '/api/alerts/rules']],
];

/** SPEC "404 messages". */
const NOT_FOUND: Array<[message: string, request: Call, code?: string]> = [
  ['Suite not found', ['GET', `/api/suites/${MISSING_UUID}`]],
  ['Eval run not found', ['GET', `/api/runs/${MISSING_UUID}`]],
  ['Span not found', ['GET', '/api/spans/no-such-span']],
  ['Prompt "nope" not found', ['GET', '/api/prompts/nope']],
  [
    `Baseline run ${MISSING_UUID} not found`,
    ['POST', '/api/compare', { baseline_run_id: MISSING_UUID, candidate_run_id: '00000000-0000-4000-8000-000000000001' }],
  ],
  ['Alert rule not found', ['DELETE', `/api/alerts/rules?id=${MISSING_UUID}`]],
  ["Trace with ID 'no-such-trace' not found", ['GET', '/api/traces/no-such-trace'], 'TRACE_NOT_FOUND'],
];

describe('SPEC errors', () => {
  it('answers every 400 message verbatim, in the general body {error, status}', async () => {
    for (const [message, request] of BAD_REQUESTS) {
      const { status, body } = await call(request);
      expect({ request: request.slice(0, 2).join(' '), status, error: body.error }).toEqual({
        request: request.slice(0, 2).join(' '),
        status: 400,
        error: message,
      });
      expect(body.status).toBe(400);
    }
  });

  it('answers every 404 text, in the reference body {error, message, code}', async () => {
    for (const [message, request, code] of NOT_FOUND) {
      const { status, body } = await call(request);
      expect({ request: request.slice(0, 2).join(' '), status, message: body.message }).toEqual({
        request: request.slice(0, 2).join(' '),
        status: 404,
        message,
      });
      expect(body.error).toBe(message);
      expect(typeof body.code).toBe('string');
      if (code) expect(body.code).toBe(code);
    }
    // `Candidate run {id} not found` needs a stored baseline: test/integration/eval-runs.test.ts.
  });

  it('answers 401 and 403 with the SPEC details and a hint', async () => {
    const unauthorized = await call(['GET', '/api/suites'], { key: null });
    expect(unauthorized).toEqual({
      status: 401,
      body: {
        error: 'Unauthorized',
        code: 'UNAUTHORIZED',
        status: 401,
        details: 'Valid authentication required',
        hint: 'Provide a bearer token or an API key header',
      },
    });
    const admin = await svc.keyFor('spec-errors');
    const viewer = (await (
      await svc.api('/api/projects/spec-errors/keys', { method: 'POST', project: 'spec-errors', key: admin, json: { name: 'v', role: 'viewer' } })
    ).json()) as { key: string };
    const forbidden = await call(['POST', '/api/suites', { name: 's', cases: [] }], { key: viewer.key, project: 'spec-errors' });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toMatchObject({ error: 'Forbidden', status: 403, details: 'missing permission evals:write' });
    expect(typeof forbidden.body.hint).toBe('string');
  });

  it('answers 422 in the validation body with one {field, message} per problem', async () => {
    const { status, body } = await call(['POST', '/api/agents', { name: 42, endpoint: 'not a url' }]);
    expect(status).toBe(422);
    expect(body).toMatchObject({ error: 'Validation error', code: 'VALIDATION_ERROR', message: 'Field validation failed' });
    expect((body.details as Array<{ field: string }>).map((d) => d.field).sort()).toEqual(['endpoint', 'name']);
  });

  it('answers 503 Workflow engine service unavailable (with details and Retry-After) when the engine is down', async () => {
    await call(['POST', '/api/agents', { name: 'spec-agent', endpoint: 'http://127.0.0.1:9/' }]);
    const res = await svc.api('/api/runs', { method: 'POST', json: { agentId: 'spec-agent', dataset: { items: [{ input: 'x' }] }, scorers: ['contains'] } });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ error: 'Workflow engine service unavailable', status: 503 });
    expect(typeof body.details).toBe('string');
  });
});
