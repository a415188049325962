import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AgentEvalClient,
  defineExperiment,
  defineScorer,
  defineSuite,
  EvaluationRunError,
  evaluate,
  ExperimentValidationError,
  InvalidSuiteError,
  loadSuite,
  ServiceApiError,
  ServiceUnreachableError,
  SuiteFileError,
} from '../../sdk/index.js';

/** The SDK's messages (SPEC "Client-side and CLI errors"), without a service: a fake fetch answers. */

function fakeFetch(status: number, body: unknown, headers: Record<string, string> = {}): { fetch: typeof fetch; calls: Request[] } {
  const calls: Request[] = [];
  return {
    calls,
    fetch: (input: RequestInfo | URL, init?: RequestInit) => {
      calls.push(new Request(input, init));
      return Promise.resolve(new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } }));
    },
  };
}

describe('client errors', () => {
  it('says `Service API error: {status} {message}` with status, statusCode, code and body', async () => {
    const { fetch } = fakeFetch(404, { error: 'Eval run not found', message: 'Eval run not found', code: 'RUN_NOT_FOUND', status: 404 });
    const client = new AgentEvalClient({ url: 'http://svc.test', apiKey: 'ae_test_x', fetch });
    const err = await client.runs.get('3dacd577-ba1c-4aa5-a78e-46c372f098d4').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceApiError);
    const e = err as ServiceApiError;
    expect(e.message).toBe('Service API error: 404 Eval run not found');
    expect([e.status, e.statusCode, e.code]).toEqual([404, 404, 'RUN_NOT_FOUND']);
    expect(e.body).toMatchObject({ code: 'RUN_NOT_FOUND' });
  });

  it('says a 401 is an invalid key and a 403 insufficient workspace permissions', async () => {
    const unauthorized = new AgentEvalClient({
      url: 'http://svc.test',
      apiKey: 'ae_test_bad',
      fetch: fakeFetch(401, { error: 'Unauthorized', code: 'UNAUTHORIZED', status: 401, details: 'Valid authentication required' }).fetch,
    });
    await expect(unauthorized.runs.list()).rejects.toThrow(/^Service API error: 401 Invalid API key$/);
    const noKey = new AgentEvalClient({ url: 'http://svc.test', apiKey: '', fetch: fakeFetch(401, { error: 'Unauthorized', status: 401 }).fetch });
    await expect(noKey.runs.list()).rejects.toThrow('Service API error: 401 API key required');
    const forbidden = new AgentEvalClient({
      url: 'http://svc.test',
      apiKey: 'ae_test_viewer',
      fetch: fakeFetch(403, { error: 'Forbidden', code: 'FORBIDDEN', status: 403, details: 'missing permission evals:run' }).fetch,
    });
    const err = (await forbidden.runs.cancel('x').catch((e: unknown) => e)) as ServiceApiError;
    expect(err.message).toBe('Service API error: 403 Insufficient workspace permissions: missing permission evals:run');
    expect(err.statusCode).toBe(403);
  });

  it('names the fields of a 422, retries a 503 as the Retry-After says, and wraps network errors with their cause', async () => {
    const v = fakeFetch(422, {
      error: 'Validation error',
      code: 'VALIDATION_ERROR',
      message: 'Field validation failed',
      details: [{ field: 'config.timeout_ms', message: 'Too big' }],
    });
    await expect(new AgentEvalClient({ url: 'http://svc.test', fetch: v.fetch }).runs.list()).rejects.toThrow(
      'Service API error: 422 Validation error (config.timeout_ms: Too big)',
    );

    let n = 0;
    const flaky: typeof fetch = () =>
      Promise.resolve(
        ++n < 3
          ? new Response('{"error":"Database not available"}', { status: 503, headers: { 'retry-after': '0' } })
          : new Response('{"runs":[],"total":0,"limit":50,"offset":0}'),
      );
    await expect(new AgentEvalClient({ url: 'http://svc.test', fetch: flaky }).runs.list()).resolves.toMatchObject({ total: 0 });
    expect(n).toBe(3);

    const down = new AgentEvalClient({ url: 'http://127.0.0.1:1', retries: 0 });
    const err = await down.health().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceUnreachableError);
    expect((err as Error).cause).toBeDefined();
  });

  it('sends the key and project headers, and YAML suites as YAML', async () => {
    const f = fakeFetch(201, { id: 's1' });
    const client = new AgentEvalClient({ url: 'http://svc.test/', apiKey: 'ae_test_k', project: 'p1', fetch: f.fetch });
    await client.suites.create('name: s\ncases: [{name: a, input: 1}]\nscorers: [contains]\n');
    const req = f.calls[0];
    expect(req.url).toBe('http://svc.test/api/suites');
    expect(req.headers.get('x-api-key')).toBe('ae_test_k');
    expect(req.headers.get('x-project-id')).toBe('p1');
    expect(req.headers.get('content-type')).toBe('application/yaml');
  });
});

