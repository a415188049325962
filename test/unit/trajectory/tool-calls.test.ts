import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ScorerRefListSchema } from '../../../core/model/eval-case.js';
import { defaultScorerRegistry, runScorers } from '../../../core/scoring/index.js';
import { toolCallsScorer } from '../../../core/scoring/trajectory/tool-calls.js';
import { loadCorpus } from '../../helpers/corpus.js';
import { plainTree, scoreTree, type PlainCall } from './score.js';
import { agentTree, corpusJsonTree, corpusOtelTree, useOtlpReceiver, type AgentStep } from './traces.js';
import type { SpanTree } from '../../../core/scoring/trajectory/span-tree.js';

// toolCalls on agent runs recorded by the real OpenTelemetry SDK (GenAI conventions) and sent
// through OTLP and the normalizer, with planted mistakes: a wrong argument, a wrong order, a
// missing call, an extra call, a forbidden tool, arguments that are not JSON.

const FLIGHTS = { name: 'search_flights', args: { from: 'LIS', to: 'TYO', pax: 2, dates: { out: '2026-03-14' } } };
const WEATHER = { name: 'get_weather', args: { city: 'Kyoto', days: 3 } };
const TRIP: AgentStep[] = [
  { llm: 'plan the trip' },
  { tool: FLIGHTS.name, args: FLIGHTS.args, result: '{"offers":3}' },
  { tool: WEATHER.name, args: WEATHER.args, result: '{"temp":14}' },
  { llm: 'write the answer' },
];

const receiver = useOtlpReceiver();
let trip: SpanTree;
beforeAll(async () => {
  trip = await agentTree(receiver, TRIP);
});

/** Scores the trip, or `tree` (null: an execution with no trace). */
const score = (config: Record<string, unknown>, extra?: Parameters<typeof scoreTree>[3], tree: SpanTree | null = trip) =>
  scoreTree(toolCallsScorer, tree ?? undefined, config, extra);

