import { describe, expect, it } from 'vitest';
import { AppError, BadRequestError, ValidationError } from '../../../core/errors.js';
import { defaultScorerRegistry } from '../../../core/scoring/index.js';
import { normalizeSuiteKeys, parseSuiteDefinition } from '../../../core/model/suite.js';
import { MAX_SUITE_YAML_BYTES, parseSuiteYaml } from '../../../core/model/suite-yaml.js';
import { thrown, validationIssues } from '../../helpers/thrown.js';
import { cpuClock } from '../../helpers/cpu-clock.js';

const scorers = defaultScorerRegistry();

const WEATHER_YAML = `# A suite file as the CLI reads it
name: weather-agent
description: Answers weather questions with the forecast tool
agent: weather-bot
scorers:
  - contains
  - name: latency
    config: {maxMs: 5000}
minScore: 0.8
aggregation: min
cases:
  - name: paris today
    input: {query: "What is the weather in Paris today?"}
    expected:
      toolCalls: [get_forecast]
      outputContains: [Paris]
  - name: refuses stocks
    input: {query: "Which stock should I buy?"}
    expected: {outputContains: ["can't"]}
    scorers: [contains]
    minScore: 0.5
`;

/** The same suite as a JSON body would carry it. */
const WEATHER_JSON = {
  name: 'weather-agent',
  description: 'Answers weather questions with the forecast tool',
  agent_id: 'weather-bot',
  defaultScorers: ['contains', { name: 'latency', config: { maxMs: 5000 } }],
  defaultMinScore: 0.8,
  aggregation: 'min',
  cases: [
    { name: 'paris today', input: { query: 'What is the weather in Paris today?' }, expected: { toolCalls: ['get_forecast'], outputContains: ['Paris'] } },
    { name: 'refuses stocks', input: { query: 'Which stock should I buy?' }, expected: { outputContains: ["can't"] }, scorers: ['contains'], minScore: 0.5 },
  ],
};

