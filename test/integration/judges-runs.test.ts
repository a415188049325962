import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MetadataStore } from '../../core/store/postgres/metadata-store.js';
import { eventually } from '../helpers/eventually.js';
import { DEFAULT_VERDICT, fakeProviderEnv, startFakeProvider, type FakeProvider, type FakeProviderKind } from '../helpers/fake-providers.js';
import { openServiceMetadata } from '../helpers/metadata-store.js';
import { resultsByCase, untilCompleted } from '../helpers/run-results.js';
import { startTestService, type TestService } from '../helpers/server.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { expectJson as json } from '../helpers/test-service-hooks.js';
import { postSuite } from '../helpers/suite-api.js';

/**
 * LLM judges and HTTP custom scorers in real runs: the service (Temporal dev server, embedded
 * PostgreSQL, chDB) with its providers pointed at local servers that speak each provider's wire
 * protocol, through the official SDKs.
 */

interface TraceSpan {
  span_id: string;
  parent_span_id: string | null;
  name: string;
  type: string;
  status: string;
  model: string | null;
  input: string;
  output: string;
  input_tokens: number;
  output_tokens: number;
  attributes: Record<string, string>;
}

const KINDS: FakeProviderKind[] = ['anthropic', 'openai', 'vertex-gemini', 'vertex-anthropic'];
const fakes = {} as Record<FakeProviderKind, FakeProvider>;
let service: TestService;
let agent: TestAgent;
let metadata: MetadataStore;

/** An HTTP custom scorer: answers `{value, reason, evidence}` and records what it was sent. */
const customCalls: Array<{ headers: http.IncomingHttpHeaders; body: Record<string, unknown> }> = [];
let customScorer: http.Server;
let customUrl: string;

async function run(items: Array<Record<string, unknown>>, scorers: unknown[], config: Record<string, unknown> = {}): Promise<string> {
  const created = await json<{ id: string }>(
    await service.api('/api/runs', { method: 'POST', json: { agentId: 'judged-agent', dataset: { items }, scorers, config } }),
    202,
  );
  await untilCompleted(service, created.id);
  return created.id;
}

const results = (runId: string) => resultsByCase(service, runId);

async function traceSpans(traceId: string): Promise<TraceSpan[]> {
  return eventually(async () => (await json<{ spans: TraceSpan[] }>(await service.api(`/api/traces/${traceId}`), 200)).spans);
}

const reset = () => {
  for (const kind of KINDS) fakes[kind].requests.length = 0;
};

beforeAll(async () => {
  for (const kind of KINDS) fakes[kind] = await startFakeProvider(kind);
  customScorer = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      customCalls.push({ headers: req.headers, body });
      const polite = String(body.output).includes('please');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ value: polite, reason: polite ? 'says please' : 'no please', evidence: polite ? ['please'] : [] }));
    });
  });
  await new Promise<void>((resolve) => customScorer.listen(0, '127.0.0.1', () => resolve()));
  customUrl = `http://127.0.0.1:${(customScorer.address() as AddressInfo).port}/score`;
  agent = await startTestAgent((req) => {
    const input = req.body.input as { answer?: string; spans?: unknown[] };
    return {
      json: {
        output: input.answer ?? '',
        tool_calls: [{ name: 'weather', output: { sky: 'clear' } }],
        usage: { input_tokens: 10, output_tokens: 5 },
        ...(input.spans ? { spans: input.spans } : {}),
      },
    };
  });
  service = await startTestService({ ...fakeProviderEnv(fakes), EVAL_RETRY_TIME_SCALE: '0.001' });
  metadata = openServiceMetadata(service.dataDir);
  await json(await service.api('/api/agents', { method: 'POST', json: { name: 'judged-agent', endpoint: agent.url } }), 201);
});

afterAll(async () => {
  await metadata?.close();
  await service?.stop();
  await agent?.close();
  await new Promise<void>((resolve) => (customScorer ? customScorer.close(() => resolve()) : resolve()));
  await Promise.all(Object.values(fakes).map((f) => f.close()));
});

