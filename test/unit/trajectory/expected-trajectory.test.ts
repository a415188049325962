import { beforeAll, describe, expect, it } from 'vitest';
import { ExpectedSchema } from '../../../core/model/eval-case.js';
import { CreateRunSchema } from '../../../core/model/eval-run.js';
import { trajectoryOf } from '../../../core/model/expected-trajectory.js';
import { parseSuiteDefinition } from '../../../core/model/suite.js';
import { parseSuiteYaml } from '../../../core/model/suite-yaml.js';
import { validate } from '../../../core/validate.js';
import { defaultScorerRegistry } from '../../../core/scoring/index.js';
import { stepsScorer } from '../../../core/scoring/trajectory/steps.js';
import { toolCallsScorer } from '../../../core/scoring/trajectory/tool-calls.js';
import type { SpanTree } from '../../../core/scoring/trajectory/span-tree.js';
import { validationIssues } from '../../helpers/thrown.js';
import { scoreTree } from './score.js';
import { agentTree, useOtlpReceiver, type AgentStep } from './traces.js';

// `expected.trajectory` (core/model/expected-trajectory.ts): what a case expects of the agent's
// trajectory, checked when a suite or run is created and read by toolCalls and steps where their
// config does not say. The traces are recorded by the real OpenTelemetry SDK and normalized.

const scorers = defaultScorerRegistry();

const TRIP_YAML = `name: trip-planner
agent: planner
scorers:
  - toolCalls
  - name: steps
    config: {overBudget: zero}
cases:
  - name: lisbon to kyoto
    input: {question: "Plan 4 days in Kyoto from Lisbon, flying 14 March"}
    expected:
      outputContains: [Kyoto]
      trajectory:
        mode: strict
        argsMatch: subset
        calls:
          - name: search_flights
            args: {from: LIS, to: KIX}
          - name: get_weather
            where:
              city: {regex: '^ky', flags: i}
              days: {near: 4, tolerance: 1}
        forbidden: [cancel_booking]
        budget: {maxLlmCalls: 3, maxToolCalls: 4, maxTokens: 5000, maxWallMs: 60000}
`;

const TRIP_JSON = {
  name: 'trip-planner',
  agent_id: 'planner',
  defaultScorers: ['toolCalls', { name: 'steps', config: { overBudget: 'zero' } }],
  cases: [
    {
      name: 'lisbon to kyoto',
      input: { question: 'Plan 4 days in Kyoto from Lisbon, flying 14 March' },
      expected: {
        outputContains: ['Kyoto'],
        trajectory: {
          mode: 'strict',
          argsMatch: 'subset',
          calls: [
            { name: 'search_flights', args: { from: 'LIS', to: 'KIX' } },
            { name: 'get_weather', where: { city: { regex: '^ky', flags: 'i' }, days: { near: 4, tolerance: 1 } } },
          ],
          forbidden: ['cancel_booking'],
          budget: { maxLlmCalls: 3, maxToolCalls: 4, maxTokens: 5000, maxWallMs: 60000 },
        },
      },
    },
  ],
};