describe('parseSuiteYaml', () => {
  it('reads a suite file, mapping the file spellings to the definition', () => {
    const def = parseSuiteDefinition(parseSuiteYaml(WEATHER_YAML), scorers);
    expect(def).toMatchObject({
      name: 'weather-agent',
      agent_id: 'weather-bot',
      defaultScorers: [
        { name: 'contains', config: {} },
        { name: 'latency', config: { maxMs: 5000 } },
      ],
      defaultMinScore: 0.8,
      aggregation: 'min',
    });
    expect(def.cases).toHaveLength(2);
    expect(def.cases[0]).toEqual({
      name: 'paris today',
      input: { query: 'What is the weather in Paris today?' },
      expected: { toolCalls: ['get_forecast'], outputContains: ['Paris'] },
      weight: 1,
    });
    expect(def.cases[1].scorers).toEqual([{ name: 'contains', config: {} }]);
  });

  it('gives the same definition as the equivalent JSON body', () => {
    const fromYaml = parseSuiteDefinition(parseSuiteYaml(WEATHER_YAML), scorers);
    const fromJson = parseSuiteDefinition(normalizeSuiteKeys(JSON.parse(JSON.stringify(WEATHER_JSON))), scorers);
    expect(fromYaml).toEqual(fromJson);
    // YAML is a superset of JSON: the JSON text parses as a suite file too.
    expect(parseSuiteDefinition(parseSuiteYaml(JSON.stringify(WEATHER_JSON)), scorers)).toEqual(fromJson);
  });

  it('accepts every alias and refuses a key given twice under two spellings', () => {
    const parsed = parseSuiteYaml('name: a\nagentId: x\ndefaultScorers: [contains]\ndefaultMinScore: 0.5\ncases: []\n');
    expect(parsed).toEqual({ name: 'a', agent_id: 'x', defaultScorers: ['contains'], defaultMinScore: 0.5, cases: [] });
    const err = thrown(() => parseSuiteYaml('name: a\nscorers: [contains]\ndefaultScorers: [regex]\ncases: []\n'));
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([{ field: 'defaultScorers', message: 'give either scorers or defaultScorers, not both' }]);
  });

  it('names the line and column of a syntax error', () => {
    const err = thrown(() => parseSuiteYaml('name: x\ncases:\n  - name: a\n   input: 1\n'));
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as Error).message).toMatch(/^Invalid suite file: .+ at line 4, column \d+/);
  });

  it('refuses duplicate keys, naming the line', () => {
    expect((thrown(() => parseSuiteYaml('name: x\ncases:\n  - name: a\n    name: b\n')) as Error).message).toBe(
      "Invalid suite file: duplicate key 'name' at line 4, column 5",
    );
  });

  it('refuses a billion-laughs file (aliases expanding exponentially)', () => {
    const bomb = [
      'name: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
      'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
      'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
      'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
      'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
      'f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]',
      'cases: [*f]',
    ].join('\n');
    const err = thrown(() => parseSuiteYaml(bomb));
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as Error).message).toMatch(/^Invalid suite file: aliases expand more than 100 times/);
  });

  it('allows a few aliases for shared blocks', () => {
    const text =
      'name: s\nscorers: [contains]\ncommon: &common {outputContains: [ok]}\ncases:\n  - {name: a, input: 1, expected: *common}\n  - {name: b, input: 2, expected: *common}\n';
    const parsed = parseSuiteYaml(text) as { cases: Array<{ expected: unknown }> };
    expect(parsed.cases[1].expected).toEqual({ outputContains: ['ok'] });
  });

  it('refuses custom tags, directives and non-string keys', () => {
    expect((thrown(() => parseSuiteYaml('name: !!js/function "x"\n')) as Error).message).toMatch(
      /^Invalid suite file: tag !!js\/function is not supported at line 1/,
    );
    expect((thrown(() => parseSuiteYaml('name: !!binary aGk=\n')) as Error).message).toMatch(/tag !!binary is not supported/);
    expect((thrown(() => parseSuiteYaml('%TAG !e! tag:example.com,2000:\n---\nname: x\n')) as Error).message).toMatch(/directive %TAG/);
    expect((thrown(() => parseSuiteYaml('? [a, b]\n: 1\n')) as Error).message).toMatch(/^Invalid suite file: .*keys must be strings/);
    // Core tags still work.
    expect(parseSuiteYaml('name: !!str 123\n')).toEqual({ name: '123' });
  });

  it('refuses hostile nesting quickly, without exhausting the heap', () => {
    const started = cpuClock();
    for (const text of [
      '['.repeat(1_000_000),
      '{a: '.repeat(500_000),
      '- '.repeat(1_000_000) + 'x',
      '? '.repeat(1_000_000) + 'x',
      '&a '.repeat(1_000_000) + 'x',
    ]) {
      const err = thrown(() => parseSuiteYaml(text));
      expect(err).toBeInstanceOf(BadRequestError);
      expect((err as Error).message).toMatch(/^Invalid suite file: (nested more than 64 levels|more than 1000 anchors)/);
    }
    expect(started.ms()).toBeLessThan(5_000);
  });

  it('parses a mapping with many keys in linear time (no pairwise duplicate check)', () => {
    const text = 'name: x\ncases: []\nextra:\n' + Array.from({ length: 50_000 }, (_, i) => `  k${i}: 1\n`).join('');
    const started = cpuClock();
    expect(Object.keys((parseSuiteYaml(text) as { extra: object }).extra)).toHaveLength(50_000);
    expect(started.ms()).toBeLessThan(5_000);
  });

  it('refuses a file over the size cap with 413, and a top level that is not a mapping', () => {
    const err = thrown(() => parseSuiteYaml(`name: x\ndescription: ${'y'.repeat(MAX_SUITE_YAML_BYTES)}\n`));
    expect(err).toBeInstanceOf(AppError);
    expect(err.status).toBe(413);
    expect((thrown(() => parseSuiteYaml('- a\n- b\n')) as Error).message).toMatch(/^Invalid suite file: the top level must be a mapping/);
  });

  it('gives undefined for an empty file, so the definition says name is required', () => {
    expect(parseSuiteYaml('# nothing here\n')).toBeUndefined();
    const err = thrown(() => parseSuiteDefinition(parseSuiteYaml(''), scorers));
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as Error).message).toBe('name is required');
  });

  it('refuses values PostgreSQL jsonb cannot hold: .inf, .nan, NUL', () => {
    const err = thrown(() =>
      parseSuiteDefinition(parseSuiteYaml('name: x\nscorers: [contains]\ncases:\n  - {name: a, input: .inf}\n  - {name: b, input: "\\0"}\n'), scorers),
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([
      { field: 'cases[0].input', message: 'must be a finite number' },
      { field: 'cases[1].input', message: 'must not contain the NUL character (U+0000)' },
    ]);
  });
});

