import { afterAll, describe, expect, it } from 'vitest';
import {
  compileSafeRegex,
  createRegexPool,
  REGEX_CASE_BUDGET_MS,
  REGEX_RUN_BUDGET_MS,
  REGEX_WORKERS,
  type PatternSearchOutcome,
} from '../../../core/safe-regex.js';
import { eventually } from '../../helpers/eventually.js';

/**
 * The regex pool (core/safe-regex/pool.ts): user patterns searched on worker threads, real ones
 * (the worker's TypeScript loaded through tsx, as from the sources), with a time budget per case
 * and per run. What the tests check is what the scorer relies on: the same answers as searching
 * on this thread, the event loop free while a worker searches, budgets that stop and say so.
 */

const pools: Array<ReturnType<typeof createRegexPool>> = [];
function pool(options: Parameters<typeof createRegexPool>[0] = {}) {
  const made = createRegexPool(options);
  pools.push(made);
  return made;
}
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
});

/** Patterns that make RE2 fall back to its NFA over the whole text: no literal to rule them out. */
const HOSTILE = ['(a|aa)+$', '(a+)+b', '(a*)*b', '^(a|a?)+$', '(x+x+)+y', '(a|b|ab)*c'];
const LONG = `${'a'.repeat(100_000)}!`;

function searched(outcome: PatternSearchOutcome) {
  if (outcome.kind !== 'searched') throw new Error(`expected every pattern searched, got ${JSON.stringify(outcome)}`);
  return outcome.results;
}