describe('expected.trajectory in suites and runs', () => {
  it('reads the same from YAML and JSON, and is stored as checked', () => {
    const fromYaml = parseSuiteDefinition(parseSuiteYaml(TRIP_YAML), scorers);
    const fromJson = parseSuiteDefinition(TRIP_JSON, scorers);
    expect(fromYaml).toEqual(fromJson);
    expect(fromYaml.cases[0].expected.trajectory).toEqual(TRIP_JSON.cases[0].expected.trajectory);
    // A bare tool name is a call of that tool with any arguments; a scalar predicate is `equals`.
    const short = ExpectedSchema.parse({ trajectory: { calls: ['get_weather', { name: 'book', where: { nights: 3 } }] } });
    expect(short.trajectory!.calls).toEqual([{ name: 'get_weather' }, { name: 'book', where: { nights: { equals: 3 } } }]);
    // What is stored reads back the same (a run's cases come back from PostgreSQL as JSON).
    expect(trajectoryOf(JSON.parse(JSON.stringify(fromYaml.cases[0].expected)) as { trajectory?: unknown })).toEqual(fromYaml.cases[0].expected.trajectory);
  });

  it('refuses bad values with a 422 naming the field', () => {
    const withTrajectory = (trajectory: unknown) => ({ ...TRIP_JSON, cases: [{ ...TRIP_JSON.cases[0], expected: { trajectory } }] });
    const issues = (trajectory: unknown) => validationIssues(() => parseSuiteDefinition(withTrajectory(trajectory), scorers));
    expect(issues({ mode: 'exactly' })).toEqual([
      { field: 'cases[0].expected.trajectory.mode', message: 'must be one of: strict, unordered, subset, superset' },
    ]);
    expect(issues({ calls: [{ name: '' }] })[0].field).toBe('cases[0].expected.trajectory.calls[0].name');
    expect(issues({ calls: [{ name: 'get_weather', arguments: { city: 'Kyoto' } }] })[0]).toMatchObject({
      field: 'cases[0].expected.trajectory.calls[0]',
      message: expect.stringContaining('arguments') as string,
    });
    const regex = issues({ calls: [{ name: 'get_weather', where: { city: { regex: '(?<=x)y' } } }] })[0];
    expect(regex.field).toBe('cases[0].expected.trajectory.calls[0].where.city.regex');
    expect(regex.message).toContain('lookbehind is not supported');
    expect(issues({ budget: { maxToolCalls: -1 } })[0].field).toBe('cases[0].expected.trajectory.budget.maxToolCalls');
    expect(issues({ budget: { maxCostUsd: 'cheap' } })[0].field).toBe('cases[0].expected.trajectory.budget.maxCostUsd');
    // A misspelt key is refused, not ignored.
    expect(issues({ budgets: { maxToolCalls: 3 } })[0]).toMatchObject({
      field: 'cases[0].expected.trajectory',
      message: expect.stringContaining('budgets') as string,
    });
    expect(issues({ forbidden: 'cancel_booking' })[0].field).toBe('cases[0].expected.trajectory.forbidden');
    // The run API's inline datasets: the same check, under dataset.items.
    const run = validationIssues(() =>
      validate(CreateRunSchema, {
        agentId: 'planner',
        scorers: ['toolCalls'],
        dataset: { items: [{ input: 'x', expected: { trajectory: { argsMatch: 'fuzzy' } } }] },
      }),
    );
    expect(run).toEqual([{ field: 'dataset.items[0].expected.trajectory.argsMatch', message: 'must be one of: exact, subset, ignore' }]);
  });

  it('a stored trajectory that no longer reads is a scorer error naming the field', () => {
    expect(() => trajectoryOf({ trajectory: { mode: 'loose' } })).toThrow(/^expected\.trajectory\.mode: /);
    expect(trajectoryOf({})).toBeUndefined();
  });
});

const receiver = useOtlpReceiver();
let trip: SpanTree;
const TRIP: AgentStep[] = [
  { llm: 'plan the trip' },
  { tool: 'search_flights', args: { from: 'LIS', to: 'KIX', pax: 2, dates: { out: '2026-03-14' } }, result: '{"offers":3}' },
  { tool: 'get_weather', args: { city: 'Kyoto', days: 4 }, result: '{"temp":14}' },
  { llm: 'write the answer', inputTokens: 1200, outputTokens: 400 },
];
const CASE = TRIP_JSON.cases[0].expected;

beforeAll(async () => {
  trip = await agentTree(receiver, TRIP);
});