describe('LLM judges in a run', () => {
  it('scores every case with judges on all four providers and leaves their calls as generation spans in the case trace', async () => {
    reset();
    const runId = await run(
      [
        { name: 'paris', input: { answer: 'It is sunny in Paris' }, expected: { outputContains: ['sunny'] } },
        { name: 'rome', input: { answer: 'Rain in Rome' }, expected: { outputContains: ['sunny'] } },
      ],
      [
        'contains',
        'helpfulness_judge',
        { name: 'safety_judge', config: { provider: 'openai' } },
        { name: 'llmJudge:polite', config: { prompt: 'Is this answer polite? {{output}}', provider: 'vertex-gemini' } },
        { name: 'reasoning', config: { provider: 'vertex-anthropic' } },
      ],
      { parallel: true },
    );
    const byName = await results(runId);
    for (const name of ['helpfulness_judge', 'safety_judge', 'llmJudge:polite', 'reasoning']) {
      expect(byName.paris.details[name]).toEqual(DEFAULT_VERDICT);
    }
    expect(byName.paris.details.contains.score).toBe(1);
    expect(byName.rome.details.contains.score).toBe(0);
    // One call per judge and case, each to the provider the judge names (the default: Anthropic).
    for (const kind of KINDS) expect(fakes[kind].requests, kind).toHaveLength(2);
    const gemini = fakes['vertex-gemini'].requests.map((r) => JSON.stringify(r.body.contents));
    expect(gemini.some((c) => c.includes('Is this answer polite? It is sunny in Paris'))).toBe(true);

    const spans = await traceSpans(byName.paris.trace_id!);
    const judgeSpans = spans.filter((s) => s.name.startsWith('judge: '));
    expect(judgeSpans.map((s) => s.name).sort()).toEqual(['judge: helpfulness_judge', 'judge: llmJudge:polite', 'judge: reasoning', 'judge: safety_judge']);
    const helpfulness = judgeSpans.find((s) => s.name === 'judge: helpfulness_judge')!;
    const scoreSpan = spans.find((s) => s.name === 'score: helpfulness_judge')!;
    expect(helpfulness).toMatchObject({
      type: 'generation',
      model: 'claude-sonnet-4-6',
      input_tokens: 120,
      output_tokens: 30,
      status: 'ok',
      parent_span_id: scoreSpan.span_id,
    });
    expect(helpfulness.input).toContain('Judge how much the response helps the user');
    expect(JSON.parse(helpfulness.output)).toEqual(DEFAULT_VERDICT);
    expect(helpfulness.attributes).toMatchObject({
      'agent_eval.judge_provider': 'anthropic',
      'gen_ai.provider.name': 'anthropic',
      'agent_eval.judge_status': 'ok',
    });
    expect(judgeSpans.find((s) => s.name === 'judge: reasoning')!.attributes['gen_ai.provider.name']).toBe('gcp.vertex_ai');
  });

  it('retries a judge call after a 429 and a 500 (the LLM call activity), and records the failed calls too', async () => {
    reset();
    fakes.anthropic.queue({ status: 429, message: 'rate limited', headers: { 'retry-after': '0' } }, { status: 500, message: 'overloaded' });
    const runId = await run([{ name: 'retried', input: { answer: 'It is sunny' } }], ['helpfulness_judge']);
    const byName = await results(runId);
    expect(byName.retried.details.helpfulness_judge).toEqual(DEFAULT_VERDICT);
    expect(fakes.anthropic.requests).toHaveLength(3);
    const spans = (await traceSpans(byName.retried.trace_id!)).filter((s) => s.name === 'judge: helpfulness_judge');
    expect(spans.map((s) => s.status).sort()).toEqual(['error', 'error', 'ok']);
  });

  it('scores 0 with the reason when the judge keeps answering something that is not a verdict', async () => {
    reset();
    fakes.openai.queue({ text: 'It is fine, I guess.' }, { verdict: { score: 'high', reason: 'x', evidence: [] } }, { text: '{"broken": ' });
    const runId = await run([{ name: 'garbled', input: { answer: 'ok' } }], [{ name: 'safety_judge', config: { provider: 'openai' } }]);
    const { garbled } = await results(runId);
    expect(garbled.details.safety_judge.score).toBe(0);
    expect(garbled.details.safety_judge.reason).toMatch(/^judge answer unusable after 3 attempts: the answer is not JSON/);
    expect(fakes.openai.requests).toHaveLength(3);
    expect(garbled.status).toBe('failed');
  });

  it('fails a judge whose provider refuses the request, without retrying it, and goes on with the other scorers', async () => {
    reset();
    fakes.anthropic.queue({ status: 404, message: 'model not found' });
    const runId = await run(
      [{ name: 'refused', input: { answer: 'It is sunny' }, expected: { outputContains: ['sunny'] } }],
      ['contains', 'helpfulness_judge'],
    );
    const { refused } = await results(runId);
    expect(refused.details.helpfulness_judge.score).toBe(0);
    expect(refused.details.helpfulness_judge.reason).toBe('scorer error: anthropic: 404 model not found');
    expect(refused.details.contains.score).toBe(1);
    expect(fakes.anthropic.requests).toHaveLength(1);
  });

  it("stops calling judges once the run's token budget is spent, says so on the cases, and counts the spend in PostgreSQL", async () => {
    reset();
    fakes.anthropic.setDefault({ verdict: DEFAULT_VERDICT, usage: { input: 200, output: 50 } });
    try {
      const runId = await run(
        [0, 1, 2].map((i) => ({ name: `case-${i}`, input: { answer: `answer ${i}` } })),
        ['helpfulness_judge'],
        { parallel: false, judge_budget: { max_tokens: 300 } },
      );
      const byName = await results(runId);
      // 250 tokens after the first case, 500 after the second: the third is not judged.
      expect(byName['case-0'].details.helpfulness_judge).toEqual(DEFAULT_VERDICT);
      expect(byName['case-1'].details.helpfulness_judge).toEqual(DEFAULT_VERDICT);
      expect(byName['case-2'].details.helpfulness_judge.score).toBe(0);
      expect(byName['case-2'].details.helpfulness_judge.reason).toBe(
        "judge budget reached: this run's judges used 500 tokens of judge_budget.max_tokens 300; helpfulness_judge was not called",
      );
      expect(fakes.anthropic.requests).toHaveLength(2);
      expect(await metadata.judges.runUsage(runId)).toMatchObject({ calls: 2, input_tokens: 400, output_tokens: 100, tokens: 500 });
      const view = await json<{ config: { judge_budget: unknown } }>(await service.api(`/api/runs/${runId}`), 200);
      expect(view.config.judge_budget).toEqual({ max_tokens: 300 });
    } finally {
      fakes.anthropic.setDefault({ verdict: DEFAULT_VERDICT });
    }
  });

  it("judges what the agent did: trajectoryJudge on its trace, spanJudge on each retrieval, stopped part way by the run's judge budget", async () => {
    reset();
    const at = (ms: number) => new Date(Date.now() - 10_000 + ms).toISOString();
    const docs = ['Ryokan Sakura, Kyoto: 4.6 stars, near Gion', 'Hilton Osaka Bay: 4.2 stars', 'Kyoto Station Hotel: 4.0 stars'];
    const spans = [
      { span_id: 'agent', name: 'hotel-agent', type: 'span', start_time: at(0), end_time: at(900), input: 'hotels in Kyoto?', output: 'Ryokan Sakura' },
      ...docs.map((doc, i) => ({
        span_id: `docs-${i}`,
        parent_span_id: 'agent',
        name: 'kb.search',
        type: 'retrieval',
        start_time: at(100 + i * 100),
        end_time: at(150 + i * 100),
        input: 'hotels in Kyoto',
        output: doc,
      })),
    ];
    const relevance = (req: { body: Record<string, unknown> }) => {
      const message = JSON.stringify(req.body.messages);
      const span = /<span>([\s\S]*)<\/span>/.exec(message)?.[1] ?? '';
      const verdict = !message.includes('<span>')
        ? { score: 0.9, reason: 'searched, then answered from step [2]', evidence: [] }
        : span.includes('Osaka')
          ? { score: 0.2, reason: 'about Osaka, not Kyoto', evidence: [] }
          : { score: 1, reason: 'about Kyoto', evidence: [] };
      return { verdict, usage: { input: 200, output: 50 } };
    };
    fakes.anthropic.setDefault(relevance);
    const scorers = [
      'trajectoryJudge',
      { name: 'spanJudge:relevance', config: { select: { type: 'retrieval' }, criteria: 'Is it about Kyoto hotels?', aggregate: 'min' } },
    ];
    try {
      const runId = await run([{ name: 'hotels', input: { answer: 'Ryokan Sakura', spans } }], scorers);
      const { hotels } = await results(runId);
      expect(hotels.details.trajectoryJudge).toEqual({ score: 0.9, reason: 'searched, then answered from step [2]', evidence: [] });
      expect(hotels.details['spanJudge:relevance'].score).toBe(0.2);
      expect(hotels.details['spanJudge:relevance'].reason).toMatch(
        /^min 0\.2 over 3 spans matching \{type retrieval\} judged; the worst, kb\.search \(span \d+, \+\d+ ms\), scored 0\.2: about Osaka, not Kyoto$/,
      );
      const messages = fakes.anthropic.requests.map((r) => JSON.stringify(r.body.messages));
      expect(messages).toHaveLength(4);
      expect(messages.filter((m) => m.includes('<trajectory>') && m.includes('retrieval kb.search'))).toHaveLength(1);
      // Every call is a judge span of the case trace and counts in the run's spend, as any judge's.
      const judgeSpans = (await traceSpans(hotels.trace_id!)).filter((s) => s.name.startsWith('judge: '));
      expect(judgeSpans.map((s) => s.name).sort()).toEqual([
        'judge: spanJudge:relevance',
        'judge: spanJudge:relevance',
        'judge: spanJudge:relevance',
        'judge: trajectoryJudge',
      ]);
      expect(await metadata.judges.runUsage(runId)).toMatchObject({ calls: 4, tokens: 1000 });

      reset();
      const budgeted = await run([{ name: 'hotels', input: { answer: 'Ryokan Sakura', spans } }], [scorers[1]], { judge_budget: { max_tokens: 300 } });
      const stopped = (await results(budgeted)).hotels.details['spanJudge:relevance'];
      expect(stopped).toEqual({
        score: 0,
        reason:
          "judge budget reached: this run's judges used 500 tokens of judge_budget.max_tokens 300; spanJudge:relevance was not called; 2 spans of 3 had been judged",
        evidence: [],
      });
      expect(fakes.anthropic.requests).toHaveLength(2);
      expect(await metadata.judges.runUsage(budgeted)).toMatchObject({ calls: 2, tokens: 500 });
    } finally {
      fakes.anthropic.setDefault({ verdict: DEFAULT_VERDICT });
    }
  });

  it('refuses an llmJudge without a prompt when the run or the suite is created', async () => {
    const res = await service.api('/api/runs', {
      method: 'POST',
      json: { agentId: 'judged-agent', dataset: { items: [{ input: 'x' }] }, scorers: ['llmJudge'] },
    });
    const body = await json<{ details: Array<{ field: string; message: string }> }>(res, 422);
    expect(body.details).toEqual([{ field: 'scorers[0]', message: "scorer 'llmJudge': config.prompt llmJudge requires a prompt string" }]);
    const suite = await service.api('/api/suites', {
      method: 'POST',
      json: { name: 'no-prompt', cases: [{ name: 'a', input: 'x', scorers: [{ name: 'llmJudge', config: { prompt: 42 } }] }] },
    });
    const suiteBody = await json<{ details: Array<{ field: string; message: string }> }>(suite, 422);
    expect(suiteBody.details[0]).toEqual({ field: 'cases[0].scorers[0]', message: "scorer 'llmJudge': config.prompt llmJudge requires a prompt string" });
  });
});