describe('toolCalls on a recorded agent run', () => {
  it('strict: the same calls with the same arguments, in order, score 1', async () => {
    const d = await score({ calls: [FLIGHTS, WEATHER] });
    expect(d.score).toBe(1);
    expect(d.reason).toBe('strict: the 2 calls expected were made in order, and no other');
    expect(d.evidence[0]).toBe('calls made: search_flights -> get_weather');
  });

  it('a wrong argument: the reason names the call and the argument', async () => {
    const d = await score({ calls: [{ ...FLIGHTS, args: { ...FLIGHTS.args, to: 'NRT' } }, WEATHER] });
    expect(d.score).toBe(0.5);
    expect(d.reason).toBe('strict: call 1 (search_flights) differs: argument to: expected "NRT", got "TYO"; 1 of 2 line up in order');
    expect(d.evidence[1]).toMatch(/^call 1: search_flights \{"from":"LIS","to":"TYO"/);
  });

  it('a nested argument and an extra argument under exact matching', async () => {
    const nested = await score({ calls: [{ ...FLIGHTS, args: { ...FLIGHTS.args, dates: { out: '2026-03-15' } } }, WEATHER] });
    expect(nested.reason).toContain('argument dates.out: expected "2026-03-15", got "2026-03-14"');
    const extra = await score({ calls: [{ name: 'search_flights', args: { from: 'LIS', to: 'TYO', dates: { out: '2026-03-14' } } }, WEATHER] });
    expect(extra.reason).toContain('argument pax: not expected (got 2)');
    // As a JSON subset, the extra argument is fine.
    expect((await score({ calls: [{ name: 'search_flights', args: { to: 'TYO' } }, WEATHER], argsMatch: 'subset' })).score).toBe(1);
    expect((await score({ calls: [{ name: 'search_flights', args: { to: 'TYO' }, argsMatch: 'subset' }, WEATHER] })).score).toBe(1);
    expect((await score({ calls: [{ name: 'search_flights', args: { to: 'X' } }, WEATHER], argsMatch: 'ignore' })).score).toBe(1);
    expect((await score({ calls: ['search_flights', 'get_weather'] })).score).toBe(1);
  });

  it('a wrong order: strict names the first position; unordered passes', async () => {
    const d = await score({ calls: [WEATHER, FLIGHTS] });
    expect(d.score).toBe(0.5);
    expect(d.reason).toBe('strict: call 1 is search_flights, expected get_weather; 1 of 2 line up in order');
    const unordered = await score({ calls: [WEATHER, FLIGHTS], mode: 'unordered' });
    expect(unordered).toMatchObject({ score: 1, reason: 'unordered: the 2 calls expected were made (in any order), and no other' });
  });

  it('a missing call: strict and superset name it; subset passes', async () => {
    const expected = [FLIGHTS, WEATHER, { name: 'book_hotel', args: { city: 'Kyoto' } }];
    const strict = await score({ calls: expected });
    expect(strict.reason).toBe('strict: 3 calls expected, 2 made: expected call 3 (book_hotel) is missing; 2 of 3 line up in order');
    expect(strict.score).toBeCloseTo(2 / 3, 12);
    const superset = await score({ calls: expected, mode: 'superset' });
    expect(superset.score).toBeCloseTo(2 / 3, 12);
    expect(superset.reason).toBe(
      'superset: expected call 3 (book_hotel) was not made: no book_hotel call among 2 calls made; 2 of 3 calls expected matched, 1 missing (book_hotel)',
    );
    expect((await score({ calls: expected, mode: 'subset' })).score).toBe(1);
  });

  it('an extra call: subset and unordered name it; superset passes', async () => {
    const subset = await score({ calls: [FLIGHTS], mode: 'subset' });
    expect(subset).toMatchObject({
      score: 0.5,
      reason: 'subset: call 2 (get_weather) was not expected; 1 of 1 call expected matched, 1 not expected (get_weather)',
    });
    const unordered = await score({ calls: [FLIGHTS], mode: 'unordered' });
    expect(unordered.score).toBe(0.5);
    expect((await score({ calls: [FLIGHTS], mode: 'superset' })).reason).toBe('superset: the 1 call expected was made (and 1 call more, allowed)');
  });

  it('unordered with a wrong argument points at the closest call of the same tool', async () => {
    const d = await score({ calls: [{ name: 'get_weather', args: { city: 'Osaka', days: 3 } }, FLIGHTS], mode: 'unordered' });
    expect(d.reason).toBe(
      'unordered: expected call 1 (get_weather) was not made; the closest, call 2, differs: argument city: expected "Osaka", got "Kyoto"; 1 of 2 calls expected matched, 1 missing (get_weather), 1 not expected (get_weather)',
    );
    expect(d.evidence).toContain('call 2: get_weather {"city":"Kyoto","days":3}');
  });

  it('per-argument predicates: regex on RE2, numeric tolerance, ranges, presence', async () => {
    const pass = await score({
      calls: [
        { name: 'search_flights', where: { from: { regex: '^[A-Z]{3}$' }, 'dates.out': { regex: '^2026-03' }, pax: { gte: 1, lte: 4 } } },
        { name: 'get_weather', where: { city: { regex: '^kyo', flags: 'i' }, days: { near: 3.2, tolerance: 0.5 }, units: { exists: false } } },
      ],
    });
    expect(pass.score).toBe(1);
    const regexMiss = await score({ calls: [FLIGHTS, { name: 'get_weather', where: { city: { regex: '^Osaka' } } }] });
    expect(regexMiss.reason).toContain('call 2 (get_weather) differs: argument city: /^Osaka/ did not match "Kyoto"');
    const far = await score({ calls: [FLIGHTS, { name: 'get_weather', where: { days: { near: 5, tolerance: 1 } } }] });
    expect(far.reason).toContain('argument days: 3 is not within 1 of 5');
    const missing = await score({ calls: [FLIGHTS, { name: 'get_weather', where: { units: 'metric' } }] });
    expect(missing.reason).toContain('argument units: missing (expected = "metric")');
    const range = await score({ calls: [{ name: 'search_flights', where: { pax: { gt: 2 } } }, WEATHER] });
    expect(range.reason).toContain('argument pax: 2 is not > 2');
  });

  it('a forbidden tool scores 0 whatever the mode', async () => {
    const d = await score({ calls: [FLIGHTS], mode: 'superset', forbidden: ['get_weather', 'delete_booking'] });
    expect(d).toMatchObject({ score: 0, reason: 'forbidden tool get_weather was called (call 2; 1 forbidden call in all)' });
  });

  it('reads expected.toolCalls (names, or {name, input}) when the config names no calls', async () => {
    expect((await score({}, { expected: { toolCalls: ['search_flights', { name: 'get_weather', input: { city: 'Kyoto', days: 3 } }] } })).score).toBe(1);
    const wrong = await score({}, { expected: { toolCalls: ['search_flights', { name: 'get_weather', input: '{"city":"Rome","days":3}' }] } });
    expect(wrong.reason).toContain('argument city: expected "Rome", got "Kyoto"');
    await expect(score({})).rejects.toThrow('toolCalls needs config.calls, expected.trajectory.calls or expected.toolCalls');
  });

  it('arguments that are not JSON compare as text', async () => {
    const tree = await agentTree(receiver, [{ tool: 'lookup', args: 'order=1234&include=items' }]);
    const asJson = await score({ calls: [{ name: 'lookup', args: { order: '1234' } }] }, {}, tree);
    expect(asJson.reason).toBe(
      'strict: call 1 (lookup) differs: the arguments are not JSON ("order=1234&include=items"), expected {"order":"1234"}; 0 of 1 line up in order',
    );
    expect((await score({ calls: [{ name: 'lookup', args: 'order=1234&include=items' }] }, {}, tree)).score).toBe(1);
    const where = await score({ calls: [{ name: 'lookup', where: { order: '1234' } }] }, {}, tree);
    expect(where.reason).toContain('argument order: the arguments are not JSON');
  });

  it('uses the calls the agent reported when the trace has no tool spans (from: auto), or when told (from: reply)', async () => {
    const reported = [
      { name: 'search_flights', input: FLIGHTS.args },
      { name: 'get_weather', input: JSON.stringify(WEATHER.args) },
    ];
    expect((await score({ calls: [FLIGHTS, WEATHER] }, { toolCalls: reported }, null)).score).toBe(1);
    expect((await score({ calls: [FLIGHTS] }, { toolCalls: reported }, plainTree([]))).score).toBe(0.5);
    expect((await score({ calls: [WEATHER], from: 'reply' }, { toolCalls: [reported[1]] }, trip)).score).toBe(1);
    await expect(score({ calls: [], from: 'trace' }, {}, null)).rejects.toThrow("toolCalls with from: trace needs the case's trace");
  });

  it('expects no calls with calls: []', async () => {
    expect((await score({ calls: [] }, {}, plainTree([]))).reason).toBe('strict: no call was expected, and none was made');
    expect((await score({ calls: [] })).score).toBe(0);
  });
});

describe('toolCalls on the corpus traces', () => {
  it('GenAI: both calls, arguments as a JSON subset, in any order', async () => {
    const { tree } = await corpusOtelTree(
      receiver,
      loadCorpus().otel.find((t) => t.name === 'genai')!,
    );
    const d = await score(
      {
        mode: 'unordered',
        argsMatch: 'subset',
        calls: [
          { name: 'get_weather', args: { city: 'Kyōto', dates: ['2026-03-18'] } },
          { name: 'search_flights', where: { origin: { exists: true }, 'passengers.1.ages.0': 7, 'preferences.notes': { regex: 'trains 🚄\\n\\nAvoid' } } },
        ],
      },
      {},
      tree,
    );
    expect(d.score).toBe(1);
  });

  it('Vercel AI SDK and the SPEC body: tool names from their conventions, arguments parsed', async () => {
    const corpus = loadCorpus();
    const { tree } = await corpusOtelTree(
      receiver,
      corpus.otel.find((t) => t.name === 'vercel-ai')!,
    );
    expect(
      (
        await score(
          {
            calls: [
              { name: 'searchDocs', where: { query: { regex: 'v2 to v3' }, 'options.limit': 20 } },
              { name: 'getChangelog', args: { from: '2.9.4', to: '3.0.0' } },
            ],
          },
          {},
          tree,
        )
      ).score,
    ).toBe(1);
    const spec = corpusJsonTree(corpus.json.find((t) => t.name === 'spec')!).tree;
    const d = await score(
      {
        calls: [
          { name: 'search_flights', where: { 'pax.2.age': 7 } },
          { name: 'get_weather', args: { city: 'Kyōto', units: 'metric' } },
        ],
      },
      {},
      spec,
    );
    expect(d.score).toBe(1);
  });
});

describe('toolCalls config', () => {
  const check = (config: Record<string, unknown>) => defaultScorerRegistry().check(ScorerRefListSchema.parse([{ name: 'toolCalls', config }]));

  it('accepts {} and a full config', () => {
    expect(check({})).toEqual([]);
    expect(
      check({
        mode: 'superset',
        argsMatch: 'subset',
        forbidden: ['rm'],
        from: 'trace',
        calls: ['a', { name: 'b', args: { x: 1 }, argsMatch: 'exact', where: { x: { near: 1, tolerance: 0.1 }, y: 'z' } }],
      }),
    ).toEqual([]);
  });

  it('refuses bad configs with the field and why', () => {
    const messages = (config: Record<string, unknown>) => check(config).map((i) => i.message);
    expect(messages({ mode: 'loose' })[0]).toMatch(
      /^scorer 'toolCalls': config\.mode Invalid option: expected one of "strict"\|"unordered"\|"subset"\|"superset"/,
    );
    expect(messages({ calls: [{ name: 'a', where: { x: { regex: '(?<=a)b' } } }] })).toEqual([
      "scorer 'toolCalls': config.calls.0.where.x.regex lookbehind is not supported (patterns run on RE2: docs/scorers.md)",
    ]);
    expect(messages({ calls: [{ name: 'a', where: { x: { regex: 'a', near: 1 } } }] })[0]).toContain(
      'config.calls.0.where.x must hold exactly one test: exists, equals, regex, near (with tolerance) or a range (gt, gte, lt, lte); got regex and near',
    );
    expect(messages({ calls: [{ name: 'a', where: { x: { near: 1, flags: 'i' } } }] })[0]).toContain('config.calls.0.where.x.flags goes with regex only');
    expect(messages({ calls: [{ name: 'a', where: { x: { regex: 'a', flags: 'g' } } }] })[0]).toContain(
      'config.calls.0.where.x.flags may hold only the flags i, m, s and u',
    );
    expect(messages({ calls: [{ name: 'a', argz: {} }] })[0]).toContain('argz');
    expect(messages({ calls: [{}] })[0]).toContain('config.calls.0.name');
    expect(messages({ forbidden: 'rm' })[0]).toContain('config.forbidden');
  });

  it('runs through the registry like any scorer, a scorer error when the trace says nothing of calls', async () => {
    const details = await runScorers(
      defaultScorerRegistry(),
      ScorerRefListSchema.parse([{ name: 'toolCalls', config: { calls: ['search_flights', 'get_weather'] } }]),
      {
        input: 'q',
        output: 'a',
        expected: {},
        toolCalls: [],
        latencyMs: 1,
        spanTree: trip,
      },
    );
    expect(details.toolCalls.score).toBe(1);
  });
});

describe('toolCalls properties', () => {
  const NAMES = ['a', 'b', 'c'];
  const call = fc.record({ name: fc.constantFrom(...NAMES), args: fc.record({ x: fc.integer({ min: 0, max: 2 }) }) });
  const calls = fc.array(call, { maxLength: 7 });

  const run = async (made: PlainCall[], expected: PlainCall[], mode: string) =>
    (await scoreTree(toolCallsScorer, plainTree(made), { calls: expected, mode })).score;

  it('unordered is invariant under any permutation of the calls made and of the calls expected', async () => {
    await fc.assert(
      fc.asyncProperty(calls, calls, fc.infiniteStream(fc.nat()), async (made, expected, seeds) => {
        const shuffle = <T>(xs: T[]) =>
          xs
            .map((x) => [seeds.next().value as number, x] as const)
            .sort((p, q) => p[0] - q[0])
            .map(([, x]) => x);
        const base = await run(made, expected, 'unordered');
        expect(await run(shuffle(made), shuffle(expected), 'unordered')).toBeCloseTo(base, 12);
      }),
      { numRuns: 150 },
    );
  });

  it('strict implies unordered implies subset and superset; each is 1 exactly when its relation holds', async () => {
    const key = (c: PlainCall) => JSON.stringify([c.name, c.args]);
    const multiset = (xs: PlainCall[]) => xs.map(key).sort().join('|');
    const within = (small: PlainCall[], big: PlainCall[]) => {
      const left = big.map(key);
      return small.every((c) => {
        const i = left.indexOf(key(c));
        if (i < 0) return false;
        left.splice(i, 1);
        return true;
      });
    };
    await fc.assert(
      fc.asyncProperty(calls, calls, async (made, expected) => {
        const [strict, unordered, subset, superset] = await Promise.all(['strict', 'unordered', 'subset', 'superset'].map((m) => run(made, expected, m)));
        for (const s of [strict, unordered, subset, superset]) expect(s).toBeGreaterThanOrEqual(0);
        for (const s of [strict, unordered, subset, superset]) expect(s).toBeLessThanOrEqual(1);
        if (strict === 1) expect(unordered).toBe(1);
        if (unordered === 1) expect([subset, superset]).toEqual([1, 1]);
        expect(strict === 1).toBe(made.map(key).join('|') === expected.map(key).join('|'));
        expect(unordered === 1).toBe(multiset(made) === multiset(expected));
        expect(subset === 1).toBe(within(made, expected));
        expect(superset === 1).toBe(within(expected, made));
        expect(strict).toBeLessThanOrEqual(unordered + 1e-12);
      }),
      { numRuns: 200 },
    );
  });
});

describe('toolCalls at scale', () => {
  // What it costs is bench/trajectory-scoring.ts's to measure; here only that the answer is right.
  it('5,000 tool spans against 200 expected calls with regex predicates', async () => {
    const made: PlainCall[] = Array.from({ length: 5000 }, (_, i) => ({ name: `tool${i % 50}`, args: { q: `query ${i}`, n: i } }));
    const expected = Array.from({ length: 200 }, (_, i) => ({ name: `tool${i % 50}`, where: { q: { regex: `^query ${i}$` } } }));
    const tree = plainTree(made);
    const d = await scoreTree(toolCallsScorer, tree, { calls: expected, mode: 'superset' });
    expect(d.score).toBe(1);
  });
});