describe('toolCalls reads expected.trajectory', () => {
  it('takes the calls, mode and argsMatch of the case when its config does not say', async () => {
    const d = await scoreTree(toolCallsScorer, trip, {}, { expected: CASE });
    expect(d).toMatchObject({ score: 1, reason: 'strict: the 2 calls expected were made in order, and no other' });
    // The order planted wrong: strict fails naming the first call; the case's own `unordered` passes.
    const swapped = { ...CASE, trajectory: { ...CASE.trajectory, calls: [...CASE.trajectory.calls].reverse() } };
    const strict = await scoreTree(toolCallsScorer, trip, {}, { expected: swapped });
    expect(strict.score).toBe(0.5);
    expect(strict.reason).toBe('strict: call 1 is search_flights, expected get_weather; 1 of 2 line up in order');
    expect((await scoreTree(toolCallsScorer, trip, {}, { expected: { trajectory: { ...swapped.trajectory, mode: 'unordered' } } })).score).toBe(1);
    // The case's argsMatch subset lets the extra arguments through; exact does not.
    const exact = await scoreTree(toolCallsScorer, trip, {}, { expected: { trajectory: { ...CASE.trajectory, argsMatch: 'exact' } } });
    expect(exact.reason).toBe('strict: call 1 (search_flights) differs: argument pax: not expected (got 2); 1 of 2 line up in order');
  });

  it('the config wins field by field; trajectory.calls win over expected.toolCalls', async () => {
    const expected = { toolCalls: ['get_weather'], trajectory: { ...CASE.trajectory, mode: 'superset' as const } };
    // config.mode strict over the case's superset; the case's calls (not expected.toolCalls).
    expect((await scoreTree(toolCallsScorer, trip, { mode: 'strict' }, { expected })).reason).toBe(
      'strict: the 2 calls expected were made in order, and no other',
    );
    // config.calls over the case's.
    const own = await scoreTree(toolCallsScorer, trip, { calls: ['get_weather'] }, { expected });
    expect(own).toMatchObject({ score: 1, reason: 'superset: the 1 call expected was made (and 1 call more, allowed)' });
    // config.argsMatch over the case's subset.
    const exact = await scoreTree(toolCallsScorer, trip, { argsMatch: 'exact' }, { expected });
    expect(exact.reason).toMatch(/^superset: expected call 1 \(search_flights\) was not made; the closest, call 1, differs: argument pax: not expected/);
  });

  it('forbidden tools of the case and of the config add up; forbidden alone is a check of its own', async () => {
    const d = await scoreTree(toolCallsScorer, trip, { forbidden: ['delete_account'] }, { expected: { trajectory: { forbidden: ['get_weather'] } } });
    expect(d).toMatchObject({ score: 0, reason: 'forbidden tool get_weather was called (call 2; 1 forbidden call in all)' });
    expect(d.evidence).toEqual(['calls made: search_flights -> get_weather', 'call 2: get_weather {"city":"Kyoto","days":4}']);
    const clean = await scoreTree(toolCallsScorer, trip, {}, { expected: { trajectory: { forbidden: ['cancel_booking', 'delete_account'] } } });
    expect(clean).toMatchObject({ score: 1, reason: 'no forbidden tool was called (forbidden: cancel_booking, delete_account; no calls expected)' });
    await expect(scoreTree(toolCallsScorer, trip, {}, { expected: { trajectory: { budget: { maxSpans: 3 } } } })).rejects.toThrow(
      'toolCalls needs config.calls, expected.trajectory.calls or expected.toolCalls',
    );
  });
});

describe('steps reads expected.trajectory.budget', () => {
  it('takes each budget the config does not set from the case', async () => {
    const d = await scoreTree(stepsScorer, trip, {}, { expected: CASE });
    expect(d.score).toBe(1);
    expect(d.reason).toMatch(/^within every budget: LLM calls 2 <= 3, tool calls 2 <= 4, tokens 1720 <= 5000, wall time \d+ ms <= 60000 ms$/);
    // A blown budget of the case: the reason says which.
    const tight = await scoreTree(stepsScorer, trip, {}, { expected: { trajectory: { budget: { maxLlmCalls: 1, maxTokens: 860 } } } });
    expect(tight.score).toBe(0.5);
    expect(tight.reason).toBe('over budget: LLM calls 2 > 1, tokens 1720 > 860');
    // The config's key wins over the case's; the case's other keys still count.
    const mixed = await scoreTree(
      stepsScorer,
      trip,
      { maxLlmCalls: 2, overBudget: 'zero' },
      { expected: { trajectory: { budget: { maxLlmCalls: 1, maxToolCalls: 1 } } } },
    );
    expect(mixed).toMatchObject({ score: 0, reason: 'over budget: tool calls 2 > 1 (overBudget: zero)' });
  });

  it('needs a budget in its config or the case', async () => {
    await expect(scoreTree(stepsScorer, trip, {}, { expected: { trajectory: { calls: [] } } })).rejects.toThrow(
      "steps needs at least one budget: config.maxLlmCalls, config.maxToolCalls, config.maxSpans, config.maxTokens, config.maxCostUsd, config.maxWallMs, or the case's expected.trajectory.budget",
    );
  });
});