describe('parseSuiteDefinition', () => {
  const base = { name: 's', defaultScorers: ['contains'], cases: [{ name: 'a', input: 'hi', expected: { outputContains: ['hi'] } }] };

  const issues = (body: unknown) => validationIssues(() => parseSuiteDefinition(body, scorers));

  it('fills defaults', () => {
    expect(parseSuiteDefinition({ name: 's', cases: [{ name: 'a', input: 1, scorers: ['exactMatch'] }] }, scorers)).toEqual({
      name: 's',
      defaultScorers: [],
      defaultMinScore: 0.7,
      aggregation: 'mean',
      cases: [{ name: 'a', input: 1, expected: {}, scorers: [{ name: 'exactMatch', config: {} }], weight: 1 }],
    });
  });

  it('answers a missing name with the SPEC 400', () => {
    for (const body of [undefined, null, [], 'x', {}, { name: '' }, { name: '   ' }, { name: null, cases: [] }]) {
      const err = thrown(() => parseSuiteDefinition(body, scorers));
      expect(err).toBeInstanceOf(BadRequestError);
      expect((err as Error).message).toBe('name is required');
    }
  });

  it('names duplicate case names, cases without scorers and scorers the registry refuses', () => {
    expect(issues({ ...base, cases: [...base.cases, { name: 'b', input: 1 }, { name: 'a', input: 2 }] })).toEqual([
      { field: 'cases[2].name', message: "case names must be unique in a suite: 'a' is also cases[0].name" },
    ]);
    expect(
      issues({
        name: 's',
        cases: [
          { name: 'a', input: 1 },
          { name: 'b', input: 1, scorers: [] },
        ],
      }),
    ).toEqual([
      { field: 'cases[0].scorers', message: 'a case needs at least one scorer: list scorers here or in the suite defaultScorers' },
      { field: 'cases[1].scorers', message: 'must not be empty: omit it to use the suite defaultScorers' },
    ]);
    const found = issues({
      ...base,
      defaultScorers: ['contains', 'nosuch'],
      cases: [{ name: 'a', input: 1, scorers: ['contains', { name: 'latency', config: { maxMs: -1 } }] }],
    });
    expect(found.map((i) => i.field)).toEqual(['defaultScorers[1]', 'cases[0].scorers[1]']);
    expect(found[0].message).toMatch(/unknown scorer 'nosuch'/);
    expect(found[1].message).toMatch(/latency.*maxMs/);
  });

  it('refuses unknown top-level keys, no cases, bad bounds, and lone surrogates anywhere', () => {
    expect(issues({ ...base, defaultScorer: ['contains'] })[0].message).toMatch(/defaultScorer/);
    expect(issues({ ...base, cases: [] })).toEqual([{ field: 'cases', message: 'a suite needs at least one case' }]);
    expect(issues({ ...base, defaultMinScore: 2, aggregation: 'median' }).map((i) => i.field)).toEqual(['defaultMinScore', 'aggregation']);
    expect(issues({ ...base, name: 'bad \ud800 name' })).toEqual([{ field: 'name', message: 'must be well-formed Unicode (no unpaired surrogates)' }]);
    expect(issues({ ...base, cases: [{ name: 'a', input: { ['k\udc00']: 1 } }] })[0].field).toBe('cases[0].input.k\udc00');
  });

  it('bounds the number of problems reported', () => {
    const cases = Array.from({ length: 1000 }, (_, i) => ({ name: `c${i}`, input: 1 }));
    const found = issues({ name: 's', cases });
    expect(found).toHaveLength(101);
    expect(found[100].message).toBe('900 more problems not shown');
  });

  it('refuses nesting deeper than 64 levels without overflowing the stack', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(issues({ ...base, cases: [{ name: 'a', input: deep }] })[0].message).toMatch(/nested more than 64 levels/);
  });
});