describe('experiment validation (SPEC)', () => {
  const agent = () => 'ok';
  const problems = (def: Parameters<typeof defineExperiment>[0]) => {
    try {
      defineExperiment(def);
      return [];
    } catch (err) {
      expect(err).toBeInstanceOf(ExperimentValidationError);
      return (err as ExperimentValidationError).problems;
    }
  };

  it('needs exactly one control and at least one treatment', () => {
    expect(problems({ name: 'e', variants: [{ name: 'a', type: 'treatment', agent }] })).toEqual(['Experiment must have exactly 1 control variant (found 0)']);
    expect(
      problems({
        name: 'e',
        variants: [
          { name: 'a', type: 'control' },
          { name: 'b', type: 'control' },
          { name: 'c', type: 'treatment' },
        ],
      }),
    ).toEqual(['Experiment must have exactly 1 control variant (found 2)']);
    expect(problems({ name: 'e', variants: [{ name: 'a', type: 'control' }] })).toEqual(['Experiment must have at least 1 treatment variant']);
  });

  it('bounds allocations (0..100), the percentile (0..100) and the confidence level (0..1)', () => {
    const variants = [
      { name: 'a', type: 'control' as const, allocation: 50 },
      { name: 'b', type: 'treatment' as const, allocation: 101 },
    ];
    expect(problems({ name: 'e', variants })).toEqual(["Variant allocation must be between 0 and 100 (variant 'b': 101)"]);
    expect(
      problems({
        name: 'e',
        variants: [
          { name: 'a', type: 'control', allocation: -1 },
          { name: 'b', type: 'treatment' },
        ],
      }),
    ).toEqual(["Variant allocation must be between 0 and 100 (variant 'a': -1)"]);
    const ok = [
      { name: 'a', type: 'control' as const },
      { name: 'b', type: 'treatment' as const },
    ];
    expect(problems({ name: 'e', variants: ok, percentile: 100.5 })).toEqual(['Percentile must be between 0 and 100 (got 100.5)']);
    expect(problems({ name: 'e', variants: ok, percentile: -3 })).toEqual(['Percentile must be between 0 and 100 (got -3)']);
    expect(problems({ name: 'e', variants: ok, confidenceLevel: 1.5 })).toEqual(['Confidence level must be between 0 and 1 (got 1.5)']);
    expect(problems({ name: 'e', variants: ok, confidenceLevel: 0 })).toEqual(['Confidence level must be between 0 and 1 (got 0)']);
    expect(problems({ name: 'e', variants: ok, percentile: 0, confidenceLevel: 0.99 })).toEqual([]);
    // Every broken rule at once, in one error message.
    expect(() => defineExperiment({ name: 'e', variants: [{ name: 'b', type: 'treatment', allocation: 200 }], percentile: 101, confidenceLevel: 2 })).toThrow(
      "Experiment must have exactly 1 control variant (found 0); Variant allocation must be between 0 and 100 (variant 'b': 200); Percentile must be between 0 and 100 (got 101); Confidence level must be between 0 and 1 (got 2)",
    );
  });

  it('assigns units to variants by allocation, the same unit always the same variant', () => {
    const e = defineExperiment({
      name: 'prompt-v2',
      variants: [
        { name: 'control', type: 'control', allocation: 80 },
        { name: 'v2', type: 'treatment', allocation: 20 },
      ],
    });
    const counts = { control: 0, v2: 0 };
    for (let i = 0; i < 5000; i++) counts[e.assign(`user-${i}`).name as 'control' | 'v2']++;
    expect(counts.v2 / 5000).toBeGreaterThan(0.17);
    expect(counts.v2 / 5000).toBeLessThan(0.23);
    expect(e.assign('user-42').name).toBe(e.assign('user-42').name);
    expect(e.attributes('v2')).toEqual({ 'experiment.name': 'prompt-v2', 'experiment.variant': 'v2' });
  });
});

