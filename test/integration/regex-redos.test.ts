import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FieldIssue } from '../../core/errors.js';
import { MAX_PATTERN_SIZE, regexPool } from '../../core/safe-regex.js';
import { texts } from '../fixtures/corpus/texts.js';
import { eventually } from '../helpers/eventually.js';
import { startTestService, type TestService } from '../helpers/server.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { expectJson as json } from '../helpers/test-service-hooks.js';
import { postSuite } from '../helpers/suite-api.js';

/**
 * Issue 26 (ReDoS): user patterns run on RE2 (core/safe-regex.ts), on the regex pool's worker
 * threads (core/safe-regex/pool.ts), not on the event loop the API shares. Cases of 30
 * `(a+)+b`-style patterns over long answers, scored concurrently, used to stall /api/health for
 * seconds for every tenant (and, on RE2 but on the loop, up to 227 ms); now they are scored
 * right while health stays under the issue's 100 ms, and a pattern RE2 cannot run is refused at
 * the door with a 422 naming the field, wherever it enters.
 */

interface ErrorBody {
  code: string;
  details: FieldIssue[];
}

const LOOKBEHIND = 'lookbehind is not supported (patterns run on RE2: docs/scorers.md)';
/**
 * The issue's bound. Asserted on the 95th percentile of the health answers whose request started
 * while the pool was searching (at least MIN_SAMPLES of them): on a noisy 2-core machine a single
 * answer can wait for the scheduler, a GC or an in-process store write whatever the patterns
 * do, and one such outlier in twenty must not fail the test; a loop held by the searches slows
 * every answer, which the percentile sees (searching on the loop, as before the pool, put most
 * answers behind a search of up to ~100 ms).
 */
const HEALTH_BOUND_MS = 100;
const MIN_SAMPLES = 20;
/** Characters of the hostile cases' answers: long enough for a nested pattern's search to cost ~100 ms on the loop, short enough for `(.*a){30}$` to read them whole (its scan limit is 19,607). */
const LONG = 19_000;

let service: TestService;
let agent: TestAgent;

beforeAll(async () => {
  // The agent answers `input.answer`, or LONG a's.
  agent = await startTestAgent((req) => ({ json: { output: (req.body.input as { answer?: string }).answer ?? 'a'.repeat(LONG) } }));
  service = await startTestService({ EVAL_RETRY_TIME_SCALE: '0.001' });
  const res = await service.api('/api/agents', { method: 'POST', json: { name: 'redos-agent', endpoint: agent.url } });
  expect(res.status, await res.clone().text()).toBe(201);
});

afterAll(async () => {
  await service?.stop();
  await agent?.close();
});

interface Sample {
  ms: number;
  /** The pool had a case running or waiting when the request was sent. */
  searching: boolean;
}

/** Runs suite `name` (created with `cases`) to completion; polls /api/health meanwhile. */
async function runPolling(name: string, cases: unknown[]): Promise<{ runId: string; samples: Sample[] }> {
  await postSuite(service, { name, agent_id: 'redos-agent', defaultScorers: ['regex'], defaultMinScore: 0.5, cases });
  const created = await json<{ run_id: string }>(
    await service.api('/api/evals/runs', { method: 'POST', json: { suite_name: name, agent_version: 'v1', config: { parallel: true } } }),
    202,
  );
  const finished = eventually(async () => {
    const run = await json<{ status: string }>(await service.api(`/api/runs/${created.run_id}`), 200);
    expect(run.status).toBe('completed');
  }, 90_000);
  const samples = await pollHealth(finished);
  await finished;
  return { runId: created.run_id, samples };
}