describe('the regex pool', () => {
  it('has documented limits', () => {
    expect(REGEX_CASE_BUDGET_MS).toBe(5_000);
    expect(REGEX_RUN_BUDGET_MS).toBe(300_000);
    expect(REGEX_WORKERS).toBeGreaterThanOrEqual(1);
    expect(REGEX_WORKERS).toBeLessThanOrEqual(4);
  });

  it('answers exactly what searching on this thread answers', async () => {
    const p = pool();
    const common = ['#\\d{5}', '\\d{4}-\\d{2}-\\d{2}', 'refund', '^world', 'hello', '\\u{1F600}', 'needle', 'a+!$'];
    const cases: Array<[string, string[]]> = [
      ['Order #12345 shipped on 2024-05-01', common],
      ['smile 😀! HELLO\nworld', common],
      // Longer than a search reads: `scanned` says where each stopped.
      [`${'x'.repeat(compileSafeRegex('needle').scanLimit)}needle`, common],
      [LONG, [...common, ...HOSTILE]],
    ];
    for (const [text, patterns] of cases) {
      for (const flags of ['', 'im']) {
        const results = searched(await p.search({ patterns, flags, text }));
        expect(results).toEqual(patterns.map((pattern) => compileSafeRegex(pattern, flags).search(text)));
      }
    }
  });

  it('names the first pattern that does not compile, with the reason RE2 gives', async () => {
    const outcome = await pool().search({ patterns: ['ok', '(unclosed', 'a(?<=b)'], flags: '', text: 'ok' });
    expect(outcome).toEqual({ kind: 'invalid', index: 1, message: expect.stringMatching(/^is not a valid regular expression: missing closing \)/) as string });
  });

  it('leaves the event loop free while a worker searches', async () => {
    const p = pool({ workers: 1 });
    // The worker started (its start-up is not what is measured).
    searched(await p.search({ patterns: ['a'], flags: '', text: 'a' }));
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns += 1;
      if (ticking) setTimeout(tick, 1);
    };
    setTimeout(tick, 1);
    const outcome = await p.search({ patterns: HOSTILE, flags: '', text: LONG });
    ticking = false;
    expect(searched(outcome)).toHaveLength(HOSTILE.length);
    // Searched on this thread, the six searches (tens of ms each) would have run within one turn of the loop.
    expect(turns).toBeGreaterThanOrEqual(10);
  });

  it("stops a case's searches when the case's budget runs out, and says how far it got", async () => {
    const p = pool({ caseBudgetMs: 1 });
    const patterns = Array.from({ length: 200 }, (_, i) => HOSTILE[i % HOSTILE.length]);
    const outcome = await p.search({ patterns, flags: '', text: LONG });
    expect(outcome.kind).toBe('over-budget');
    const reason = (outcome as { reason: string }).reason;
    expect(reason).toMatch(
      /^regex budget exhausted: a case's patterns may search for 1 ms in all \(docs\/scorers\.md\); (\d+) of its 200 patterns were searched$/,
    );
    expect(Number(/; (\d+) of/.exec(reason)![1])).toBeLessThan(200);
    // A case within the budget is searched whole.
    expect(searched(await p.search({ patterns: ['a'], flags: '', text: 'a' }))).toHaveLength(1);
  });

  it("shares one budget among a run's cases: once spent, the run's next cases are not searched; other runs are", async () => {
    const p = pool({ workers: 1, runBudgetMs: 20 });
    const heavy = { patterns: Array.from({ length: 200 }, (_, i) => HOSTILE[i % HOSTILE.length]), flags: '', text: LONG };
    const first = await p.search(heavy, { runId: 'run-1' });
    expect(first).toEqual({
      kind: 'over-budget',
      reason: expect.stringMatching(
        /^regex budget exhausted: the cases of a run may search for 20 ms in all in one process \(docs\/scorers\.md\); \d+ of this case's 200 patterns were searched$/,
      ) as string,
    });
    const next = await p.search({ patterns: ['a', 'b'], flags: '', text: 'ab' }, { runId: 'run-1' });
    expect(next).toEqual({ kind: 'over-budget', reason: expect.stringContaining("0 of this case's 2 patterns were searched") as string });
    expect(searched(await p.search({ patterns: ['a', 'b'], flags: '', text: 'ab' }, { runId: 'run-2' }))).toHaveLength(2);
    expect(searched(await p.search({ patterns: ['a'], flags: '', text: 'a' }))).toHaveLength(1);
  });

  it('runs jobs on up to `workers` threads, queues the rest in order, and drops a waiting job whose signal aborts', async () => {
    const p = pool({ workers: 1 });
    const heavy = { patterns: Array.from({ length: 30 }, (_, i) => HOSTILE[i % HOSTILE.length]), flags: '', text: LONG };
    const running = p.search(heavy);
    const controller = new AbortController();
    const dropped = p.search({ patterns: ['a'], flags: '', text: 'a' }, { signal: controller.signal });
    const after = p.search({ patterns: ['b'], flags: '', text: 'b' });
    expect(p.stats()).toMatchObject({ workers: 1, running: 1, queued: 2 });
    controller.abort(new Error('run cancelled'));
    await expect(dropped).rejects.toThrow('run cancelled');
    expect(p.stats().queued).toBe(1);
    expect(searched(await running)).toHaveLength(30);
    expect(searched(await after)[0].match).toEqual({ index: 0, length: 1 });
    // An already aborted signal is refused at once.
    await expect(p.search({ patterns: ['a'], flags: '', text: 'a' }, { signal: controller.signal })).rejects.toThrow('run cancelled');
  });

  it('starts workers on demand and ends them when idle', async () => {
    const p = pool({ workers: 2, idleMs: 50 });
    expect(p.stats().workers).toBe(0);
    const both = await Promise.all([p.search({ patterns: ['a'], flags: '', text: 'a' }), p.search({ patterns: HOSTILE, flags: '', text: LONG })]);
    expect(both.map((o) => o.kind)).toEqual(['searched', 'searched']);
    expect(p.stats().completed).toBe(2);
    await eventually(() => expect(p.stats().workers).toBe(0), 10_000);
    // And starts again.
    expect(searched(await p.search({ patterns: ['a'], flags: '', text: 'a' }))).toHaveLength(1);
  });
});