describe('suites: the service parser and its messages', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sdk-suites-'));

  it('loads a YAML file, and says File not found / Suite must be a YAML file / Invalid suite file', async () => {
    const file = path.join(dir, 'ok.yaml');
    fs.writeFileSync(file, 'name: weather\nscorers: [contains]\ncases:\n  - name: paris\n    input: {city: Paris}\n    expected: {outputContains: [sunny]}\n');
    const suite = await loadSuite(file);
    expect(suite.definition).toMatchObject({
      name: 'weather',
      defaultScorers: [{ name: 'contains', config: {} }],
      defaultMinScore: 0.7,
      cases: [{ name: 'paris', input: { city: 'Paris' } }],
    });

    await expect(loadSuite(path.join(dir, 'missing.yaml'))).rejects.toThrow(new SuiteFileError(`File not found: ${path.join(dir, 'missing.yaml')}`));
    await expect(loadSuite(path.join(dir, 'suite.json'))).rejects.toThrow(`Suite must be a YAML file: ${path.join(dir, 'suite.json')}`);
    const bad = path.join(dir, 'bad.yaml');
    fs.writeFileSync(bad, 'name: x\nscorers: [containz]\ncases:\n  - name: a\n    input: 1\n  - name: a\n    input: 2\n');
    const err = (await loadSuite(bad).catch((e: unknown) => e)) as InvalidSuiteError;
    expect(err).toBeInstanceOf(InvalidSuiteError);
    expect(err.message).toMatch(/^Invalid suite file: defaultScorers\[0\]: unknown scorer 'containz'/);
    expect(err.message).toContain("cases[1].name: case names must be unique in a suite: 'a' is also cases[0].name");
    fs.writeFileSync(bad, 'name: [unclosed\n');
    await expect(loadSuite(bad)).rejects.toThrow(/^Invalid suite file: .* at line \d+, column \d+/);
    fs.writeFileSync(bad, 'cases: []\n');
    await expect(loadSuite(bad)).rejects.toThrow('Invalid suite file: name is required');
  });

  it('takes defineScorer objects in a suite in code', () => {
    const polite = defineScorer({ name: 'polite', dataType: 'boolean', evaluate: ({ output }) => String(output).includes('please') });
    const suite = defineSuite({ name: 's', scorers: ['contains', polite], cases: [{ name: 'a', input: 'x', expected: { outputContains: ['y'] } }] });
    expect(suite.definition.defaultScorers.map((s) => s.name)).toEqual(['contains', 'polite']);
    expect(suite.scorers).toEqual([polite]);
    expect(() => defineSuite({ name: 's', scorers: ['polite'], cases: [{ name: 'a', input: 'x' }] })).toThrow(
      "Invalid suite file: defaultScorers[0]: unknown scorer 'polite'",
    );
  });
});

describe('evaluate() without a service (upload: false)', () => {
  it('scores with rule and custom scorers, reads tool calls from tool spans, and computes the summary as the service does', async () => {
    const { tool, generation } = await import('../../sdk/index.js');
    const tone = defineScorer({
      name: 'tone',
      dataType: 'categorical',
      categories: { friendly: 1, rude: 0 },
      evaluate: ({ output }) => ({ value: String(output).includes('!') ? 'friendly' : 'rude', reason: 'by punctuation' }),
    });
    const suite = defineSuite({
      name: 'weather',
      scorers: ['contains', 'toolSelection', tone],
      cases: [
        { name: 'paris', input: { city: 'Paris' }, expected: { outputContains: ['sunny'], toolCalls: ['get_forecast'] } },
        { name: 'oslo', input: { city: 'Oslo' }, expected: { outputContains: ['snow'], toolCalls: ['get_forecast'] } },
      ],
    });
    const progress: number[] = [];
    const result = await evaluate(suite, {
      upload: false,
      concurrency: 2,
      onProgress: (p) => progress.push(p.completed),
      agent: async (input) => {
        const city = (input as { city: string }).city;
        tool({ name: 'get_forecast', input: { city }, output: { sky: 'sunny' } });
        generation({ model: 'gpt-4o', input: city, output: 'ok', usage: { input_tokens: 10, output_tokens: 2 } });
        await new Promise((r) => setTimeout(r, 1));
        return `It is sunny in ${city}!`;
      },
    });
    expect(progress.sort()).toEqual([1, 2]);
    expect(result.runId).toBeUndefined();
    const [paris, oslo] = result.cases;
    expect(paris).toMatchObject({ case_name: 'paris', status: 'passed', scores: { contains: 1, toolSelection: 1, tone: 1 } });
    expect(paris.details.tone.reason).toBe('by punctuation');
    expect(oslo).toMatchObject({ case_name: 'oslo', status: 'failed', scores: { contains: 0, toolSelection: 1, tone: 1 } });
    expect(result.outcomes.find((o) => o.caseName === 'paris')).toMatchObject({
      toolCalls: [{ name: 'get_forecast' }],
      usage: { input_tokens: 10, output_tokens: 2 },
    });
    expect(result.summary).toMatchObject({ total_cases: 2, passed: 1, failed: 1 });
    expect(result.passed).toBe(false);
  });

  it('rejects with `Evaluation run failed` when a case ended with an error, and records the error', async () => {
    const suite = defineSuite({
      name: 's',
      scorers: ['contains'],
      cases: [
        { name: 'boom', input: 1 },
        { name: 'slow', input: 2 },
      ],
    });
    const err = (await evaluate(suite, {
      upload: false,
      timeoutMs: 50,
      agent: (input) => (input === 1 ? Promise.reject(new Error('model quota exceeded')) : new Promise((r) => setTimeout(() => r('late'), 500))),
    }).catch((e: unknown) => e)) as EvaluationRunError;
    expect(err).toBeInstanceOf(EvaluationRunError);
    expect(err.message).toBe("Evaluation run failed: 2 of 2 case trials ended with an error (first: case 'boom': model quota exceeded)");
    const result = await evaluate(suite, {
      upload: false,
      timeoutMs: 50,
      throwOnCaseErrors: false,
      agent: () => new Promise((r) => setTimeout(() => r('late'), 500)),
    });
    expect(result.cases[0]).toMatchObject({ status: 'failed', error: 'agent did not answer within 50 ms' });
  });
});