/** Polls /api/health back to back until `stop` resolves; returns each answer's latency and whether the pool was searching. */
async function pollHealth(stop: Promise<unknown>): Promise<Sample[]> {
  let done = false;
  const end = () => {
    done = true;
  };
  void stop.then(end, end);
  const samples: Sample[] = [];
  while (!done) {
    const { running, queued } = regexPool().stats();
    const started = performance.now();
    const res = await service.api('/api/health', { project: null });
    await res.arrayBuffer();
    samples.push({ ms: performance.now() - started, searching: running + queued > 0 });
    await new Promise((r) => setTimeout(r, 5));
  }
  return samples;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

describe('hostile patterns leave the service responsive', () => {
  it('scores cases of 30 (a+)+b-style patterns on long answers right, concurrently, while /api/health stays under 100 ms', async () => {
    const hostile = Array.from({ length: 30 }, () => '(a+)+b');
    // No literal for a prefilter to rule out: every pattern runs the automaton over the whole
    // answer, and the nested ones cost RE2 its most (program size x characters near the scan
    // budget: ~100 ms or more a search, which on the event loop held every request that long).
    const nested = ['(.*a){30}$', '(.*a){12}$', '(a|aa)+$', '(a*)*b', '^(a|a?)+$', '(a+)+$'];
    const noLiteral = (n: number) => Array.from({ length: 30 }, (_, i) => nested[(i + n) % nested.length]);
    const longCase = (name: string, regex: string[], answer?: string) => ({ name, input: answer === undefined ? {} : { answer }, expected: { regex } });
    const cases = [
      longCase('hostile', hostile),
      longCase('hostile-and-anchored', [...hostile, '^(a+)+$', '^(a|aa)+$']),
      ...[1, 2, 3, 4].map((n) => longCase(`hostile-no-literal-${n}`, noLiteral(n), `${'a'.repeat(LONG)}!`)),
      { name: 'normal', input: { answer: 'Order #12345 shipped' }, expected: { regex: ['#\\d{5}', 'SHIPPED'] } },
    ];
    // The service's first run pays for its start-up (the workflow bundle, JIT, the regex worker's
    // own start): a run of the same cases with one cheap pattern each, not measured.
    await runPolling(
      'warm-up',
      cases.map((c) => ({ ...c, expected: { regex: ['a!?$'] } })),
    );
    const { runId, samples } = await runPolling('redos', cases);

    const { results } = await json<{ results: Array<{ case_name: string; scores: Record<string, number>; details: Record<string, { reason: string }> }> }>(
      await service.api(`/api/evals/runs/${runId}/results`),
      200,
    );
    const byName = Object.fromEntries(results.map((r) => [r.case_name, r]));
    expect(byName.hostile.scores.regex).toBe(0);
    expect(byName.hostile.details.regex.reason).toContain('0 of 30 patterns matched');
    expect(byName['hostile-and-anchored'].scores.regex).toBeCloseTo(2 / 32, 5);
    for (const n of [1, 2, 3, 4]) {
      expect(byName[`hostile-no-literal-${n}`].scores.regex, byName[`hostile-no-literal-${n}`].details.regex.reason).toBe(0);
      expect(byName[`hostile-no-literal-${n}`].details.regex.reason).toContain('0 of 30 patterns matched');
    }
    expect(byName.normal.scores.regex).toBe(0.5);

    const during = samples
      .filter((s) => s.searching)
      .map((s) => s.ms)
      .sort((a, b) => a - b);
    const all = samples.map((s) => s.ms).sort((a, b) => a - b);
    const show = (xs: number[]) =>
      `${xs.length} answers, median ${percentile(xs, 0.5)?.toFixed(1)} ms, p95 ${percentile(xs, 0.95)?.toFixed(1)} ms, max ${xs.at(-1)?.toFixed(1)} ms`;
    console.info(`/api/health while the pool searched: ${show(during)}; over the whole run: ${show(all)}`);
    expect(during.length).toBeGreaterThanOrEqual(MIN_SAMPLES);
    expect(percentile(during, 0.95)).toBeLessThan(HEALTH_BOUND_MS);
  });
});

describe('a pattern RE2 cannot run is refused with a 422 naming its field', () => {
  it('in a suite case (JSON and YAML), a scorer config, a run dataset and an online rule', async () => {
    const suite = await postSuite<ErrorBody>(
      service,
      {
        name: 'lookbehind',
        defaultScorers: ['regex'],
        cases: [
          { name: 'ok', input: 1, expected: { regex: 'x' } },
          { name: 'bad', input: 1, expected: { regex: ['ok', '(?<=\\$)\\d+'] } },
        ],
      },
      422,
    );
    expect(suite.details).toEqual([{ field: 'cases[1].expected.regex[1]', message: LOOKBEHIND }]);

    const yaml = await json<ErrorBody>(
      await service.api('/api/suites', {
        method: 'POST',
        headers: { 'content-type': 'application/yaml' },
        body: "name: lookbehind-yaml\nscorers: [regex]\ncases:\n  - name: bad\n    input: 1\n    expected:\n      regex: ['(?<!x)y']\n",
      }),
      422,
    );
    // A suite file's errors also name the case and its line (issue 30, suite files).
    expect(yaml.details).toEqual([{ field: 'cases[0].expected.regex[0]', message: `${LOOKBEHIND} (case 'bad', at line 7)` }]);

    const config = await postSuite<ErrorBody>(
      service,
      { name: 'backref', cases: [{ name: 'bad', input: 1, scorers: [{ name: 'regex', config: { pattern: '(a)\\1' } }] }] },
      422,
    );
    expect(config.details).toEqual([
      {
        field: 'cases[0].scorers[0]',
        message: expect.stringMatching(/^scorer 'regex': config\.pattern a backreference \(\\1\) is not supported \(patterns run on RE2/) as string,
      },
    ]);

    const run = await json<ErrorBody>(
      await service.api('/api/runs', {
        method: 'POST',
        json: { agentId: 'redos-agent', scorers: ['regex'], dataset: { items: [{ name: 'bad', input: 1, expected: { regex: 'a(?=b)' } }] } },
      }),
      422,
    );
    expect(run.details).toEqual([
      { field: 'dataset.items[0].expected.regex[0]', message: 'lookahead is not supported (patterns run on RE2: docs/scorers.md)' },
    ]);

    const rule = await json<ErrorBody>(
      await service.api('/api/evals/online-rules', { method: 'POST', json: { name: 'r', scorers: ['regex'], expected: { regex: ['a++'] } } }),
      422,
    );
    expect(rule.details).toEqual([
      { field: 'expected.regex[0]', message: 'a possessive quantifier (++) is not supported (patterns run on RE2: docs/scorers.md)' },
    ]);
  });
});

describe('checking the patterns of one request costs a bounded time', () => {
  it('refuses a pattern whose counts expand it past the size bound, and a suite whose patterns together are past the budget', async () => {
    const huge = 'a{1000}'.repeat(142);
    const big = await postSuite<ErrorBody>(
      service,
      {
        name: 'huge-pattern',
        defaultScorers: ['regex'],
        cases: [{ name: 'c', input: { question: texts.supportQuestion }, expected: { regex: ['Refund', huge] } }],
      },
      422,
    );
    expect(big.details).toEqual([
      {
        field: 'cases[0].expected.regex[1]',
        message: expect.stringContaining(`its repetition counts expand it to about 142142 instructions, at most ${MAX_PATTERN_SIZE}`) as string,
      },
    ]);

    // 200 cases of realistic questions, each with five patterns of ~2,000 instructions: ~2 million, ten times the budget.
    const question = [texts.travelQuestion, texts.supportQuestion, texts.researchQuestion, texts.multilingual];
    const cases = Array.from({ length: 200 }, (_, i) => ({
      name: `case ${i}`,
      input: { question: question[i % 4] },
      expected: { regex: Array.from({ length: 5 }, (_, j) => `w${i}x${j}{1000}y{1000}`) },
    }));
    const started = performance.now();
    const health = (async () => {
      // Another client's request while the API checks the suite: the check runs on the event loop (core/safe-regex/check-budget.ts), so this waits for it, at most the budget's time.
      await new Promise((r) => setTimeout(r, 20));
      const t = performance.now();
      const res = await service.api('/api/health', { project: null });
      await res.arrayBuffer();
      return performance.now() - t;
    })();
    const over = await postSuite<ErrorBody>(service, { name: 'over-budget', defaultScorers: ['regex'], cases }, 422);
    const ms = performance.now() - started;
    console.info(`a suite of 1,000 patterns of ~2,000 instructions: refused in ${ms.toFixed(0)} ms; /api/health meanwhile ${(await health).toFixed(0)} ms`);
    const refused = (over.details ?? []).filter((d) => d.field.startsWith('cases['));
    expect(refused.length).toBeGreaterThan(0);
    for (const d of refused) expect(d.message).toContain("this request's patterns together are too large to check");
    // The first ~100 patterns (the budget) were checked; the rest refused without compiling.
    expect(refused[0].field).toMatch(/^cases\[\d+\]\.expected\.regex\[\d\]$/);
    expect(Number(/^cases\[(\d+)\]/.exec(refused[0].field)![1])).toBeGreaterThanOrEqual(15);

    // The same suite with small patterns is stored: the budget is per request, not per process.
    const fine = cases.map((c, i) => ({ ...c, expected: { regex: [`case ${i}`, '\\d{4}-\\d{2}-\\d{2}', '(?i)refund'] } }));
    await postSuite(service, { name: 'within-budget', defaultScorers: ['regex'], cases: fine });
  });
});
