import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CustomScorerRecord } from '../../core/model/custom-scorer.js';
import { createHttpScorer } from '../../core/scoring/http-scorer.js';
import { runScorers } from '../../core/scoring/run-scorers.js';
import { createScorerRegistry } from '../../core/scoring/registry.js';
import { createEgress } from '../../core/egress/fetch.js';
import { createEgressPolicy } from '../../core/egress/policy.js';

/** An HTTP custom scorer against a local endpoint: the contract, its retries, and its failures as scores. */

type Answer = { status?: number; body?: unknown; raw?: string; location?: string };
const answers: Answer[] = [];
const received: Array<{ headers: http.IncomingHttpHeaders; body: Record<string, unknown> }> = [];
let server: http.Server;
let url: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> });
      const answer = answers.shift() ?? { body: { value: 0.5, reason: 'default' } };
      res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...(answer.location ? { location: answer.location } : {}) });
      res.end(answer.raw ?? JSON.stringify(answer.body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/score`;
});
// The scorer is a loopback fixture: the egress policy allows loopback here.
const egress = createEgress(createEgressPolicy({ allow: ['127.0.0.0/8'] }));
afterAll(async () => {
  await egress.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function record(over: Partial<CustomScorerRecord> = {}): CustomScorerRecord {
  return {
    id: 'id',
    name: 'tone',
    endpoint: url,
    data_type: 'numeric',
    description: null,
    header_names: ['x-key'],
    headers: { 'x-key': 'secret' },
    created_at: '',
    updated_at: '',
    ...over,
  };
}

const input = {
  input: { q: 'hi' },
  output: 'hello',
  expected: { tone: 'warm' },
  toolCalls: [{ name: 'greet' }],
  latencyMs: 5,
  trace: { trace_id: 't1', spans: [{ name: 's', type: 'span' }] },
};

async function score(over: Partial<CustomScorerRecord> = {}, config: Record<string, unknown> = {}) {
  const scorer = createHttpScorer(record(over), { timeoutMs: 2000, fetch: egress.fetch });
  const details = await runScorers(createScorerRegistry([scorer]), [{ name: scorer.name, config }], input);
  return details[scorer.name];
}

describe('HTTP custom scorers', () => {
  it('posts input, output, expected, trace and config with the registered headers, and takes value or score', async () => {
    received.length = 0;
    answers.push({ body: { value: 0.75, reason: 'warm enough', evidence: ['hello'] } }, { body: { score: 0.25 } });
    expect(await score({}, { strict: true })).toEqual({ score: 0.75, reason: 'warm enough', evidence: ['hello'] });
    expect(received[0].headers['x-key']).toBe('secret');
    expect(received[0].body).toEqual({
      input: { q: 'hi' },
      output: 'hello',
      expected: { tone: 'warm' },
      trace: { trace_id: 't1', tool_calls: [{ name: 'greet' }], spans: [{ name: 's', type: 'span' }], usage: null, latency_ms: 5 },
      config: { strict: true },
      scorer: 'tone',
    });
    expect(await score()).toEqual({ score: 0.25, reason: '', evidence: [] });
  });

  it('reads true and false as 1 and 0 for a boolean scorer', async () => {
    answers.push({ body: { value: true, reason: 'yes' } }, { body: { value: false } });
    expect((await score({ data_type: 'boolean' })).score).toBe(1);
    expect((await score({ data_type: 'boolean' })).score).toBe(0);
  });

  it('tries again after a 503 and a 429, then takes the answer', async () => {
    received.length = 0;
    answers.push({ status: 503, body: { error: 'busy' } }, { status: 429, body: {} }, { body: { value: 1, reason: 'ok' } });
    expect(await score()).toEqual({ score: 1, reason: 'ok', evidence: [] });
    expect(received).toHaveLength(3);
  });

  it('scores 0 with the reason for an answer it cannot use, without retrying', async () => {
    const cases: Array<[Answer, RegExp]> = [
      [{ status: 500, body: { error: 'crash' } }, /^scorer error: custom scorer 'tone' answered 500: /],
      [{ raw: 'not json' }, /answered something that is not JSON/],
      [{ body: { reason: 'forgot the value' } }, /answered neither value nor score/],
      [{ body: { value: 7 } }, /is numeric and answered 7 \(expected a number from 0 to 1\)/],
      [{ body: { value: 'high' } }, /answered an invalid body: value/],
    ];
    for (const [answer, reason] of cases) {
      received.length = 0;
      answers.push(answer);
      const detail = await score();
      expect(detail.score).toBe(0);
      expect(detail.reason).toMatch(reason);
      expect(received).toHaveLength(1);
    }
  });

  it('does not follow a redirect, nor show its body, and does not try again', async () => {
    received.length = 0;
    answers.push({ status: 302, location: `${url}/elsewhere`, raw: 'secret internal page' });
    const detail = await score();
    expect(detail).toEqual({ score: 0, reason: "scorer error: custom scorer 'tone' answered 302, a redirect (not followed)", evidence: [] });
    expect(received).toHaveLength(1);
  });

  it('gives up on an unreachable endpoint after three attempts', async () => {
    const detail = await score({ endpoint: 'http://127.0.0.1:9/score' });
    expect(detail.score).toBe(0);
    expect(detail.reason).toMatch(/^scorer error: custom scorer 'tone' unreachable: /);
  });
});