describe('HTTP custom scorers', () => {
  it('registers, lists, reads and deletes a scorer like an agent, never showing its header values', async () => {
    const created = await json<{ id: string; name: string; data_type: string; header_names: string[] }>(
      await service.api('/api/scorers', {
        method: 'POST',
        json: { name: 'tone-check', endpoint: customUrl, dataType: 'numeric', headers: { authorization: 'Bearer scorer-secret' } },
      }),
      201,
    );
    expect(created).toMatchObject({ name: 'tone-check', data_type: 'numeric', header_names: ['authorization'] });
    expect(JSON.stringify(created)).not.toContain('scorer-secret');
    const list = await json<{ scorers: Array<{ name: string }>; total: number }>(await service.api('/api/scorers'), 200);
    expect(list.scorers.map((s) => s.name)).toContain('tone-check');
    for (const ref of [created.id, 'tone-check'])
      expect(await json<{ id: string }>(await service.api(`/api/scorers/${ref}`), 200)).toMatchObject({ id: created.id });
    expect((await service.api('/api/scorers', { method: 'POST', json: { name: 'tone-check', endpoint: customUrl } })).status).toBe(409);
    const builtIn = await json<{ details: Array<{ field: string }> }>(
      await service.api('/api/scorers', { method: 'POST', json: { name: 'safety_judge', endpoint: customUrl } }),
      422,
    );
    expect(builtIn.details[0].field).toBe('name');
    expect((await service.api('/api/scorers', { method: 'POST', json: { name: 'x', endpoint: 'ftp://nope' } })).status).toBe(422);
    expect((await service.api(`/api/scorers/${created.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await service.api('/api/scorers/tone-check')).status).toBe(404);
  });

  it('scores a suite run by name with the answer of the endpoint, which gets input, output, expected and trace', async () => {
    customCalls.length = 0;
    await json(
      await service.api('/api/scorers', {
        method: 'POST',
        json: { name: 'politeness', endpoint: customUrl, dataType: 'boolean', headers: { 'x-scorer-key': 'k1' } },
      }),
      201,
    );
    await postSuite(service, {
      name: 'polite-suite',
      agent_id: 'judged-agent',
      defaultScorers: ['politeness', 'contains'],
      cases: [
        { name: 'polite', input: { answer: 'Sunny, please enjoy' }, expected: { outputContains: ['Sunny'], tone: 'polite' } },
        { name: 'rude', input: { answer: 'Sunny. Go away' }, expected: { outputContains: ['Sunny'] } },
      ],
    });
    const created = await json<{ run_id: string }>(
      await service.api('/api/evals/runs', { method: 'POST', json: { suite_name: 'polite-suite', agent_version: 'v1', config: { parallel: true } } }),
      202,
    );
    await eventually(
      async () => expect((await json<{ status: string }>(await service.api(`/api/runs/${created.run_id}`), 200)).status).toBe('completed'),
      90_000,
    );
    const byName = await results(created.run_id);
    expect(byName.polite.details.politeness).toEqual({ score: 1, reason: 'says please', evidence: ['please'] });
    expect(byName.rude.details.politeness).toEqual({ score: 0, reason: 'no please', evidence: [] });
    expect(byName.polite.status).toBe('passed');

    const call = customCalls.find((c) => c.body.output === 'Sunny, please enjoy')!;
    expect(call.headers['x-scorer-key']).toBe('k1');
    expect(call.body).toMatchObject({
      input: { answer: 'Sunny, please enjoy' },
      expected: { outputContains: ['Sunny'], tone: 'polite' },
      scorer: 'politeness',
      trace: { tool_calls: [{ name: 'weather', output: { sky: 'clear' } }], usage: { input_tokens: 10, output_tokens: 5 } },
    });
    expect((call.body.trace as { trace_id: string }).trace_id).toBe(byName.polite.trace_id);
  });

  it('refuses a suite or run naming a scorer the project does not have', async () => {
    const res = await service.api('/api/runs', {
      method: 'POST',
      json: { agentId: 'judged-agent', dataset: { items: [{ input: 'x' }] }, scorers: ['politeness', 'not-registered'] },
    });
    const body = await json<{ details: Array<{ field: string; message: string }> }>(res, 422);
    expect(body.details).toHaveLength(1);
    expect(body.details[0]).toMatchObject({ field: 'scorers[1]' });
    expect(body.details[0].message).toMatch(/^unknown scorer 'not-registered'/);
    // Another project does not see this project's scorers.
    const other = await service.api('/api/suites', {
      method: 'POST',
      project: 'other-project',
      json: { name: 's', cases: [{ name: 'a', input: 'x', scorers: ['politeness'] }] },
    });
    expect(other.status).toBe(422);
  });
});
